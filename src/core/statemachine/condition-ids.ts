// Condition ids the rules read. Validation ids come from the validation helpers; the non-validation
// ids (spec §1.4 / §2.3) are computed here from the records.

/** Operator requirement ids, in upstream's enum order (host and cluster share them). */
export const OPERATOR_IDS = [
  'odf',
  'lso',
  'cnv',
  'lvm',
  'mce',
  'mtv',
  'osc',
  'node-feature-discovery',
  'nvidia-gpu',
  'pipelines',
  'servicemesh',
  'serverless',
  'openshift-ai',
  'authorino',
  'nmstate',
  'amd-gpu',
  'kmm',
  'node-healthcheck',
  'self-node-remediation',
  'fence-agents-remediation',
  'node-maintenance',
  'kube-descheduler',
  'cluster-observability',
  'numa-resources',
  'oadp',
  'metallb',
  'loki',
  'openshift-logging',
] as const;

export const OPERATOR_VALIDATION_IDS: readonly string[] = OPERATOR_IDS.map(
  (op) => `${op}-requirements-satisfied`,
);

/** Host validation ids referenced by the host refresh rules. */
export const HV = {
  connected: 'connected',
  mediaConnected: 'media-connected',
  hasInventory: 'has-inventory',
  inventoryNotFullyTruncated: 'inventory-not-fully-truncated',
  hasMinValidDisks: 'has-min-valid-disks',
  hasMinCpuCores: 'has-min-cpu-cores',
  hasMinMemory: 'has-min-memory',
  compatibleWithClusterPlatform: 'compatible-with-cluster-platform',
  diskEncryptionRequirementsSatisfied: 'disk-encryption-requirements-satisfied',
  machineCidrDefined: 'machine-cidr-defined',
  hostnameValid: 'hostname-valid',
  vsphereDiskUuidEnabled: 'vsphere-disk-uuid-enabled',
  sufficientInstallationDiskSpeed: 'sufficient-installation-disk-speed',
  containerImagesAvailable: 'container-images-available',
  hasCpuCoresForRole: 'has-cpu-cores-for-role',
  hasMemoryForRole: 'has-memory-for-role',
} as const;

/** isSufficientForInstall, in upstream's order (release-domain is deliberately absent). */
export const SUFFICIENT_FOR_INSTALL_IDS: readonly string[] = [
  'has-memory-for-role',
  'has-cpu-cores-for-role',
  'belongs-to-machine-cidr',
  'hostname-unique',
  'hostname-valid',
  'ignition-downloadable',
  'belongs-to-majority-group',
  'odf-requirements-satisfied',
  'lso-requirements-satisfied',
  'cnv-requirements-satisfied',
  'lvm-requirements-satisfied',
  'mce-requirements-satisfied',
  'mtv-requirements-satisfied',
  'osc-requirements-satisfied',
  'sufficient-network-latency-requirement-for-role',
  'sufficient-packet-loss-requirement-for-role',
  'has-default-route',
  'api-domain-name-resolved-correctly',
  'api-int-domain-name-resolved-correctly',
  'apps-domain-name-resolved-correctly',
  'dns-wildcard-not-configured',
  'valid-platform-network-settings',
  'sufficient-installation-disk-speed',
  'non-overlapping-subnets',
  'compatible-agent',
  'time-synced-between-host-and-service',
  'no-skip-installation-disk',
  'no-skip-missing-disk',
  'no-ip-collisions-in-network',
  'no-iscsi-nic-belongs-to-machine-cidr',
  ...OPERATOR_VALIDATION_IDS.slice(7),
];

/** Non-validation host conditions (spec §1.4). */
export const HC = {
  installationDiskSpeedCheckSuccessful: 'installation-disk-speed-check-successful',
  clusterPreparingForInstallation: 'cluster-preparing-for-installation',
  clusterInstalling: 'cluster-installing',
  clusterInError: 'cluster-in-error',
  clusterPendingUserAction: 'cluster-pending-user-action',
  validRoleForInstallation: 'valid-role-for-installation',
  stageInWrongBootStages: 'stage-in-wrong-boot-stages',
  successfulContainerImageAvailability: 'successful-container-image-availability',
  hostStageTimedOut: 'host-stage-timed-out',
  softTimeoutsEnabled: 'soft-timeouts-enabled',
  connectionTimedOut: 'connection-timed-out',
} as const;

/** Every validation id some host rule reads: the preprocessor must always produce these. */
export const HOST_RULE_VALIDATION_IDS: readonly string[] = [
  ...new Set<string>([...Object.values(HV), ...SUFFICIENT_FOR_INSTALL_IDS]),
];

/** Cluster validation ids referenced by the refresh rules. */
export const CV = {
  machineCidrDefined: 'machine-cidr-defined',
  clusterCidrDefined: 'cluster-cidr-defined',
  serviceCidrDefined: 'service-cidr-defined',
  dnsDomainDefined: 'dns-domain-defined',
  pullSecretSet: 'pull-secret-set',
  ingressVipsDefined: 'ingress-vips-defined',
  apiVipsDefined: 'api-vips-defined',
} as const;

/** requiredForInstall (platform-requirements and openshift-ai-gpu are informational only). */
export const REQUIRED_FOR_INSTALL_IDS: readonly string[] = [
  'machine-cidr-equals-to-calculated-cidr',
  'api-vips-valid',
  'ingress-vips-valid',
  'all-hosts-are-ready-to-install',
  'sufficient-masters-count',
  'network-prefix-valid',
  'no-cidrs-overlapping',
  'ntp-server-configured',
  'network-type-valid',
  'custom-manifests-requirements-satisfied',
  'networks-same-address-families',
  ...OPERATOR_VALIDATION_IDS,
];

export const CLUSTER_RULE_VALIDATION_IDS: readonly string[] = [
  ...Object.values(CV),
  ...REQUIRED_FOR_INSTALL_IDS,
];

/** Non-validation cluster conditions (spec §2.3). */
export const CC = {
  vipDhcpAllocationSet: 'vip-dhcp-allocation-set',
  allHostsPreparedSuccessfully: 'all-hosts-prepared-successfully',
  unpreparingHostsExist: 'unpreparing-hosts-exist',
  failedPreparingHostsExist: 'failed-preparing-hosts-exist',
  clusterPreparationSucceeded: 'cluster-preparation-succeeded',
  clusterPreparationFailed: 'cluster-preparation-failed',
} as const;
