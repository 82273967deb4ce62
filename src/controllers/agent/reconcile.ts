// The Agent reconciler (kubeapi.md §3.4): finalizer, spec → host, late binding, the host monitor
// (validations + RefreshHost), inventory labels and backup annotations, status. Reads only caches;
// writes at most one metadata patch and one status write, each only when something changed; returns
// requeueAfter for the next change the clock alone can cause.

import type { Agent, AgentStatus } from '../../api/index.ts';
import { AGENT_FINALIZER } from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import {
  type BmacAgentPatch,
  bmacAgentPatch,
  mergeStringMap,
  withBmacPatch,
} from '../../records/agents/bmh-spec.ts';
import { agentMetadataPatch } from '../../records/agents/metadata.ts';
import { projectAgentStatus, urlReissueAt } from '../../records/agents/project.ts';
import { referencedFacts } from '../../records/agents/references.ts';
import type { OperatorContext } from '../../records/context.ts';
import type { OperatorEvents } from '../../records/events.ts';
import {
  clusterRecordById,
  hostFacts,
  infraEnvOfAgent,
  infraEnvRecordOf,
} from '../../records/hosts/lookup.ts';
import type { HostMemory, SettledAgent } from '../../records/hosts/memory.ts';
import { roleFitness } from '../../records/hosts/role-fitness.ts';
import {
  agentSpecSyncedCondition,
  type HostRuntimeFacts,
  setConditionsNoHeartbeat,
} from '../../records/index.ts';
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
import { type CurrentCluster, type DesiredCluster, type RefreshOutput, refreshAgent } from './refresh.ts';
import { restoreFromAnnotations } from './restore.ts';
import { deletionSpokeCleanup, reclaimOnUnbind, type SpokeStep, spokeStep } from './spoke-step.ts';
import { nextTimedChangeMs } from './timing.ts';

/** Upstream requeues Agent backend errors after 10 s (§3.10). */
export const BACKEND_ERROR_REQUEUE_MS = 10_000;
/** After losing a write race: look again soon, from a cache that has seen the winner. */
const CONFLICT_REQUEUE_MS = 500;

export interface AgentReconcilerDeps {
  memory: HostMemory;
  events: OperatorEvents;
  auth: () => Promise<LocalAuth>;
  /** Per Agent key, the versions this reconciler's own last writes replaced (see supersededByOwnWrite). */
  superseded: Map<string, readonly string[]>;
}

/**
 * True when the cached Agent is a version this reconciler itself replaced: the watch event of its
 * metadata PATCH requeues the key while the status write is still under way, and a reconcile on
 * that version would only recompute from the old status and send a PATCH the API server refuses
 * (409; about four inventory changes in ten did this in `make bench-scale`). The event of the
 * last write brings the key back.
 */
