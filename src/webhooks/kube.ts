// Glue between the webhooks and the API: reading ClusterDeployments for the InfraEnv rule, and
// creating or updating the webhook configurations.

import {
  CLUSTERDEPLOYMENT_GROUP,
  CLUSTERDEPLOYMENT_KIND,
  CLUSTERDEPLOYMENT_PLURAL,
  CLUSTERDEPLOYMENT_VERSION,
  type ClusterDeployment,
} from '../api/clusterdeployment.ts';
import { isNotFound, type KubeClient } from '../runtime/client.ts';
import type { ApiResource, KubeObject } from '../runtime/types.ts';
import type { AdmissionDependencies } from './admission.ts';
import type { WebhookConfiguration } from './config.ts';

export const ValidatingWebhookConfigurationResource: ApiResource = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'ValidatingWebhookConfiguration',
  plural: 'validatingwebhookconfigurations',
  namespaced: false,
};

export const MutatingWebhookConfigurationResource: ApiResource = {
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  kind: 'MutatingWebhookConfiguration',
  plural: 'mutatingwebhookconfigurations',
  namespaced: false,
};

const ClusterDeploymentResource: ApiResource = {
  group: CLUSTERDEPLOYMENT_GROUP,
  version: CLUSTERDEPLOYMENT_VERSION,
  kind: CLUSTERDEPLOYMENT_KIND,
  plural: CLUSTERDEPLOYMENT_PLURAL,
  namespaced: true,
};

export function webhookConfigurationResource(cfg: Pick<WebhookConfiguration, 'kind'>): ApiResource {
  return cfg.kind === 'MutatingWebhookConfiguration'
    ? MutatingWebhookConfigurationResource
    : ValidatingWebhookConfigurationResource;
}

/** A `getClusterDeployment` dependency that reads through the API (404 → undefined). */
export function clusterDeploymentGetter(
  client: KubeClient,
): NonNullable<AdmissionDependencies['getClusterDeployment']> {
  return async (namespace, name, signal) => {
    try {
      return await client.get<ClusterDeployment & KubeObject>(
        ClusterDeploymentResource,
        name,
        namespace,
        signal,
      );
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  };
}

/** Creates each configuration, or replaces it when it exists. */
export async function applyWebhookConfigurations(
  client: KubeClient,
  configs: readonly WebhookConfiguration[],
): Promise<void> {
  for (const cfg of configs) {
    const res = webhookConfigurationResource(cfg);
    const existing = await client.getIfExists<KubeObject>(res, cfg.metadata.name);
    if (!existing) {
      await client.create<KubeObject>(res, cfg as KubeObject);
      continue;
    }
    await client.replace<KubeObject>(res, {
      ...cfg,
      metadata: { ...cfg.metadata, resourceVersion: existing.metadata.resourceVersion },
    } as KubeObject);
  }
}

/** Deletes the configurations (missing ones are ignored). */
export async function deleteWebhookConfigurations(
  client: KubeClient,
  configs: readonly WebhookConfiguration[],
): Promise<void> {
  for (const cfg of configs) {
    try {
      await client.delete(webhookConfigurationResource(cfg), cfg.metadata.name);
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
}
