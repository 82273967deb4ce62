// Which other Agents of a cluster a change of one Agent wakes: those whose validations read what
// changed. They are mapped from the Agent informer's events, so a woken peer's reconcile already
// sees the change in the cache (a wake sent from the changing Agent's own reconcile could run
// before the cache had its write). Cluster status writes do not wake Agents for these
// (records/clusters/agents-view.ts), and nothing here wakes every host of a large cluster for
// each registration or inventory (issue 16: that fan-out made a host's cost grow with its cluster).
import type { Agent } from '../../api/index.ts';
import { effectiveHostname, HOST_COUNT_READ_UP_TO } from '../../core/validations/host-context.ts';
import type { OperatorContext } from '../../records/context.ts';
import { memoisedHost } from '../../records/index.ts';
import { objectKey, type Predicate } from '../../runtime/index.ts';

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

export function hostnameReaders(ctx: OperatorContext, a: Agent): string[] {
  const name = a.metadata.name;
  const hostname = hostnameOf(a);
  return peers(ctx, a, (peer) => {
    if (hostname !== '' && hostnameOf(peer) === hostname) return true;
    // The report is a fact in memory, else what the Agent was restored with.
    const report = ctx.facts.get(peer.metadata.name ?? '')?.connectivity ?? memoisedHost(peer).connectivity;
    return (report?.remote_hosts ?? []).some((r) => r.host_id === name);
  }).map(objectKey);
}
