// Core records assembled from the caches: the one place that knows which objects make up a
// cluster or an infra-env. The Agent reconciler, the ClusterDeployment reconciler and the REST
// backend all build records through here, so they always agree.
import type {
  Agent,
  AgentClusterInstall,
  ClusterDeployment,
  ClusterImageSet,
  InfraEnv,
  NMStateConfig,
} from '../api/index.ts';
import type { InfraEnv as InfraEnvRecord } from '../core/model.ts';
import { keyOf, matchesLabelSelector, selectFromStore } from '../runtime/index.ts';
import { aciAsAgentsRead } from './clusters/agents-view.ts';
import type { OperatorContext } from './context.ts';
import {
  type ClusterFromResourcesResult,
  clusterFromResources,
  infraEnvToRecord,
  manifestsConfigMapNames,
} from './index.ts';
import { ANY_LABELS, INFRAENV_BY_NMSTATE_SELECTOR_INDEX, nmStateSelectorOf } from './indexes.ts';
import {
  type DataObject,
  decodedSecretData,
  getAndLabelForWatch,
  readSecret,
  watchedFromCache,
} from './referenced.ts';

export interface ClusterView {
  cd: ClusterDeployment;
  aci: AgentClusterInstall | undefined;
  /** Absent when there is no ACI; then `result` is undefined too. */
  result: ClusterFromResourcesResult | undefined;
}

