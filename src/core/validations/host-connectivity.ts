// Host validations about reachability of the other hosts: majority connectivity groups and MTU.

import { cidrContains, ipFamily, tryParseCidr } from '../network/cidr.ts';
import { type Connectivity, parseConnectivity } from '../network/connectivity.ts';
import { connectivityReader } from '../network/connectivity-report.ts';
import {
  type Check,
  check,
  clusterHosts,
  type HostValidationContext,
  hasMachineNetworks,
  isDay2Host,
  isSingleNode,
  isUserManagedLoadBalancer,
  MAJORITY_GROUP_MIN_HOSTS,
  suppress,
} from './host-context.ts';
import { interfaceInCidr } from './host-network.ts';

/** Two control-plane nodes, no arbiter, exactly two masters each with fencing credentials. */
export function isTwoNodesWithFencing(c: HostValidationContext): boolean {
  const cluster = c.cluster;
  if (cluster?.control_plane_count !== 2) return false;
  const hosts = clusterHosts(c);
  const roleOf = (h: (typeof hosts)[number]) =>
    h.role === 'auto-assign' && h.suggested_role ? h.suggested_role : h.role;
  if (hosts.some((h) => roleOf(h) === 'arbiter')) return false;
  const masters = hosts.filter((h) => roleOf(h) === 'master' || roleOf(h) === 'bootstrap');
  return masters.length === 2 && masters.every((h) => !!h.fencing_credentials);
}

const NO_MAJORITY = 'No connectivity to the majority of hosts in the cluster';
const HAS_MAJORITY = 'Host has connectivity to the majority of hosts in the cluster';

function sameNetwork(a: string, b: string): boolean {
  const x = tryParseCidr(a);
  const y = tryParseCidr(b);
  return !!x && !!y && x.family === y.family && x.network === y.network && x.prefix === y.prefix;
}

/**
 * The last groups text parsed, and each group's members as a set: every host of a cluster checks
 * the same text, and in a 1,000-host cluster parsing it and searching a group per host made a new
 * result cost O(n²).
 */
let lastParsed: { text: string; data: Connectivity | undefined } | undefined;
const members = new WeakMap<readonly string[], ReadonlySet<string>>();

function parsedGroups(text: string): Connectivity | undefined {
  if (lastParsed?.text !== text) lastParsed = { text, data: parseConnectivity(text) };
  return lastParsed.data;
}

function membersOf(group: readonly string[]): ReadonlySet<string> {
  let set = members.get(group);
  if (!set) {
    set = new Set(group);
    members.set(group, set);
  }
  return set;
}

export function belongsToMajorityGroup(c: HostValidationContext): Check {
  const cluster = c.cluster;
  if (!cluster) return suppress;
  if (isDay2Host(c.host))
    return check('success', 'Day2 host is not required to be connected to other hosts in the cluster');
  if (isSingleNode(cluster)) return check('success', HAS_MAJORITY);
  if (!cluster.connectivity_majority_groups) {
    return check('pending', 'Machine Network CIDR or Connectivity Majority Groups missing');
  }
  const data = parsedGroups(cluster.connectivity_majority_groups);
  if (!data) return check('error', 'Parse error for connectivity majority group');
  let ok: boolean;
  if (cluster.user_managed_networking || isUserManagedLoadBalancer(cluster)) {
    const families = new Set(
      [...cluster.cluster_networks, ...cluster.service_networks, ...cluster.machine_networks]
        .map((n) => ipFamily(n.cidr))
        .filter((f) => f !== undefined),
    );
    const reached = data.l3_connected_addresses?.[c.host.id] ?? [];
    ok = families.size > 0 && [...families].every((f) => reached.some((a) => ipFamily(a) === f));
  } else {
    if (!hasMachineNetworks(cluster))
      return check('pending', 'Not enough information to calculate host majority groups');
    const groups = Object.entries(data.majority_groups ?? {});
    ok = cluster.machine_networks.every((n) => {
      const group = groups.find(([key]) => sameNetwork(key, n.cidr))?.[1];
      return Array.isArray(group) && membersOf(group).has(c.host.id);
    });
  }
  if (ok) return check('success', HAS_MAJORITY);
  if (clusterHosts(c).length < (isTwoNodesWithFencing(c) ? 2 : MAJORITY_GROUP_MIN_HOSTS)) {
    return check('pending', 'Not enough hosts in cluster to calculate connectivity groups');
  }
  return check('failure', NO_MAJORITY);
}

export function mtuValid(c: HostValidationContext): Check {
  const cluster = c.cluster;
  if (!cluster) return suppress;
  if (!c.inventory) return check('pending', 'Missing host inventory');
  if (isDay2Host(c.host))
    return check('success', 'Day2 host is not required to be connected to other hosts in the cluster');
  if (isSingleNode(cluster)) return suppress;
  if (!c.host.connectivity) return check('pending', 'Missing MTU report information');
  const nics = c.inventory.interfaces ?? [];
  const machineCidrs = cluster.machine_networks.map((n) => n.cidr);
  const counts = (nicName: string | undefined, remote: string | undefined) => {
    if (cluster.user_managed_networking) return true;
    const nic = nics.find((n) => n.name === nicName);
    const nicInMachine = !!nic && machineCidrs.some((cidr) => interfaceInCidr(nic, cidr));
    return nicInMachine && machineCidrs.some((cidr) => cidrContains(cidr, remote ?? ''));
  };
  const report = connectivityReader(c.host.connectivity);
  for (let k = 0; k < report.remoteCount; k++) {
    for (let j = 0; j < report.mtuCount(k); j++) {
      const [nic, remote] = [report.mtuOutgoingNic(k, j), report.mtuRemoteIp(k, j)];
      if (!report.mtuSuccessful(k, j) && counts(nic, remote)) {
        return check('failure', `MTU is broken. Interface: ${nic ?? ''}, remote IP address: ${remote ?? ''}`);
      }
    }
  }
  return check('success', 'MTU is ok');
}
