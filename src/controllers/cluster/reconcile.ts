// The ClusterDeployment reconciler's entry (kubeapi.md §3.1.2 steps 1–6): find the CD and its
// AgentClusterInstall, run the deletion paths, keep both finalizers and the ACI's ownerReference
// to the CD, then sync the cluster.

import {
  AGENTCLUSTERINSTALL_FINALIZER,
  type AgentClusterInstall,
  CLUSTERDEPLOYMENT_FINALIZER,
  type ClusterDeployment,
} from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import type { AgentCluster } from '../../records/index.ts';
import { AGENT_CLUSTER_INSTALL, CLUSTER_DEPLOYMENT } from '../../records/resources.ts';
import { clusterView } from '../../records/views.ts';
import {
  addFinalizer,
  hasFinalizer,
  isBeingDeleted,
  isOwnedBy,
  keyOf,
  type ReconcileRequest,
  type ReconcileResult,
} from '../../runtime/index.ts';
import type { ClusterControllerDeps } from './deps.ts';
import { StaleClusterRecordError, syncCluster, writeCancelledStatus } from './sync.ts';
import { teardownClusterDeployment, teardownClusterInstall } from './teardown.ts';
import { isAgentInstallRef } from './watches.ts';

const STALE_RECORD_RETRY_MS = 200;

/**
 * The ACI with our finalizer and a (non-controller) ownerReference to the CD, written in one
 * JSON patch whose `test` operations make a concurrent change fail rather than be overwritten.
 */
export async function ensureAciMetadata(
  ctx: OperatorContext,
  aci: AgentClusterInstall,
  cd: ClusterDeployment,
): Promise<AgentClusterInstall> {
  const ops: { op: string; path: string; value?: unknown }[] = [];
  if (!hasFinalizer(aci, AGENTCLUSTERINSTALL_FINALIZER)) {
    ops.push(...appendToList('/metadata/finalizers', aci.metadata.finalizers, AGENTCLUSTERINSTALL_FINALIZER));
  }
  if (!isOwnedBy(aci, cd)) {
    const ref = {
      apiVersion: cd.apiVersion ?? 'hive.openshift.io/v1',
      kind: cd.kind ?? 'ClusterDeployment',
      name: cd.metadata.name ?? '',
      uid: cd.metadata.uid ?? '',
    };
    ops.push(...appendToList('/metadata/ownerReferences', aci.metadata.ownerReferences, ref));
  }
  if (ops.length === 0) return aci;
  // A failed test (someone else changed the lists) throws: the rate-limited retry re-reads.
  return ctx.client.patch<AgentClusterInstall>(
    AGENT_CLUSTER_INSTALL,
    aci.metadata.name ?? '',
    aci.metadata.namespace,
    'json',
    [{ op: 'test', path: '/metadata/uid', value: aci.metadata.uid }, ...ops],
  );
}

/**
 * JSON-patch operations that append `item` to the list at `path`, tested against the list as
 * read (absent included), so a concurrent change of the list fails the patch instead of being lost.
 */
function appendToList(
  path: string,
  current: readonly unknown[] | undefined,
  item: unknown,
): { op: string; path: string; value: unknown }[] {
  return current
    ? [
        { op: 'test', path, value: current },
        { op: 'add', path: `${path}/-`, value: item },
      ]
    : [
        { op: 'test', path, value: null },
        { op: 'add', path, value: [item] },
      ];
}

/** The cluster record for a cancel, if one can be built (deletion must not depend on it). */
async function clusterForTeardown(ctx: OperatorContext, cd: ClusterDeployment | undefined) {
  if (!cd) return undefined;
  try {
    return (await clusterView(ctx, cd)).result?.cluster;
  } catch {
    return undefined;
  }
}

export async function reconcileClusterDeployment(
  ctx: OperatorContext,
  deps: ClusterControllerDeps,
  req: ReconcileRequest,
): Promise<ReconcileResult | undefined> {
  const ns = req.namespace ?? '';
  const cd = ctx.informers.clusterDeployments.get(ns, req.name);
  if (!cd || !isAgentInstallRef(cd)) return undefined;
  const cdKey = keyOf(ns, req.name);
  const aciName = cd.spec.clusterInstallRef?.name ?? '';
  const aci = ctx.informers.agentClusterInstalls.get(ns, aciName);

  if (aci && isBeingDeleted(aci)) {
    const cluster = await clusterForTeardown(ctx, cd);
    return teardownClusterInstall(ctx, aci, cdKey, cd, {
      cluster,
      writeCancelled: (c: AgentCluster) => writeCancelledStatus(ctx, deps, cd, aci, c),
      recordEvents: (events) => deps.events(events, { aci, agents: ctx.agentsOfCluster(cdKey) }),
    });
  }
  if (isBeingDeleted(cd)) return teardownClusterDeployment(ctx, cd, aci);
  if (!aci) return undefined;

  if (!hasFinalizer(cd, CLUSTERDEPLOYMENT_FINALIZER)) {
    const updated = await addFinalizer(ctx.client, CLUSTER_DEPLOYMENT, cd, CLUSTERDEPLOYMENT_FINALIZER);
    if (!updated) return undefined;
  }
  const current = await ensureAciMetadata(ctx, aci, cd);
  try {
    return await syncCluster(ctx, deps, cd, current);
  } catch (err) {
    // Expected when the REST backend wrote the record meanwhile: start over once the cache has it.
    if (!(err instanceof StaleClusterRecordError)) throw err;
    ctx.logger.debug({ cd: cdKey }, err.message);
    return { requeueAfter: STALE_RECORD_RETRY_MS };
  }
}
