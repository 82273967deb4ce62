// Agent (agents.agent-install.openshift.io/v1beta1): one discovered host.

import { z } from 'zod';
import {
  AGENT_INSTALL_API_VERSION,
  AGENT_INSTALL_GROUP,
  AGENT_INSTALL_VERSION,
  always,
  clusterReferenceSchema,
  conditionSchema,
  crd,
  dateTime,
  doc,
  INPUT_BOUNDS,
  int64,
  resourceSchema,
  stringMap,
  validationsStatusSchema,
} from './common.ts';

export const AGENT_GROUP = AGENT_INSTALL_GROUP;
export const AGENT_VERSION = AGENT_INSTALL_VERSION;
export const AGENT_API_VERSION = AGENT_INSTALL_API_VERSION;
export const AGENT_KIND = 'Agent';
export const AGENT_PLURAL = 'agents';

/** Host roles. `""` in spec means "no change"; `bootstrap` only appears in status. */
export const HOST_ROLES = ['', 'auto-assign', 'master', 'worker', 'arbiter', 'bootstrap'] as const;

// Values of status.progress.currentStage and status.ntpSources[].sourceState: the core's lists,
// so the CRD and what the hosts report can never differ.
export { HOST_STAGES, NTP_SOURCE_STATES } from '../core/model.ts';

/** Backend host states (status.debugInfo.state). */
export const HOST_STATES = [
  'discovering',
  'known',
  'disconnected',
  'insufficient',
  'disabled',
  'pending-for-input',
  'preparing-for-installation',
  'preparing-failed',
  'preparing-successful',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
  'resetting',
  'resetting-pending-user-action',
  'installed',
  'error',
  'added-to-existing-cluster',
  'cancelled',
  'binding',
  'unbinding',
  'unbinding-pending-user-action',
  'known-unbound',
  'disconnected-unbound',
  'insufficient-unbound',
  'disabled-unbound',
  'discovering-unbound',
  'reclaiming',
  'reclaiming-rebooting',
] as const;

/** Values of status.kind. */
export const AGENT_STATUS_KINDS = ['Host', 'AddToExistingClusterHost'] as const;

/** Some values of inventory disks[].driveType. */
export const DRIVE_TYPES = [
  'Unknown',
  'HDD',
  'FDD',
  'ODD',
  'SSD',
  'virtual',
  'Multipath',
  'iSCSI',
  'FC',
  'LVM',
  'RAID',
  'ECKD',
  'ECKD (ESE)',
  'FBA',
] as const;

// ---------------------------------------------------------------------------------------------
// spec
// ---------------------------------------------------------------------------------------------

export const ignitionEndpointTokenReferenceSchema = z.looseObject({
  namespace: doc(z.string(), 'Namespace of the Secret holding the ignition endpoint token.'),
  name: doc(z.string(), 'Name of the Secret holding the ignition endpoint token.'),
});
export type IgnitionEndpointTokenReference = z.infer<typeof ignitionEndpointTokenReferenceSchema>;

export const agentSpecSchema = doc(
  z.looseObject({
    clusterDeploymentName: doc(
      clusterReferenceSchema,
      'ClusterDeployment (any namespace) this host is bound to. Setting, changing or clearing it binds or unbinds the host.',
    ).optional(),
    role: crd(z.string(), {
      alwaysSerialized: true,
      description: 'Requested role: master, worker, arbiter, auto-assign, or "" for no change.',
    }),
    hostname: doc(
      z.string().max(INPUT_BOUNDS.hostName),
      'Requested hostname; empty means the hostname from the inventory.',
    ).optional(),
    machineConfigPool: doc(z.string(), 'Custom machine config pool (workers only).').optional(),
    approved: crd(z.boolean(), {
      alwaysSerialized: true,
      description: 'The host takes part in the installation only when approved.',
    }),
    installation_disk_id: doc(z.string(), 'Installation disk, by inventory disk id.').optional(),
    installation_disk_path: doc(z.string(), 'Installation disk, by its by-id or by-path name.').optional(),
    installerArgs: doc(z.string(), 'JSON array of extra coreos-installer arguments.').optional(),
    ignitionConfigOverrides: doc(
      z.string().max(INPUT_BOUNDS.ignition),
      'JSON ignition config merged into the host ignition.',
    ).optional(),
    ignitionEndpointTokenReference: doc(
      ignitionEndpointTokenReferenceSchema,
      'Secret whose "ignition-token" key is a bearer token for a custom ignition endpoint.',
    ).optional(),
    ignitionEndpointHTTPHeaders: doc(
      stringMap(),
      'Extra HTTP headers sent when fetching the ignition.',
    ).optional(),
    nodeLabels: doc(stringMap(), 'Labels applied to the Node created from this host.').optional(),
    fencingCredentialsSecretRef: doc(
      z.string(),
      'Name of a Secret in the Agent namespace with BMC fencing credentials (address, username, password, certificateVerification).',
    ).optional(),
  }),
  'Desired state of the Agent.',
);
export type AgentSpec = z.infer<typeof agentSpecSchema>;

