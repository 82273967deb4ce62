// The operator's RBAC, written once: every rule names the code paths that need it, so a rule with no
// caller is visible and a new API call has an obvious place to be declared. hack/generate-rbac.ts
// writes config/rbac/*.yaml from this table and hack/generate-bundle.ts copies it into the CSV.
//
// Derived by reading every KubeClient call and informer: informers LIST + WATCH (src/runtime/
// watcher.ts); updateStatus PUTs the status subresource and GETs on conflict (src/runtime/status.ts);
// add/removeFinalizer JSON-patch metadata.finalizers and GET on a failed test op
// (src/runtime/finalizer.ts). Discovery (src/runtime/discovery.ts) only GETs /apis/<group>/<version>,
// which every authenticated user may (system:discovery), so it needs no rule.
import { stringify } from 'yaml';

export const OPERATOR_NAME = 'agent-install-operator';
export const OPERATOR_NAMESPACE = 'agent-install-operator';
export const SERVICE_ACCOUNT_NAME = 'agent-install-operator';
/** ClusterRole + ClusterRoleBinding name. */
export const CLUSTER_ROLE_NAME = 'agent-install-operator';
/** ClusterRole a scraper (e.g. Prometheus's ServiceAccount) is bound to, to read /metrics. */
export const METRICS_READER_ROLE_NAME = 'agent-install-operator-metrics-reader';
/**
 * Role + RoleBinding (in the operator namespace) name. Named for its first rule (the Lease); it also
 * lets the operator watch its own Service, Ingress and Route.
 */
export const NAMESPACE_ROLE_NAME = 'agent-install-operator-leader-election';

export type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';

