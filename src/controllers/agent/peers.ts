// Which other Agents of a cluster a change of one Agent wakes: those whose validations read what
// changed. They are mapped from the Agent informer's events, so a woken peer's reconcile already
// sees the change in the cache (a wake sent from the changing Agent's own reconcile could run
// before the cache had its write). Cluster status writes do not wake Agents for these
// (records/clusters/agents-view.ts), and nothing here wakes every host of a large cluster for
// each registration or inventory (issue 16: that fan-out made a host's cost grow with its cluster).
import type { Agent } from '../../api/index.ts';
import { type ConnectivityReader, connectivityReader } from '../../core/network/index.ts';
import { effectiveHostname, HOST_COUNT_READ_UP_TO } from '../../core/validations/host-context.ts';
import type { OperatorContext } from '../../records/context.ts';
import { memoisedHost } from '../../records/index.ts';
import { AGENT_BY_NAME_INDEX, agentByCluster } from '../../records/indexes.ts';
import { type IndexFunc, objectKey, type Predicate } from '../../runtime/index.ts';

const clusterOf = (a: Agent) => a.status?.backend?.clusterID || undefined;

/**
 * An Agent is created without a status (a status subresource drops it), so an add that names a
 * cluster comes from a list: a start or a failover, after which every Agent is reconciled anyway.
 * Mapping those would cost each host of a large cluster a pass over all the others at start-up.
 */
const notOnAdd = () => false;
const hostnameOf = (a: Agent) => effectiveHostname(memoisedHost(a));

/** The other Agents of `a`'s cluster that `reads` picks. */
function peers(ctx: OperatorContext, a: Agent, reads: (peer: Agent) => boolean = () => true): Agent[] {
  const cid = clusterOf(a);
  const cd = cid ? ctx.clusterDeploymentById(cid) : undefined;
  if (!cd) return [];
  const name = a.metadata.name;
  return ctx.agentsOfCluster(objectKey(cd)).filter((o) => o.metadata.name !== name && reads(o));
}

/**
 * Role suggestions and the two-node checks read every host's role: a role change within a cluster
 * wakes them all (a host joining gets its first role; that is membershipChanged's).
 */
export const roleChanged: Predicate<Agent> = {
  create: notOnAdd,
  update: (o, n) =>
    !!clusterOf(n) && clusterOf(o) === clusterOf(n) && (o.status?.role ?? '') !== (n.status?.role ?? ''),
  delete: () => false,
};

export function roleReaders(ctx: OperatorContext, a: Agent): string[] {
  return peers(ctx, a).map(objectKey);
}

/**
 * Joining (registration, binding) or leaving: the connectivity checks count the cluster's hosts,
 * up to HOST_COUNT_READ_UP_TO; in a larger cluster no count they tell apart changes.
 */
export const membershipChanged: Predicate<Agent> = {
  create: notOnAdd,
  update: (o, n) => clusterOf(o) !== clusterOf(n),
  delete: (a) => !!clusterOf(a),
};

export function countReaders(ctx: OperatorContext, a: Agent): string[] {
  const others = peers(ctx, a);
  // The cluster with `a` in it: at most HOST_COUNT_READ_UP_TO hosts, or no count read changes.
  return others.length + 1 <= HOST_COUNT_READ_UP_TO ? others.map(objectKey) : [];
}

/**
 * Hostname uniqueness reads the other hosts' hostnames, and the latency checks the inventory,
 * role and hostname of the hosts their connectivity report names: a hostname change (a first
 * inventory included), or a host with one joining or leaving, wakes the hosts of the same name
 * and those whose report names it.
 */
export const hostnameChanged: Predicate<Agent> = {
  create: notOnAdd,
  update: (o, n) =>
    clusterOf(o) !== clusterOf(n) ||
    (!!clusterOf(n) &&
      ((o.status?.inventory?.hostname ?? '') !== (n.status?.inventory?.hostname ?? '') ||
        hostnameOf(o) !== hostnameOf(n))),
  delete: (a) => !!clusterOf(a),
};

/** Agents by their spec's ClusterDeployment (`ns/name`) and effective hostname, joined by a newline. */
export const AGENT_BY_CLUSTER_HOSTNAME_INDEX = 'agent-by-cluster-hostname';

export const agentByClusterHostname: IndexFunc<Agent> = (a) => {
  const hostname = hostnameOf(a);
  const [cluster] = agentByCluster(a);
  return hostname !== '' && cluster ? [`${cluster}\n${hostname}`] : [];
};

/**
 * The peers of the same name come from an index, and those whose report names `a` from the hosts
 * with a report: comparing every peer's hostname and looking up every peer's report cost each
 * first inventory of a 1,000-host cluster a pass over 1,000 hosts (issue 16 item 4), though
 * reports come after inventories.
 */
export function hostnameReaders(ctx: OperatorContext, a: Agent): string[] {
  const cid = clusterOf(a);
  const cd = cid ? ctx.clusterDeploymentById(cid) : undefined;
  if (!cd) return [];
  const cdKey = objectKey(cd);
  const name = a.metadata.name ?? '';
  const hostname = hostnameOf(a);
  const readers = new Set<string>();
  const store = ctx.informers.agents.store;
  if (hostname !== '') {
    for (const peer of store.byIndex(AGENT_BY_CLUSTER_HOSTNAME_INDEX, `${cdKey}\n${hostname}`))
      if (peer.metadata.name !== name) readers.add(objectKey(peer));
  }
  const lookups: ReportLookups = {
    reporters: ctx.facts.reporters,
    clusterAgents: () => ctx.agentsOfCluster(cdKey),
    agentsNamed: (id) => store.byIndex(AGENT_BY_NAME_INDEX, id),
  };
  for (const peer of reportingPeers(lookups, cdKey, name)) {
    const report = ctx.facts.get(peer.metadata.name ?? '')?.connectivity;
    if (report && namesHost(connectivityReader(report), name)) readers.add(objectKey(peer));
  }
  return [...readers];
}

function namesHost(report: ConnectivityReader, hostId: string): boolean {
  for (let k = 0; k < report.remoteCount; k++) if (report.hostId(k) === hostId) return true;
  return false;
}

/** Where reportingPeers looks: the hosts with a report, and the Agents of the cluster and by name. */
export interface ReportLookups {
  reporters: ReadonlySet<string>;
  clusterAgents: () => readonly Agent[];
  agentsNamed: (id: string) => readonly Agent[];
}

/**
 * The Agents of cluster `cdKey` other than `name` that have a report (reports are facts in memory),
 * from whichever list is shorter: the cluster's Agents or the hosts with a report.
 */
export function reportingPeers(look: ReportLookups, cdKey: string, name: string): Agent[] {
  const { reporters } = look;
  if (reporters.size === 0) return [];
  const cluster = look.clusterAgents();
  if (cluster.length <= reporters.size)
    return cluster.filter((peer) => peer.metadata.name !== name && reporters.has(peer.metadata.name ?? ''));
  const out: Agent[] = [];
  for (const id of reporters) {
    if (id === name) continue;
    for (const peer of look.agentsNamed(id)) if (agentByCluster(peer)[0] === cdKey) out.push(peer);
  }
  return out;
}
