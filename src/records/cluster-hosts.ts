// A cluster's hosts as its record lists them: its Agents bound to it, as host records with their
// in-memory facts, ordered by id. Every Agent reconcile and cluster pass builds the record, so in
// a 1,000-host cluster each built and sorted 1,000 hosts, once per change of any one of them
// (issue 16 item 4: about a sixth of the operator's thread in the inventory wave). The last list
// per ClusterDeployment object is kept. A build in which the same Agents come in the same order,
// maybe with new ones after them (the index lists Agents in the order they arrived), redoes only
// the hosts whose Agent or facts changed, and places those that joined or left the cluster (a
// new Agent is bound by its first status write) and the new ones into the kept order.
import type { Agent, ClusterDeployment } from '../api/index.ts';
import {
  buildHostnameIds,
  countedHostname,
  type HostnameIds,
  rememberHostnameIds,
} from '../core/validations/index.ts';
import { memoSlot } from '../util/memo-slot.ts';
import { type AgentHost, cachedAgentToHost, type HostRuntimeFacts, NO_FACTS } from './agent.ts';

/** Runtime facts by host id (the facts store, or a map in tests). */
export interface HostFactsReader {
  get(hostId: string): HostRuntimeFacts | undefined;
  /** The facts store's: a build then reads only the facts that changed since the last one. */
  readonly changeMark?: number;
  changedSince?(mark: number): readonly string[] | undefined;
}

interface Built {
  clusterId: string;
  /** A copy: the caller may reuse its array. */
  agents: readonly Agent[];
  facts: HostRuntimeFacts[];
  /** Per Agent (input order): its host when bound to the cluster. */
  hosts: (AgentHost | undefined)[];
  /** Input positions of the bound hosts, ordered by host id. */
  order: number[];
  /** Where the facts came from, and its change mark then (undefined: read them all next time). */
  reader: HostFactsReader | undefined;
  mark: number | undefined;
  /** Input position by Agent name; undefined when two Agents share a name. */
  positionOf: Map<string, number> | undefined;
  /** The bound hosts' ids by the hostname hostname-unique counts them under; never changed in place. */
  names: HostnameIds;
  /** The list handed out, handed out again while no host changed (set on first use). */
  out?: AgentHost[];
}

const lastBuilt = memoSlot<ClusterDeployment, Built>('hosts of cluster');

const idOf = (h: AgentHost | undefined) => (h as AgentHost).id;

/** The caller's list as kept: a frozen one as is (the informer's shared lists), others copied. */
function keptCopy(agents: readonly Agent[]): readonly Agent[] {
  return Object.isFrozen(agents) ? agents : [...agents];
}

function compareIds(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

function positions(agents: readonly Agent[]): Map<string, number> | undefined {
  const out = new Map<string, number>();
  for (let i = 0; i < agents.length; i++) {
    const name = agents[i]?.metadata.name ?? '';
    if (out.has(name)) return undefined;
    out.set(name, i);
  }
  return out;
}

type Sources = Pick<Built, 'clusterId' | 'reader' | 'mark'>;

function buildAll(from: Sources, agents: readonly Agent[], facts: HostRuntimeFacts[]): Built {
  const hosts = agents.map((a, i) => {
    const h = cachedAgentToHost(a, facts[i]);
    return h.cluster_id === from.clusterId ? h : undefined;
  });
  const order: number[] = [];
  hosts.forEach((h, i) => {
    if (h) order.push(i);
  });
  order.sort((a, b) => compareIds(idOf(hosts[a]), idOf(hosts[b])));
  const names = buildHostnameIds(order.map((i) => hosts[i] as AgentHost));
  return { ...from, agents: keptCopy(agents), facts, hosts, order, positionOf: positions(agents), names };
}

/** `names` with each changed host moved to the name it is counted under now; the same map if none moved. */
function renamed(names: HostnameIds, changes: [AgentHost | undefined, AgentHost | undefined][]): HostnameIds {
  const key = (h: AgentHost | undefined) => (h ? countedHostname(h) : undefined);
  // A position keeps its Agent (patched rebuilds otherwise), so a host keeps its id or is absent.
  const moves = changes.filter(([was, now]) => key(was) !== key(now));
  if (moves.length === 0) return names;
  const out = new Map(names);
  for (const [was, now] of moves) {
    const from = key(was);
    if (was && from !== undefined) {
      // One occurrence: two Agents of one name (in two namespaces) are two hosts of one id.
      const left = [...(out.get(from) ?? [])];
      const at = left.indexOf(was.id);
      if (at >= 0) left.splice(at, 1);
      if (left.length > 0) out.set(from, left);
      else out.delete(from);
    }
    const to = key(now);
    if (now && to !== undefined) out.set(to, [...(out.get(to) ?? []), now.id]);
  }
  return out;
}

/** Inserts input position `at` into `order` (positions ordered by their hosts' ids). */
function insertOrdered(order: number[], hosts: readonly (AgentHost | undefined)[], at: number): void {
  const id = idOf(hosts[at]);
  let lo = 0;
  let hi = order.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareIds(idOf(hosts[order[mid] as number]), id) < 0) lo = mid + 1;
    else hi = mid;
  }
  order.splice(lo, 0, at);
}

/**
 * The previous build with the changed hosts redone and placed, or undefined when the Agents are
 * not the kept ones in the kept order (one gone, renamed or moved), maybe with new ones after.
 */
