// AgentClusterInstall (agentclusterinstalls.extensions.hive.openshift.io/v1beta1, short name
// aci): how a ClusterDeployment is installed from Agents.

import { z } from 'zod';
import {
  always,
  clusterInstallConditionSchema,
  crd,
  doc,
  HIVE_EXTENSIONS_API_VERSION,
  HIVE_EXTENSIONS_GROUP,
  HIVE_EXTENSIONS_VERSION,
  hiveClusterMetadataSchema,
  hiveLocalObjectReferenceSchema,
  INPUT_BOUNDS,
  int,
  int32,
  int64,
  mirrorRegistryConfigMapReferenceSchema,
  ntpSourceList,
  proxySchema,
  resourceSchema,
  validationsStatusSchema,
} from './common.ts';

export const AGENTCLUSTERINSTALL_GROUP = HIVE_EXTENSIONS_GROUP;
export const AGENTCLUSTERINSTALL_VERSION = HIVE_EXTENSIONS_VERSION;
export const AGENTCLUSTERINSTALL_API_VERSION = HIVE_EXTENSIONS_API_VERSION;
export const AGENTCLUSTERINSTALL_KIND = 'AgentClusterInstall';
export const AGENTCLUSTERINSTALL_PLURAL = 'agentclusterinstalls';
export const AGENTCLUSTERINSTALL_SHORT_NAME = 'aci';

export const NETWORK_TYPES = [
  'OpenShiftSDN',
  'OVNKubernetes',
  'CiscoACI',
  'Cilium',
  'Calico',
  'None',
] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];

export const PLATFORM_TYPES = ['', 'BareMetal', 'None', 'VSphere', 'Nutanix', 'External'] as const;
export type PlatformType = (typeof PLATFORM_TYPES)[number];

export const HYPERTHREADING_MODES = ['', 'Enabled', 'Disabled'] as const;
export type HyperthreadingMode = (typeof HYPERTHREADING_MODES)[number];

export const DISK_ENCRYPTION_ENABLE_ON = [
  'none',
  'all',
  'masters',
  'arbiters',
  'workers',
  'masters,arbiters',
  'masters,workers',
  'arbiters,workers',
  'masters,arbiters,workers',
] as const;
export type DiskEncryptionEnableOn = (typeof DISK_ENCRYPTION_ENABLE_ON)[number];

export const DISK_ENCRYPTION_MODES = ['tpmv2', 'tang'] as const;
export type DiskEncryptionMode = (typeof DISK_ENCRYPTION_MODES)[number];

export const CLOUD_CONTROLLER_MANAGERS = ['', 'External'] as const;
export type CloudControllerManager = (typeof CLOUD_CONTROLLER_MANAGERS)[number];

export const LOAD_BALANCER_TYPES = ['ClusterManaged', 'UserManaged'] as const;
export type LoadBalancerType = (typeof LOAD_BALANCER_TYPES)[number];

/** Machine pool names. */
export const MASTER_MACHINE_POOL = 'master';
export const ARBITER_MACHINE_POOL = 'arbiter';
export const WORKER_MACHINE_POOL = 'worker';

/** Transition rule on spec.external.platformName. */
export const PLATFORM_NAME_RULE = "oldSelf == 'Unknown' || self == oldSelf";
export const PLATFORM_NAME_RULE_MESSAGE = 'platform name cannot be changed once set';

// ---------------------------------------------------------------------------------------------
// spec
// ---------------------------------------------------------------------------------------------

export const clusterImageSetReferenceSchema = z.looseObject({
  name: doc(z.string(), 'Name of the ClusterImageSet.'),
});
export type ClusterImageSetReference = z.infer<typeof clusterImageSetReferenceSchema>;

export const manifestsConfigMapReferenceSchema = z.looseObject({
  name: doc(z.string(), 'Name of the ConfigMap.'),
});
export type ManifestsConfigMapReference = z.infer<typeof manifestsConfigMapReferenceSchema>;

export const machineNetworkEntrySchema = z.looseObject({
  cidr: doc(z.string(), 'Machine network CIDR.'),
});
export type MachineNetworkEntry = z.infer<typeof machineNetworkEntrySchema>;

