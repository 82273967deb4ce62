// Finding the records a host request or an Agent reconcile works on, from the caches.

import type { Agent, InfraEnv } from '../../api/index.ts';
import { INFRAENV_LABEL } from '../../api/index.ts';
import type { InfraEnv as InfraEnvRecord } from '../../core/model.ts';
import { objectKey } from '../../runtime/index.ts';
import type { OperatorContext } from '../context.ts';
import type { AgentCluster, HostRuntimeFacts } from '../index.ts';
import { AGENT } from '../resources.ts';
import {
  type AciReading,
  type ClusterReferences,
  cachedClusterReferences,
  cachedInfraEnvReferences,
  clusterObjects,
  clusterRecordParts,
  clusterView,
  type InfraEnvReferences,
  infraEnvRecordParts,
  infraEnvView,
  readClusterReferences,
  readInfraEnvReferences,
} from '../views.ts';
import { ownerInfraEnvUid } from './access.ts';
import type { HostMemory } from './memory.ts';

/** The InfraEnv an Agent registered through: its label (same namespace), else its owner. */
export function infraEnvOfAgent(ctx: OperatorContext, agent: Agent): InfraEnv | undefined {
  const name = agent.metadata.labels?.[INFRAENV_LABEL];
  if (name) {
    const ie = ctx.informers.infraEnvs.get(agent.metadata.namespace, name);
    if (ie) return ie;
  }
  const uid = agent.status?.backend?.infraEnvID ?? ownerInfraEnvUid(agent);
  return uid ? ctx.infraEnvById(uid) : undefined;
}

/** Whether the Agent is the host of that infra-env (by recorded id, owner, or label). */
export function agentBelongsTo(agent: Agent, infraEnv: InfraEnv): boolean {
  const uid = infraEnv.metadata.uid ?? '';
  const recorded = agent.status?.backend?.infraEnvID ?? ownerInfraEnvUid(agent);
  if (recorded) return recorded.toLowerCase() === uid.toLowerCase();
  return agent.metadata.labels?.[INFRAENV_LABEL] === infraEnv.metadata.name;
}

export type HostLookup =
  | { ok: true; infraEnv: InfraEnv; agent: Agent }
  | { ok: false; status: 404; reason: string };

/**
 * The Agent of `hostId` in infra-env `infraEnvId`. A cache miss is confirmed with a live read: a
 * host polls right after registering, before the cache may have seen the new Agent, and a 404 would
 * stop its runner for good.
 */
export async function findHost(
  ctx: OperatorContext,
  infraEnvId: string,
  hostId: string,
): Promise<HostLookup> {
  const infraEnv = ctx.infraEnvById(infraEnvId.toLowerCase());
  if (!infraEnv) return { ok: false, status: 404, reason: `infra env ${infraEnvId} not found` };
  const ns = infraEnv.metadata.namespace;
  const name = hostId.toLowerCase();
  // A just-registered host can poll before the cache has its record (the Agent is created, then
  // its status written): read it live then, or it would be judged on an empty record (e.g. told to
  // upgrade an agent whose version is not in the cache yet).
  const cached = ctx.informers.agents.get(ns, name);
  const agent = cached?.status?.backend ? cached : await liveAgent(ctx, ns, name);
  if (!agent || !agentBelongsTo(agent, infraEnv) || agent.metadata.deletionTimestamp) {
    return { ok: false, status: 404, reason: `host ${hostId} not found in infra env ${infraEnvId}` };
  }
  return { ok: true, infraEnv, agent };
}

/** How long a live read that found no Agent is trusted (polls of unknown hosts cost no GET). */
export const UNKNOWN_HOST_TTL_MS = 5_000;
const UNKNOWN_HOSTS_MAX = 10_000;

/** Per process: namespace/name → when the miss expires (epoch ms). */
const unknownHosts = new WeakMap<OperatorContext, Map<string, number>>();

function unknownHostsOf(ctx: OperatorContext): Map<string, number> {
  let m = unknownHosts.get(ctx);
  if (!m) {
    m = new Map();
    unknownHosts.set(ctx, m);
  }
  return m;
}

/** A registration in this process creates the Agent: its id is no longer unknown. */
export function forgetUnknownHost(ctx: OperatorContext, namespace: string | undefined, name: string): void {
  unknownHosts.get(ctx)?.delete(`${namespace ?? ''}/${name}`);
}

