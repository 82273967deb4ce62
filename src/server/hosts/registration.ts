// Host registration (agent-api.md §1.1, §2.1; kubeapi.md §3.5; core.md §1.3 RegisterHost). A new
// host becomes an Agent named by its host id in the InfraEnv's namespace — labels, owner,
// finalizer, spec.approved=false, role "", bound to the InfraEnv's cluster when it has one — then
// one status write with the core's new host record. A known host re-registering (agent restart,
// runner exit, reboot into discovery) runs the RegisterHost transition on its record. An Agent of
// the same name that belongs to another live InfraEnv is never touched: the registration gets 409
// and the Agent a Warning Event (upstream takes it over whatever its state, so one InfraEnv's token
// could unbind and unapprove another's host). Only an Agent whose InfraEnv is gone or going is
// taken over, as upstream does: the old host is unregistered and the Agent's spec and metadata reset.

import { setTimeout as sleep } from 'node:timers/promises';
import type { Agent, AgentStatus, ClusterReference, InfraEnv } from '../../api/index.ts';
import {
  AGENT_FINALIZER,
  AGENT_INHERITED_NODE_LABELS_ANNOTATION,
  INFRAENV_LABEL,
  INFRAENV_PROPAGATE_NODE_LABELS_ANNOTATION,
} from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import {
  checkHostRegistration,
  type HostResult,
  newHostRecord,
  registerHost,
  type SmEvent,
} from '../../core/statemachine/index.ts';
import { hasHostState } from '../../records/agents/cache.ts';
import { infraEnvOwner } from '../../records/agents/metadata.ts';
import { currentSpecSyncError, projectAgentStatus } from '../../records/agents/project.ts';
import type { OperatorContext } from '../../records/context.ts';
import { ownerInfraEnvUid } from '../../records/hosts/access.ts';
import {
  agentBelongsTo,
  clusterRecordById,
  forgetUnknownHost,
  hostFacts,
  infraEnvOfAgent,
  infraEnvRecordOf,
} from '../../records/hosts/lookup.ts';
import type { HostMemory, SettledAgent } from '../../records/hosts/memory.ts';
import { type AgentCluster, type AgentHost, agentToHost } from '../../records/index.ts';
import { crossNamespaceRefusal } from '../../records/references.ts';
import { AGENT } from '../../records/resources.ts';
import { clusterView } from '../../records/views.ts';
import { isAlreadyExists, isConflict, keyOf, updateStatus } from '../../runtime/index.ts';
import { fail, fromSmError, type Outcome, ok } from '../api/backend.ts';

export interface RegistrationDeps {
  auth: LocalAuth;
  memory: HostMemory;
}

export interface Registered {
  host: AgentHost;
  events: SmEvent[];
}

/** Node labels an InfraEnv propagates (its annotation lists some of its own label keys). */
export function inheritedNodeLabels(ie: InfraEnv): Record<string, string> {
  const keys = (ie.metadata.annotations?.[INFRAENV_PROPAGATE_NODE_LABELS_ANNOTATION] ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k !== '');
  const labels = ie.metadata.labels ?? {};
  const out: Record<string, string> = {};
  for (const k of keys) if (k in labels) out[k] = labels[k]!;
  return out;
}

/** Metadata and spec of the Agent of a host registering through `ie` (new or taken over). */
export function agentSkeleton(
  ie: InfraEnv,
  hostId: string,
  clusterRef: ClusterReference | undefined,
  previous?: Agent,
): Agent {
  const inherited = inheritedNodeLabels(ie);
  const keys = Object.keys(inherited).sort();
  const annotations = { ...(previous?.metadata.annotations ?? {}) };
  delete annotations[AGENT_INHERITED_NODE_LABELS_ANNOTATION];
  if (keys.length > 0) annotations[AGENT_INHERITED_NODE_LABELS_ANNOTATION] = keys.join(',');
  const finalizers = previous?.metadata.finalizers ?? [];
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: {
      ...(previous?.metadata ?? {}),
      name: hostId,
      namespace: ie.metadata.namespace,
      labels: { ...(ie.spec.agentLabels ?? {}), [INFRAENV_LABEL]: ie.metadata.name ?? '' },
      annotations,
      ownerReferences: [infraEnvOwner(ie)],
      finalizers: finalizers.includes(AGENT_FINALIZER) ? finalizers : [...finalizers, AGENT_FINALIZER],
    },
    spec: {
      approved: false,
      role: '',
      ...(clusterRef ? { clusterDeploymentName: clusterRef } : {}),
      ...(keys.length > 0 ? { nodeLabels: inherited } : {}),
    },
  } as unknown as Agent;
}

type Resolved = { cluster?: AgentCluster; clusterRef?: ClusterReference };

