// What wakes the ClusterDeployment reconciler (kubeapi.md §3.1.1), as store indexes and map
// functions: every lookup is an O(1) index read, never a LIST.

import {
  type Agent,
  type AgentClusterInstall,
  type ClusterDeployment,
  HIVE_EXTENSIONS_GROUP,
  INFRAENV_LABEL,
} from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { manifestsConfigMapNames } from '../../records/index.ts';
import { changedAsRead, type IndexFunc, type KubeObject, keyOf, objectKey } from '../../runtime/index.ts';

/** ClusterDeployments by the AgentClusterInstall (`ns/name`) their clusterInstallRef names. */
export const CD_BY_INSTALL_REF_INDEX = 'cluster-cd-by-install-ref';
/** ClusterDeployments by their pull Secret (`ns/name`). */
export const CD_BY_PULL_SECRET_INDEX = 'cluster-cd-by-pull-secret';
/** AgentClusterInstalls by the ClusterImageSet they use (cluster-scoped name). */
export const ACI_BY_IMAGE_SET_INDEX = 'cluster-aci-by-image-set';
/** AgentClusterInstalls by the ConfigMaps (`ns/name`) they read: manifests and mirror registry. */
export const ACI_BY_CONFIG_MAP_INDEX = 'cluster-aci-by-config-map';
/** AgentClusterInstalls by the Secrets (`ns/name`) they read: ignition endpoint CA. */
export const ACI_BY_SECRET_INDEX = 'cluster-aci-by-secret';

/** The CD asks for an AgentClusterInstall (upstream ignores every other install kind). */
export function isAgentInstallRef(cd: ClusterDeployment): boolean {
  const ref = cd.spec?.clusterInstallRef;
  return ref?.group === HIVE_EXTENSIONS_GROUP && ref.kind === 'AgentClusterInstall' && !!ref.name;
}

export const cdByInstallRef: IndexFunc<ClusterDeployment> = (cd) =>
  isAgentInstallRef(cd) ? [keyOf(cd.metadata.namespace, cd.spec.clusterInstallRef?.name ?? '')] : [];

export const cdByPullSecret: IndexFunc<ClusterDeployment> = (cd) => {
  const name = cd.spec?.pullSecretRef?.name;
  return name ? [keyOf(cd.metadata.namespace, name)] : [];
};

export const aciByImageSet: IndexFunc<AgentClusterInstall> = (aci) => {
  const name = aci.spec?.imageSetRef?.name;
  return name ? [name] : [];
};

export const aciByConfigMap: IndexFunc<AgentClusterInstall> = (aci) => {
  const ns = aci.metadata.namespace;
  const keys = manifestsConfigMapNames(aci).map((n) => keyOf(ns, n));
  const mirror = aci.spec?.mirrorRegistryRef;
  if (mirror?.name) keys.push(keyOf(mirror.namespace || ns, mirror.name));
  return keys;
};

export const aciBySecret: IndexFunc<AgentClusterInstall> = (aci) => {
  const ca = aci.spec?.ignitionEndpoint?.caCertificateReference;
  return ca?.name ? [keyOf(ca.namespace || aci.metadata.namespace, ca.name)] : [];
};

/** Adds the indexes above to the shared stores (once per process). */
export function addClusterIndexes(ctx: OperatorContext): void {
  const { clusterDeployments, agentClusterInstalls } = ctx.informers;
  clusterDeployments.store.addIndex(CD_BY_INSTALL_REF_INDEX, cdByInstallRef);
  clusterDeployments.store.addIndex(CD_BY_PULL_SECRET_INDEX, cdByPullSecret);
  agentClusterInstalls.store.addIndex(ACI_BY_IMAGE_SET_INDEX, aciByImageSet);
  agentClusterInstalls.store.addIndex(ACI_BY_CONFIG_MAP_INDEX, aciByConfigMap);
  agentClusterInstalls.store.addIndex(ACI_BY_SECRET_INDEX, aciBySecret);
}

