// The installer core's records. Field names follow the host-facing REST models (snake_case) so the
// REST API can serialise them unchanged and the spec's rules read the same here as upstream.
// The Kubernetes layer maps CRs to and from these; the core never sees a CR.
//
// Shared by every part of src/core: add optional fields freely, never rename or remove one.

import type { Inventory } from './inventory.ts';
import type { StoredConnectivityReport } from './network/connectivity-report.ts';

// Defined beside their compact form; part of the model.
export type { ConnectivityRemoteHost, ConnectivityReport } from './network/connectivity-report.ts';

export type HostStatus =
  | 'discovering'
  | 'known'
  | 'disconnected'
  | 'insufficient'
  | 'disabled'
  | 'preparing-for-installation'
  | 'preparing-failed'
  | 'preparing-successful'
  | 'pending-for-input'
  | 'installing'
  | 'installing-in-progress'
  | 'installing-pending-user-action'
  | 'resetting-pending-user-action'
  | 'installed'
  | 'error'
  | 'resetting'
  | 'added-to-existing-cluster'
  | 'cancelled'
  | 'binding'
  | 'unbinding'
  | 'unbinding-pending-user-action'
  | 'known-unbound'
  | 'disconnected-unbound'
  | 'insufficient-unbound'
  | 'disabled-unbound'
  | 'discovering-unbound'
  | 'reclaiming'
  | 'reclaiming-rebooting';

export type HostRole = 'auto-assign' | 'master' | 'arbiter' | 'worker' | 'bootstrap';
export type HostKind = 'Host' | 'AddToExistingClusterHost';

export const HOST_STAGES = [
  'Starting installation',
  'Waiting for control plane',
  'Waiting for bootkube',
  'Waiting for controller',
  'Installing',
  'Writing image to disk',
  'Copying registry data to disk',
  'Rebooting',
  'Waiting for ignition',
  'Configuring',
  'Joined',
  'Done',
  'Failed',
] as const;
export type HostStage = (typeof HOST_STAGES)[number];

export interface HostProgressInfo {
  installation_percentage?: number;
  current_stage?: HostStage | '';
  progress_info?: string;
  stage_started_at?: string;
  stage_updated_at?: string;
  stage_timed_out?: boolean;
}

export type ValidationStatus = 'success' | 'failure' | 'pending' | 'error' | 'disabled';

export interface ValidationResult {
  id: string;
  status: ValidationStatus;
  message: string;
}

/** `validations_info`: category → results, as upstream serialises it. */
export type ValidationsInfo = Record<string, ValidationResult[]>;

/**
 * A deep copy of validations (flat results): a few times cheaper than structuredClone, which
 * was ~3 % of a registration wave's CPU copying them into every Agent and cluster status.
 */
export function copyValidations(info: ValidationsInfo): ValidationsInfo {
  const out: ValidationsInfo = {};
  for (const [category, results] of Object.entries(info)) out[category] = results.map((r) => ({ ...r }));
  return out;
}

export type LogsState = 'requested' | 'collecting' | 'completed' | 'timeout' | '';

/** A host as the core sees it (the Agent CR's status is derived from this). Times are ISO strings. */
export interface Host {
  id: string;
  infra_env_id: string;
  cluster_id?: string | null;
  kind: HostKind;
  status: HostStatus;
  status_info: string;
  status_updated_at?: string;
  role: HostRole;
  suggested_role?: HostRole | '';
  bootstrap?: boolean;
  /** Parsed inventory (the wire model carries it as a JSON string). */
  inventory?: Inventory;
  validations_info?: ValidationsInfo;
  progress?: HostProgressInfo;
  progress_stages?: HostStage[] | null;
  /** Kept compact between replies (network/connectivity-report.ts); read it with connectivityReader. */
  connectivity?: StoredConnectivityReport;
  ntp_sources?: NtpSource[];
  domain_name_resolutions?: DomainResolutionResponse;
  images_status?: Record<string, ContainerImageAvailability>;
  disks_info?: Record<string, DiskInfo>;
  api_vip_connectivity?: ApiVipConnectivity;
  free_addresses?: FreeNetworkAddresses[];
  installation_disk_id?: string;
  installation_disk_path?: string;
  requested_hostname?: string;
  machine_config_pool_name?: string;
  ignition_config_overrides?: string;
  installer_args?: string;
  node_labels?: Record<string, string>;
  discovery_agent_version?: string;
  installer_version?: string;
  media_status?: 'connected' | 'disconnected' | null;
  /** Host clock (unix seconds) from the last inventory, for the time-sync validation. */
  timestamp?: number;
  registered_at?: string;
  checked_in_at?: string;
  logs_info?: LogsState;
  logs_started_at?: string;
  logs_collected_at?: string;
  disks_to_be_formatted?: string[];
  skip_formatting_disks?: string;
  fencing_credentials?: string;
  ignition_endpoint_token_set?: boolean;
  /** Raw reply of the tang-connectivity-check step (JSON, or the error text on failure). */
  tang_connectivity?: string;
  created_at?: string;
  updated_at?: string;
  /** Soft-timeout mode: the host missed its health checks while installing (R18/R19). */
  connection_timed_out?: boolean;
}

