// The Agent reconciler (kubeapi.md §3.4): finalizer, spec → host, late binding, the host monitor
// (validations + RefreshHost), inventory labels and backup annotations, status. Reads only caches;
// writes at most one metadata patch and one status write, each only when something changed; returns
// requeueAfter for the next change the clock alone can cause.

import type { Agent, AgentStatus } from '../../api/index.ts';
import { AGENT_FINALIZER } from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import type { HostRuntimeFacts } from '../../records/index.ts';
import { crossNamespaceRefusal } from '../../records/references.ts';
import { AGENT } from '../../records/resources.ts';
import { clusterView } from '../../records/views.ts';
import {
  addFinalizer,
  hasFinalizer,
  isBeingDeleted,
  isConflict,
  keyOf,
  ObjectTooLargeError,
  type ReconcileContext,
  type ReconcileOutcome,
  type ReconcileRequest,
  removeFinalizer,
  updateStatus,
} from '../../runtime/index.ts';
import type { LocalAuth } from '../../server/auth/index.ts';
import type { OperatorEvents } from '../events.ts';
import { clusterRecordById, hostFacts, infraEnvOfAgent, infraEnvRecordOf } from '../hosts/lookup.ts';
import type { HostMemory } from '../hosts/memory.ts';
import { roleFitness } from '../hosts/role-fitness.ts';
import { agentMetadataPatch } from './metadata.ts';
import { projectAgentStatus, urlReissueAt } from './project.ts';
import { referencedFacts } from './references.ts';
import { type CurrentCluster, type DesiredCluster, type RefreshOutput, refreshAgent } from './refresh.ts';
import { restoreFromAnnotations } from './restore.ts';
import { deletionSpokeCleanup, reclaimOnUnbind, spokeStep } from './spoke-step.ts';
import { nextTimedChangeMs } from './timing.ts';

/** Upstream requeues Agent backend errors after 10 s (§3.10). */
export const BACKEND_ERROR_REQUEUE_MS = 10_000;
/** After losing a write race: look again soon, from a cache that has seen the winner. */
const CONFLICT_REQUEUE_MS = 500;

export interface AgentReconcilerDeps {
  memory: HostMemory;
  events: OperatorEvents;
  auth: () => Promise<LocalAuth>;
}

/** Host facts kept in memory that a transition may clear (unbind, re-registration). */
const RESETTABLE_FACTS = [
  'connectivity',
  'free_addresses',
  'domain_name_resolutions',
  'images_status',
  'api_vip_connectivity',
] as const;

function syncResetFacts(ctx: OperatorContext, before: HostRuntimeFacts, host: RefreshOutput['host']): void {
  const live = ctx.facts.get(host.id) ?? {};
  const patch: HostRuntimeFacts = {};
  for (const k of RESETTABLE_FACTS) {
    // Only what the refresh saw: a reply that arrived during the writes is newer than the reset.
    const unchanged = JSON.stringify(live[k]) === JSON.stringify(before[k]);
    if (before[k] !== undefined && host[k] === undefined && unchanged)
      (patch as Record<string, unknown>)[k] = undefined;
  }
  if (Object.keys(patch).length > 0) ctx.facts.update(host.id, patch, ctx.now().getTime());
}