/** The live Agent on a cache miss; a recent miss is answered from memory instead of the API. */
async function liveAgent(
  ctx: OperatorContext,
  ns: string | undefined,
  name: string,
): Promise<Agent | undefined> {
  const key = `${ns ?? ''}/${name}`;
  const misses = unknownHostsOf(ctx);
  const now = ctx.now().getTime();
  const until = misses.get(key);
  if (until !== undefined && until > now) return undefined;
  const agent = await ctx.client.getIfExists<Agent>(AGENT, name, ns);
  if (agent) misses.delete(key);
  else {
    // Bounded: a flood of random ids forgets the oldest misses first (Map keeps insertion order).
    if (misses.size >= UNKNOWN_HOSTS_MAX) misses.delete(misses.keys().next().value!);
    misses.delete(key);
    misses.set(key, now + UNKNOWN_HOST_TTL_MS);
  }
  return agent;
}

/** The cluster record of a ClusterDeployment uid (undefined while it cannot be built). */
export async function clusterRecordById(
  ctx: OperatorContext,
  clusterId: string | null | undefined,
  reading: AciReading = 'full',
): Promise<AgentCluster | undefined> {
  if (!clusterId) return undefined;
  const cd = ctx.clusterDeploymentById(clusterId);
  if (!cd) return undefined;
  return (await clusterView(ctx, cd, reading)).result?.cluster;
}

/** What a poll's record lookup answers when there is no record (one promise for every such poll). */
const NO_RECORD: Promise<undefined> = Promise.resolve(undefined);

/**
 * The cluster record a host's poll chooses steps from: clusterRecordById's, reused while the
 * cached objects and the referenced Secret and ConfigMaps it was built from are unchanged
 * (poll-records.ts). Not an async function: a poll whose references are all in the cache gets
 * the kept record's own promise, without a promise and two more turns wrapped around it.
 */
export function clusterRecordForPoll(
  ctx: OperatorContext,
  memory: HostMemory,
  clusterId: string | null | undefined,
): Promise<AgentCluster | undefined> {
  const cd = clusterId ? ctx.clusterDeploymentById(clusterId) : undefined;
  if (!cd) return NO_RECORD;
  const objects = clusterObjects(ctx, cd);
  const aci = objects.aci;
  if (!aci) return NO_RECORD;
  const record = (references: ClusterReferences) =>
    memory.pollClusters.record(
      clusterId as string,
      clusterRecordParts(cd, objects, references),
      async () => (await clusterView(ctx, cd, 'full', objects, references)).result?.cluster,
    );
  const cached = cachedClusterReferences(ctx, cd, aci);
  return cached ? record(cached) : readClusterReferences(ctx, cd, aci).then(record);
}

export function infraEnvRecordOf(ctx: OperatorContext, infraEnv: InfraEnv): Promise<InfraEnvRecord> {
  return infraEnvView(ctx, infraEnv);
}

/**
 * The infra-env record a host's poll chooses steps from: infraEnvRecordOf's, reused while the
 * InfraEnv and the cluster, pull Secret and NMStateConfigs it was built from are unchanged
 * (poll-records.ts; not async, as clusterRecordForPoll).
 */
export function infraEnvRecordForPoll(
  ctx: OperatorContext,
  memory: HostMemory,
  infraEnv: InfraEnv,
): Promise<InfraEnvRecord> {
  const record = (references: InfraEnvReferences) =>
    memory.pollInfraEnvs.record(objectKey(infraEnv), infraEnvRecordParts(infraEnv, references), () =>
      infraEnvView(ctx, infraEnv, references),
    );
  const cached = cachedInfraEnvReferences(ctx, infraEnv);
  return cached ? record(cached) : readInfraEnvReferences(ctx, infraEnv).then(record);
}

/**
 * The host's in-memory facts. A host not heard from since the process started counts as checked in
 * at the start: after the warm-up window it turns disconnected unless it polls.
 */
export function hostFacts(ctx: OperatorContext, memory: HostMemory, hostId: string): HostRuntimeFacts {
  const facts = ctx.facts.get(hostId) ?? {};
  return facts.checked_in_at
    ? facts
    : { ...facts, checked_in_at: new Date(memory.warmUp.startedAt).toISOString() };
}
