// Topology predicates and registration defaults (core.md §6.1). Messages the spec quotes are
// verbatim; the control-plane-count messages are not in the spec and are written here (marked).

import type { Cluster, ClusterNetwork, PlatformType } from '../model.ts';
import { baseVersionAtLeast } from '../version.ts';

export const DEFAULT_CLUSTER_NETWORK: ClusterNetwork = { cidr: '10.128.0.0/14', host_prefix: 23 };
export const DEFAULT_SERVICE_NETWORK_CIDR = '172.30.0.0/16';
/** Configured but never filled at registration upstream (TODO there for IPv6-primary dual stack). */
export const DEFAULT_IPV6_CLUSTER_NETWORK: ClusterNetwork = { cidr: 'fd01::/48', host_prefix: 64 };
export const DEFAULT_IPV6_SERVICE_NETWORK_CIDR = 'fd02::/112';

export const NETWORK_TYPES = [
  'OpenShiftSDN',
  'OVNKubernetes',
  'Cilium',
  'Calico',
  'CiscoACI',
  'None',
] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];

type TopologyFields = Pick<Cluster, 'control_plane_count' | 'user_managed_networking'> &
  Partial<Pick<Cluster, 'load_balancer' | 'vip_dhcp_allocation' | 'kind'>>;

export function isSingleNode(c: Pick<Cluster, 'control_plane_count'>): boolean {
  return c.control_plane_count === 1;
}

export function isUserManagedLoadBalancer(c: Partial<Pick<Cluster, 'load_balancer'>>): boolean {
  return c.load_balancer?.type === 'user-managed';
}

export function isVipDhcp(c: Partial<Pick<Cluster, 'vip_dhcp_allocation'>>): boolean {
  return c.vip_dhcp_allocation === true;
}

export function isDay2(c: Partial<Pick<Cluster, 'kind'>>): boolean {
  return c.kind === 'AddHostsCluster';
}

/** "Machine network required" = NOT UMN OR SNO. */
export function isMachineNetworkRequired(c: TopologyFields): boolean {
  return !c.user_managed_networking || isSingleNode(c);
}

/** "Multi-node none-platform" = NOT SNO AND UMN. */
export function isMultiNodeUserManagedNetworking(c: TopologyFields): boolean {
  return !isSingleNode(c) && c.user_managed_networking;
}

/** Network type default: keep a given one; OVNKubernetes from 4.12 (or SNO); else OpenShiftSDN. */
export function defaultNetworkType(openshiftVersion: string, singleNode: boolean, given?: string): string {
  if (given) return given;
  if (singleNode || baseVersionAtLeast(openshiftVersion, '4.12.0-0.0')) return 'OVNKubernetes';
  return 'OpenShiftSDN';
}

/** OpenShiftSDN is only offered before 4.15. */
export function isNetworkTypeOffered(networkType: string, openshiftVersion: string): boolean {
  if (networkType === 'OpenShiftSDN') return !baseVersionAtLeast(openshiftVersion, '4.15');
  return (NETWORK_TYPES as readonly string[]).includes(networkType);
}

export interface ControlPlaneInput {
  high_availability_mode?: 'Full' | 'None';
  control_plane_count?: number;
}

export interface ControlPlaneFeatures {
  /** Two-node-with-arbiter support enabled in the service. */
  arbiter?: boolean;
  /** Two-node-with-fencing support enabled in the service. */
  fencing?: boolean;
}

export type ControlPlaneResult =
  | { mode: 'Full' | 'None'; count: number; error?: undefined }
  | { error: string; mode?: undefined; count?: undefined };

/**
 * HA mode / control-plane count: neither → Full/3; only HA None → 1; only count 1 → None; other
 * count → Full. HA None requires count 1. Full: < 4.18 exactly 3; ≥ 4.18 3..5, or 2..5 from 4.19
 * when arbiter/fencing support is on. (Error texts here are ours; the spec does not quote them.)
 */
export function resolveControlPlane(
  input: ControlPlaneInput,
  openshiftVersion: string,
  features: ControlPlaneFeatures = {},
): ControlPlaneResult {
  const { high_availability_mode: mode, control_plane_count: count } = input;
  if (mode === undefined && count === undefined) return { mode: 'Full', count: 3 };
  if (count === undefined) return { mode: mode as 'Full' | 'None', count: mode === 'None' ? 1 : 3 };
  const resolved = mode ?? (count === 1 ? 'None' : 'Full');
  if (resolved === 'None') {
    if (count !== 1)
      return { error: `High availability mode 'None' requires a control plane count of 1, got ${count}` };
    return { mode: 'None', count: 1 };
  }
  const twoNodes = baseVersionAtLeast(openshiftVersion, '4.19') && (features.arbiter || features.fencing);
  const min = twoNodes ? 2 : 3;
  const max = baseVersionAtLeast(openshiftVersion, '4.18') ? 5 : 3;
  if (count < min || count > max) {
    const range = min === max ? `${min}` : `between ${min} and ${max}`;
    return {
      error: `The control plane count must be ${range} for OpenShift ${openshiftVersion}, got ${count}`,
    };
  }
  return { mode: 'Full', count };
}

