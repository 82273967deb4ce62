// A cluster's hosts as its record lists them: its Agents bound to it, as host records with their
// in-memory facts, ordered by id. Every Agent reconcile and cluster pass builds the record, so in
// a 1,000-host cluster each built and sorted 1,000 hosts, once per change of any one of them
// (issue 16 item 4: about a sixth of the operator's thread in the inventory wave). The last list
// per ClusterDeployment object is kept, and a build in which the same Agents come in the same
// order redoes only the hosts whose Agent or facts object changed.
import type { Agent, ClusterDeployment } from '../api/index.ts';
import { type AgentHost, cachedAgentToHost, type HostRuntimeFacts, NO_FACTS } from './agent.ts';

/** Runtime facts by host id (the facts store, or a map in tests). */
export interface HostFactsReader {
  get(hostId: string): HostRuntimeFacts | undefined;
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
}

const lastBuilt = new WeakMap<ClusterDeployment, Built>();

function byId(hosts: readonly (AgentHost | undefined)[]): (a: number, b: number) => number {
  return (a, b) => {
    const x = (hosts[a] as AgentHost).id;
    const y = (hosts[b] as AgentHost).id;
    return x < y ? -1 : x > y ? 1 : 0;
  };
}

function buildAll(clusterId: string, agents: readonly Agent[], facts: HostRuntimeFacts[]): Built {
  const hosts = agents.map((a, i) => {
    const h = cachedAgentToHost(a, facts[i]);
    return h.cluster_id === clusterId ? h : undefined;
  });
  const order: number[] = [];
  hosts.forEach((h, i) => {
    if (h) order.push(i);
  });
  order.sort(byId(hosts));
  return { clusterId, agents: [...agents], facts, hosts, order };
}

/**
 * The previous build with the changed hosts redone, or undefined when the order could have moved:
 * another Agent list, a host renamed, joining or leaving.
 */
function patched(was: Built, agents: readonly Agent[], facts: HostRuntimeFacts[]): Built | undefined {
  if (was.agents.length !== agents.length) return undefined;
  let hosts: (AgentHost | undefined)[] | undefined;
  for (let i = 0; i < agents.length; i++) {
    const agent = agents[i] as Agent;
    if (agent === was.agents[i] && facts[i] === was.facts[i]) continue;
    if (agent.metadata.name !== was.agents[i]?.metadata.name) return undefined;
    const h = cachedAgentToHost(agent, facts[i]);
    const before = was.hosts[i];
    const bound = h.cluster_id === was.clusterId;
    if (bound !== (before !== undefined) || (before && before.id !== h.id)) return undefined;
    hosts ??= [...was.hosts];
    hosts[i] = bound ? h : undefined;
  }
  return {
    clusterId: was.clusterId,
    agents: [...agents],
    facts,
    hosts: hosts ?? was.hosts,
    order: was.order,
  };
}

/** The Agents bound to `clusterId`, as hosts ordered by id; a fresh array on every call. */
export function clusterHosts(
  cd: ClusterDeployment,
  clusterId: string,
  agents: readonly Agent[],
  factsOf: HostFactsReader | undefined,
): AgentHost[] {
  const facts = agents.map((a) => factsOf?.get(a.metadata.name ?? '') ?? NO_FACTS);
  const was = lastBuilt.get(cd);
  const built =
    (was?.clusterId === clusterId ? patched(was, agents, facts) : undefined) ??
    buildAll(clusterId, agents, facts);
  lastBuilt.set(cd, built);
  return built.order.map((i) => built.hosts[i] as AgentHost);
}
