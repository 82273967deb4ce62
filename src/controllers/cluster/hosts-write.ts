// Writing host-record changes that the cluster's install flow makes in the same step as the
// cluster (core.md §2.5: roles assigned, bootstrap chosen; refresh side effects such as "all hosts
// to resetting-pending-user-action"; cancel; day-2 InstallHost). Everything else about a host is
// the Agent reconciler's job.
//
// Only the fields the cluster step changed are written: the change is taken as a diff between the
// host record before and after, and re-applied on the Agent as it is when written (so a
// concurrent write by the Agent reconciler is not undone). What the Agent reconciler owns in the
// status (its SpecSynced verdict, the signed URLs) is carried over unchanged.

import type { Agent, Condition } from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type AgentHost, agentToHost, hostToAgentStatus, type SpecSyncError } from '../../records/index.ts';
import { AGENT } from '../../records/resources.ts';
import { updateStatus } from '../../runtime/index.ts';

/** Top-level fields of `after` that differ from `before` (`undefined` = removed). */
export function hostDiff(before: AgentHost | undefined, after: AgentHost): Partial<AgentHost> {
  const out: Record<string, unknown> = {};
  const b = (before ?? {}) as unknown as Record<string, unknown>;
  const a = after as unknown as Record<string, unknown>;
  for (const key of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (key === 'approved') continue;
    if (JSON.stringify(b[key]) !== JSON.stringify(a[key])) out[key] = a[key];
  }
  return out as Partial<AgentHost>;
}

function applyDiff(host: AgentHost, diff: Partial<AgentHost>): AgentHost {
  const out = { ...host } as Record<string, unknown>;
  for (const [k, v] of Object.entries(diff)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out as unknown as AgentHost;
}

/** The Agent reconciler's SpecSynced verdict, read back so writing the host does not change it. */
export function specSyncErrorOf(conditions: readonly Condition[] | undefined): SpecSyncError | undefined {
  const c = conditions?.find((x) => x.type === 'SpecSynced');
  if (c?.status !== 'False') return undefined;
  const message = c.message ?? '';
  if (c.reason === 'InputError') {
    return {
      kind: 'input',
      message: message.replace('The Spec could not be synced due to an input error: ', ''),
    };
  }
  return {
    kind: 'backend',
    message: message.replace('The Spec could not be synced due to backend error: ', ''),
  };
}

/** Writes the changed fields of one host record to its Agent's status; true when written. */
export async function writeHostChange(
  ctx: OperatorContext,
  agent: Agent,
  diff: Partial<AgentHost>,
): Promise<boolean> {
  if (Object.keys(diff).length === 0) return false;
  const result = await updateStatus(ctx.client, AGENT, agent, (current) => {
    const facts = ctx.facts.get(current.metadata.name ?? '') ?? {};
    const host = applyDiff(agentToHost(current, facts), diff);
    const debug = current.status?.debugInfo;
    const specSyncError = specSyncErrorOf(current.status?.conditions);
    return hostToAgentStatus(host, current, {
      now: ctx.now(),
      ...(debug?.eventsURL ? { eventsURL: debug.eventsURL } : {}),
      ...(debug?.logsURL ? { logsURL: debug.logsURL } : {}),
      ...(specSyncError ? { specSyncError } : {}),
    });
  });
  return result.written;
}

/**
 * Writes the hosts listed in `ids` whose record differs between `before` and `after`. Agents are
 * looked up among `agents` (the ClusterDeployment's Agents from the cache).
 */
export async function writeHostChanges(
  ctx: OperatorContext,
  agents: readonly Agent[],
  before: readonly AgentHost[],
  after: readonly AgentHost[],
  ids: Iterable<string>,
): Promise<string[]> {
  const written: string[] = [];
  const beforeById = new Map(before.map((h) => [h.id, h]));
  const afterById = new Map(after.map((h) => [h.id, h]));
  const agentById = new Map(agents.map((a) => [a.metadata.name ?? '', a]));
  for (const id of new Set(ids)) {
    const next = afterById.get(id);
    const agent = agentById.get(id);
    if (!next || !agent) continue;
    if (await writeHostChange(ctx, agent, hostDiff(beforeById.get(id), next))) written.push(id);
  }
  return written;
}