// ---------------------------------------------------------------------------------------------
// status.inventory
// ---------------------------------------------------------------------------------------------

export const hostMemorySchema = z.looseObject({
  physicalBytes: int64().optional(),
  usableBytes: int64().optional(),
});

export const hostCpuSchema = z.looseObject({
  count: int64().optional(),
  clockMegahertz: int64().optional(),
  flags: z.array(z.string()).optional(),
  modelName: z.string().optional(),
  architecture: z.string().optional(),
});

export const hostInterfaceSchema = z.looseObject({
  ipV6Addresses: always(z.array(z.string()), [], { crdRequired: true }),
  vendor: z.string().optional(),
  name: z.string().optional(),
  hasCarrier: z.boolean().optional(),
  product: z.string().optional(),
  mtu: int64().optional(),
  ipV4Addresses: always(z.array(z.string()), [], { crdRequired: true }),
  biosDevName: z.string().optional(),
  clientID: z.string().optional(),
  macAddress: z.string().optional(),
  flags: always(z.array(z.string()), [], { crdRequired: true }),
  speedMbps: int64().optional(),
});
export type HostInterface = z.infer<typeof hostInterfaceSchema>;

export const hostInstallationEligibilitySchema = z.looseObject({
  eligible: z.boolean().optional(),
  notEligibleReasons: always(z.array(z.string()), [], { crdRequired: true }),
});

export const hostIOPerfSchema = z.looseObject({
  syncDurationMilliseconds: doc(int64(), '99th percentile of fsync duration, in milliseconds.').optional(),
});

export const hostDiskSchema = z.looseObject({
  id: always(z.string(), '', { crdRequired: true }),
  driveType: z.string().optional(),
  vendor: z.string().optional(),
  name: z.string().optional(),
  path: z.string().optional(),
  hctl: z.string().optional(),
  byPath: z.string().optional(),
  byID: z.string().optional(),
  model: z.string().optional(),
  wwn: z.string().optional(),
  serial: z.string().optional(),
  sizeBytes: int64().optional(),
  bootable: z.boolean().optional(),
  smart: z.string().optional(),
  installationEligibility: hostInstallationEligibilitySchema.optional(),
  ioPerf: hostIOPerfSchema.optional(),
});
export type HostDisk = z.infer<typeof hostDiskSchema>;

export const hostBootSchema = z.looseObject({
  currentBootMode: z.string().optional(),
  pxeInterface: z.string().optional(),
  deviceType: z.string().optional(),
});

export const hostSystemVendorSchema = z.looseObject({
  serialNumber: z.string().optional(),
  productName: z.string().optional(),
  manufacturer: z.string().optional(),
  virtual: z.boolean().optional(),
});

export const hostGpuSchema = z.looseObject({
  address: z.string().optional(),
  deviceID: z.string().optional(),
  name: z.string().optional(),
  vendor: z.string().optional(),
  vendorID: z.string().optional(),
});