export const clusterNetworkEntrySchema = z.looseObject({
  cidr: doc(z.string(), 'Pod network CIDR.'),
  hostPrefix: doc(int32(), 'Prefix length of the block given to each node.').optional(),
});
export type ClusterNetworkEntry = z.infer<typeof clusterNetworkEntrySchema>;

export const networkingSchema = z.looseObject({
  machineNetwork: doc(z.array(machineNetworkEntrySchema), 'Machine networks.').optional(),
  clusterNetwork: doc(
    z.array(clusterNetworkEntrySchema),
    'Pod networks. Defaults to 10.128.0.0/14 with host prefix 23.',
  ).optional(),
  serviceNetwork: doc(z.array(z.string()), 'Service networks. Defaults to 172.30.0.0/16.').optional(),
  networkType: doc(z.enum(NETWORK_TYPES), 'CNI plug-in. Chosen by the controller when empty.').optional(),
  userManagedNetworking: doc(
    z.boolean(),
    'Networking (load balancers, DNS) is managed by the user. Must be true or unset for single-node clusters.',
  ).optional(),
});
export type Networking = z.infer<typeof networkingSchema>;

export const provisionRequirementsSchema = z.looseObject({
  controlPlaneAgents: doc(
    int(),
    'Number of control plane Agents needed to start the installation (1 or 3-5).',
  ),
  workerAgents: doc(int().min(0), 'Number of worker Agents needed to start the installation.').optional(),
  arbiterAgents: doc(int().min(0), 'Number of arbiter Agents needed to start the installation.').optional(),
});
export type ProvisionRequirements = z.infer<typeof provisionRequirementsSchema>;

export const agentMachinePoolSchema = z.looseObject({
  hyperthreading: doc(z.enum(HYPERTHREADING_MODES), 'Hyperthreading mode of the pool.').default('Enabled'),
  name: doc(z.string(), 'Pool name: master, worker or arbiter.'),
});
export type AgentMachinePool = z.infer<typeof agentMachinePoolSchema>;

export const caCertificateReferenceSchema = z.looseObject({
  namespace: doc(z.string(), 'Namespace of the Secret holding the CA certificate.'),
  name: doc(z.string(), 'Name of the Secret holding the CA certificate (key tls.crt).'),
});
export type CaCertificateReference = z.infer<typeof caCertificateReferenceSchema>;

export const ignitionEndpointSchema = z.looseObject({
  url: doc(z.string(), 'URL of the custom ignition endpoint.').optional(),
  caCertificateReference: doc(
    caCertificateReferenceSchema,
    'Secret with the CA certificate used to reach the endpoint over HTTPS.',
  ).optional(),
});
export type IgnitionEndpoint = z.infer<typeof ignitionEndpointSchema>;

export const diskEncryptionSchema = z.looseObject({
  enableOn: doc(z.enum(DISK_ENCRYPTION_ENABLE_ON), 'Node roles whose disks are encrypted.').default('none'),
  mode: doc(z.enum(DISK_ENCRYPTION_MODES), 'Encryption mode.').optional(),
  tangServers: doc(z.string(), 'JSON description of the tang servers.').optional(),
});
export type DiskEncryption = z.infer<typeof diskEncryptionSchema>;

export const externalPlatformSpecSchema = z.looseObject({
  platformName: crd(z.string().default('Unknown'), {
    description: 'Name of the infrastructure provider, for information only. Cannot change once set.',
    crd: {
      'x-kubernetes-validations': [{ rule: PLATFORM_NAME_RULE, message: PLATFORM_NAME_RULE_MESSAGE }],
    },
  }),
  cloudControllerManager: doc(
    z.enum(CLOUD_CONTROLLER_MANAGERS),
    'External enables an external cloud controller manager.',
  ).default(''),
});
export type ExternalPlatformSpec = z.infer<typeof externalPlatformSpecSchema>;

export const loadBalancerSchema = z.looseObject({
  type: doc(z.enum(LOAD_BALANCER_TYPES), 'Who manages the load balancer.').default('ClusterManaged'),
});
export type LoadBalancer = z.infer<typeof loadBalancerSchema>;

