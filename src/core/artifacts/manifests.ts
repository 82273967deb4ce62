// The cluster manifests the built-in generator writes in place of `openshift-install create
// manifests`: the handful of cluster-config objects the rest of the flow reads, plus the user's
// custom manifests (core.md §8.4 steps 4–5).

import { parse, stringify } from 'yaml';
import { countByEffectiveRole, isSingleNode, isTwoNodesWithFencing } from '../installconfig/index.ts';
import type { Cluster } from '../model.ts';
import type { ClusterManifest } from './host-ignition.ts';
import { INFRASTRUCTURE_MANIFEST, patchInfrastructureTopology } from './postprocess.ts';

const yaml = (value: unknown) => stringify(value, { lineWidth: 0, indentSeq: false });

/** Control-plane topology as openshift-install derives it. */
export function controlPlaneTopology(cluster: Cluster): string {
  if (isSingleNode(cluster)) return 'SingleReplica';
  if (countByEffectiveRole(cluster, 'arbiter') > 0) return 'HighlyAvailableArbiter';
  if (isTwoNodesWithFencing(cluster)) return 'DualReplica';
  return 'HighlyAvailable';
}

/** Infrastructure topology: no workers → as the control plane, one → SingleReplica, more → HA. */
export function infrastructureTopology(cluster: Cluster): string {
  const workers = countByEffectiveRole(cluster, 'worker');
  if (workers === 0) return isSingleNode(cluster) ? 'SingleReplica' : 'HighlyAvailable';
  return workers === 1 ? 'SingleReplica' : 'HighlyAvailable';
}

const PLATFORM_STATUS_TYPE: Record<string, string> = {
  baremetal: 'BareMetal',
  none: 'None',
  vsphere: 'VSphere',
  nutanix: 'Nutanix',
  external: 'External',
};

export interface BuiltinManifestInput {
  cluster: Cluster;
  /** The rendered install-config (YAML or JSON). */
  installConfig: string;
  infraId: string;
  customManifests?: ClusterManifest[];
}

/** The built-in manifests followed by the custom ones, each under its folder. */
export function builtinManifests(input: BuiltinManifestInput): ClusterManifest[] {
  const { cluster } = input;
  const platformType = PLATFORM_STATUS_TYPE[cluster.platform.type] ?? 'None';
  const domain = `${cluster.name}.${cluster.base_dns_domain}`;
  const installConfig = parse(input.installConfig) as Record<string, unknown>;
  delete installConfig.pullSecret;
  const networking = (installConfig.networking ?? {}) as {
    networkType?: string;
    clusterNetwork?: unknown[] | null;
    serviceNetwork?: unknown[] | null;
  };

  const infrastructure = yaml({
    apiVersion: 'config.openshift.io/v1',
    kind: 'Infrastructure',
    metadata: { name: 'cluster' },
    spec: { cloudConfig: { name: '' }, platformSpec: { type: platformType } },
    status: {
      apiServerInternalURI: `https://api-int.${domain}:6443`,
      apiServerURL: `https://api.${domain}:6443`,
      controlPlaneTopology: controlPlaneTopology(cluster),
      cpuPartitioning: 'None',
      etcdDiscoveryDomain: '',
      infrastructureName: input.infraId,
      infrastructureTopology: infrastructureTopology(cluster),
      platform: platformType,
      platformStatus: { type: platformType },
    },
  });

  const manifests: ClusterManifest[] = [
    {
      folder: 'manifests',
      fileName: 'cluster-config.yaml',
      content: yaml({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'cluster-config-v1', namespace: 'kube-system' },
        data: { 'install-config': yaml(installConfig) },
      }),
    },
    {
      folder: 'manifests',
      fileName: 'cluster-dns-02-config.yml',
      content: yaml({
        apiVersion: 'config.openshift.io/v1',
        kind: 'DNS',
        metadata: { name: 'cluster' },
        spec: { baseDomain: domain },
      }),
    },
    {
      folder: 'manifests',
      fileName: INFRASTRUCTURE_MANIFEST,
      content: patchInfrastructureTopology(infrastructure, cluster),
    },
    {
      folder: 'manifests',
      fileName: 'cluster-network-02-config.yml',
      content: yaml({
        apiVersion: 'config.openshift.io/v1',
        kind: 'Network',
        metadata: { name: 'cluster' },
        spec: {
          clusterNetwork: networking.clusterNetwork ?? [],
          networkType: networking.networkType ?? '',
          serviceNetwork: networking.serviceNetwork ?? [],
        },
      }),
    },
  ];
  return [...manifests, ...(input.customManifests ?? [])];
}
