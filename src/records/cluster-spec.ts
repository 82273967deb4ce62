// AgentClusterInstall spec → cluster record fields (kubeapi.md §1.4, §3.1.3, §3.1.4): networks,
// platform and user-managed networking, hyperthreading, disk encryption, proxy, manifests.

import type {
  AgentClusterInstall,
  AgentClusterInstallSpec,
  PlatformType as ApiPlatformType,
} from '../api/index.ts';
import type { Cluster, ClusterNetwork, PlatformType } from '../core/model.ts';
import { isIPv6 } from '../core/network/cidr.ts';
import { DEFAULT_CLUSTER_NETWORK, DEFAULT_SERVICE_NETWORK_CIDR } from '../core/network/topology.ts';
import { baseVersionAtLeast } from '../core/version.ts';

const PLATFORM_TO_CORE: Record<string, PlatformType> = {
  BareMetal: 'baremetal',
  None: 'none',
  VSphere: 'vsphere',
  Nutanix: 'nutanix',
  External: 'external',
};
const PLATFORM_TO_API: Record<PlatformType, ApiPlatformType> = {
  baremetal: 'BareMetal',
  none: 'None',
  vsphere: 'VSphere',
  nutanix: 'Nutanix',
  external: 'External',
};

/** ACI platformType → core platform; "" (let the backend decide) → undefined. */
export function corePlatform(platformType: string | undefined): PlatformType | undefined {
  return platformType ? PLATFORM_TO_CORE[platformType] : undefined;
}

/** Core platform → ACI `status.platformType`. */
export function apiPlatform(platform: PlatformType): ApiPlatformType {
  return PLATFORM_TO_API[platform];
}

export interface ProvisionCounts {
  controlPlane: number;
  workers: number;
  arbiters: number;
}

export function provisionCounts(spec: AgentClusterInstallSpec): ProvisionCounts {
  const p = spec.provisionRequirements;
  return { controlPlane: p.controlPlaneAgents, workers: p.workerAgents ?? 0, arbiters: p.arbiterAgents ?? 0 };
}

/** SNO: one control-plane agent and no workers. */
export function isSingleNodeRequest(counts: ProvisionCounts): boolean {
  return counts.controlPlane === 1 && counts.workers === 0;
}

/** What the controller sends: the spec value true, or SNO. */
export function effectiveUserManagedNetworking(spec: AgentClusterInstallSpec): boolean {
  return spec.networking.userManagedNetworking === true || isSingleNodeRequest(provisionCounts(spec));
}

export function clusterNetworks(spec: AgentClusterInstallSpec): ClusterNetwork[] {
  const given = spec.networking.clusterNetwork ?? [];
  if (given.length === 0) return [{ ...DEFAULT_CLUSTER_NETWORK }];
  return given.map((n) => ({ cidr: n.cidr, host_prefix: n.hostPrefix ?? 0 }));
}

export function serviceNetworks(spec: AgentClusterInstallSpec): { cidr: string }[] {
  const given = spec.networking.serviceNetwork ?? [];
  return given.length === 0 ? [{ cidr: DEFAULT_SERVICE_NETWORK_CIDR }] : given.map((cidr) => ({ cidr }));
}

/** The spec's VIPs: the plural list wins, else the deprecated single value. */
export function specVips(spec: AgentClusterInstallSpec): { api: string[]; ingress: string[] } {
  const api = spec.apiVIPs?.length ? [...spec.apiVIPs] : spec.apiVIP ? [spec.apiVIP] : [];
  const ingress = spec.ingressVIPs?.length ? [...spec.ingressVIPs] : spec.ingressVIP ? [spec.ingressVIP] : [];
  return { api, ingress };
}

/**
 * The controller's network type choice when the spec has none: OVNKubernetes from 4.12, for any
 * IPv6 network, or for SNO; otherwise OpenShiftSDN.
 */