/** The cluster an infra-env is bound to (503 while it cannot be read: never stop an agent). */
async function infraEnvCluster(ctx: OperatorContext, ie: InfraEnv): Promise<Outcome<Resolved>> {
  const ref = ie.spec.clusterRef;
  if (!ref?.name) return ok({});
  const ns = ref.namespace || ie.metadata.namespace || '';
  const refused = crossNamespaceRefusal(ctx.settings, 'InfraEnv', ie.metadata.namespace ?? '', {
    namespace: ns,
    name: ref.name,
  });
  if (refused) return fail(409, refused);
  const cd = ctx.informers.clusterDeployments.get(ns, ref.name);
  if (!cd)
    return fail(503, `ClusterDeployment ${ns}/${ref.name} of infra env ${ie.metadata.name} is not available`);
  const view = await clusterView(ctx, cd);
  const cluster = view.result?.cluster;
  if (!cluster) {
    return fail(
      503,
      `the cluster of ClusterDeployment ${ns}/${ref.name} is not available: ${view.result?.error?.message ?? 'no AgentClusterInstall'}`,
    );
  }
  return ok({ cluster, clusterRef: { name: ref.name, namespace: ns } });
}

function withApproval(result: HostResult, approved: boolean): HostResult {
  return result.ok ? { ...result, host: { ...result.host, approved } as AgentHost } : result;
}

/** Reason of the Event on an Agent another InfraEnv's host tried to register as. */
export const REGISTRATION_CONFLICT_REASON = 'RegistrationConflict';

/** 409 (and an Event on the Agent) when `existing` belongs to another InfraEnv that still lives. */
function takeOverConflict(ctx: OperatorContext, existing: Agent, ie: InfraEnv): Outcome<never> | undefined {
  // The InfraEnv it belongs to by the same rule as agentBelongsTo: recorded uid, owner, then label.
  const uid = existing.status?.backend?.infraEnvID ?? ownerInfraEnvUid(existing);
  const holder = uid ? ctx.infraEnvById(uid.toLowerCase()) : infraEnvOfAgent(ctx, existing);
  if (!holder || holder.metadata.deletionTimestamp || holder.metadata.uid === ie.metadata.uid)
    return undefined;
  const ns = existing.metadata.namespace ?? '';
  const name = existing.metadata.name ?? '';
  const message =
    `host ${name} is already registered through infra env ${holder.metadata.name}; ` +
    `it cannot register through infra env ${ie.metadata.name} while that one exists ` +
    `(delete Agent ${ns}/${name} first to move the host)`;
  ctx.mgr.events.event(existing, 'Warning', REGISTRATION_CONFLICT_REASON, message);
  return fail(409, message);
}

/**
 * Replaces an orphaned Agent, built on the live one: the cached copy may be older (its controller
 * just wrote it), and it does not hold every annotation as stored (the cache drops kubectl's
 * last-applied manifest and keeps only digests of the large backup annotations), while a PUT
 * stores exactly what it is given. A conflict reads it again; anything else is a 503 the agent
 * retries.
 */
async function takeOver(
  ctx: OperatorContext,
  ie: InfraEnv,
  existing: Agent,
  skeleton: (base: Agent) => Agent,
): Promise<Outcome<Agent>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const live = await ctx.client.getIfExists<Agent>(
      AGENT,
      existing.metadata.name ?? '',
      existing.metadata.namespace,
    );
    if (!live || live.metadata.deletionTimestamp || agentBelongsTo(live, ie)) break;
    const conflict = takeOverConflict(ctx, live, ie);
    if (conflict) return conflict;
    // Without managedFields the server keeps the stored ones and records this write in them.
    const base = { ...live, metadata: { ...live.metadata, managedFields: undefined } } as Agent;
    try {
      return ok(await ctx.client.replace<Agent>(AGENT, skeleton(base)));
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
  }
  return fail(503, `host ${existing.metadata.name} changed while registering, register again`);
}

type RegistrationInput = { infraEnvId: string; hostId: string; discoveryAgentVersion?: string };

/** Attempts of a registration that keeps losing races on the Agent (then 503: the agent retries). */
export const REGISTRATION_ATTEMPTS = 5;

/**
 * Registers the host; a version conflict (someone else wrote the Agent between our read and our
 * write) runs the whole registration again on a fresh read instead of failing the request.
 */
export async function registerHostAgent(
  ctx: OperatorContext,
  deps: RegistrationDeps,
  input: RegistrationInput,
): Promise<Outcome<Registered>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await registerOnce(ctx, deps, input, attempt > 1);
    } catch (err) {
      if (!isConflict(err)) throw err;
      if (attempt >= REGISTRATION_ATTEMPTS) {
        return fail(503, `host ${input.hostId} is being updated concurrently, register again later`);
      }
      await sleep(10 * attempt * (1 + Math.random()));
    }
  }
}

