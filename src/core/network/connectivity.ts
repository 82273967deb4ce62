// Connectivity-derived cluster data (core.md §6.6): majority groups per network (L2) and per
// address family (L3), the addresses every other host reached, and IP collisions.

import type { Host } from '../model.ts';
import { cidrContains, type IpFamily, tryParseCidr, tryParseIp } from './cidr.ts';
import { hostIps, inventoryNetworks } from './host-networks.ts';

export interface Connectivity {
  majority_groups: Record<string, string[]>;
  l3_connected_addresses: Record<string, string[]>;
}

/** Directed reachability: from → set of host indexes it reached. */
type Reach = Set<number>[];

function sortById(hosts: Host[]): Host[] {
  return [...hosts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

function indexById(hosts: Host[]): Map<string, number> {
  return new Map(hosts.map((h, i) => [h.id, i]));
}

/**
 * L2: A reached some IP of B inside the CIDR by ARP/NDP; for IPv6 a successful ping there also counts.
 * A report names each remote address once per check, so whether an address is in the CIDR is
 * decided once per address (a 1,000-host full mesh is a million checks of a thousand addresses).
 */
function l2Reach(hosts: Host[], cidr: string): Reach {
  const ids = indexById(hosts);
  const net = tryParseCidr(cidr);
  const ipv6 = net?.family === 'ipv6';
  const inside = new Map<string, boolean>();
  const inCidr = (ip: string | undefined): boolean => {
    if (ip === undefined || !net) return false;
    let known = inside.get(ip);
    if (known === undefined) {
      known = cidrContains(net, ip);
      inside.set(ip, known);
    }
    return known;
  };
  const anyIn = (checks: readonly { successful?: boolean; remote_ip_address?: string }[] | undefined) => {
    for (const c of checks ?? []) if (c.successful && inCidr(c.remote_ip_address)) return true;
    return false;
  };
  return hosts.map((h) => {
    const reached = new Set<number>();
    for (const rh of h.connectivity?.remote_hosts ?? []) {
      const to = ids.get(rh.host_id);
      if (to === undefined) continue;
      if (anyIn(rh.l2_connectivity) || (ipv6 && anyIn(rh.l3_connectivity))) reached.add(to);
    }
    return reached;
  });
}

/** How many distinct addresses of `wanted` the successful checks reached. */
function reachedCount(
  checks: readonly { successful?: boolean; remote_ip_address?: string }[] | undefined,
  wanted: ReadonlySet<string>,
): number {
  let first: string | undefined;
  let found: Set<string> | undefined;
  for (const c of checks ?? []) {
    const ip = c.remote_ip_address;
    if (!c.successful || !ip || !wanted.has(ip)) continue;
    // One address is the usual case: count without a set until a second one shows up.
    if (first === undefined) first = ip;
    else if (ip !== first) {
      found ??= new Set([first]);
      found.add(ip);
    }
  }
  return found ? found.size : first === undefined ? 0 : 1;
}

/** L3: A pinged *all* of B's addresses of the family (B must have at least one). */
function l3Reach(hosts: Host[], family: IpFamily): Reach {
  const ids = indexById(hosts);
  const addresses = hosts.map((h) => (h.inventory ? new Set(hostIps(h, family)) : undefined));
  return hosts.map((h) => {
    const reached = new Set<number>();
    for (const rh of h.connectivity?.remote_hosts ?? []) {
      const to = ids.get(rh.host_id);
      const wanted = to === undefined ? undefined : addresses[to];
      if (to === undefined || !wanted || wanted.size === 0) continue;
      if (reachedCount(rh.l3_connectivity, wanted) === wanted.size) reached.add(to);
    }
    return reached;
  });
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number);
  }
  return a.length < b.length;
}

/**
 * The largest full-mesh group (mutual reachability between every pair), at least `minSize` hosts;
 * ties go to the group with the smallest host indexes. An exact maximum-clique search
 * (Bron–Kerbosch with pivoting) — cluster sizes keep it cheap.
 */
