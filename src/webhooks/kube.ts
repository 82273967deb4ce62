// Glue between the webhooks and the API: reading ClusterDeployments for the InfraEnv rule, access
// reviews for cross-namespace references, the operator's own identity, and creating or updating the
// webhook configurations.

import {
  CLUSTERDEPLOYMENT_GROUP,
  CLUSTERDEPLOYMENT_KIND,
  CLUSTERDEPLOYMENT_PLURAL,
  CLUSTERDEPLOYMENT_VERSION,
  type ClusterDeployment,
} from '../api/clusterdeployment.ts';
import { isNotFound, type KubeClient } from '../runtime/client.ts';
import type { ApiResource, KubeObject } from '../runtime/types.ts';
import type { AccessDecision, AdmissionDependencies, UserInfo } from './admission.ts';
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

interface SubjectAccessReviewStatus {
  status?: { allowed?: boolean; denied?: boolean; reason?: string; evaluationError?: string };
}

/**
 * A `reviewAccess` dependency: a SubjectAccessReview for the requesting user (groups, uid and extra
 * included, so group-granted and impersonated rights count) through the API. Needs
 * `create subjectaccessreviews.authorization.k8s.io`.
 */
export function accessReviewer(client: KubeClient): NonNullable<AdmissionDependencies['reviewAccess']> {
  return async (user: UserInfo, attributes, signal): Promise<AccessDecision> => {
    const review = await client.request<SubjectAccessReviewStatus>(
      'POST',
      '/apis/authorization.k8s.io/v1/subjectaccessreviews',
      {
        signal,
        body: {
          apiVersion: 'authorization.k8s.io/v1',
          kind: 'SubjectAccessReview',
          spec: {
            user: user.username ?? '',
            ...(user.uid ? { uid: user.uid } : {}),
            groups: user.groups ?? [],
            ...(user.extra ? { extra: user.extra } : {}),
            resourceAttributes: attributes,
          },
        },
      },
    );
    const s = review?.status;
    const reason = s?.reason || s?.evaluationError || undefined;
    return { allowed: s?.allowed === true && s.denied !== true, ...(reason ? { reason } : {}) };
  };
}

/**
 * The user name the API server knows this client as (a SelfSubjectReview, which every
 * authenticated user may create), e.g. `system:serviceaccount:<ns>:<name>` in a pod.
 */
export async function selfUserName(client: KubeClient): Promise<string> {
  const review = await client.request<{ status?: { userInfo?: { username?: string } } }>(
    'POST',
    '/apis/authentication.k8s.io/v1/selfsubjectreviews',
    { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } },
  );
  const name = review?.status?.userInfo?.username;
  if (!name) throw new Error('SelfSubjectReview returned no user name');
  return name;
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