export const hostInventorySchema = z.looseObject({
  reportTime: dateTime().optional(),
  hostname: z.string().optional(),
  bmcAddress: z.string().optional(),
  bmcV6Address: z.string().optional(),
  memory: hostMemorySchema.optional(),
  cpu: hostCpuSchema.optional(),
  interfaces: z.array(hostInterfaceSchema).optional(),
  disks: z.array(hostDiskSchema).optional(),
  boot: hostBootSchema.optional(),
  systemVendor: hostSystemVendorSchema.optional(),
  gpus: z.array(hostGpuSchema).optional(),
});
export type HostInventory = z.infer<typeof hostInventorySchema>;

// ---------------------------------------------------------------------------------------------
// status
// ---------------------------------------------------------------------------------------------

export const hostProgressSchema = z.looseObject({
  currentStage: doc(z.string(), 'Current installation stage.').optional(),
  progressStages: doc(z.array(z.string()), 'All stages of this host, in order.').optional(),
  progressInfo: doc(z.string(), 'Extra information about the current stage.').optional(),
  installationPercentage: doc(int64(), 'Estimated progress, in percent.').optional(),
  stageStartTime: doc(dateTime(), 'When the current stage started.').optional(),
  stageUpdateTime: doc(dateTime(), 'When the current stage was last updated.').optional(),
});
export type HostProgress = z.infer<typeof hostProgressSchema>;

export const hostNtpSourceSchema = z.looseObject({
  sourceName: z.string().optional(),
  sourceState: z.string().optional(),
});
export type HostNtpSource = z.infer<typeof hostNtpSourceSchema>;

export const agentDebugInfoSchema = z.looseObject({
  eventsURL: doc(z.string(), 'URL of the host events.').optional(),
  logsURL: doc(z.string(), 'URL of the host logs.').optional(),
  state: doc(z.string(), 'Backend host state.').optional(),
  stateInfo: doc(z.string(), 'Details about the backend host state.').optional(),
});
export type AgentDebugInfo = z.infer<typeof agentDebugInfoSchema>;

export const agentDeprovisionInfoSchema = z.looseObject({
  cluster_name: z.string().optional(),
  cluster_namespace: z.string().optional(),
  node_name: z.string().optional(),
  message: z.string().optional(),
});
export type AgentDeprovisionInfo = z.infer<typeof agentDeprovisionInfoSchema>;

export const CSR_TYPES = ['client', 'serving'] as const;

export const csrInfoSchema = z.looseObject({
  name: z.string(),
  type: doc(z.string(), 'client or serving.'),
  approvedAt: dateTime(),
});
export type CsrInfo = z.infer<typeof csrInfoSchema>;

export const csrStatusSchema = z.looseObject({
  approvedCSRs: doc(z.array(csrInfoSchema), 'CSRs approved for this host.').optional(),
  lastApprovalAttempt: doc(dateTime(), 'Last CSR approval attempt.').optional(),
});
export type CsrStatus = z.infer<typeof csrStatusSchema>;

// ---------------------------------------------------------------------------------------------
// status.backend (additive field, not upstream; see docs/compatibility.md "Additive fields")
// ---------------------------------------------------------------------------------------------

/** A route from the agent's inventory, kept as the agent reported it. */
export interface InventoryRoute {
  interface?: string;
  gateway?: string;
  destination?: string;
  family?: number;
  metric?: number;
}

/** Inventory facts of one disk that `status.inventory.disks[]` has no field for. */
export interface InventoryDiskExtra {
  hasUuid?: boolean;
  removable?: boolean;
  partitionTypes?: string;
  isInstallationMedia?: boolean;
  holders?: string;
  iscsi?: { hostIpAddress?: string };
}

/**
 * One exact value the camelCase inventory cannot express: a zero, false or empty string the agent
 * sent explicitly, a null list, a fractional CPU frequency, a key this operator does not know.
 * `path` is a key/index path into the agent's (snake_case) inventory; `absent` removes the key.
 */
export interface InventoryCorrection {
  path: (string | number)[];
  value?: unknown;
  absent?: boolean;
}

/**
 * What upstream's camelCase `status.inventory` drops from the agent's inventory. Together they
 * convert back to the agent's inventory exactly. Per-interface and per-disk entries are aligned
 * with `status.inventory.interfaces` / `disks` by index.
 */