function supersededByOwnWrite(deps: AgentReconcilerDeps, key: string, cached: Agent): boolean {
  const versions = deps.superseded.get(key);
  if (!versions) return false;
  if (versions.includes(cached.metadata.resourceVersion ?? '')) return true;
  deps.superseded.delete(key);
  return false;
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
    // The store replaces a value only when it changes, so identity tells; comparing the JSON
    // stringified a 1,000-host connectivity report (0.5 MiB) twice in every Agent reconcile.
    if (before[k] !== undefined && host[k] === undefined && live[k] === before[k])
      (patch as Record<string, unknown>)[k] = undefined;
  }
  if (Object.keys(patch).length > 0) ctx.facts.update(host.id, patch);
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
  // Built from what Agents read of the ACI: the watch filter (agents-view.ts) relies on it.
  const view = await clusterView(ctx, cd, 'agents');
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
async function gather(ctx: OperatorContext, deps: Pick<AgentReconcilerDeps, 'auth'>, agent: Agent) {
  const name = agent.metadata.name ?? '';
  const infraEnv = infraEnvOfAgent(ctx, agent);
  const currentId = agent.status?.backend?.clusterID;
  const { desired, sameAsCurrent } = await desiredCluster(ctx, agent, currentId);
  const currentCd = currentId ? ctx.clusterDeploymentById(currentId) : undefined;
  const current: CurrentCluster = {
    ...(currentCd ? { cdName: currentCd.metadata.name, cdNamespace: currentCd.metadata.namespace } : {}),
  };
  const currentCluster =
    sameAsCurrent ?? (currentId ? await clusterRecordById(ctx, currentId, 'agents') : undefined);
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

/** One reconcile's view of the Agent's host: read once, then refreshed on whichever Agent is written. */
interface HostRefresh {
  gathered: Awaited<ReturnType<typeof gather>>;
  now: Date;
  warm: boolean;
  autoApprove: boolean;
  smOptions: HostMemory['smOptions'];
  /** A snapshot: replies keep arriving while this reconcile writes. */
  factsBefore: HostRuntimeFacts;
  pending: ReturnType<HostMemory['inbox']['peek']>;
  /** What the refresh applies from the inbox (an inventory too large to store is dropped from it). */
  pendingUpdate: PendingUpdate | undefined;
  /** Set once the reclaim objects are on the spoke: the unbind is then a ReclaimHost. */
  reclaim: boolean;
  /** BMAC's spec and labels for the inventory this pass stores, written with the metadata patch. */
  bmac?: BmacAgentPatch;
  /** `stored`: the inbox's update is already in this Agent's status (the BMAC fold's second step). */
  refresh(agent: Agent, stored?: boolean): RefreshOutput;
}

type PendingUpdate = NonNullable<HostRefresh['pending']>['update'];

function planRefresh(
  ctx: OperatorContext,
  memory: HostMemory,
  gathered: HostRefresh['gathered'],
): HostRefresh {
  const now = ctx.now();
  const pending = memory.inbox.peek(gathered.name);
  const validationConfig = {
    maxHostDisconnectionMs: memory.smOptions.hostMaxDisconnectionMs,
    agentDockerImage: ctx.settings.agentImage,
  };
  const desiredId = gathered.desired.kind === 'cluster' ? gathered.desired.clusterId : undefined;
  const plan: HostRefresh = {
    gathered,
    now,
    warm: memory.warmUp.isWarm(gathered.name, now.getTime()),
    autoApprove: gathered.infraEnv?.spec.agentApproval?.autoApprove === true,
    smOptions: memory.smOptions,
    factsBefore: { ...hostFacts(ctx, memory, gathered.name) },
    pending,
    pendingUpdate: pending?.update,
    reclaim: false,
    refresh: (agent, stored = false) =>
      refreshAgent({
        ...(plan.reclaim ? { reclaim: true } : {}),
        // An Agent restored from a backup without status gets it back from its annotations.
        agent: restoreFromAnnotations(agent, desiredId) ?? agent,
        facts: { ...plan.factsBefore, ...gathered.referenced.facts },
        ...(gathered.referenced.error ? { referenceError: gathered.referenced.error } : {}),
        ...(plan.pendingUpdate && !stored ? { pending: plan.pendingUpdate } : {}),
        desired: gathered.desired,
        current: gathered.current,
        ...(gathered.infraEnvRecord ? { infraEnv: gathered.infraEnvRecord } : {}),
        now,
        warm: plan.warm,
        options: memory.smOptions,
        validationConfig,
        fitness: (cluster) => roleFitness(cluster, gathered.infraEnvRecord, now, validationConfig),
      }),
  };
  return plan;
}

/**
 * When this pass stores the inventory that pairs the host with its BMH, the refresh BMAC's spec
 * would cause next (records/agents/bmh-spec.ts), in upstream's order: the inventory stored
 * first, then the spec applied to it (a requested disk is checked against the new inventory).
 * Undefined when there is nothing to fold; `plan.bmac` is what the metadata patch adds.
 */
function withBmacFold(
  ctx: OperatorContext,
  plan: HostRefresh,
  agent: Agent,
  first: RefreshOutput,
): RefreshOutput | undefined {
  if (!plan.pendingUpdate?.inventory || !first.host.inventory) return undefined;
  const status = projectAgentStatus(agent, first.host, {
    now: plan.now,
    serviceBaseUrl: ctx.urls.serviceBaseUrl,
    auth: plan.gathered.auth,
    specSyncError: first.specSyncError,
  });
  const stored = { ...agent, status } as Agent;
  const bmac = bmacAgentPatch(ctx, stored);
  if (!bmac) return undefined;
  plan.bmac = bmac;
  const second = plan.refresh(withBmacPatch(stored, bmac), true);
  return { ...second, events: [...first.events, ...second.events] };
}

/** The refresh of the cached Agent, auto-approved in memory, redone as a reclaim when the spoke allows. */
async function refreshHost(
  ctx: OperatorContext,
  rctx: ReconcileContext,
  plan: HostRefresh,
  cached: Agent,
): Promise<RefreshOutput> {
  // Auto-approval changes the spec the conditions are computed from: apply it first, in memory.
  const intended: Agent =
    plan.autoApprove && cached.spec.approved !== true
      ? { ...cached, spec: { ...cached.spec, approved: true } }
      : cached;
  let first = plan.refresh(intended);
  const reclaimCtx = { ctx, log: rctx.log, auth: plan.gathered.auth };
  if (first.unbound && (await reclaimOnUnbind(reclaimCtx, cached, first, plan.gathered.current))) {
    plan.reclaim = true;
    first = plan.refresh(intended);
  }
  if (first.skipped) rctx.log.debug({ reason: first.skipped }, 'host refresh skipped');
  return (!first.unbound && withBmacFold(ctx, plan, intended, first)) || first;
}

/** Spoke work (day 2 after the reboot, the old Node after an unbind): its results join the write. */
async function spokePhase(
  ctx: OperatorContext,
  rctx: ReconcileContext,
  plan: HostRefresh,
  cached: Agent,
  first: RefreshOutput,
): Promise<SpokeStep> {
  const { desired, current } = plan.gathered;
  const boundId = first.host.cluster_id;
  const boundCluster =
    desired.kind === 'cluster' && desired.clusterId === boundId
      ? desired.cluster
      : current.cluster?.id === boundId
        ? current.cluster
        : undefined;
  const deps = {
    ctx,
    log: rctx.log,
    now: plan.now,
    smOptions: plan.smOptions,
    approveCsrsRequeueMs: ctx.settings.approveCsrsRequeueMs,
  };
  return spokeStep(deps, cached, first, boundCluster);
}

/** The labels and annotations the host implies; a conflict means the cache is behind (requeue). */
async function writeMetadata(
  ctx: OperatorContext,
  plan: HostRefresh,
  cached: Agent,
  out: RefreshOutput,
): Promise<{ agent: Agent; patched: boolean } | { requeueAfter: number }> {
  const boundCd = out.host.cluster_id ? ctx.clusterDeploymentById(out.host.cluster_id) : undefined;
  const patch = agentMetadataPatch({
    agent: cached,
    host: out.host,
    infraEnv: plan.gathered.infraEnv,
    clusterDeploymentNamespace: boundCd?.metadata.namespace ?? '',
    autoApprove: plan.autoApprove,
    bmac: plan.bmac,
  });
  if (!patch) return { agent: cached, patched: false };
  try {
    const agent = await ctx.client.patch<Agent>(
      AGENT,
      plan.gathered.name,
      cached.metadata.namespace,
      'merge',
      patch,
    );
    return { agent, patched: true };
  } catch (err) {
    // The cache is behind a write of someone else's; its watch event brings this key back.
    if (isConflict(err)) return { requeueAfter: CONFLICT_REQUEUE_MS };
    throw err;
  }
}

/**
 * The status write; after a conflict it recomputes on the fresh object, and an inventory too
 * large to store is dropped (with a Warning) and the rest written. Returns what was written, or
 * nothing when the Agent has no room for its status (then it says so itself).
 */
async function writeAgentStatus(
  ctx: OperatorContext,
  deps: AgentReconcilerDeps,
  plan: HostRefresh,
  agent: Agent,
  decided: RefreshOutput,
  spoke: SpokeStep,
) {
  const statusOf = (base: Agent, out: RefreshOutput): AgentStatus => {
    const status = projectAgentStatus(base, out.host, {
      now: plan.now,
      serviceBaseUrl: ctx.urls.serviceBaseUrl,
      auth: plan.gathered.auth,
      specSyncError: out.specSyncError,
    });
    if (out.deprovisionInfo === 'clear') delete status.deprovision_info;
    else if (out.deprovisionInfo) status.deprovision_info = out.deprovisionInfo;
    if (out.resetCsrStatus) status.csrStatus = {};
    else if (spoke.csrStatus) status.csrStatus = spoke.csrStatus;
    return status;
  };
  let final = decided;
  const write = (base: Agent, result: RefreshOutput) =>
    updateStatus(ctx.client, AGENT, base, (cur) => {
      // The first attempt uses this reconcile's result; after a conflict, recompute on the fresh object.
      final =
        cur.metadata.resourceVersion === base.metadata.resourceVersion
          ? result
          : spoke.apply(plan.refresh(cur));
      return statusOf(cur, final);
    });
  let written = await unlessTooLarge(() => write(agent, decided));
  if (written instanceof ObjectTooLargeError && plan.pendingUpdate?.inventory) {
    // The new inventory would make the Agent too large to store: keep the stored one, say why.
    const { inventory: _dropped, ...rest } = plan.pendingUpdate;
    plan.pendingUpdate = rest;
    inventoryNotStored(deps, agent, written, plan.now);
    written = await unlessTooLarge(() => write(agent, spoke.apply(plan.refresh(agent))));
  }
  if (written instanceof ObjectTooLargeError) {
    // The Agent's own spec and metadata leave no room for its status. No error: retrying cannot
    // help until the Agent changes, and that change brings it back here.
    await noRoomForStatus(ctx, deps, agent, written, plan.now);
    return undefined;
  }
  return { written, out: final };
}

/** The write's result, or the ObjectTooLargeError it was refused with before being sent. */
async function unlessTooLarge<T>(write: () => Promise<T>): Promise<T | ObjectTooLargeError> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof ObjectTooLargeError) return err;
    throw err;
  }
}