export function largestFullMesh(reach: Reach, minSize: number): number[] {
  const adj: Set<number>[] = reach.map((out, i) => {
    const mutual = new Set<number>();
    for (const j of out) if (j !== i && reach[j]?.has(i)) mutual.add(j);
    return mutual;
  });
  const candidates = meshCandidates(adj, minSize);
  let best: number[] = [];
  const visit = (r: number[], p: number[], x: number[]) => {
    if (p.length === 0 && x.length === 0) {
      const group = [...r].sort((a, b) => a - b);
      if (group.length > best.length || (group.length === best.length && lexLess(group, best))) best = group;
      return;
    }
    if (r.length + p.length < best.length) return;
    const pivot = [...p, ...x].reduce((u, v) => (adj[v]!.size > adj[u]!.size ? v : u));
    for (const v of p.filter((v) => !adj[pivot]!.has(v))) {
      visit(
        [...r, v],
        p.filter((w) => adj[v]!.has(w)),
        x.filter((w) => adj[v]!.has(w)),
      );
      p = p.filter((w) => w !== v);
      x = [...x, v];
    }
  };
  if (candidates.length > 0) visit([], candidates, []);
  return best.length >= minSize ? best : [];
}

/**
 * The hosts that can belong to a full mesh of at least `minSize`, in index order: what is left
 * after repeatedly dropping every host with fewer than `minSize - 1` mutual neighbours left (a
 * k-core), since a member of such a mesh has that many within it. Until the connectivity reports
 * arrive no host reaches any other, and the search would otherwise spend O(n²) on a cluster of n
 * hosts to find nothing, on every pass of the cluster monitor (issue 16: 42 % of the operator's
 * thread in the inventory wave of a 500-host cluster).
 */
function meshCandidates(adj: readonly Set<number>[], minSize: number): number[] {
  const need = minSize - 1;
  const degree = Int32Array.from(adj, (s) => s.size);
  const dropped = new Uint8Array(adj.length);
  const stack: number[] = [];
  for (let v = 0; v < adj.length; v++) {
    if (degree[v]! < need) {
      dropped[v] = 1;
      stack.push(v);
    }
  }
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) {
    for (const w of adj[v] as Set<number>) {
      if (dropped[w] === 0 && --degree[w]! < need) {
        dropped[w] = 1;
        stack.push(w);
      }
    }
  }
  const kept: number[] = [];
  for (let v = 0; v < adj.length; v++) if (dropped[v] === 0) kept.push(v);
  return kept;
}

/** Majority group of a network CIDR (L2). Hosts are ordered by id first. */
export function l2MajorityGroup(hosts: Host[], cidr: string, minSize = 3): string[] {
  const sorted = sortById(hosts);
  return largestFullMesh(l2Reach(sorted, cidr), minSize).map((i) => (sorted[i] as Host).id);
}

/** Majority group of an address family (L3). */
export function l3MajorityGroup(hosts: Host[], family: IpFamily, minSize = 3): string[] {
  const sorted = sortById(hosts);
  return largestFullMesh(l3Reach(sorted, family), minSize).map((i) => (sorted[i] as Host).id);
}

/** Per host: the addresses that every other host reached with a successful ping (sorted). */
export function gatherL3ConnectedAddresses(hosts: Host[]): Record<string, string[]> {
  const counts = new Map<string, Map<string, number>>();
  for (const h of hosts) {
    for (const rh of h.connectivity?.remote_hosts ?? []) {
      if (rh.host_id === h.id) continue;
      let m: Map<string, number> | undefined;
      // Each address counts once per reporting host, however many checks name it.
      let counted: Set<string> | undefined;
      for (const c of rh.l3_connectivity ?? []) {
        const a = c.remote_ip_address;
        if (!c.successful || !a || counted?.has(a)) continue;
        counted ??= new Set();
        counted.add(a);
        if (!m) {
          m = counts.get(rh.host_id) ?? new Map<string, number>();
          counts.set(rh.host_id, m);
        }
        m.set(a, (m.get(a) ?? 0) + 1);
      }
    }
  }
  const out: Record<string, string[]> = {};
  for (const id of [...counts.keys()].sort()) {
    const full = [...(counts.get(id) as Map<string, number>)]
      .filter(([, c]) => c === hosts.length - 1)
      .map(([a]) => a);
    if (full.length > 0) out[id] = full.sort();
  }
  return out;
}

