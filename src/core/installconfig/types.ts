// The install-config document as the builder fills it. Absent keys mean Go's zero value (or nil for
// slices and pointers); `serialize.ts` turns this into the ordered document using `schema.ts`.

import type { InfraEnv } from '../model.ts';

export interface MachinePool {
  hyperthreading?: string;
  name: string;
  replicas: number;
}

export interface FencingCredential {
  hostname?: string;
  macAddress?: string;
  address: string;
  username: string;
  password: string;
  certificateVerification?: string | null;
}

export interface BareMetalHost {
  name: string;
  role: string;
  bootMACAddress: string;
  bootMode: string;
  bmc: { username: string; password: string; address: string; disableCertificateVerification: boolean };
  hardwareProfile: string;
}

export interface BareMetalPlatform {
  provisioningNetwork: string;
  apiVIPs?: string[];
  apiVIP?: string;
  ingressVIPs?: string[];
  ingressVIP?: string;
  hosts: BareMetalHost[] | null;
  additionalNTPServers?: string[];
  loadBalancer?: { type: string } | null;
  [key: string]: unknown;
}

export interface VspherePlatform {
  vCenter?: string;
  username?: string;
  password?: string;
  datacenter?: string;
  defaultDatastore?: string;
  network?: string;
  cluster?: string;
  apiVIP?: string;
  ingressVIP?: string;
  ingressVIPs?: string[];
  apiVIPs?: string[];
  failureDomains?: {
    name: string;
    region: string;
    server: string;
    topology: {
      computeCluster: string;
      datacenter: string;
      datastore: string;
      folder?: string;
      networks?: string[];
      resourcePool?: string;
    };
    zone: string;
  }[];
  vcenters?: { datacenters: string[]; password: string; port?: number; server: string; user: string }[];
  loadBalancer?: { type: string } | null;
}

export interface NutanixPlatform {
  apiVIPs?: string[];
  apiVIP?: string;
  ingressVIPs?: string[];
  ingressVIP?: string;
  prismCentral: { endpoint: { address: string; port: number }; username: string; password: string };
  prismElements: { endpoint: { address: string; port: number }; uuid: string; name: string }[];
  subnetUUIDs: string[];
}

export interface ExternalPlatform {
  PlatformName: string;
  CloudControllerManager: string;
}

export interface InstallConfigPlatform {
  baremetal?: BareMetalPlatform | null;
  none?: Record<string, never> | null;
  vsphere?: VspherePlatform | null;
  nutanix?: NutanixPlatform | null;
  external?: ExternalPlatform | null;
}

export interface ImageSource {
  source: string;
  mirrors?: string[];
}

export interface InstallConfig {
  apiVersion: string;
  baseDomain: string;
  proxy?: { httpProxy?: string; httpsProxy?: string; noProxy?: string } | null;
  networking: {
    networkType: string;
    clusterNetwork: { cidr: string; hostPrefix: number }[] | null;
    machineNetwork?: { cidr: string }[] | null;
    serviceNetwork: string[] | null;
  };
  metadata: { name: string };
  compute: MachinePool[] | null;
  controlPlane: MachinePool & { fencing?: { credentials?: (FencingCredential | null)[] | null } | null };
  arbiter?: MachinePool | null;
  platform: InstallConfigPlatform;
  bootstrapInPlace?: { installationDisk?: string } | null;
  fips: boolean;
  cpuPartitioningMode?: string;
  pullSecret: string;
  sshKey: string;
  additionalTrustBundle?: string;
  additionalTrustBundlePolicy?: string;
  imageContentSources?: ImageSource[] | null;
  imageDigestSources?: ImageSource[] | null;
  capabilities?: { baselineCapabilitySet?: string; additionalEnabledCapabilities?: string[] | null } | null;
  featureSet?: string;
  featureGates?: string[] | null;
  osImageStream?: string;
}

/** One mirrored source: where images are referenced from and where they can also be pulled. */
export interface ImageMirror {
  source: string;
  mirrors: string[];
}

/** A mirror-registry configuration: a registries.conf (v2 TOML) and/or parsed sources, plus its CA. */
export interface MirrorRegistryConfig {
  registriesConf?: string;
  sources?: ImageMirror[];
  caBundle?: string;
}

/** Node-IP allocation for one host (core.md §6.7), computed by the network rules. */
export interface NodeIpAllocation {
  nodeIp: string;
  /** Network address of the chosen network; written as KUBELET_NODEIP_HINT. */
  hintIp: string;
  cidr: string;
}

/** The infra-env facts install-config generation reads. */
export type InstallConfigInfraEnv = Pick<InfraEnv, 'id'> &
  Partial<Pick<InfraEnv, 'additional_ntp_sources' | 'additional_trust_bundle'>> & {
    /** CA bundle of the infra-env's mirror-registry configuration, if any. */
    mirror_ca_bundle?: string;
  };

export interface InstallConfigOptions {
  /** Infra-envs of the cluster's hosts (NTP fallback and trust bundles), in a stable order. */
  infraEnvs?: InstallConfigInfraEnv[];
  /** Red Hat IT root CA; set only when the service runs with INSTALL_RH_CA=true. */
  rhRootCa?: string;
  /** Cluster mirror config wins over the service-wide one for image sources; both add CAs. */
  mirrorRegistries?: { service?: MirrorRegistryConfig; cluster?: MirrorRegistryConfig };
  /** Node-IP allocations by host id (multi-node UMN / user-managed load balancer). */
  nodeIpAllocations?: Record<string, NodeIpAllocation>;
  /** Override the dual-stack-VIPs feature check (default: OpenShift >= 4.12). */
  dualStackVipsSupported?: boolean;
  /** Overrides to apply instead of `cluster.install_config_overrides` (validation of a new patch). */
  overrides?: string;
}

export type InstallConfigFormat = 'yaml' | 'json';