/**
 * Keeps the stored status and says in SpecSynced (InputError) that the Agent is too large for its
 * status, with a Warning Event; when not even that fits, the Event alone. The condition names no
 * byte count, so it stays the same from one reconcile to the next and is written once.
 */
async function noRoomForStatus(
  ctx: OperatorContext,
  deps: AgentReconcilerDeps,
  agent: Agent,
  err: ObjectTooLargeError,
  now: Date,
): Promise<void> {
  const condition = agentSpecSyncedCondition({
    kind: 'input',
    message:
      `the Agent's spec and metadata leave no room for its status (objects are limited to ` +
      `${err.limit} bytes); make its spec, labels or annotations smaller`,
  });
  const kept = await unlessTooLarge(() =>
    updateStatus(ctx.client, AGENT, agent, (cur) => ({
      role: '',
      debugInfo: {},
      ...cur.status,
      conditions: setConditionsNoHeartbeat(cur.status?.conditions, [condition], now),
    })),
  );
  if (!(kept instanceof ObjectTooLargeError) && !kept.written) return;
  const id = agent.metadata.name ?? '';
  deps.events.record({
    name: 'host_status_not_stored',
    severity: 'warning',
    category: 'user',
    message: `Host ${id}: the Agent status is not updated: the Agent ${err.message}; make its spec, labels or annotations smaller`,
    event_time: now.toISOString(),
    host_id: id,
    ...(agent.status?.backend?.infraEnvID ? { infra_env_id: agent.status.backend.infraEnvID } : {}),
  });
}

