// Inputs of a cluster that live in other objects and that the records do not read themselves:
// the cluster mirror-registry ConfigMap, the ignition-endpoint CA Secret, the user manifests'
// content and the infra-envs of the cluster's hosts (kubeapi.md §3.1.2 step 9, §3.1.3).

import type { AgentClusterInstall } from '../../api/index.ts';
import type { ClusterManifest } from '../../core/artifacts/index.ts';
import type { InstallConfigInfraEnv, MirrorRegistryConfig } from '../../core/installconfig/index.ts';
import { parseRegistriesConf } from '../../core/installconfig/index.ts';
import type { Cluster } from '../../core/model.ts';
import type { OperatorContext } from '../../records/context.ts';
import { manifestsConfigMapNames, manifestsFromConfigMaps } from '../../records/index.ts';
import { readConfigMap, readSecret } from '../../records/referenced.ts';

const REGISTRIES_CONF_KEY = 'registries.conf';
const CA_BUNDLE_KEY = 'ca-bundle.crt';

/**
 * The ACI's mirror registry (spec.mirrorRegistryRef), or the input error upstream reports. An
 * absent reference, or a ConfigMap whose two keys are both empty, means no mirror.
 */
export async function readClusterMirror(
  ctx: OperatorContext,
  aci: AgentClusterInstall,
): Promise<{ mirror?: MirrorRegistryConfig; error?: string }> {
  const ref = aci.spec.mirrorRegistryRef;
  if (!ref?.name) return {};
  const ns = ref.namespace || aci.metadata.namespace || '';
  const data = await readConfigMap(ctx, ns, ref.name);
  if (!data) return { error: `Failed to get referenced ConfigMap: ConfigMap "${ref.name}" not found` };
  if (!(REGISTRIES_CONF_KEY in data)) {
    return { error: `ConfigMap ${ns}/${ref.name} does not contain ${REGISTRIES_CONF_KEY} key` };
  }
  const registriesConf = data[REGISTRIES_CONF_KEY] ?? '';
  const caBundle = data[CA_BUNDLE_KEY] ?? '';
  if (registriesConf.trim() === '' && caBundle.trim() === '') return {};
  try {
    const sources = parseRegistriesConf(registriesConf);
    return { mirror: { registriesConf, sources, ...(caBundle ? { caBundle } : {}) } };
  } catch (err) {
    return {
      error: `failed to parse ${REGISTRIES_CONF_KEY} of ConfigMap ${ns}/${ref.name}: ${(err as Error).message}`,
    };
  }
}

/** PEM of the ignition endpoint CA (`tls.crt` of the referenced Secret), if any. */
export async function readIgnitionEndpointCa(
  ctx: OperatorContext,
  aci: AgentClusterInstall,
): Promise<string | undefined> {
  const ref = aci.spec.ignitionEndpoint?.caCertificateReference;
  if (!ref?.name) return undefined;
  const data = await readSecret(ctx, ref.namespace || aci.metadata.namespace || '', ref.name);
  return data?.['tls.crt'];
}

/** The user manifests (folder "openshift"), or the same error the records report. */
export async function readCustomManifests(
  ctx: OperatorContext,
  aci: AgentClusterInstall,
): Promise<{ manifests: ClusterManifest[] } | { error: string }> {
  const configMaps = [];
  for (const name of manifestsConfigMapNames(aci)) {
    const data = await readConfigMap(ctx, aci.metadata.namespace ?? '', name);
    if (data) configMaps.push({ name, data });
  }
  const result = manifestsFromConfigMaps(aci, configMaps);
  if ('error' in result) return result;
  return {
    manifests: Object.keys(result.manifests)
      .sort()
      .map((fileName) => ({ folder: 'openshift', fileName, content: result.manifests[fileName] ?? '' })),
  };
}

/** The infra-envs of the cluster's hosts, for NTP fallback and trust bundles, in id order. */
export function clusterInfraEnvs(ctx: OperatorContext, cluster: Cluster): InstallConfigInfraEnv[] {
  const ids = [...new Set(cluster.hosts.map((h) => h.infra_env_id).filter((id) => id !== ''))].sort();
  const out: InstallConfigInfraEnv[] = [];
  for (const id of ids) {
    const ie = ctx.infraEnvById(id);
    if (!ie) continue;
    const entry: InstallConfigInfraEnv = { id };
    const ntp = ie.spec.additionalNTPSources?.join(',');
    if (ntp) entry.additional_ntp_sources = ntp;
    if (ie.spec.additionalTrustBundle) entry.additional_trust_bundle = ie.spec.additionalTrustBundle;
    out.push(entry);
  }
  return out;
}