async function desiredCluster(ctx: OperatorContext, agent: Agent, currentId: string | undefined) {
  const ref = agent.spec.clusterDeploymentName;
  if (!ref?.name) return { desired: { kind: 'none' } as DesiredCluster };
  const ns = ref.namespace || agent.metadata.namespace || '';
  const refused = crossNamespaceRefusal(ctx.settings, 'Agent', agent.metadata.namespace ?? '', {
    namespace: ns,
    name: ref.name,
  });
  if (refused) {
    return { desired: { kind: 'unavailable', error: { kind: 'input', message: refused } } as DesiredCluster };
  }
  const cd = ctx.informers.clusterDeployments.get(ns, ref.name);
  if (!cd) {
    return {
      desired: {
        kind: 'unavailable',
        error: {
          kind: 'backend',
          message: `failed to get clusterDeployment with name ${ref.name} in namespace ${ns}: clusterdeployments.hive.openshift.io "${ref.name}" not found`,
        },
      } as DesiredCluster,
    };
  }
  const view = await clusterView(ctx, cd);
  const cluster = view.result?.cluster;
  if (!cluster) {
    const why = view.aci
      ? (view.result?.error?.message ?? 'the cluster record could not be built')
      : `no AgentClusterInstall references ClusterDeployment ${ns}/${ref.name}`;
    return {
      desired: {
        kind: 'unavailable',
        error: {
          kind: 'backend',
          message: `failed to find cluster for ClusterDeployment ${ns}/${ref.name}: ${why}`,
        },
      } as DesiredCluster,
    };
  }
  return {
    desired: { kind: 'cluster', clusterId: cluster.id, cluster } as DesiredCluster,
    sameAsCurrent: cluster.id === currentId ? cluster : undefined,
  };
}

/** Everything the pure refresh needs, read from the caches (and referenced Secrets). */
async function gather(ctx: OperatorContext, deps: AgentReconcilerDeps, agent: Agent) {
  const name = agent.metadata.name ?? '';
  const infraEnv = infraEnvOfAgent(ctx, agent);
  const currentId = agent.status?.backend?.clusterID;
  const { desired, sameAsCurrent } = await desiredCluster(ctx, agent, currentId);
  const currentCd = currentId ? ctx.clusterDeploymentById(currentId) : undefined;
  const current: CurrentCluster = {
    ...(currentCd ? { cdName: currentCd.metadata.name, cdNamespace: currentCd.metadata.namespace } : {}),
  };
  const currentCluster = sameAsCurrent ?? (currentId ? await clusterRecordById(ctx, currentId) : undefined);
  if (currentCluster) current.cluster = currentCluster;
  return {
    name,
    infraEnv,
    infraEnvRecord: infraEnv ? await infraEnvRecordOf(ctx, infraEnv) : undefined,
    desired,
    current,
    referenced: await referencedFacts(ctx, agent),
    auth: await deps.auth(),
  };
}

