// Next-step instructions (core.md §9, agent-api.md §3.3/§5): wire types and the options the
// service configures them with.

import type { InfraEnv } from '../model.ts';

export const STEP_TYPES = [
  'connectivity-check',
  'execute',
  'inventory',
  'install',
  'free-network-addresses',
  'dhcp-lease-allocate',
  'api-vip-connectivity-check',
  'tang-connectivity-check',
  'ntp-synchronizer',
  'installation-disk-speed-check',
  'container-image-availability',
  'domain-resolution',
  'stop-installation',
  'logs-gather',
  'next-step-runner',
  'upgrade-agent',
  'download-boot-artifacts',
  'reboot-for-reclaim',
  'verify-vips',
] as const;
export type StepType = (typeof STEP_TYPES)[number];

export type PostStepAction = 'continue' | 'exit';

export interface Step {
  step_type: StepType;
  step_id: string;
  args: string[];
}

/** The `steps` model returned by GET …/instructions. */
export interface Steps {
  next_instruction_seconds: number;
  post_step_action: PostStepAction;
  instructions: Step[];
}

/** Release-payload facts the install-time steps need (resolved by the caller from the release image). */
export interface ReleaseInfo {
  /** The release image actually used (cluster.ocp_release_image resolved by URL). */
  releaseImage?: string;
  /** machine-config-operator image of that release. */
  mcoImage?: string;
  /** must-gather images by key ("ocp", "cnv", "odf", …). */
  mustGatherImages?: Record<string, string>;
  /** RHCOS image of the release, for persistent-boot installs. */
  coreosImage?: string;
}

/** What the day-2 ignition endpoint needs per host (the token and headers are kept in Secrets). */
export interface HostIgnitionEndpoint {
  token?: string;
  headers?: Record<string, string>;
}

export interface StepsOptions {
  /** AGENT_DOCKER_IMAGE. */
  agentImage: string;
  /** INSTALLER_IMAGE. */
  installerImage: string;
  /** CONTROLLER_IMAGE. */
  controllerImage: string;
  /** ENABLE_UPGRADE_AGENT (default true). */
  enableUpgradeAgent?: boolean;
  /** DISABLED_STEPS. */
  disabledSteps?: readonly StepType[];
  /** AGENT_INVENTORY_MAX_SIZE (0 = off). */
  inventoryMaxSize?: number;
  /** AGENT_INVENTORY_DISK_MIN_SIZE (0 = off). */
  inventoryDiskMinSize?: number;
  /** Kube-API (operator) mode: no free-addresses step, no reboot-count notification. */
  kubeApiMode?: boolean;
  /** DISK_CHECK_TIMEOUT in seconds (default 480 = 8m). */
  diskCheckTimeoutSeconds?: number;
  /** IMAGE_AVAILABILITY_TIMEOUT in seconds (default 960 = 16m). */
  imageAvailabilityTimeoutSeconds?: number;
  /** Installer's cluster-version check (default true). */
  checkCvo?: boolean;
  /** Feature flag for `enable_skip_mco_reboot`. */
  enableSkipMcoReboot?: boolean;
  /** cluster.static_network_configured (static networking from any of the cluster's infra-envs). */
  staticNetworkConfigured?: boolean;
  /** Service IPs passed to the installer. */
  serviceIps?: string[];
  /** Where the reclaim steps find the host's root filesystem (default "/host"). */
  hostFsMountDir?: string;
  /** The cluster's release payload. */
  release?: ReleaseInfo;
  /** Boot artifact URLs for reclaim (initrd signed for local auth). */
  bootArtifacts?: { initrd_url: string; rootfs_url: string; kernel_url: string };
  /** All infra-envs of the host's cluster (for the NTP source union); defaults to the host's own. */
  clusterInfraEnvs?: readonly InfraEnv[];
  /** Per-host ignition endpoint token / headers (day-2). */
  hostIgnitionEndpoint?: (hostId: string) => HostIgnitionEndpoint | undefined;
  /** Admission of connectivity checks in clusters of more than 150 hosts (150 per minute upstream). */
  admitConnectivityCheck?: (clusterId: string, hostId: string) => boolean;
}

export interface StepsContext {
  /** Current time (not used by the tables themselves; kept for throttles and future rules). */
  now: Date | number;
  /** Uniform random number in [0, 1); step ids draw 32 bits from it. */
  random: () => number;
  options: StepsOptions;
}

/** A step builder's answer: arguments, nothing to do, or an error (the step is then skipped). */
export type StepArgs = { args: string[] } | { skip: true; reason?: string } | { error: string };
