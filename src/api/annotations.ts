// Label, annotation and finalizer keys of the kube-API (kubeapi.md §4 and §1.6). Keys and
// values are part of the compatibility contract: do not change them.

// ---------------------------------------------------------------------------------------------
// Labels
// ---------------------------------------------------------------------------------------------

/** On Agents, BareMetalHosts and PreprovisioningImages: name of the InfraEnv (same namespace). */
export const INFRAENV_LABEL = 'infraenvs.agent-install.openshift.io';
/** On Agents: namespace of the bound ClusterDeployment, or "". */
export const CLUSTER_DEPLOYMENT_NAMESPACE_LABEL = 'agent-install.openshift.io/clusterdeployment-namespace';
/** On Agents: name of the matched BareMetalHost. */
export const AGENT_BMH_LABEL = 'agent-install.openshift.io/bmh';

/** Inventory labels on Agents. */
export const INVENTORY_LABEL_PREFIX = 'inventory.agent-install.openshift.io/';
export const INVENTORY_HAS_NONROTATIONAL_DISK_LABEL =
  'inventory.agent-install.openshift.io/storage-hasnonrotationaldisk';
export const INVENTORY_CPU_ARCHITECTURE_LABEL = 'inventory.agent-install.openshift.io/cpu-architecture';
export const INVENTORY_CPU_VIRT_ENABLED_LABEL = 'inventory.agent-install.openshift.io/cpu-virtenabled';
export const INVENTORY_HOST_MANUFACTURER_LABEL = 'inventory.agent-install.openshift.io/host-manufacturer';
export const INVENTORY_HOST_PRODUCT_NAME_LABEL = 'inventory.agent-install.openshift.io/host-productname';
export const INVENTORY_HOST_IS_VIRTUAL_LABEL = 'inventory.agent-install.openshift.io/host-isvirtual';

/** AgentClassification result label: `<prefix><labelKey>`. */
export const AGENT_CLASSIFICATION_LABEL_PREFIX = 'agentclassification.agent-install.openshift.io/';

/** On the ACI: copied into the backend cluster tags. */
export const ACI_CONSUMER_LABEL = 'agentclusterinstalls.agent-install.openshift.io/consumer';

/** Makes Secrets and ConfigMaps visible to the filtered cache (value "true"). */
export const WATCH_LABEL = 'agent-install.openshift.io/watch';
/** ACM backup label (value "true"). */
export const BACKUP_LABEL = 'cluster.open-cluster-management.io/backup';
/** On PreprovisioningImages (value "true"). */
export const VELERO_EXCLUDE_FROM_BACKUP_LABEL = 'velero.io/exclude-from-backup';

/** Hive conventions on the credential Secrets written for an installed cluster. */
export const HIVE_CLUSTER_DEPLOYMENT_NAME_LABEL = 'hive.openshift.io/cluster-deployment-name';
export const HIVE_SECRET_TYPE_LABEL = 'hive.openshift.io/secret-type';
export const HIVE_SECRET_TYPE_KUBECONFIG = 'kubeconfig';
export const HIVE_SECRET_TYPE_KUBEADMIN_CREDS = 'kubeadmincreds';

// ---------------------------------------------------------------------------------------------
// Agent annotations
// ---------------------------------------------------------------------------------------------

/** Always "0.1". */
export const INVENTORY_VERSION_ANNOTATION = 'inventory.agent-install.openshift.io/version';
export const INVENTORY_VERSION = '0.1';
export const AGENT_STATE_ANNOTATION = 'agent.agent-install.openshift.io/state';
export const AGENT_ROLE_ANNOTATION = 'agent.agent-install.openshift.io/role';
export const AGENT_INVENTORY_ANNOTATION = 'agent.agent-install.openshift.io/inventory';
export const AGENT_VALIDATIONS_INFO_ANNOTATION = 'agent.agent-install.openshift.io/validations-info';
export const AGENT_CURRENT_STAGE_ANNOTATION = 'agent.agent-install.openshift.io/current-stage';
/** Presence only: skip spoke Node/Machine/BMH cleanup. */
export const AGENT_SKIP_SPOKE_CLEANUP_ANNOTATION = 'agent.agent-install.openshift.io/skip-spoke-cleanup';
/** Sorted, comma-joined keys of spec.nodeLabels that came from the InfraEnv. */
export const AGENT_INHERITED_NODE_LABELS_ANNOTATION =
  'agent.agent-install.openshift.io/inherited-node-labels';

// ---------------------------------------------------------------------------------------------
// InfraEnv annotations
// ---------------------------------------------------------------------------------------------

export const INFRAENV_ENABLE_IRONIC_AGENT_ANNOTATION =
  'infraenv.agent-install.openshift.io/enable-ironic-agent';
export const INFRAENV_IRONIC_AGENT_IMAGE_OVERRIDE_ANNOTATION =
  'infraenv.agent-install.openshift.io/ironic-agent-image-override';