export interface InventoryExtra {
  routes?: InventoryRoute[] | null;
  tpmVersion?: string;
  truncation?: { type: string; reasons?: string[] | null };
  memory?: { physicalBytesMethod?: string };
  boot?: { commandLine?: string; secureBootState?: string };
  interfaces?: { type?: string }[];
  disks?: InventoryDiskExtra[];
  corrections?: InventoryCorrection[];
}

/** Host facts that are not part of upstream's Agent status but must survive a restart. */
export interface AgentBackendStatus {
  /** Backend cluster (ClusterDeployment uid) the host is bound to; absent while unbound. */
  clusterID?: string;
  /** InfraEnv uid the host registered through. */
  infraEnvID?: string;
  /** The host record's role (spec.role "" keeps it; the install start may assign it). */
  role?: string;
  suggestedRole?: string;
  /** Last applied spec.hostname (upstream ignores an emptied spec value). */
  requestedHostname?: string;
  /** Last applied machine config pool (day-2 hosts default to "worker"). */
  machineConfigPool?: string;
  statusUpdatedAt?: string;
  registeredAt?: string;
  installerVersion?: string;
  discoveryAgentVersion?: string;
  logsInfo?: string;
  logsStartedAt?: string;
  logsCollectedAt?: string;
  mediaStatus?: string;
  connectionTimedOut?: boolean;
  stageTimedOut?: boolean;
  /** Last applied spec.installerArgs, re-encoded (an invalid spec leaves it unchanged). */
  installerArgs?: string;
  /** Last applied spec.ignitionConfigOverrides (an invalid spec leaves it unchanged). */
  ignitionConfigOverrides?: string;
  /** Last applied spec.nodeLabels (a set with an invalid label leaves it unchanged). */
  nodeLabels?: Record<string, string>;
  /** The Secret in spec.ignitionEndpointTokenReference held a token when last read. */
  ignitionEndpointTokenSet?: boolean;
  inventoryExtra?: InventoryExtra;
}

export const agentBackendStatusSchema = crd(z.looseObject({}), {
  preserveUnknownFields: true,
  description: 'Host facts kept by agent-install-operator across restarts (not part of the upstream API).',
}) as unknown as z.ZodType<AgentBackendStatus>;

export const agentStatusSchema = doc(
  z.looseObject({
    bootstrap: doc(z.boolean(), 'The host was picked as the bootstrap node.').optional(),
    role: crd(always(z.string(), ''), { description: 'Effective role of the host.' }),
    inventory: doc(hostInventorySchema, 'Hardware inventory reported by the host.').optional(),
    progress: doc(hostProgressSchema, 'Installation progress.').optional(),
    ntpSources: doc(z.array(hostNtpSourceSchema), 'NTP sources seen by the host.').optional(),
    conditions: z.array(conditionSchema).optional(),
    debugInfo: crd(always(agentDebugInfoSchema, {}), { description: 'Backend state and debugging URLs.' }),
    validationsInfo: doc(validationsStatusSchema, 'Host validation results by category.').optional(),
    installation_disk_id: doc(z.string(), 'Disk chosen for the installation.').optional(),
    deprovision_info: doc(
      agentDeprovisionInfoSchema,
      'Previous cluster binding, kept so the old Node can be cleaned up.',
    ).optional(),
    csrStatus: doc(csrStatusSchema, 'CSR auto-approval bookkeeping for day-2 hosts.').optional(),
    kind: doc(z.string(), 'Host (day 1) or AddToExistingClusterHost (day 2).').optional(),
    backend: agentBackendStatusSchema.optional(),
  }),
  'Observed state of the Agent.',
);
export type AgentStatus = z.infer<typeof agentStatusSchema>;

export const agentSchema = resourceSchema({
  description: 'Agent is a host discovered by booting an InfraEnv image.',
  spec: agentSpecSchema,
  status: agentStatusSchema,
  specRequired: false,
});
export type Agent = z.infer<typeof agentSchema>;