function patched(
  was: Built,
  from: Sources,
  agents: readonly Agent[],
  facts: HostRuntimeFacts[],
): Built | undefined {
  const kept = was.agents.length;
  if (agents.length < kept) return undefined;
  let hosts: (AgentHost | undefined)[] | undefined;
  /** Positions whose place in the order may change: bound or unbound in place, or new. */
  const moved: number[] = [];
  const changes: [AgentHost | undefined, AgentHost | undefined][] = [];
  for (let i = 0; i < kept; i++) {
    const agent = agents[i] as Agent;
    if (agent === was.agents[i] && facts[i] === was.facts[i]) continue;
    if (agent.metadata.name !== was.agents[i]?.metadata.name) return undefined;
    const h = cachedAgentToHost(agent, facts[i]);
    const now = h.cluster_id === from.clusterId ? h : undefined;
    const before = was.hosts[i];
    hosts ??= [...was.hosts];
    hosts[i] = now;
    changes.push([before, now]);
    if (before?.id !== now?.id) moved.push(i);
  }
  let positionOf = was.positionOf;
  if (agents.length > kept) {
    hosts ??= [...was.hosts];
    // Extended in place: the build it belonged to is replaced by this one.
    for (let i = kept; i < agents.length; i++) {
      const agent = agents[i] as Agent;
      const name = agent.metadata.name ?? '';
      if (positionOf?.has(name)) positionOf = undefined;
      positionOf?.set(name, i);
      const h = cachedAgentToHost(agent, facts[i]);
      const now = h.cluster_id === from.clusterId ? h : undefined;
      hosts.push(now);
      changes.push([undefined, now]);
      moved.push(i);
    }
  }
  const all = hosts ?? was.hosts;
  const order = moved.length === 0 ? was.order : reordered(was.order, all, moved);
  const names = renamed(was.names, changes);
  return { ...from, agents: keptCopy(agents), facts, hosts: all, order, positionOf, names } satisfies Built;
}

/** Moved positions placed one by one up to this many; more are sorted with the rest. */
const PLACED_ONE_BY_ONE = 64;

/** `order` without the `moved` positions, then with those of them that are bound placed by id. */
function reordered(order: readonly number[], hosts: readonly (AgentHost | undefined)[], moved: number[]) {
  const isMoved = new Uint8Array(hosts.length);
  for (const at of moved) isMoved[at] = 1;
  const out = order.filter((p) => isMoved[p] === 0);
  if (moved.length > PLACED_ONE_BY_ONE) {
    for (const at of moved) if (hosts[at]) out.push(at);
    return out.sort((a, b) => compareIds(idOf(hosts[a]), idOf(hosts[b])));
  }
  for (const at of moved) if (hosts[at]) insertOrdered(out, hosts, at);
  return out;
}

/**
 * Each Agent's facts: the kept ones with those that changed since the last build read again when
 * the facts store can tell which; all read otherwise.
 */
function factsOfAgents(
  was: Built | undefined,
  agents: readonly Agent[],
  reader: HostFactsReader | undefined,
): HostRuntimeFacts[] {
  const readOne = (a: Agent) => reader?.get(a.metadata.name ?? '') ?? NO_FACTS;
  const since = was?.reader === reader ? was?.mark : undefined;
  const mark = reader?.changeMark;
  // The store's changes are the whole fleet's: past as many as the cluster has hosts, reading
  // each host's facts is the cheaper way (a one-host cluster polled every 10 s in a busy hub).
  const fewer = since !== undefined && mark !== undefined && mark - since <= agents.length;
  const changed = fewer && was?.positionOf ? reader?.changedSince?.(since) : undefined;
  if (!was?.positionOf || !changed) return agents.map(readOne);
  const facts = was.facts.slice(0, Math.min(was.facts.length, agents.length));
  for (const id of changed) {
    const at = was.positionOf.get(id);
    const agent = at === undefined ? undefined : agents[at];
    if (agent && at !== undefined && at < facts.length) facts[at] = readOne(agent);
  }
  for (let i = facts.length; i < agents.length; i++) facts.push(readOne(agents[i] as Agent));
  return facts;
}

/**
 * The Agents bound to `clusterId`, as hosts ordered by id. While none of them changed, the same
 * array as last time (read-only: what is computed once per array, such as hostname uniqueness
 * across the cluster, is then computed once for all its hosts' validations).
 */
export function clusterHosts(
  cd: ClusterDeployment,
  clusterId: string,
  agents: readonly Agent[],
  factsOf: HostFactsReader | undefined,
): AgentHost[] {
  const was = lastBuilt.get(cd);
  const kept = was?.clusterId === clusterId ? was : undefined;
  const from: Sources = { clusterId, reader: factsOf, mark: factsOf?.changeMark };
  // A build that cannot patch reads every host's facts: the kept ones are by the kept positions.
  const built: Built =
    (kept && patched(kept, from, agents, factsOfAgents(kept, agents, factsOf))) ??
    buildAll(from, agents, factsOfAgents(undefined, agents, factsOf));
  lastBuilt.set(cd, built);
  if (kept && built.hosts === kept.hosts && built.order === kept.order) built.out = kept.out;
  // Frozen: shared between callers, so a change in place would be seen by all of them.
  if (!built.out) {
    const out = built.order.map((i) => built.hosts[i] as AgentHost);
    // Before the freeze: the index is then kept on the array (memo-slot.ts), not beside it.
    rememberHostnameIds(out, built.names);
    built.out = Object.freeze(out) as AgentHost[];
  }
  return built.out;
}