/** The states the agent reports for an NTP source (chrony's view of it). */
export const NTP_SOURCE_STATES = [
  'synced',
  'combined',
  'not_combined',
  'error',
  'variable',
  'unreachable',
] as const;
export interface NtpSource {
  source_name?: string;
  source_state?: (typeof NTP_SOURCE_STATES)[number];
}
export interface DomainResolutionResponse {
  resolutions?: {
    domain_name: string;
    ipv4_addresses?: string[];
    ipv6_addresses?: string[];
    cnames?: string[];
  }[];
}
export interface ContainerImageAvailability {
  name?: string;
  result?: 'success' | 'failure';
  size_bytes?: number;
  time?: number;
  download_rate?: number;
}
export interface DiskInfo {
  disk_speed?: { tested?: boolean; exit_code?: number; speed_ms?: number };
  path?: string;
}
export interface ApiVipConnectivity {
  is_success?: boolean;
  url?: string;
  ignition?: string;
  download_rate?: number;
  /** Why the ignition download failed (newer agents). */
  download_error?: string;
}
export interface FreeNetworkAddresses {
  network?: string;
  free_addresses?: string[];
}

export type ClusterStatus =
  | 'insufficient'
  | 'ready'
  | 'error'
  | 'preparing-for-installation'
  | 'pending-for-input'
  | 'installing'
  | 'finalizing'
  | 'installed'
  | 'adding-hosts'
  | 'cancelled'
  | 'installing-pending-user-action'
  | 'unmonitored';

export type ClusterKind = 'Cluster' | 'AddHostsCluster' | 'DisconnectedCluster';
export type PlatformType = 'baremetal' | 'nutanix' | 'vsphere' | 'none' | 'external';

export interface ClusterNetwork {
  cidr: string;
  host_prefix: number;
}
export interface CidrEntry {
  cidr: string;
}
export interface VipEntry {
  ip: string;
  verification?: 'unverified' | 'succeeded' | 'failed';
}

export interface ClusterProgressInfo {
  total_percentage?: number;
  preparing_for_installation_stage_percentage?: number;
  installing_stage_percentage?: number;
  finalizing_stage_percentage?: number;
  finalizing_stage?: string;
  finalizing_stage_started_at?: string;
  finalizing_stage_timed_out?: boolean;
}

export interface LastInstallationPreparation {
  status: 'not_started' | 'failed' | 'success';
  reason: string;
}

export interface MonitoredOperator {
  name: string;
  operator_type: 'builtin' | 'olm';
  status?: 'failed' | 'progressing' | 'available' | '';
  status_info?: string;
  timeout_seconds?: number;
  version?: string;
  namespace?: string;
  subscription_name?: string;
}

