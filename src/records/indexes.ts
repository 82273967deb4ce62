// Store indexes the controllers and the REST backend look objects up by. O(1) per lookup, so a
// reconcile never lists a kind (docs/design/records.md).
import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../api/index.ts';
import { INFRAENV_LABEL } from '../api/index.ts';
import type { IndexFunc, KubeObject, LabelSelector } from '../runtime/index.ts';
import { keyOf } from '../runtime/index.ts';

export const UID_INDEX = 'uid';
/** Agents by the ClusterDeployment (`ns/name`) their spec names. */
export const AGENT_BY_CLUSTER_INDEX = 'agent-by-cluster';
/** Agents by the InfraEnv (`ns/name`) they registered through (the infraenvs label). */
export const AGENT_BY_INFRAENV_INDEX = 'agent-by-infraenv';
/** Agents by lower-case MAC address of any interface (BMH pairing). */
export const AGENT_BY_MAC_INDEX = 'agent-by-mac';
/** InfraEnvs by the ClusterDeployment (`ns/name`) their clusterRef names. */
export const INFRAENV_BY_CLUSTER_INDEX = 'infraenv-by-cluster';
/**
 * InfraEnvs by one label pair their NMStateConfig selector requires (`ns/key=value`, the first key
 * in order), or `ns/*` for a selector of expressions only: an NMStateConfig's event finds the
 * InfraEnvs that may select it from its own labels instead of walking its namespace.
 */
export const INFRAENV_BY_NMSTATE_SELECTOR_INDEX = 'infraenv-by-nmstate-selector';
/** The bucket of selectors without matchLabels (`*` is not a label key). */
export const ANY_LABELS = '*';
/** AgentClusterInstalls by the ClusterDeployment (`ns/name`) they reference. */
export const ACI_BY_CLUSTER_INDEX = 'aci-by-cluster';

/** Agents by name (the host id), across namespaces: a host id names one host everywhere. */
export const AGENT_BY_NAME_INDEX = 'agent-by-name';
/** Agents by the uid of the cluster they are bound to (status), which may differ from the spec's. */
export const AGENT_BY_BOUND_CLUSTER_INDEX = 'agent-by-bound-cluster';
/** Agents by the Secret (`ns/name`) their spec.ignitionEndpointTokenReference names. */
export const AGENT_BY_TOKEN_SECRET_INDEX = 'agent-by-token-secret';

export const agentByName: IndexFunc<Agent> = (a) => (a.metadata.name ? [a.metadata.name] : []);

export const agentByBoundCluster: IndexFunc<Agent> = (a) => {
  const uid = a.status?.backend?.clusterID;
  return uid ? [uid] : [];
};

export const agentByTokenSecret: IndexFunc<Agent> = (a) => {
  const ref = a.spec?.ignitionEndpointTokenReference;
  return ref?.name && ref.namespace ? [keyOf(ref.namespace, ref.name)] : [];
};

export const indexByUid: IndexFunc<KubeObject> = (o) => (o.metadata.uid ? [o.metadata.uid] : []);

export const agentByCluster: IndexFunc<Agent> = (a) => {
  const ref = a.spec?.clusterDeploymentName;
  return ref?.name ? [keyOf(ref.namespace || a.metadata.namespace, ref.name)] : [];
};

export const agentByInfraEnv: IndexFunc<Agent> = (a) => {
  const ie = a.metadata.labels?.[INFRAENV_LABEL];
  return ie ? [keyOf(a.metadata.namespace, ie)] : [];
};

export const agentByMac: IndexFunc<Agent> = (a) =>
  (a.status?.inventory?.interfaces ?? [])
    .map((i) => (i.macAddress ?? '').toLowerCase())
    .filter((m) => m !== '');

export const infraEnvByCluster: IndexFunc<InfraEnv> = (ie) => {
  const ref = ie.spec?.clusterRef;
  return ref?.name ? [keyOf(ref.namespace || ie.metadata.namespace, ref.name)] : [];
};

/**
 * The InfraEnv's NMStateConfig selector; undefined when it is empty, which selects no
 * NMStateConfig at all (kubeapi.md §7.20), `matchLabels: {}` included.
 */
export function nmStateSelectorOf(ie: InfraEnv): LabelSelector | undefined {
  const sel = ie.spec?.nmStateConfigLabelSelector as LabelSelector | undefined;
  if (!sel) return undefined;
  const noLabels = Object.keys(sel.matchLabels ?? {}).length === 0;
  return noLabels && !sel.matchExpressions?.length ? undefined : sel;
}

export const infraEnvByNmStateSelector: IndexFunc<InfraEnv> = (ie) => {
  const sel = nmStateSelectorOf(ie);
  if (!sel) return [];
  const first = Object.keys(sel.matchLabels ?? {}).sort()[0];
  const pair = first === undefined ? ANY_LABELS : `${first}=${sel.matchLabels?.[first]}`;
  return [keyOf(ie.metadata.namespace, pair)];
};

export const aciByCluster: IndexFunc<AgentClusterInstall> = (aci) => {
  const name = aci.spec?.clusterDeploymentRef?.name;
  return name ? [keyOf(aci.metadata.namespace, name)] : [];
};

/** The ACI a ClusterDeployment points at (`spec.clusterInstallRef`), as `ns/name`. */
export function aciKeyOf(cd: ClusterDeployment): string | undefined {
  const ref = cd.spec?.clusterInstallRef;
  return ref?.name ? keyOf(cd.metadata.namespace, ref.name) : undefined;
}