export const agentClusterInstallSpecSchema = doc(
  z.looseObject({
    imageSetRef: doc(
      clusterImageSetReferenceSchema,
      'ClusterImageSet whose release image is installed. Immutable.',
    ).optional(),
    clusterDeploymentRef: doc(hiveLocalObjectReferenceSchema, 'ClusterDeployment in the same namespace.'),
    clusterMetadata: doc(
      hiveClusterMetadataSchema,
      'Metadata of the installed cluster, written when the installation completes.',
    ).optional(),
    manifestsConfigMapRef: doc(
      hiveLocalObjectReferenceSchema,
      'Deprecated: ConfigMap with extra manifests. Ignored when manifestsConfigMapRefs is set.',
    ).optional(),
    manifestsConfigMapRefs: doc(
      z.array(manifestsConfigMapReferenceSchema),
      'ConfigMaps with extra manifests. File names must be unique across them.',
    ).optional(),
    networking: doc(networkingSchema, 'Cluster networking.'),
    sshPublicKey: doc(
      z.string().max(INPUT_BOUNDS.sshKeys),
      'SSH public key added to all cluster hosts.',
    ).optional(),
    ntpSources: doc(ntpSourceList(), 'NTP sources for the cluster hosts.').optional(),
    provisionRequirements: doc(
      provisionRequirementsSchema,
      'Agent counts required before the installation starts automatically.',
    ),
    controlPlane: doc(agentMachinePoolSchema, 'Control plane machine pool.').optional(),
    compute: doc(
      z.array(agentMachinePoolSchema),
      'Compute machine pools (only "worker" is used).',
    ).optional(),
    arbiter: doc(agentMachinePoolSchema, 'Arbiter machine pool.').optional(),
    apiVIP: doc(z.string(), 'Deprecated: API virtual IP; apiVIPs wins when set.').optional(),
    apiVIPs: doc(z.array(z.string()).max(2), 'API virtual IPs (one per IP family).').optional(),
    ingressVIP: doc(z.string(), 'Deprecated: ingress virtual IP; ingressVIPs wins when set.').optional(),
    ingressVIPs: doc(z.array(z.string()).max(2), 'Ingress virtual IPs (one per IP family).').optional(),
    holdInstallation: doc(z.boolean(), 'Do not start the installation while true.').optional(),
    ignitionEndpoint: doc(ignitionEndpointSchema, 'Custom ignition endpoint.').optional(),
    diskEncryption: doc(diskEncryptionSchema, 'Disk encryption of the cluster nodes.').optional(),
    proxy: doc(proxySchema, 'Cluster-wide proxy.').optional(),
    platformType: doc(
      z.enum(PLATFORM_TYPES),
      'Platform to install on; empty lets the service decide.',
    ).optional(),
    external: doc(
      externalPlatformSpecSchema,
      'Settings of the External platform (required when platformType is External).',
    ).optional(),
    mastersSchedulable: doc(z.boolean(), 'Allow workloads on control plane nodes.').optional(),
    mirrorRegistryRef: doc(
      mirrorRegistryConfigMapReferenceSchema,
      'ConfigMap with registries.conf and optionally ca-bundle.crt for the installed cluster.',
    ).optional(),
    loadBalancer: doc(loadBalancerSchema, 'Load balancer used for API and ingress traffic.').optional(),
  }),
  'Desired state of the AgentClusterInstall.',
);
export type AgentClusterInstallSpec = z.infer<typeof agentClusterInstallSpecSchema>;

// ---------------------------------------------------------------------------------------------
// status
// ---------------------------------------------------------------------------------------------

export const clusterProgressSchema = z.looseObject({
  totalPercentage: crd(always(int64(), 0, { crdRequired: true }), {
    description: 'Estimated installation progress, in percent.',
  }),
});
export type ClusterProgress = z.infer<typeof clusterProgressSchema>;

export const clusterDebugInfoSchema = z.looseObject({
  eventsURL: crd(always(z.string(), ''), { description: 'URL of the cluster events.' }),
  logsURL: crd(always(z.string(), ''), { description: 'URL of the cluster logs.' }),
  state: doc(z.string(), 'Backend cluster state.').optional(),
  stateInfo: doc(z.string(), 'Details about the backend cluster state.').optional(),
});
export type ClusterDebugInfo = z.infer<typeof clusterDebugInfoSchema>;

/** A monitored operator of the cluster (status.backend.monitoredOperators[]). */
export interface MonitoredOperatorStatus {
  name: string;
  operatorType: string;
  status?: string;
  statusInfo?: string;
  timeoutSeconds?: number;
  version?: string;
  namespace?: string;
  subscriptionName?: string;
}