/** A cluster as the core sees it (AgentClusterInstall + ClusterDeployment map to this). */
export interface Cluster {
  id: string;
  kind: ClusterKind;
  name: string;
  base_dns_domain: string;
  openshift_version: string;
  ocp_release_image?: string;
  cpu_architecture?: string;
  status: ClusterStatus;
  status_info: string;
  status_updated_at?: string;
  control_plane_count: number;
  platform: { type: PlatformType; external?: { platform_name?: string; cloud_controller_manager?: string } };
  user_managed_networking: boolean;
  network_type?: string;
  cluster_networks: ClusterNetwork[];
  service_networks: CidrEntry[];
  machine_networks: CidrEntry[];
  api_vips: VipEntry[];
  ingress_vips: VipEntry[];
  api_vip_dns_name?: string;
  vip_dhcp_allocation?: boolean;
  load_balancer?: { type: 'cluster-managed' | 'user-managed' };
  pull_secret_set?: boolean;
  pull_secret?: string;
  ssh_public_key?: string;
  http_proxy?: string;
  https_proxy?: string;
  no_proxy?: string;
  additional_ntp_source?: string;
  /** Replace-mode NTP sources (mutually exclusive with additional_ntp_source). */
  ntp_sources?: string;
  hyperthreading?: string;
  schedulable_masters?: boolean;
  schedulable_masters_forced_true?: boolean;
  install_config_overrides?: string;
  ignition_endpoint?: { url?: string; ca_certificate?: string };
  disk_encryption?: { enable_on?: string; mode?: string; tang_servers?: string };
  ignored_host_validations?: string;
  ignored_cluster_validations?: string;
  validations_info?: ValidationsInfo;
  progress?: ClusterProgressInfo;
  last_installation_preparation?: LastInstallationPreparation;
  monitored_operators?: MonitoredOperator[];
  install_started_at?: string;
  install_completed_at?: string;
  controller_logs_collected_at?: string;
  controller_logs_started_at?: string;
  logs_info?: LogsState;
  /** True once the installer controller uploaded the kubeconfig. */
  kubeconfig_uploaded?: boolean;
  /** Custom manifests attached by the user (file names), for the manifests validation. */
  custom_manifests?: { folder: string; file_name: string }[];
  /** Connectivity-derived data, JSON `{majority_groups, l3_connected_addresses}` (core.md §6.6). */
  connectivity_majority_groups?: string;
  /** IP collisions found in connectivity reports, JSON `{ip: [macs]}` (core.md §6.6). */
  ip_collisions?: string;
  /** Day-2 cluster imported from an existing installation (its UMN flag is unreliable). */
  imported?: boolean;
  /** Stamped whenever machine networks are auto-calculated; starts the VIP DHCP lease wait. */
  machine_network_cidr_updated_at?: string;
  /** Feature usage as upstream stores it, JSON `{name: {id, name, data?}}`. */
  feature_usage?: string;
  /** Primary IP stack once known (core.md §6.5). */
  primary_ip_stack?: 4 | 6;
  /** DHCP leases of the VIPs (VIP DHCP mode, core.md §6.8). */
  api_vip_lease?: string;
  ingress_vip_lease?: string;
  /** The owning organisation enables soft timeouts (SaaS; effective with the service flag). */
  org_soft_timeouts_enabled?: boolean;
  /** The AMS subscription already carries the console URL (SaaS only, CR22). */
  is_ams_subscription_console_url_set?: boolean;
  /** The OpenShift cluster id read from the generated bootstrap ignition. */
  openshift_cluster_id?: string;
  hosts: Host[];
  created_at?: string;
  updated_at?: string;
}

/** An infra-env as the core sees it (InfraEnv CR maps to this). */
export interface InfraEnv {
  id: string;
  name: string;
  cluster_id?: string | null;
  openshift_version?: string;
  cpu_architecture?: string;
  type?: 'full-iso' | 'minimal-iso';
  pull_secret?: string;
  ssh_authorized_key?: string;
  proxy?: { http_proxy?: string; https_proxy?: string; no_proxy?: string };
  additional_ntp_sources?: string;
  /** Replace-mode NTP sources: the discovery image's chrony.conf lists only these. */
  ntp_sources?: string;
  /** Service-set override merged before the user's; also disables agent.service (converged flow). */
  internal_ignition_config_override?: string;
  additional_trust_bundle?: string;
  ignition_config_override?: string;
  kernel_arguments?: { operation: 'append' | 'replace' | 'delete'; value: string }[];
  static_network_config?: {
    network_yaml: string;
    mac_interface_map: { mac_address: string; logical_nic_name: string }[];
  }[];
}