/** The ACI of a ClusterDeployment: the one its clusterInstallRef names, else one that points at it. */
export function aciFor(ctx: OperatorContext, cd: ClusterDeployment): AgentClusterInstall | undefined {
  // aciKeyOf's key without making it (every host poll passes here).
  const refName = cd.spec?.clusterInstallRef?.name;
  if (refName) {
    const aci = ctx.informers.agentClusterInstalls.get(cd.metadata.namespace ?? '', refName);
    if (aci) return aci;
  }
  return ctx.aciOfCluster(keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
}

export async function pullSecretOf(ctx: OperatorContext, ns: string, name: string | undefined) {
  if (!name) return undefined;
  const data = await readSecret(ctx, ns, name);
  return data?.['.dockerconfigjson'];
}

/** The CD's pull secret as the cluster record reads it: the key's value, or that the key is missing. */
function clusterPullSecret(secret: DataObject | undefined): {
  pullSecret?: string;
  pullSecretKeyMissing?: boolean;
} {
  if (!secret) return {};
  const value = decodedSecretData(secret)['.dockerconfigjson'];
  return value === undefined ? { pullSecretKeyMissing: true } : { pullSecret: value };
}

/**
 * The Secret and ConfigMaps a cluster record reads besides the cached CRs, as read for it: the
 * cached objects once they are watched (so identity is version), else live copies.
 */
export interface ClusterReferences {
  /** The ClusterDeployment's pull Secret, when it exists. */
  pullSecret: DataObject | undefined;
  /** The manifests ConfigMaps the ACI names that exist. */
  manifests: readonly { name: string; configMap: DataObject }[];
}

export async function readClusterReferences(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
): Promise<ClusterReferences> {
  const ns = cd.metadata.namespace ?? '';
  const secretName = cd.spec.pullSecretRef?.name;
  const pullSecret = secretName ? await getAndLabelForWatch(ctx, 'secret', ns, secretName) : undefined;
  const manifests: { name: string; configMap: DataObject }[] = [];
  for (const name of manifestsConfigMapNames(aci)) {
    const configMap = await getAndLabelForWatch(ctx, 'configmap', aci.metadata.namespace ?? ns, name);
    if (configMap) manifests.push({ name, configMap });
  }
  return { pullSecret, manifests };
}

/**
 * readClusterReferences's answer when the cache holds every referenced object, labelled: no read,
 * no write, no promise. Undefined when one must be read or labelled (or does not exist).
 */
export function cachedClusterReferences(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
): ClusterReferences | undefined {
  const ns = cd.metadata.namespace ?? '';
  const secretName = cd.spec.pullSecretRef?.name;
  const pullSecret = secretName ? watchedFromCache(ctx, 'secret', ns, secretName) : undefined;
  if (secretName && !pullSecret) return undefined;
  const manifests: { name: string; configMap: DataObject }[] = [];
  for (const name of manifestsConfigMapNames(aci)) {
    const configMap = watchedFromCache(ctx, 'configmap', aci.metadata.namespace ?? ns, name);
    if (!configMap) return undefined;
    manifests.push({ name, configMap });
  }
  return { pullSecret, manifests };
}

/** Which view of the ACI a record is built from: all of it, or what Agents read (agents-view.ts). */
export type AciReading = 'full' | 'agents';

/** The cached objects a ClusterDeployment's record is built from (besides referenced Secrets and ConfigMaps). */
export interface ClusterObjects {
  aci: AgentClusterInstall | undefined;
  clusterImageSet: ClusterImageSet | undefined;
  agents: readonly Agent[];
}

export function clusterObjects(ctx: OperatorContext, cd: ClusterDeployment): ClusterObjects {
  const aci = aciFor(ctx, cd);
  const imageSetName = aci?.spec.imageSetRef?.name;
  return {
    aci,
    clusterImageSet: imageSetName ? ctx.informers.clusterImageSets.get(undefined, imageSetName) : undefined,
    agents: aci ? ctx.agentsOfCluster(keyOf(cd.metadata.namespace, cd.metadata.name ?? '')) : [],
  };
}

/** Every object a cluster record is built from, in a fixed order, to compare two reads by identity. */
export function clusterRecordParts(
  cd: ClusterDeployment,
  objects: ClusterObjects,
  references: ClusterReferences,
): unknown[] {
  // The Agents list is the same frozen list while none of them changed (Store.byIndexShared).
  const parts: unknown[] = [cd, objects.aci, objects.clusterImageSet, objects.agents, references.pullSecret];
  for (const m of references.manifests) parts.push(m.configMap);
  return parts;
}

/**
 * Builds the cluster record of a ClusterDeployment from the caches (plus referenced Secrets);
 * `objects` and `references` when the caller has already read them.
 */
export async function clusterView(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  reading: AciReading = 'full',
  objects: ClusterObjects = clusterObjects(ctx, cd),
  references?: ClusterReferences,
): Promise<ClusterView> {
  const { aci: found, clusterImageSet, agents } = objects;
  if (!found) return { cd, aci: found, result: undefined };
  const aci = reading === 'agents' ? aciAsAgentsRead(found) : found;
  const { pullSecret, manifests } = references ?? (await readClusterReferences(ctx, cd, aci));
  const result = clusterFromResources({
    cd,
    aci,
    clusterImageSet,
    ...clusterPullSecret(pullSecret),
    agents,
    memoryFacts: { hosts: ctx.facts },
    now: ctx.now(),
    manifestConfigMaps: manifests.map(({ name, configMap }) => ({ name, data: configMap.data ?? {} })),
  });
  return { cd, aci, result };
}

/**
 * The NMStateConfigs the InfraEnv selects, in its own namespace (upstream lists cluster-wide,
 * which would let one namespace's configs into another's image); none for an empty selector.
 */
export function selectedNmStateConfigs(ctx: OperatorContext, ie: InfraEnv): NMStateConfig[] {
  const selector = nmStateSelectorOf(ie);
  if (!selector) return [];
  return selectFromStore(ctx.informers.nmStateConfigs.store, selector, ie.metadata.namespace ?? '');
}

/**
 * The InfraEnvs of `namespace` whose selector picks an NMStateConfig with these labels, found
 * through the selector index from the labels, not by testing every InfraEnv of the namespace.
 */
export function infraEnvsSelecting(
  ctx: OperatorContext,
  namespace: string,
  labels: Record<string, string> | undefined,
): InfraEnv[] {
  const store = ctx.informers.infraEnvs.store;
  const lookup = (pair: string) => store.byIndex(INFRAENV_BY_NMSTATE_SELECTOR_INDEX, keyOf(namespace, pair));
  const candidates = lookup(ANY_LABELS);
  for (const [k, v] of Object.entries(labels ?? {})) candidates.push(...lookup(`${k}=${v}`));
  return candidates.filter((ie) => {
    const selector = nmStateSelectorOf(ie);
    return selector !== undefined && matchesLabelSelector(labels, selector);
  });
}

/** What an infra-env record reads besides the InfraEnv: its cluster, pull Secret and NMStateConfigs. */
export interface InfraEnvReferences {
  cd: ClusterDeployment | undefined;
  /** The pull Secret the InfraEnv names, when it exists. */
  pullSecret: DataObject | undefined;
  nmStateConfigs: NMStateConfig[];
}

export async function readInfraEnvReferences(
  ctx: OperatorContext,
  ie: InfraEnv,
): Promise<InfraEnvReferences> {
  const secretName = ie.spec.pullSecretRef?.name;
  const pullSecret = secretName
    ? await getAndLabelForWatch(ctx, 'secret', ie.metadata.namespace ?? '', secretName)
    : undefined;
  return infraEnvReferencesWith(ctx, ie, pullSecret);
}

/** readInfraEnvReferences's answer from the cache alone (see cachedClusterReferences). */
export function cachedInfraEnvReferences(ctx: OperatorContext, ie: InfraEnv): InfraEnvReferences | undefined {
  const secretName = ie.spec.pullSecretRef?.name;
  const pullSecret = secretName
    ? watchedFromCache(ctx, 'secret', ie.metadata.namespace ?? '', secretName)
    : undefined;
  return secretName && !pullSecret ? undefined : infraEnvReferencesWith(ctx, ie, pullSecret);
}

/** The references besides the pull Secret: both come from the caches. */
function infraEnvReferencesWith(
  ctx: OperatorContext,
  ie: InfraEnv,
  pullSecret: DataObject | undefined,
): InfraEnvReferences {
  const cdRef = ie.spec.clusterRef;
  const ns = ie.metadata.namespace ?? '';
  return {
    cd: cdRef?.name ? ctx.informers.clusterDeployments.get(cdRef.namespace || ns, cdRef.name) : undefined,
    pullSecret,
    nmStateConfigs: selectedNmStateConfigs(ctx, ie),
  };
}

/** Every object an infra-env record is built from, in a fixed order, to compare two reads by identity. */
export function infraEnvRecordParts(ie: InfraEnv, r: InfraEnvReferences): unknown[] {
  const parts: unknown[] = [ie, r.cd, r.pullSecret];
  for (const config of r.nmStateConfigs) parts.push(config);
  return parts;
}

/** The infra-env record of an InfraEnv, with its pull secret and selected NMStateConfigs. */
export async function infraEnvView(
  ctx: OperatorContext,
  ie: InfraEnv,
  references?: InfraEnvReferences,
): Promise<InfraEnvRecord> {
  const { cd, pullSecret, nmStateConfigs } = references ?? (await readInfraEnvReferences(ctx, ie));
  return infraEnvToRecord(ie, {
    pullSecret: pullSecret ? decodedSecretData(pullSecret)['.dockerconfigjson'] : undefined,
    nmStateConfigs,
    clusterId: cd?.metadata.uid,
  });
}