async function registerOnce(
  ctx: OperatorContext,
  deps: RegistrationDeps,
  input: RegistrationInput,
  live: boolean,
  /** The live Agent, when a create just answered AlreadyExists (the cache had not seen it). */
  liveAgent?: Agent,
): Promise<Outcome<Registered>> {
  const ie = ctx.infraEnvById(input.infraEnvId.toLowerCase());
  if (!ie || ie.metadata.deletionTimestamp) return fail(404, `infra env ${input.infraEnvId} not found`);
  const ns = ie.metadata.namespace ?? '';
  const hostId = input.hostId.toLowerCase();
  const now = ctx.now();
  const resolved = await infraEnvCluster(ctx, ie);
  if (!resolved.ok) return resolved;
  const { cluster, clusterRef } = resolved.value;
  const ieRecord = await infraEnvRecordOf(ctx, ie);
  const sm = { now, options: deps.memory.smOptions };
  const version = input.discoveryAgentVersion;

  // After a conflict the cache may be behind the winner's write: read the live object. Otherwise
  // no live read on a cache miss (for a new host it could only answer 404): the create below
  // answers instead, AlreadyExists when the cache is behind, and only then is the Agent read live.
  const existing =
    liveAgent ??
    (live ? await ctx.client.getIfExists<Agent>(AGENT, hostId, ns) : ctx.informers.agents.get(ns, hostId));
  if (existing?.metadata.deletionTimestamp) {
    return fail(503, `host ${hostId} is being deleted, register again later`);
  }
  const project = (agent: Agent, host: AgentHost) =>
    projectAgentStatus(agent, host, {
      now,
      serviceBaseUrl: ctx.urls.serviceBaseUrl,
      auth: deps.auth,
      specSyncError: currentSpecSyncError(agent),
    });

  const known = existing && agentBelongsTo(existing, ie);
  // An Agent of this InfraEnv without status is a registration left half done (its leader died
  // between the create and the status write): the host registers as the new host it is, bound to
  // the InfraEnv's cluster, instead of re-registering unbound, being late-bound by the reconciler
  // and dropping the inventory it sends next.
  const halfDone = !!existing && !!known && !hasHostState(existing);
  if (existing && !known) {
    const conflict = takeOverConflict(ctx, existing, ie);
    if (conflict) return conflict;
  }
  if (existing && known && !halfDone) {
    // Re-registration: the host keeps its record; RegisterHost decides what becomes of it.
    // Registering is checking in: the answer and the status show the host connected.
    const facts = { ...hostFacts(ctx, deps.memory, hostId), checked_in_at: now.toISOString() };
    const hostClusterId = existing.status?.backend?.clusterID;
    const hostCluster = hostClusterId ? await clusterRecordById(ctx, hostClusterId) : undefined;
    const run = (agent: Agent): HostResult => {
      const host = agentToHost(agent, facts);
      const check = checkHostRegistration({ infraEnv: ieRecord, cluster: hostCluster ?? null, isNew: false });
      if (check) return { ok: false, error: check };
      const options = {
        cluster: hostCluster ?? null,
        ...(version ? { discoveryAgentVersion: version } : {}),
      };
      return withApproval(registerHost(host, options, sm), host.approved);
    };
    const first = run(existing);
    if (!first.ok) return fromSmError(first.error);
    const state: { last: HostResult } = { last: first };
    const base = existing;
    recordCheckIn(ctx, hostId, now);
    // The status its reconciler would write next (validations, conditions), so it has none to
    // write; after a conflict, the registration's own projection, which the reconciler completes.
    const settledStatus = await settleKnown(
      ctx,
      deps,
      existing,
      project(existing, first.host as AgentHost),
      now,
    );
    await updateStatus(ctx.client, AGENT, base, (cur) => {
      const r = cur === base ? first : run(cur);
      state.last = r;
      if (!r.ok) return cur.status;
      return cur === base && settledStatus ? settledStatus.status : project(cur, r.host as AgentHost);
    });
    const done = state.last;
    if (!done.ok) return fromSmError(done.error);
    const settledEvents = done === first ? (settledStatus?.events ?? []) : [];
    return ok({ host: done.host as AgentHost, events: [...done.events, ...settledEvents] });
  }

  const check = checkHostRegistration({ infraEnv: ieRecord, cluster: cluster ?? null, isNew: true });
  if (check) return fromSmError(check);
  const record = newHostRecord({
    id: hostId,
    infraEnvId: ie.metadata.uid ?? '',
    cluster: cluster ?? null,
    now,
    ...(version ? { discoveryAgentVersion: version } : {}),
  });
  const registered = withApproval(
    registerHost(
      record,
      { cluster: cluster ?? null, isNew: true, ...(version ? { discoveryAgentVersion: version } : {}) },
      sm,
    ),
    false,
  );
  if (!registered.ok) return fromSmError(registered.error);
  const host = registered.host as AgentHost;
  recordCheckIn(ctx, hostId, now);

  let agent: Agent;
  let settled: SettledAgent | undefined;
  if (existing && halfDone) {
    agent = existing;
  } else if (existing) {
    // Same name, no live InfraEnv of its own: take the Agent over with a fresh spec and metadata.
    const taken = await takeOver(ctx, ie, existing, (base) => agentSkeleton(ie, hostId, clusterRef, base));
    if (!taken.ok) return taken;
    agent = { ...taken.value, status: { role: '' } } as Agent;
  } else {
    const skeleton = agentSkeleton(ie, hostId, clusterRef);
    settled = await settleNew(ctx, deps, skeleton, host, now);
    // Until the Agent has its status, its reconciler leaves it alone (it clears the mark).
    deps.memory.registering.add(hostId);
    try {
      agent = await ctx.client.create<Agent>(AGENT, settled?.agent ?? skeleton);
    } catch (err) {
      deps.memory.registering.delete(hostId);
      if (!isAlreadyExists(err)) {
        ctx.facts.delete(hostId); // no Agent: nothing to keep a check-in for
        throw err;
      }
      // The cache is behind, or a concurrent registration of the same host won: register again,
      // against the live Agent (a create is never retried here: liveAgent makes `existing` set).
      const current = await ctx.client.getIfExists<Agent>(AGENT, hostId, ns);
      if (!current) return fail(503, `host ${hostId} changed while registering, register again`);
      return registerOnce(ctx, deps, input, true, current);
    }
  }
  forgetUnknownHost(ctx, ns, hostId);
  const fresh = agent;
  // A new Agent gets the status settled with it; a taken-over one (or one written since the
  // create) the registration's own projection, which its reconciler then completes.
  try {
    await updateStatus(ctx.client, AGENT, agent, (cur) =>
      cur === fresh && settled
        ? settled.status
        : projectAgentStatus(cur === fresh ? cur : ({ ...cur, status: { role: '' } } as Agent), host, {
            now,
            serviceBaseUrl: ctx.urls.serviceBaseUrl,
            auth: deps.auth,
            specSyncError: undefined,
          }),
    );
  } catch (err) {
    // No status: the reconciler takes the Agent as it is (restored from its annotations).
    if (deps.memory.registering.delete(hostId)) ctx.bus.enqueue('agent', keyOf(ns, hostId));
    throw err;
  }
  return ok({ host, events: [...registered.events, ...(settled?.events ?? [])] });
}