/** The nearest change the clock alone can cause, a backend error's retry, or the spoke's. */
function agentRequeue(
  plan: HostRefresh,
  memory: HostMemory,
  stored: AgentStatus | undefined,
  out: RefreshOutput,
  spoke: SpokeStep,
): ReconcileOutcome {
  const { auth, current } = plan.gathered;
  const timed = nextTimedChangeMs({
    host: out.host,
    cluster: current.cluster ?? null,
    now: plan.now,
    options: memory.smOptions,
    ...(plan.warm ? {} : { warmUpEndsAt: memory.warmUp.endsAt }),
    extra: [urlReissueAt(auth, stored?.debugInfo?.eventsURL), urlReissueAt(auth, stored?.debugInfo?.logsURL)],
  });
  const backendError = out.specSyncError?.kind === 'backend' ? BACKEND_ERROR_REQUEUE_MS : undefined;
  const after = [timed, backendError, spoke.requeueMs].filter((v): v is number => v !== undefined);
  return after.length > 0 ? { requeueAfter: Math.min(...after) } : undefined;
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
  // Created by a registration of this process that has yet to write its status: that write brings
  // the key back (without this, the Agent would look restored from a backup, and be written twice).
  if (!cached.status?.debugInfo?.state) {
    if (deps.memory.registering.has(req.name)) return;
  } else deps.memory.registering.delete(req.name);
  const key = keyOf(req.namespace, req.name);
  if (supersededByOwnWrite(deps, key, cached)) return;
  if (!hasFinalizer(cached, AGENT_FINALIZER)) {
    // The add is an update event: the next reconcile does the rest (upstream returns Requeue).
    await addFinalizer(ctx.client, AGENT, cached, AGENT_FINALIZER);
    return;
  }

  const { memory } = deps;
  const plan = planRefresh(ctx, memory, await gather(ctx, deps, cached));
  const first = await refreshHost(ctx, rctx, plan, cached);
  const spoke = await spokePhase(ctx, rctx, plan, cached, first);
  const decided = spoke.apply(first);
  const metadata = await writeMetadata(ctx, plan, cached, decided);
  if ('requeueAfter' in metadata) return metadata;
  const result = await writeAgentStatus(ctx, deps, plan, metadata.agent, decided, spoke);
  if (!result) return;
  const { written, out } = result;
  if (written.written) {
    const replaced = [cached.metadata.resourceVersion, metadata.agent.metadata.resourceVersion];
    deps.superseded.set(
      key,
      replaced.filter((v): v is string => !!v),
    );
  }
  if (written.written || metadata.patched) deps.events.recordCore(out.events, plan.now);
  if (plan.pending) memory.inbox.ack(plan.gathered.name, plan.pending.seq);
  syncResetFacts(ctx, plan.factsBefore, out.host);
  return agentRequeue(plan, memory, written.object.status, out, spoke);
}