/** `v4`, `v6` or `v4,v6`. */
export const INFRAENV_IP_FAMILY_ANNOTATION = 'infraenv.agent-install.openshift.io/ip-family';
/**
 * Not upstream: set or change it (any value, e.g. a counter) to revoke every agent and download
 * token of the InfraEnv; its image is rebuilt with a fresh token (docs/operations.md "Host tokens").
 */
export const INFRAENV_TOKEN_GENERATION_ANNOTATION = 'infraenv.agent-install.openshift.io/token-generation';
/** Comma-separated InfraEnv label keys copied into Agent spec.nodeLabels. */
export const INFRAENV_PROPAGATE_NODE_LABELS_ANNOTATION =
  'infraenv.agent-install.openshift.io/propagate-node-labels';

// ---------------------------------------------------------------------------------------------
// AgentClusterInstall annotations
// ---------------------------------------------------------------------------------------------

/** JSON install-config patch (day 1 only). */
export const INSTALL_CONFIG_OVERRIDES_ANNOTATION = 'agent-install.openshift.io/install-config-overrides';
/** Comma-separated cluster validation ids to ignore (absent differs from empty). */
export const IGNORED_CLUSTER_VALIDATIONS_ANNOTATION =
  'agent-install.openshift.io/ignored-cluster-validations';
/** Comma-separated host validation ids to ignore. */
export const IGNORED_HOST_VALIDATIONS_ANNOTATION = 'agent-install.openshift.io/ignored-host-validations';

// ---------------------------------------------------------------------------------------------
// ClusterDeployment annotations
// ---------------------------------------------------------------------------------------------

/** Parsed as a boolean; true acts like ACI spec.holdInstallation. */
export const HIVE_RECONCILE_PAUSE_ANNOTATION = 'hive.openshift.io/reconcile-pause';

// ---------------------------------------------------------------------------------------------
// BareMetalHost annotations
// ---------------------------------------------------------------------------------------------

export const BMH_ROLE_ANNOTATION = 'bmac.agent-install.openshift.io/role';
export const BMH_HOSTNAME_ANNOTATION = 'bmac.agent-install.openshift.io/hostname';
export const BMH_MACHINE_CONFIG_POOL_ANNOTATION = 'bmac.agent-install.openshift.io/machine-config-pool';
export const BMH_INSTALLER_ARGS_ANNOTATION = 'bmac.agent-install.openshift.io/installer-args';
export const BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION =
  'bmac.agent-install.openshift.io/ignition-config-overrides';
/** `namespace/name` of the ClusterDeployment; "" clears. */
export const BMH_CLUSTER_REFERENCE_ANNOTATION = 'bmac.agent-install.openshift.io/cluster-reference';
/** Prefix (note the `.` before the key): value replaces Agent spec.nodeLabels. */
export const BMH_NODE_LABEL_ANNOTATION_PREFIX = 'bmac.agent-install.openshift.io.node-label.';
/** Prefix: value is added to the Agent labels. */
export const BMH_AGENT_LABEL_ANNOTATION_PREFIX = 'bmac.agent-install.openshift.io.agent-label.';
export const BMH_FENCING_CREDENTIALS_SECRET_NAME_ANNOTATION =
  'bmac.agent-install.openshift.io/fencing-credentials-secret-name';
/** Presence only: generate `<agent>-fencing-credentials` from the BMC details. */
export const BMH_CREATE_FENCING_CREDENTIALS_SECRET_ANNOTATION =
  'bmac.agent-install.openshift.io/create-fencing-credentials-secret';
/** Presence only. */
export const BMH_REMOVE_AGENT_AND_NODE_ON_DELETE_ANNOTATION =
  'bmac.agent-install.openshift.io/remove-agent-and-node-on-delete';
/** Presence only. */
export const BMH_ALLOW_PROVISIONED_HOST_MANAGEMENT_ANNOTATION =
  'bmac.agent-install.openshift.io/allow-provisioned-host-management';
/** Go duration. */
export const BMH_DRAIN_TIMEOUT_ANNOTATION = 'bmac.agent-install.openshift.io/drain-timeout';
export const BMH_DRAIN_STARTED_AT_ANNOTATION = 'bmac.agent-install.openshift.io/drain-started-at';
export const BMH_DRAIN_STATUS_ANNOTATION = 'bmac.agent-install.openshift.io/drain-status';
export const BMH_DRAIN_STATUS_IN_PROGRESS = 'draining in progress';
export const BMH_DRAIN_STATUS_SUCCEEDED = 'drain succeeded';
export const BMH_DRAIN_STATUS_TIMED_OUT = 'drain timed out';
/** Prefix of the failure value: `failed to drain node: <err>`. */
export const BMH_DRAIN_STATUS_FAILED_PREFIX = 'failed to drain node: ';
export const BMH_SPOKE_BMH_MACHINE_CREATED_ANNOTATION =
  'bmac.agent-install.openshift.io/spoke-bmh-machine-created';