async function finalize(
  ctx: OperatorContext,
  deps: AgentReconcilerDeps,
  agent: Agent,
  rctx: ReconcileContext,
): Promise<void> {
  if (!hasFinalizer(agent, AGENT_FINALIZER)) return;
  const name = agent.metadata.name ?? '';
  // The host's Node on the spoke (§3.4.1 step 2), when it got that far.
  await deletionSpokeCleanup({ ctx, log: rctx.log, now: ctx.now() }, agent);
  // Deregistering the host: the record goes with the Agent; drop what memory holds about it.
  deps.memory.forget(name);
  ctx.facts.delete(name);
  await removeFinalizer(ctx.client, AGENT, agent, AGENT_FINALIZER);
  const cid = agent.status?.backend?.clusterID;
  const cd = cid ? ctx.clusterDeploymentById(cid) : undefined;
  if (cd) ctx.bus.enqueue('clusterdeployment', keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
}

/** A Warning Event on the Agent (and in its events URL): its inventory is not updated, and why. */
function inventoryNotStored(
  deps: AgentReconcilerDeps,
  agent: Agent,
  err: ObjectTooLargeError,
  now: Date,
): void {
  const id = agent.metadata.name ?? '';
  deps.events.record({
    name: 'host_inventory_not_stored',
    severity: 'warning',
    category: 'user',
    message: `Host ${id}: the new inventory is not stored: the Agent ${err.message}`,
    event_time: now.toISOString(),
    host_id: id,
    ...(agent.status?.backend?.infraEnvID ? { infra_env_id: agent.status.backend.infraEnvID } : {}),
  });
}

export async function reconcileAgent(
  ctx: OperatorContext,
  deps: AgentReconcilerDeps,
  req: ReconcileRequest,
  rctx: ReconcileContext,
): Promise<ReconcileOutcome> {
  const cached = ctx.informers.agents.get(req.namespace, req.name);
  // Not in the cache (yet: a host can report before the cache sees its new Agent). Memory is
  // forgotten on the delete event, not here, or a pending inventory would be lost.
  if (!cached) return;
  if (isBeingDeleted(cached)) return void (await finalize(ctx, deps, cached, rctx));
  if (!hasFinalizer(cached, AGENT_FINALIZER)) {
    // The add is an update event: the next reconcile does the rest (upstream returns Requeue).
    await addFinalizer(ctx.client, AGENT, cached, AGENT_FINALIZER);
    return;
  }

  const g = await gather(ctx, deps, cached);
  const { memory } = deps;
  const now = ctx.now();
  const pending = memory.inbox.peek(g.name);
  // What the refresh applies from the inbox (an inventory too large to store is dropped from it).
  let pendingUpdate = pending?.update;
  const warm = memory.warmUp.isWarm(g.name, now.getTime());
  const validationConfig = {
    maxHostDisconnectionMs: memory.smOptions.hostMaxDisconnectionMs,
    agentDockerImage: ctx.settings.agentImage,
  };
  const autoApprove = g.infraEnv?.spec.agentApproval?.autoApprove === true;
  // A snapshot: replies keep arriving while this reconcile writes.
  const factsBefore = { ...hostFacts(ctx, memory, g.name) };
  const desiredId = g.desired.kind === 'cluster' ? g.desired.clusterId : undefined;

  // Set once the reclaim objects are on the spoke (below): the unbind is then a ReclaimHost.
  let reclaim = false;
  const refresh = (agent: Agent): RefreshOutput =>
    refreshAgent({
      ...(reclaim ? { reclaim } : {}),
      // An Agent restored from a backup without status gets it back from its annotations.
      agent: restoreFromAnnotations(agent, desiredId) ?? agent,
      facts: { ...factsBefore, ...g.referenced.facts },
      ...(g.referenced.error ? { referenceError: g.referenced.error } : {}),
      ...(pendingUpdate ? { pending: pendingUpdate } : {}),
      desired: g.desired,
      current: g.current,
      ...(g.infraEnvRecord ? { infraEnv: g.infraEnvRecord } : {}),
      now,
      warm,
      options: memory.smOptions,
      validationConfig,
      fitness: (cluster) => roleFitness(cluster, g.infraEnvRecord, now, validationConfig),
    });
  const statusOf = (agent: Agent, out: RefreshOutput): AgentStatus => {
    const status = projectAgentStatus(agent, out.host, {
      now,
      serviceBaseUrl: ctx.urls.serviceBaseUrl,
      auth: g.auth,
      specSyncError: out.specSyncError,
    });
    if (out.deprovisionInfo === 'clear') delete status.deprovision_info;
    else if (out.deprovisionInfo) status.deprovision_info = out.deprovisionInfo;
    if (out.resetCsrStatus) status.csrStatus = {};
    else if (spoke.csrStatus) status.csrStatus = spoke.csrStatus;
    return status;
  };

  // Auto-approval changes the spec the conditions are computed from: apply it first, in memory.
  const intended: Agent =
    autoApprove && cached.spec.approved !== true
      ? { ...cached, spec: { ...cached.spec, approved: true } }
      : cached;
  let first = refresh(intended);
  if (
    first.unbound &&
    (await reclaimOnUnbind({ ctx, log: rctx.log, auth: g.auth }, cached, first, g.current))
  ) {
    reclaim = true;
    first = refresh(intended);
  }
  if (first.skipped) rctx.log.debug({ reason: first.skipped }, 'host refresh skipped');
  // Spoke work (day 2 after the reboot, the old Node after an unbind): its results join the write.
  const boundId = first.host.cluster_id;
  const boundCluster =
    g.desired.kind === 'cluster' && g.desired.clusterId === boundId
      ? g.desired.cluster
      : g.current.cluster?.id === boundId
        ? g.current.cluster
        : undefined;
  const spoke = await spokeStep(
    {
      ctx,
      log: rctx.log,
      now,
      smOptions: memory.smOptions,
      approveCsrsRequeueMs: ctx.settings.approveCsrsRequeueMs,
    },
    cached,
    first,
    boundCluster,
  );
  let out = spoke.apply(first);

  const boundCd = out.host.cluster_id ? ctx.clusterDeploymentById(out.host.cluster_id) : undefined;
  const patch = agentMetadataPatch({
    agent: cached,
    host: out.host,
    infraEnv: g.infraEnv,
    clusterDeploymentNamespace: boundCd?.metadata.namespace ?? '',
    autoApprove,
  });
  let agent = cached;
  if (patch) {
    try {
      agent = await ctx.client.patch<Agent>(AGENT, g.name, cached.metadata.namespace, 'merge', patch);
    } catch (err) {
      // The cache is behind a write of someone else's; its watch event brings this key back.
      if (isConflict(err)) return { requeueAfter: CONFLICT_REQUEUE_MS };
      throw err;
    }
  }

  let final = out;
  const write = (base: Agent, result: RefreshOutput) =>
    updateStatus(ctx.client, AGENT, base, (cur) => {
      // The first attempt uses this reconcile's result; after a conflict, recompute on the fresh object.
      final =
        cur.metadata.resourceVersion === base.metadata.resourceVersion ? result : spoke.apply(refresh(cur));
      return statusOf(cur, final);
    });
  let written: Awaited<ReturnType<typeof write>>;
  try {
    written = await write(agent, out);
  } catch (err) {
    if (!(err instanceof ObjectTooLargeError) || !pendingUpdate?.inventory) throw err;
    // The new inventory would make the Agent too large to store: keep the stored one, say why.
    const { inventory: _dropped, ...rest } = pendingUpdate;
    pendingUpdate = rest;
    inventoryNotStored(deps, agent, err, now);
    written = await write(agent, spoke.apply(refresh(agent)));
  }
  out = final;
  if (written.written || patch) {
    deps.events.recordCore(out.events, now);
    const roleChanged = (cached.status?.role ?? '') !== (written.object.status?.role ?? '');
    const hostnameChanged =
      (cached.status?.inventory?.hostname ?? '') !== (written.object.status?.inventory?.hostname ?? '');
    if ((roleChanged || hostnameChanged) && boundCd) {
      // Role suggestions and hostname uniqueness of the other hosts depend on this one.
      const cdKey = keyOf(boundCd.metadata.namespace, boundCd.metadata.name ?? '');
      for (const other of ctx.agentsOfCluster(cdKey)) {
        if (other.metadata.name !== g.name)
          ctx.bus.enqueue('agent', keyOf(other.metadata.namespace, other.metadata.name ?? ''));
      }
    }
  }
  if (pending) memory.inbox.ack(g.name, pending.seq);
  syncResetFacts(ctx, factsBefore, out.host);

  const stored = written.object.status;
  const requeue = nextTimedChangeMs({
    host: out.host,
    cluster: g.current.cluster ?? null,
    now,
    options: memory.smOptions,
    ...(warm ? {} : { warmUpEndsAt: memory.warmUp.endsAt }),
    extra: [
      urlReissueAt(g.auth, stored?.debugInfo?.eventsURL),
      urlReissueAt(g.auth, stored?.debugInfo?.logsURL),
    ],
  });
  const backendError = out.specSyncError?.kind === 'backend' ? BACKEND_ERROR_REQUEUE_MS : undefined;
  const after = [requeue, backendError, spoke.requeueMs].filter((v): v is number => v !== undefined);
  return after.length > 0 ? { requeueAfter: Math.min(...after) } : undefined;
}
