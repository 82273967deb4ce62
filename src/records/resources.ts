// ApiResource descriptions of every kind the operator touches, derived from the src/api kind table
// so group/version/plural are written in one place.
import {
  agentClassificationKind,
  agentClusterInstallKind,
  agentKind,
  agentServiceConfigKind,
  bareMetalHostKind,
  clusterDeploymentKind,
  clusterImageSetKind,
  infraEnvKind,
  type KindDefinition,
  machineKind,
  machineSetKind,
  nmStateConfigKind,
  preprovisioningImageKind,
} from '../api/index.ts';
import type { ApiResource } from '../runtime/index.ts';

export function resourceOf(k: KindDefinition): ApiResource {
  return {
    group: k.group,
    version: k.version,
    kind: k.kind,
    plural: k.plural,
    namespaced: k.scope === 'Namespaced',
  };
}

export const AGENT = resourceOf(agentKind);
export const INFRA_ENV = resourceOf(infraEnvKind);
export const NMSTATE_CONFIG = resourceOf(nmStateConfigKind);
export const AGENT_CLASSIFICATION = resourceOf(agentClassificationKind);
export const AGENT_SERVICE_CONFIG = resourceOf(agentServiceConfigKind);
export const AGENT_CLUSTER_INSTALL = resourceOf(agentClusterInstallKind);
export const CLUSTER_DEPLOYMENT = resourceOf(clusterDeploymentKind);
export const CLUSTER_IMAGE_SET = resourceOf(clusterImageSetKind);
export const BARE_METAL_HOST = resourceOf(bareMetalHostKind);
export const PREPROVISIONING_IMAGE = resourceOf(preprovisioningImageKind);

export const SECRET: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
};
export const CONFIG_MAP: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
export const EVENT: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
};

// Where hosts reach the REST API (src/operator/base-url-discovery.ts): the operator's own Route,
// Ingress or Service, watched by name in the operator namespace.
export const SERVICE: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Service',
  plural: 'services',
  namespaced: true,
};
export const INGRESS: ApiResource = {
  group: 'networking.k8s.io',
  version: 'v1',
  kind: 'Ingress',
  plural: 'ingresses',
  namespaced: true,
};
/** OpenShift only; watched only while route.openshift.io/v1 is served. */
/** The hub's ClusterVersion (OpenShift hubs only; cluster-scoped, the one object is `version`). */
export const CLUSTER_VERSION: ApiResource = {
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'ClusterVersion',
  plural: 'clusterversions',
  namespaced: false,
};

/** The hub's ClusterOperators (OpenShift hubs only; cluster-scoped), e.g. `baremetal`. */
export const CLUSTER_OPERATOR: ApiResource = {
  group: 'config.openshift.io',
  version: 'v1',
  kind: 'ClusterOperator',
  plural: 'clusteroperators',
  namespaced: false,
};

export const ROUTE: ApiResource = {
  group: 'route.openshift.io',
  version: 'v1',
  kind: 'Route',
  plural: 'routes',
  namespaced: true,
};

// Spoke kinds: reached only through a spoke client (src/records/spoke.ts, the spoke's admin
// kubeconfig), never on the hub, so they need no hub RBAC. The spoke's BareMetalHosts use
// BARE_METAL_HOST.
export const NODE: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Node',
  plural: 'nodes',
  namespaced: false,
};
// BMAC's Node drain (src/controllers/bmac/spoke.ts) lists and evicts them.
export const POD: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Pod',
  plural: 'pods',
  namespaced: true,
};
export const CERTIFICATE_SIGNING_REQUEST: ApiResource = {
  group: 'certificates.k8s.io',
  version: 'v1',
  kind: 'CertificateSigningRequest',
  plural: 'certificatesigningrequests',
  namespaced: false,
};
// The reclaim objects (src/controllers/agent/reclaim.ts), also spoke-only.
export const NAMESPACE: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};
export const SERVICE_ACCOUNT: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
};
export const ROLE: ApiResource = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'Role',
  plural: 'roles',
  namespaced: true,
};
export const ROLE_BINDING: ApiResource = { ...ROLE, kind: 'RoleBinding', plural: 'rolebindings' };
export const DAEMON_SET: ApiResource = {
  group: 'apps',
  version: 'v1',
  kind: 'DaemonSet',
  plural: 'daemonsets',
  namespaced: true,
};
export const MACHINE = resourceOf(machineKind);
export const MACHINE_SET = resourceOf(machineSetKind);