type Patch = { metadata: Record<string, unknown>; spec?: Record<string, unknown> };

function applyMetadataPatch(agent: Agent, patch: Patch | undefined): Agent {
  if (!patch) return agent;
  const m = patch.metadata;
  return {
    ...agent,
    metadata: {
      ...agent.metadata,
      labels: mergeStringMap(agent.metadata.labels, m.labels),
      annotations: mergeStringMap(agent.metadata.annotations, m.annotations),
      ...(m.ownerReferences
        ? { ownerReferences: m.ownerReferences as Agent['metadata']['ownerReferences'] }
        : {}),
    },
    spec: { ...agent.spec, ...(patch.spec ?? {}) },
  } as Agent;
}

/**
 * A new Agent settled before it is stored (issue 16): a registration runs this reconciler's own
 * computation on the Agent it is about to create, so the create carries the labels, backup
 * annotations and approval a reconcile would patch in, and its one status write the status a
 * reconcile would write; the reconcile then finds nothing to change. `draft` carries the
 * registration's status; a freshly registered host is warm.
 */
export async function settleNewAgent(
  ctx: OperatorContext,
  deps: Pick<AgentReconcilerDeps, 'memory' | 'auth'>,
  draft: Agent,
  facts: HostRuntimeFacts,
  now: Date,
): Promise<SettledAgent> {
  const g = await gather(ctx, deps, draft);
  const validationConfig = {
    maxHostDisconnectionMs: deps.memory.smOptions.hostMaxDisconnectionMs,
    agentDockerImage: ctx.settings.agentImage,
  };
  const autoApprove = g.infraEnv?.spec.agentApproval?.autoApprove === true;
  const intended: Agent =
    autoApprove && draft.spec.approved !== true
      ? { ...draft, spec: { ...draft.spec, approved: true } }
      : draft;
  const out = refreshAgent({
    agent: intended,
    facts: { ...facts, ...g.referenced.facts },
    ...(g.referenced.error ? { referenceError: g.referenced.error } : {}),
    desired: g.desired,
    current: g.current,
    ...(g.infraEnvRecord ? { infraEnv: g.infraEnvRecord } : {}),
    now,
    warm: true,
    options: deps.memory.smOptions,
    validationConfig,
    fitness: (cluster) => roleFitness(cluster, g.infraEnvRecord, now, validationConfig),
  });
  const boundCd = out.host.cluster_id ? ctx.clusterDeploymentById(out.host.cluster_id) : undefined;
  const patch = agentMetadataPatch({
    agent: draft,
    host: out.host,
    infraEnv: g.infraEnv,
    clusterDeploymentNamespace: boundCd?.metadata.namespace ?? '',
    autoApprove,
  }) as Patch | undefined;
  const { status: _draftStatus, ...bare } = applyMetadataPatch(draft, patch);
  const status = projectAgentStatus(intended, out.host, {
    now,
    serviceBaseUrl: ctx.urls.serviceBaseUrl,
    auth: g.auth,
    specSyncError: out.specSyncError,
  });
  return { agent: bare as Agent, status, events: out.events };
}