/** Cluster facts that are not part of upstream's ACI status but must survive a restart. */
export interface AgentClusterInstallBackendStatus {
  /** ClusterDeployment uid the facts belong to; another uid means the CD was re-created. */
  clusterID?: string;
  /** Cluster or AddHostsCluster. */
  kind?: string;
  /**
   * Cluster state and its info. `debugInfo.state`/`stateInfo` show the same, but upstream clears
   * those while the spec cannot be synced ("Unknown set"); the state must survive that.
   */
  state?: string;
  stateInfo?: string;
  /** Imported as installed (day 2) rather than installed by this operator. */
  imported?: boolean;
  /** Release resolved when the cluster was registered (not re-resolved, as upstream). */
  openshiftVersion?: string;
  releaseImage?: string;
  cpuArchitecture?: string;
  /** OpenShift cluster id read from the generated bootstrap ignition. */
  openshiftClusterID?: string;
  apiVipDnsName?: string;
  createdAt?: string;
  statusUpdatedAt?: string;
  installStartedAt?: string;
  installCompletedAt?: string;
  lastInstallationPreparation?: { status: string; reason?: string };
  progress?: {
    preparingForInstallationStagePercentage?: number;
    installingStagePercentage?: number;
    finalizingStagePercentage?: number;
    finalizingStage?: string;
    finalizingStageStartedAt?: string;
    finalizingStageTimedOut?: boolean;
  };
  monitoredOperators?: MonitoredOperatorStatus[];
  kubeconfigUploaded?: boolean;
  logsInfo?: string;
  controllerLogsStartedAt?: string;
  controllerLogsCollectedAt?: string;
}

export const agentClusterInstallBackendStatusSchema = crd(z.looseObject({}), {
  preserveUnknownFields: true,
  description: 'Cluster facts kept by agent-install-operator across restarts (not part of the upstream API).',
}) as unknown as z.ZodType<AgentClusterInstallBackendStatus>;

export const agentClusterInstallStatusSchema = doc(
  z.looseObject({
    conditions: doc(z.array(clusterInstallConditionSchema), 'Detailed state of the installation.').optional(),
    progress: crd(always(clusterProgressSchema, {}), { description: 'Installation progress.' }),
    controlPlaneAgentsDiscovered: doc(int(), 'Control plane Agents linked to the cluster.').optional(),
    controlPlaneAgentsReady: doc(int(), 'Control plane Agents linked to the cluster and ready.').optional(),
    workerAgentsDiscovered: doc(int(), 'Worker Agents linked to the cluster.').optional(),
    workerAgentsReady: doc(int(), 'Worker Agents linked to the cluster and ready.').optional(),
    connectivityMajorityGroups: doc(z.string(), 'Backend connectivity majority groups (JSON).').optional(),
    machineNetwork: doc(z.array(machineNetworkEntrySchema), 'Machine networks in use.').optional(),
    debugInfo: crd(always(clusterDebugInfoSchema, {}), { description: 'Backend state and debugging URLs.' }),
    apiVIP: doc(z.string(), 'First API virtual IP.').optional(),
    apiVIPs: doc(z.array(z.string()).max(2), 'API virtual IPs.').optional(),
    ingressVIP: doc(z.string(), 'First ingress virtual IP.').optional(),
    ingressVIPs: doc(z.array(z.string()).max(2), 'Ingress virtual IPs.').optional(),
    userManagedNetworking: doc(z.boolean(), 'Effective user-managed networking.').optional(),
    platformType: doc(z.enum(PLATFORM_TYPES), 'Effective platform.').optional(),
    validationsInfo: doc(validationsStatusSchema, 'Cluster validation results by category.').optional(),
    backend: agentClusterInstallBackendStatusSchema.optional(),
  }),
  'Observed state of the AgentClusterInstall.',
);
export type AgentClusterInstallStatus = z.infer<typeof agentClusterInstallStatusSchema>;

export const agentClusterInstallSchema = resourceSchema({
  description: 'AgentClusterInstall describes how a ClusterDeployment is installed from Agents.',
  spec: agentClusterInstallSpecSchema,
  status: agentClusterInstallStatusSchema,
  specRequired: true,
});
export type AgentClusterInstall = z.infer<typeof agentClusterInstallSchema>;