/** Arbiter hosts need 4.19+ on baremetal (or none from 4.22). */
export function isArbiterSupported(openshiftVersion: string, platform: PlatformType): boolean {
  if (!baseVersionAtLeast(openshiftVersion, '4.19')) return false;
  return platform === 'baremetal' || (platform === 'none' && baseVersionAtLeast(openshiftVersion, '4.22'));
}

/** Fencing credentials need 4.20+ on baremetal or none. */
export function isFencingSupported(openshiftVersion: string, platform: PlatformType): boolean {
  return baseVersionAtLeast(openshiftVersion, '4.20') && (platform === 'baremetal' || platform === 'none');
}

/** User-managed load balancer needs 4.16+. */
export function isUserManagedLoadBalancerSupported(openshiftVersion: string): boolean {
  return baseVersionAtLeast(openshiftVersion, '4.16');
}

const CLUSTER_NAME = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const CLUSTER_NAME_DOTTED = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)*$/;

/** Cluster name pattern; platform none also allows dotted sub-domains. */
export function isValidClusterName(name: string, platform: PlatformType | undefined): boolean {
  return (platform === 'none' ? CLUSTER_NAME_DOTTED : CLUSTER_NAME).test(name);
}

/** Service settings behind the registration defaults (env vars upstream). */
export interface RegistrationDefaultsConfig {
  /** CLUSTER_NETWORK_CIDR / CLUSTER_NETWORK_HOST_PREFIX. */
  clusterNetwork?: ClusterNetwork;
  /** SERVICE_NETWORK_CIDR. */
  serviceNetworkCidr?: string;
  /** NTP_DEFAULT_SERVER. */
  defaultNtpServer?: string;
}

export interface RegistrationRequest {
  openshift_version: string;
  control_plane_count: number;
  cluster_networks?: ClusterNetwork[];
  service_networks?: { cidr: string }[];
  machine_networks?: { cidr: string }[];
  network_type?: string;
  vip_dhcp_allocation?: boolean;
  hyperthreading?: string;
  schedulable_masters?: boolean;
  disk_encryption?: { enable_on?: string; mode?: string; tang_servers?: string };
  additional_ntp_source?: string;
  /** Newer API field; mutually exclusive with additional_ntp_source. */
  ntp_sources?: string;
}

export type RegistrationDefaults =
  | {
      cluster_networks: ClusterNetwork[];
      service_networks: { cidr: string }[];
      machine_networks: { cidr: string }[];
      network_type: string;
      vip_dhcp_allocation: boolean;
      hyperthreading: string;
      schedulable_masters: boolean;
      disk_encryption: { enable_on: string; mode: string; tang_servers?: string };
      additional_ntp_source: string;
      error?: undefined;
    }
  | { error: string };

/**
 * Defaults filled at registration (core.md §6.1). Only the IPv4 network defaults are applied, as
 * upstream does (its IPv6 defaults exist in configuration but are never used here).
 */
export function registrationDefaults(
  req: RegistrationRequest,
  config: RegistrationDefaultsConfig = {},
): RegistrationDefaults {
  if (req.additional_ntp_source && req.ntp_sources) {
    // Message not quoted by the spec.
    return { error: 'additional_ntp_source and ntp_sources cannot be set together' };
  }
  const clusterNetwork = config.clusterNetwork ?? DEFAULT_CLUSTER_NETWORK;
  return {
    cluster_networks: req.cluster_networks?.length ? req.cluster_networks : [{ ...clusterNetwork }],
    service_networks: req.service_networks?.length
      ? req.service_networks
      : [{ cidr: config.serviceNetworkCidr ?? DEFAULT_SERVICE_NETWORK_CIDR }],
    machine_networks: req.machine_networks ?? [],
    network_type: defaultNetworkType(req.openshift_version, req.control_plane_count === 1, req.network_type),
    vip_dhcp_allocation: req.vip_dhcp_allocation ?? false,
    hyperthreading: req.hyperthreading ?? 'all',
    schedulable_masters: req.schedulable_masters ?? false,
    disk_encryption: { enable_on: 'none', mode: 'tpmv2', ...req.disk_encryption },
    additional_ntp_source:
      req.additional_ntp_source ?? (req.ntp_sources ? '' : (config.defaultNtpServer ?? '')),
  };
}