export const BMH_DETACHED_ANNOTATION = 'baremetalhost.metal3.io/detached';
export const BMH_PAUSED_ANNOTATION = 'baremetalhost.metal3.io/paused';
export const BMH_STATUS_ANNOTATION = 'baremetalhost.metal3.io/status';
/** Value of the detached and paused annotations written by this operator. */
export const BMH_ANNOTATION_OWNER_VALUE = 'assisted-service-controller';
/** Detached value used when the Agent and Node are removed on delete. */
export const BMH_DETACHED_DELAY_DELETE_VALUE = '{"deleteAction":"delay"}';
export const BMH_INSPECT_ANNOTATION = 'inspect.metal3.io';
export const BMH_INSPECT_DISABLED = 'disabled';
export const BMH_HARDWARE_DETAILS_ANNOTATION = 'inspect.metal3.io/hardwaredetails';
export const BMH_REBOOT_ANNOTATION = 'reboot.metal3.io';
export const BMH_REBOOT_FORCE_VALUE = '{"force": true}';

// ---------------------------------------------------------------------------------------------
// Spoke objects
// ---------------------------------------------------------------------------------------------

export const MACHINE_BMH_ANNOTATION = 'metal3.io/BareMetalHost';
export const MACHINE_DELETE_ANNOTATION = 'machine.openshift.io/delete-machine';
export const MACHINE_EXCLUDE_NODE_DRAINING_ANNOTATION = 'machine.openshift.io/exclude-node-draining';
export const MACHINE_CLUSTER_API_CLUSTER_LABEL = 'machine.openshift.io/cluster-api-cluster';
export const MACHINE_CLUSTER_API_MACHINE_ROLE_LABEL = 'machine.openshift.io/cluster-api-machine-role';
export const MACHINE_CLUSTER_API_MACHINE_TYPE_LABEL = 'machine.openshift.io/cluster-api-machine-type';
export const MACHINE_CLUSTER_API_MACHINESET_LABEL = 'machine.openshift.io/cluster-api-machineset';
export const MACHINESET_AUTOSCALE_TO_HOSTS_ANNOTATION = 'metal3.io/autoscale-to-hosts';
export const NODE_MACHINE_ANNOTATION = 'machine.openshift.io/machine';

// ---------------------------------------------------------------------------------------------
// AgentServiceConfig annotations
// ---------------------------------------------------------------------------------------------

export const ASC_CONFIGMAP_OVERRIDE_ANNOTATION =
  'unsupported.agent-install.openshift.io/assisted-service-configmap';
export const ASC_IMAGE_SERVICE_SKIP_VERIFY_TLS_ANNOTATION =
  'unsupported.agent-install.openshift.io/assisted-image-service-skip-verify-tls';
export const ASC_ALLOW_UNRESTRICTED_IMAGE_PULLS_ANNOTATION =
  'unsupported.agent-install.openshift.io/assisted-service-allow-unrestricted-image-pulls';
/** Immutable once set (tracked in status.immutableAnnotations). */
export const ASC_PVC_PREFIX_ANNOTATION = 'unsupported.agent-install.openshift.io/assisted-service-pvc-prefix';
/** Immutable once set (tracked in status.immutableAnnotations). */
export const ASC_SECRETS_PREFIX_ANNOTATION =
  'unsupported.agent-install.openshift.io/assisted-service-secrets-prefix';
/** Default true; when "false", spec.osImages must be empty. */
export const ENABLE_IMAGE_SERVICE_ANNOTATION = 'agent-install.openshift.io/enable-image-service';
export const ENABLE_LOCAL_CLUSTER_IMPORT_ANNOTATION =
  'agent-install.openshift.io/enable-local-cluster-import';

// ---------------------------------------------------------------------------------------------
// Finalizers
// ---------------------------------------------------------------------------------------------

export const AGENT_FINALIZER = 'agent.agent-install.openshift.io/ai-deprovision';
export const INFRAENV_FINALIZER = 'infraenv.agent-install.openshift.io/ai-deprovision';
export const AGENTCLUSTERINSTALL_FINALIZER = 'agentclusterinstall.agent-install.openshift.io/ai-deprovision';
export const CLUSTERDEPLOYMENT_FINALIZER = 'clusterdeployments.agent-install.openshift.io/ai-deprovision';
export const BMH_FINALIZER = 'bmac.agent-install.openshift.io/deprovision';
export const PREPROVISIONINGIMAGE_FINALIZER =
  'preprovisioningimage.agent-install.openshift.io/ai-deprovision';
/** No `/` suffix. */
export const AGENTCLASSIFICATION_FINALIZER = 'agentclassification.agent-install.openshift.io';
export const AGENTSERVICECONFIG_FINALIZER = 'agentserviceconfig.agent-install.openshift.io/ai-deprovision';
export const AGENTSERVICECONFIG_LOCAL_CLUSTER_IMPORT_FINALIZER =
  'agentserviceconfig.agent-install.openshift.io/local-cluster-import-deprovision';