/** CD keys an ACI concerns: the CD it names, and any CD whose clusterInstallRef names it. */
export function cdKeysOfAci(ctx: OperatorContext, aci: AgentClusterInstall): string[] {
  const ns = aci.metadata.namespace;
  const keys = new Set<string>();
  const named = aci.spec?.clusterDeploymentRef?.name;
  if (named) keys.add(keyOf(ns, named));
  for (const cd of ctx.informers.clusterDeployments.store.byIndex(
    CD_BY_INSTALL_REF_INDEX,
    keyOf(ns, aci.metadata.name ?? ''),
  )) {
    keys.add(keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
  }
  return [...keys];
}

export function cdKeysOfAcis(ctx: OperatorContext, acis: readonly AgentClusterInstall[]): string[] {
  return [...new Set(acis.flatMap((a) => cdKeysOfAci(ctx, a)))];
}

/** Secret → CDs using it as pull secret, and CDs whose ACI reads it (ignition endpoint CA). */
export function cdKeysOfSecret(ctx: OperatorContext, secret: KubeObject): string[] {
  const key = keyOf(secret.metadata.namespace, secret.metadata.name ?? '');
  const keys = ctx.informers.clusterDeployments.store
    .byIndex(CD_BY_PULL_SECRET_INDEX, key)
    .map((cd) => keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
  keys.push(...cdKeysOfAcis(ctx, ctx.informers.agentClusterInstalls.store.byIndex(ACI_BY_SECRET_INDEX, key)));
  // The admin kubeconfig of an installed or imported cluster is named after its CD.
  const m = /^(.*)-admin-(kubeconfig|password)$/.exec(secret.metadata.name ?? '');
  if (m?.[1]) keys.push(keyOf(secret.metadata.namespace, m[1]));
  return [...new Set(keys)];
}

export function cdKeysOfConfigMap(ctx: OperatorContext, cm: KubeObject): string[] {
  const key = keyOf(cm.metadata.namespace, cm.metadata.name ?? '');
  return cdKeysOfAcis(ctx, ctx.informers.agentClusterInstalls.store.byIndex(ACI_BY_CONFIG_MAP_INDEX, key));
}

export function cdKeysOfImageSet(ctx: OperatorContext, cis: KubeObject): string[] {
  return cdKeysOfAcis(
    ctx,
    ctx.informers.agentClusterInstalls.store.byIndex(ACI_BY_IMAGE_SET_INDEX, cis.metadata.name ?? ''),
  );
}

/**
 * CD keys an Agent concerns: the one its spec asks for and the one it is bound to (they differ
 * while it moves or unbinds). The only source of Agent wakes for the cluster: one per change.
 */
export function cdKeysOfAgent(ctx: OperatorContext, agent: Agent): string[] {
  const keys = new Set<string>();
  const ref = agent.spec?.clusterDeploymentName;
  if (ref?.name) keys.add(keyOf(ref.namespace || agent.metadata.namespace, ref.name));
  const cid = agent.status?.backend?.clusterID;
  const cd = cid ? ctx.clusterDeploymentById(cid) : undefined;
  if (cd) keys.add(objectKey(cd));
  return [...keys];
}

/** An Agent as the cluster reconcile reads it: no annotations, and of the labels the InfraEnv's. */
function agentAsClusterReads(a: Agent): Agent {
  const { annotations: _a, labels, generation: _g, ...metadata } = a.metadata;
  const infraEnv = labels?.[INFRAENV_LABEL];
  return {
    ...a,
    metadata: { ...metadata, labels: infraEnv === undefined ? {} : { [INFRAENV_LABEL]: infraEnv } },
  };
}

/**
 * Whether an Agent update can change what the cluster reconcile does. Nothing of the cluster reads
 * an Agent's annotations (upstream's backups of its status) or labels other than the InfraEnv's
 * (inventory labels, derived from the status). The Agent reconciler patches those just before
 * each status write, and waking the cluster for the patch as well doubled its passes over all its
 * hosts per inventory (issue 16).
 */
export function agentChangeReachesCluster(oldAgent: Agent, newAgent: Agent): boolean {
  return changedAsRead(agentAsClusterReads, oldAgent, newAgent);
}