export function autoNetworkType(spec: AgentClusterInstallSpec, openshiftVersion: string): string {
  const cidrs = [
    ...(spec.networking.clusterNetwork ?? []).map((n) => n.cidr),
    ...(spec.networking.serviceNetwork ?? []),
    ...(spec.networking.machineNetwork ?? []).map((n) => n.cidr),
  ];
  const anyIpv6 = cidrs.some((c) => isIPv6(c));
  const ovn =
    baseVersionAtLeast(openshiftVersion, '4.12.0-0.0') ||
    anyIpv6 ||
    isSingleNodeRequest(provisionCounts(spec));
  return ovn ? 'OVNKubernetes' : 'OpenShiftSDN';
}

/**
 * Hyperthreading: only when a control-plane, arbiter or "worker" compute pool is given, the
 * comma-joined pools with Enabled (masters, arbiters, workers) or "none"; otherwise "all".
 */
export function hyperthreading(spec: AgentClusterInstallSpec): string {
  const worker = spec.compute?.find((p) => p.name === 'worker');
  if (!spec.controlPlane && !spec.arbiter && !worker) return 'all';
  const enabled: string[] = [];
  if (spec.controlPlane?.hyperthreading === 'Enabled') enabled.push('masters');
  if (spec.arbiter?.hyperthreading === 'Enabled') enabled.push('arbiters');
  if (worker?.hyperthreading === 'Enabled') enabled.push('workers');
  return enabled.length > 0 ? enabled.join(',') : 'none';
}

/** Disk encryption when the spec asks for something, with defaults none/tpmv2; else the default. */
export function diskEncryption(spec: AgentClusterInstallSpec): NonNullable<Cluster['disk_encryption']> {
  const d = spec.diskEncryption;
  const requested = !!d && ((d.enableOn && d.enableOn !== 'none') || d.mode === 'tang' || !!d.tangServers);
  if (!requested) return { enable_on: 'none', mode: 'tpmv2' };
  return {
    enable_on: d.enableOn || 'none',
    mode: d.mode || 'tpmv2',
    ...(d.tangServers ? { tang_servers: d.tangServers } : {}),
  };
}

/** Proxy fields; an absent proxy clears all three, as upstream sends "" for each. */
export function proxyFields(
  spec: AgentClusterInstallSpec,
): Pick<Cluster, 'http_proxy' | 'https_proxy' | 'no_proxy'> {
  const out: Pick<Cluster, 'http_proxy' | 'https_proxy' | 'no_proxy'> = {};
  if (spec.proxy?.httpProxy) out.http_proxy = spec.proxy.httpProxy;
  if (spec.proxy?.httpsProxy) out.https_proxy = spec.proxy.httpsProxy;
  if (spec.proxy?.noProxy) out.no_proxy = spec.proxy.noProxy;
  return out;
}

/** A referenced manifests ConfigMap as read by the caller. */
export interface ManifestsConfigMap {
  name: string;
  data?: Record<string, string>;
}

/** Names of the manifests ConfigMaps an ACI uses: the list when given, else the single one. */
export function manifestsConfigMapNames(aci: AgentClusterInstall): string[] {
  if (aci.spec.manifestsConfigMapRefs) return aci.spec.manifestsConfigMapRefs.map((r) => r.name);
  const single = aci.spec.manifestsConfigMapRef?.name;
  return single ? [single] : [];
}

/**
 * The user manifests (file name → content) of the referenced ConfigMaps, or the error upstream
 * reports: a missing ConfigMap (Kubernetes NotFound text) or a file name used twice.
 */
export function manifestsFromConfigMaps(
  aci: AgentClusterInstall,
  configMaps: readonly ManifestsConfigMap[],
): { manifests: Record<string, string> } | { error: string } {
  const manifests: Record<string, string> = {};
  for (const name of manifestsConfigMapNames(aci)) {
    const cm = configMaps.find((c) => c.name === name);
    if (!cm) return { error: `configmaps "${name}" not found` };
    for (const [key, value] of Object.entries(cm.data ?? {})) {
      if (key in manifests) return { error: `Conflict in manifest names ('${key}' is not unique)` };
      manifests[key] = value;
    }
  }
  return { manifests };
}