/**
 * Everything the monitor stores: an L2 group per distinct host network, L3 groups for IPv4 and
 * IPv6, and the L3-connected addresses. `minGroupSize` is 3 (2 for two-node-with-fencing).
 */
export function computeConnectivity(hosts: Host[], minGroupSize = 3): Connectivity {
  const groups: Record<string, string[]> = {};
  for (const cidr of inventoryNetworks(hosts)) groups[cidr] = l2MajorityGroup(hosts, cidr, minGroupSize);
  groups.IPv4 = l3MajorityGroup(hosts, 'ipv4', minGroupSize);
  groups.IPv6 = l3MajorityGroup(hosts, 'ipv6', minGroupSize);
  return { majority_groups: groups, l3_connected_addresses: gatherL3ConnectedAddresses(hosts) };
}

function sortedObject<T>(o: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map((k) => [k, o[k] as T]),
  );
}

/** JSON as stored in `connectivity_majority_groups` (keys sorted, like Go's map encoding). */
export function formatConnectivity(c: Connectivity): string {
  return JSON.stringify({
    majority_groups: sortedObject(c.majority_groups),
    l3_connected_addresses: sortedObject(c.l3_connected_addresses),
  });
}

/** Parses `connectivity_majority_groups`; undefined when empty or malformed. */
export function parseConnectivity(text: string | undefined): Connectivity | undefined {
  if (!text) return undefined;
  try {
    const raw = JSON.parse(text) as Partial<Connectivity> | null;
    if (!raw || typeof raw !== 'object') return undefined;
    return {
      majority_groups: raw.majority_groups ?? {},
      l3_connected_addresses: raw.l3_connected_addresses ?? {},
    };
  } catch {
    return undefined;
  }
}

/**
 * IP collisions: within one host's report, the same remote IP answering on the same outgoing NIC
 * with two different MACs. Upstream quirk kept (core.md §10.12): only the map of the *last* host
 * with a report survives. No report at all → undefined (stored as JSON null upstream).
 */
export function detectIpCollisions(hosts: Host[]): Record<string, string[]> | undefined {
  let result: Record<string, string[]> | undefined;
  for (const h of hosts) {
    if (!h.connectivity) continue;
    const collisions: Record<string, string[]> = {};
    const history = new Map<string, Map<string, string>>();
    for (const rh of h.connectivity.remote_hosts ?? []) {
      for (const c of rh.l2_connectivity ?? []) {
        const nic = c.outgoing_nic ?? '';
        const ip = c.remote_ip_address ?? '';
        const mac = c.remote_mac ?? '';
        const seen = history.get(nic) ?? new Map<string, string>();
        history.set(nic, seen);
        const previous = seen.get(ip);
        if (previous && previous !== mac) collisions[ip] = [previous, mac].sort();
        seen.set(ip, mac);
      }
    }
    result = collisions;
  }
  return result;
}

/** JSON as stored in `ip_collisions`. */
export function formatIpCollisions(collisions: Record<string, string[]> | undefined): string {
  return collisions === undefined ? 'null' : JSON.stringify(sortedObject(collisions));
}

/** Whether `ip` (bare) is one of the host's inventory addresses. */
export function hostOwnsIp(host: Host, ip: string): boolean {
  const parsed = tryParseIp(ip);
  return parsed !== undefined && hostIps(host, parsed.family).includes(parsed.text);
}