/**
 * A registering agent starts a new era: what memory held about its last boot is stale, and the
 * registration is its check-in. Done before the status write, because the Agent's reconciler may
 * run between that write and this request's answer, and a host without a recent check-in would be
 * shown disconnected (one with none counts as checked in when the process started, which for a
 * process older than the disconnection window is the same).
 */
function recordCheckIn(ctx: OperatorContext, hostId: string, now: Date): void {
  ctx.facts.delete(hostId);
  ctx.facts.checkIn(hostId, now.getTime());
}

/**
 * A re-registering host's Agent as its reconciler would settle it, from the registration's
 * projection `status` (issue 16): its one status write is then the reconciler's too, and the
 * reconciler is left with the metadata patch (backup annotations). Undefined without an Agent
 * controller in the process.
 */
function settleKnown(
  ctx: OperatorContext,
  deps: RegistrationDeps,
  existing: Agent,
  status: AgentStatus,
  now: Date,
): Promise<SettledAgent> | undefined {
  return deps.memory.settleNewAgent?.(
    { ...existing, status } as Agent,
    hostFacts(ctx, deps.memory, existing.metadata.name ?? ''),
    now,
  );
}

/**
 * A new host's Agent with everything its reconciler would add (issue 16): metadata and spec to
 * create, and the status to write once it exists. Undefined without an Agent controller in the
 * process (the registration then writes its own projection).
 */
function settleNew(
  ctx: OperatorContext,
  deps: RegistrationDeps,
  skeleton: Agent,
  host: AgentHost,
  now: Date,
): Promise<SettledAgent> | undefined {
  const settle = deps.memory.settleNewAgent;
  if (!settle) return undefined;
  const draftStatus = projectAgentStatus({ ...skeleton, status: { role: '' } } as Agent, host, {
    now,
    serviceBaseUrl: ctx.urls.serviceBaseUrl,
    auth: deps.auth,
    specSyncError: undefined,
  });
  return settle({ ...skeleton, status: draftStatus } as Agent, { checked_in_at: now.toISOString() }, now);
}