export interface RbacRule {
  /** 'cluster': ClusterRole (CRs live in any namespace); 'namespace': Role in the operator namespace. */
  scope: 'cluster' | 'namespace';
  apiGroup: string;
  resources: string[];
  verbs: Verb[];
  /** `file:function` of every code path that needs the rule (the justification). */
  usedBy: string[];
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

const AGENT_INSTALL = 'agent-install.openshift.io';
const HIVE_EXTENSIONS = 'extensions.hive.openshift.io';
const HIVE = 'hive.openshift.io';
const METAL3 = 'metal3.io';

const INFORMER = 'src/records/context.ts:OperatorContext (typed informer: list+watch)';
const STATUS_REREAD = 'src/runtime/status.ts:updateStatus (get on a conflict)';
const FINALIZERS =
  'src/runtime/finalizer.ts:addFinalizer (JSON patch of metadata.finalizers; get on a failed test)';

export const RULES: readonly RbacRule[] = [
  {
    scope: 'cluster',
    apiGroup: AGENT_INSTALL,
    resources: ['agents'],
    verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
    usedBy: [
      INFORMER,
      'src/records/hosts/lookup.ts:findHost (get on a cache miss)',
      'src/server/hosts/registration.ts:registerHostAgent (create; replace (update) on take-over; get)',
      'src/controllers/agent/reconcile.ts:reconcileAgent (merge patch of metadata, spec.approved; finalizer)',
      'src/controllers/agentlabel/index.ts:register (merge patch of labels)',
      'src/controllers/bmac/index.ts:register (merge patch binding an Agent to its BareMetalHost; delete in the converged BMH delete flow)',
      'src/controllers/cluster/teardown.ts:teardownClusterInstall (delete; patch spec.clusterDeploymentName)',
      STATUS_REREAD,
      FINALIZERS,
    ],
  },
  {
    scope: 'cluster',
    apiGroup: AGENT_INSTALL,
    resources: ['agents/status'],
    verbs: ['update'],
    usedBy: [
      'src/controllers/agent/reconcile.ts:reconcileAgent (updateStatus)',
      'src/server/hosts/registration.ts:registerHostAgent (updateStatus)',
      'src/server/hosts/progress.ts:updateHostInstallProgress (updateStatus)',
      'src/server/hosts/scope.ts:writeHost (updateStatus: logs progress, logs collected)',
      'src/controllers/cluster/hosts-write.ts:writeHostChange (updateStatus)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: AGENT_INSTALL,
    resources: ['infraenvs', 'agentclassifications', 'agentserviceconfigs'],
    verbs: ['get', 'list', 'watch', 'patch'],
    usedBy: [
      INFORMER,
      'src/controllers/infraenv/controller.ts:reconcileInfraEnv (add/removeFinalizer)',
      'src/controllers/agentclassification/index.ts:register (add/removeFinalizer)',
      'src/controllers/agentserviceconfig/index.ts:reconcileAgentServiceConfig (add/removeFinalizer)',
      'src/controllers/ppi/index.ts:register (merge patch of an InfraEnv annotation)',
      'src/controllers/bmac/index.ts:register (watches InfraEnv)',
      STATUS_REREAD,
      FINALIZERS,
    ],
  },
  {
    scope: 'cluster',
    apiGroup: AGENT_INSTALL,
    resources: ['infraenvs/status', 'agentclassifications/status', 'agentserviceconfigs/status'],
    verbs: ['update'],
    usedBy: [
      'src/controllers/infraenv/controller.ts:reconcileInfraEnv (updateStatus)',
      'src/controllers/agentclassification/index.ts:register (updateStatus)',
      'src/controllers/agentserviceconfig/index.ts:writeConditions (updateStatus)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: AGENT_INSTALL,
    resources: ['nmstateconfigs'],
    verbs: ['list', 'watch'],
    usedBy: [
      INFORMER,
      'src/controllers/infraenv/controller.ts:NMSTATE_CONFIG (watched by the InfraEnv controller)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: HIVE_EXTENSIONS,
    resources: ['agentclusterinstalls'],
    verbs: ['get', 'list', 'watch', 'patch', 'delete'],
    usedBy: [
      INFORMER,
      'src/controllers/cluster/reconcile.ts:ensureAciMetadata (JSON patch: finalizer, owner reference)',
      'src/controllers/cluster/completion.ts:patchClusterMetadata (merge patch of spec.clusterMetadata)',
      'src/controllers/cluster/teardown.ts:teardownClusterInstall (delete; removeFinalizer)',
      'src/controllers/cluster/aci-check.ts:reconcileAgentClusterInstall (removeFinalizer)',
      STATUS_REREAD,
    ],
  },
  {
    scope: 'cluster',
    apiGroup: HIVE_EXTENSIONS,
    resources: ['agentclusterinstalls/status'],
    verbs: ['update'],
    usedBy: [
      'src/controllers/cluster/sync.ts:writeAciStatus (updateStatus)',
      'src/server/clusters/scope.ts:mutateBackend (updateStatus)',
      'src/server/hosts/files.ts:uploadLogs (updateStatus: controller logs collected)',
      'src/controllers/cluster/aci-check.ts:reconcileAgentClusterInstall (updateStatus)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: HIVE,
    resources: ['clusterdeployments'],
    verbs: ['get', 'list', 'watch', 'patch'],
    usedBy: [
      INFORMER,
      'src/controllers/cluster/reconcile.ts:reconcileClusterDeployment (addFinalizer)',
      'src/controllers/cluster/teardown.ts:teardownClusterInstall (removeFinalizer)',
      'src/controllers/cluster/completion.ts:handOffInstalledCluster (merge patch of spec.installed)',
      'src/webhooks/kube.ts:clusterDeploymentGetter (get, for the InfraEnv admission rule)',
      FINALIZERS,
    ],
  },
  {
    scope: 'cluster',
    apiGroup: HIVE,
    resources: ['clusterdeployments/finalizers'],
    verbs: ['update'],
    usedBy: [
      'src/controllers/cluster/completion.ts:ownerRefTo (blockOwnerDeletion on the kubeconfig and password Secrets needs it under OwnerReferencesPermissionEnforcement, which OpenShift enables)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: HIVE,
    resources: ['clusterimagesets'],
    verbs: ['list', 'watch'],
    usedBy: [
      INFORMER,
      'src/controllers/cluster/index.ts:CLUSTER_IMAGE_SET (watched by the cluster controller)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: METAL3,
    resources: ['baremetalhosts'],
    verbs: ['list', 'watch', 'patch'],
    usedBy: [
      'src/controllers/bmac/index.ts:BARE_METAL_HOST (optional controller over BareMetalHosts: list+watch)',
      'src/controllers/bmac/index.ts:patchBmh (merge patch of metadata/spec)',
      'src/controllers/ppi/index.ts:register (watches BareMetalHost; merge patch)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: METAL3,
    resources: ['preprovisioningimages'],
    verbs: ['get', 'list', 'watch', 'patch'],
    usedBy: [
      'src/controllers/ppi/index.ts:register (optional controller: list+watch; merge patch of finalizer/label; removeFinalizer)',
      'src/controllers/bmac/index.ts:PREPROVISIONING_IMAGE (watched)',
      STATUS_REREAD,
      FINALIZERS,
    ],
  },
  {
    scope: 'cluster',
    apiGroup: METAL3,
    resources: ['preprovisioningimages/status'],
    verbs: ['update'],
    usedBy: ['src/controllers/ppi/index.ts:register (updateStatus)'],
  },
  {
    scope: 'cluster',
    apiGroup: '',
    resources: ['secrets'],
    verbs: ['get', 'list', 'watch', 'create', 'patch'],
    usedBy: [
      'src/records/context.ts:operatorCacheOptions (label-filtered informer: list+watch)',
      'src/runtime/informer.ts:getOrFetch (live get on a miss)',
      'src/records/referenced.ts:getAndLabelForWatch (merge patch of the watch/backup labels)',
      'src/records/hosts/keystore.ts:SecretKeyStore (get, create the signing-key Secret)',
      'src/controllers/cluster/completion.ts:ensureSecret (get, create, merge patch)',
      'src/records/hub/release-image.ts:HubReleaseImages.lookup (get of openshift-config/pull-secret: registry credentials for the hub release)',
      // Not a resourceNames Role in openshift-machine-api: that namespace is absent on plain
      // Kubernetes (the Role would not apply) and an OLM CSV can only grant namespaced permissions
      // in the operator's own namespace; this cluster-wide get already covers it.
      'src/records/hub/icc.ts:IccSecret.current (live get of openshift-machine-api/metal3-image-customization-config, at most once per 10 min: ironic URLs and image)',
      'src/controllers/bmac/fencing.ts:ensureFencingCredentials (create, merge patch of the generated fencing Secret; watch of BMC Secrets)',
      'src/records/spoke.ts:spokeClient (the admin kubeconfig Secret, read through readSecret; everything done with it happens on the spoke and needs no hub rule)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: '',
    resources: ['configmaps'],
    verbs: ['get', 'list', 'watch', 'patch'],
    usedBy: [
      'src/records/context.ts:operatorCacheOptions (label-filtered informer: list+watch)',
      'src/runtime/informer.ts:getOrFetch (live get on a miss)',
      'src/records/referenced.ts:getAndLabelForWatch (merge patch of the watch/backup labels)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: '',
    resources: ['events'],
    verbs: ['list', 'create', 'patch'],
    usedBy: [
      'src/runtime/events.ts:EventRecorder (create; merge patch of an aggregated Event)',
      'src/records/events.ts:OperatorEvents (create; list for GET /v2/events)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: 'config.openshift.io',
    resources: ['clusterversions'],
    verbs: ['get'],
    usedBy: [
      'src/records/hub/release-image.ts:HubReleaseImages.releaseImage (get of `version`, where served, at most once per 10 min: the hub release for the ironic agent image)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: 'config.openshift.io',
    resources: ['clusteroperators'],
    verbs: ['get'],
    usedBy: [
      'src/operator/converged-flow.ts:decideConvergedFlow (get of `baremetal`, where served, once at start: its version gates the converged flow)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: 'authorization.k8s.io',
    resources: ['subjectaccessreviews'],
    verbs: ['create'],
    usedBy: [
      'src/webhooks/kube.ts:accessReviewer (the InfraEnv and Agent webhooks ask whether the requesting user may update a ClusterDeployment in another namespace)',
      'src/runtime/metrics-auth.ts:MetricsAuthorizer (may the scraper get the non-resource URL /metrics)',
    ],
  },
  {
    scope: 'cluster',
    apiGroup: 'authentication.k8s.io',
    resources: ['tokenreviews'],
    verbs: ['create'],
    usedBy: ['src/runtime/metrics-auth.ts:MetricsAuthorizer (who is the bearer of a /metrics scrape token)'],
  },
  {
    scope: 'namespace',
    apiGroup: '',
    resources: ['services'],
    verbs: ['list', 'watch'],
    usedBy: [
      'src/operator/base-url-discovery.ts:BaseUrlDiscovery (informer on the API Service, by name: list+watch)',
    ],
  },
  {
    scope: 'namespace',
    apiGroup: 'networking.k8s.io',
    resources: ['ingresses'],
    verbs: ['list', 'watch'],
    usedBy: [
      'src/operator/base-url-discovery.ts:BaseUrlDiscovery (informer on the API Ingress, by name: list+watch)',
    ],
  },
  {
    scope: 'namespace',
    apiGroup: 'route.openshift.io',
    resources: ['routes'],
    verbs: ['list', 'watch'],
    usedBy: [
      'src/operator/base-url-discovery.ts:BaseUrlDiscovery (informer on the API Route, by name, where Routes are served: list+watch)',
    ],
  },
  {
    scope: 'namespace',
    apiGroup: 'coordination.k8s.io',
    resources: ['leases'],
    verbs: ['get', 'list', 'watch', 'create', 'update'],
    usedBy: [
      'src/runtime/leader-election.ts:LeaderElector (get, create, replace (update) of the Lease; a standby lists and watches it by name to see renewals as they are written)',
    ],
  },
];

function toPolicyRule(r: RbacRule): PolicyRule {
  return { apiGroups: [r.apiGroup], resources: [...r.resources], verbs: [...r.verbs] };
}

/** Rules of the ClusterRole, in table order. */
export function clusterRules(): PolicyRule[] {
  return RULES.filter((r) => r.scope === 'cluster').map(toPolicyRule);
}

/** Rules of the Role in the operator namespace. */
export function namespaceRules(): PolicyRule[] {
  return RULES.filter((r) => r.scope === 'namespace').map(toPolicyRule);
}

const LABELS = { 'app.kubernetes.io/name': OPERATOR_NAME };

const SUBJECT = { kind: 'ServiceAccount', name: SERVICE_ACCOUNT_NAME, namespace: OPERATOR_NAMESPACE };

/** The RBAC objects, keyed by their file name under config/rbac/. */
export function rbacObjects(): Map<string, Record<string, unknown>> {
  return new Map<string, Record<string, unknown>>([
    [
      'service_account.yaml',
      {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: SERVICE_ACCOUNT_NAME, namespace: OPERATOR_NAMESPACE, labels: LABELS },
      },
    ],
    [
      'role.yaml',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: CLUSTER_ROLE_NAME, labels: LABELS },
        rules: clusterRules(),
      },
    ],
    [
      'role_binding.yaml',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: CLUSTER_ROLE_NAME, labels: LABELS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: CLUSTER_ROLE_NAME },
        subjects: [SUBJECT],
      },
    ],
    [
      'metrics_reader_role.yaml',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: METRICS_READER_ROLE_NAME, labels: LABELS },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      },
    ],
    [
      'leader_election_role.yaml',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: NAMESPACE_ROLE_NAME, namespace: OPERATOR_NAMESPACE, labels: LABELS },
        rules: namespaceRules(),
      },
    ],
    [
      'leader_election_role_binding.yaml',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: NAMESPACE_ROLE_NAME, namespace: OPERATOR_NAMESPACE, labels: LABELS },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: NAMESPACE_ROLE_NAME },
        subjects: [SUBJECT],
      },
    ],
  ]);
}

export const RBAC_DIR = 'config/rbac';

const HEADER = '# Generated by hack/generate-rbac.ts from src/rbac/rules.ts; do not edit.\n';

/** Repo-relative path → YAML text of every file under config/rbac/ (kustomization included). */
export function rbacFiles(): Map<string, string> {
  const out = new Map<string, string>();
  const objects = rbacObjects();
  for (const [name, obj] of objects) out.set(`${RBAC_DIR}/${name}`, HEADER + stringify(obj));
  out.set(
    `${RBAC_DIR}/kustomization.yaml`,
    HEADER +
      stringify({
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        resources: [...objects.keys()],
      }),
  );
  return out;
}
