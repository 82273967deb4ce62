// Connectivity-derived cluster data (core.md §6.6): majority groups per network (L2) and per
// address family (L3), the addresses every other host reached, and IP collisions.

import { finish, type Steps } from '../../util/steps.ts';
import type { Host } from '../model.ts';
import { cidrContains, type IpFamily, tryParseCidr, tryParseIp } from './cidr.ts';
import { type ConnectivityReader, connectivityReader } from './connectivity-report.ts';
import { BitRows, largestFullMesh, largestFullMeshSteps } from './full-mesh.ts';
import { hostIps, inventoryNetworks } from './host-networks.ts';

export interface Connectivity {
  majority_groups: Record<string, string[]>;
  l3_connected_addresses: Record<string, string[]>;
}

function sortById(hosts: Host[]): Host[] {
  return [...hosts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Each host's report with its remote hosts resolved to indexes once per computation (-1: not in
 * the cluster), shared by every group: a 1,000-host full mesh names a million remote hosts.
 */
interface ResolvedReport {
  to: Int32Array;
  report: ConnectivityReader;
}

const NO_REPORT = connectivityReader({});

function* resolveReports(hosts: Host[]): Steps<ResolvedReport[]> {
  const ids = new Map(hosts.map((h, i) => [h.id, i]));
  const out: ResolvedReport[] = [];
  for (const h of hosts) {
    const report = h.connectivity ? connectivityReader(h.connectivity) : NO_REPORT;
    const to = new Int32Array(report.remoteCount);
    for (let k = 0; k < report.remoteCount; k++) to[k] = ids.get(report.hostId(k)) ?? -1;
    out.push({ report, to });
    yield;
  }
  return out;
}

/** Sets row `from` of the matrix for every remote host `k` of the report that `reached` accepts. */
function fillRow(
  rows: BitRows,
  from: number,
  resolved: ResolvedReport,
  reached: (report: ConnectivityReader, k: number, to: number) => boolean,
): void {
  for (let k = 0; k < resolved.report.remoteCount; k++) {
    const to = resolved.to[k] as number;
    if (to >= 0 && reached(resolved.report, k, to)) rows.set(from, to);
  }
}

/**
 * L2: A reached some IP of B inside the CIDR by ARP/NDP; for IPv6 a successful ping there also counts.
 * A report names each remote address once per check, so whether an address is in the CIDR is
 * decided once per address (a 1,000-host full mesh is a million checks of a thousand addresses).
 */
function* l2Reach(reports: ResolvedReport[], cidr: string): Steps<BitRows> {
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
  const anyL2In = (r: ConnectivityReader, k: number) => {
    for (let j = 0; j < r.l2Count(k); j++)
      if (r.l2Successful(k, j) && inCidr(r.l2RemoteIp(k, j))) return true;
    return false;
  };
  const anyL3In = (r: ConnectivityReader, k: number) => {
    for (let j = 0; j < r.l3Count(k); j++)
      if (r.l3Successful(k, j) && inCidr(r.l3RemoteIp(k, j))) return true;
    return false;
  };
  const rows = new BitRows(reports.length);
  const reached = (r: ConnectivityReader, k: number) => anyL2In(r, k) || (ipv6 && anyL3In(r, k));
  for (let from = 0; from < reports.length; from++) {
    fillRow(rows, from, reports[from] as ResolvedReport, reached);
    yield;
  }
  return rows;
}

/** How many distinct addresses of `wanted` remote host `k`'s successful L3 checks reached. */
function reachedCount(r: ConnectivityReader, k: number, wanted: ReadonlySet<string>): number {
  let n = 0;
  forEachReachedAddress(r, k, (a) => {
    if (wanted.has(a)) n++;
  });
  return n;
}

/** L3: A pinged *all* of B's addresses of the family (B must have at least one). */
function* l3Reach(hosts: Host[], reports: ResolvedReport[], family: IpFamily): Steps<BitRows> {
  const addresses = hosts.map((h) => (h.inventory ? new Set(hostIps(h, family)) : undefined));
  const rows = new BitRows(hosts.length);
  const reached = (r: ConnectivityReader, k: number, to: number) => {
    const wanted = addresses[to];
    return wanted !== undefined && wanted.size > 0 && reachedCount(r, k, wanted) === wanted.size;
  };
  for (let from = 0; from < reports.length; from++) {
    fillRow(rows, from, reports[from] as ResolvedReport, reached);
    yield;
  }
  return rows;
}

/** Majority group of a network CIDR (L2). Hosts are ordered by id first. */
export function l2MajorityGroup(hosts: Host[], cidr: string, minSize = 3): string[] {
  const sorted = sortById(hosts);
  return idsOf(sorted, largestFullMesh(finish(l2Reach(finish(resolveReports(sorted)), cidr)), minSize));
}

/** Majority group of an address family (L3). */
export function l3MajorityGroup(hosts: Host[], family: IpFamily, minSize = 3): string[] {
  const sorted = sortById(hosts);
  const reports = finish(resolveReports(sorted));
  return idsOf(sorted, largestFullMesh(finish(l3Reach(sorted, reports, family)), minSize));
}

function idsOf(hosts: Host[], indexes: number[]): string[] {
  return indexes.map((i) => (hosts[i] as Host).id);
}

/**
 * The addresses remote host `k`'s successful L3 checks reached, each once. Reports name an address
 * once or twice per remote host, so short lists are scanned rather than given a Set each (a
 * million of them in a 1,000-host full mesh).
 */
function forEachReachedAddress(r: ConnectivityReader, k: number, visit: (address: string) => void): void {
  const count = r.l3Count(k);
  const seen = count > 8 ? new Set<string>() : undefined;
  for (let j = 0; j < count; j++) {
    const a = r.l3RemoteIp(k, j);
    if (!r.l3Successful(k, j) || !a) continue;
    if (seen) {
      if (seen.has(a)) continue;
      seen.add(a);
    } else if (reachedBefore(r, k, j, a)) continue;
    visit(a);
  }
}

function reachedBefore(r: ConnectivityReader, k: number, end: number, address: string): boolean {
  for (let j = 0; j < end; j++) if (r.l3Successful(k, j) && r.l3RemoteIp(k, j) === address) return true;
  return false;
}

/** Per host: the addresses that every other host reached with a successful ping (sorted). */
export function gatherL3ConnectedAddresses(hosts: Host[]): Record<string, string[]> {
  const sorted = sortById(hosts);
  return finish(l3ConnectedAddresses(sorted, finish(resolveReports(sorted))));
}

function* l3ConnectedAddresses(hosts: Host[], reports: ResolvedReport[]): Steps<Record<string, string[]>> {
  // Counts per cluster host by index; remote ids outside the cluster are counted by id.
  const known: (Map<string, number> | undefined)[] = [];
  const strangers = new Map<string, Map<string, number>>();
  for (let from = 0; from < reports.length; from++) {
    const { report, to: toOf } = reports[from] as ResolvedReport;
    for (let k = 0; k < report.remoteCount; k++) {
      const to = toOf[k] as number;
      if (to === from) continue;
      let m: Map<string, number> | undefined;
      // Each address counts once per remote host entry, however many checks name it.
      forEachReachedAddress(report, k, (a) => {
        if (!m) {
          const id = report.hostId(k);
          m = to >= 0 ? known[to] : strangers.get(id);
          if (!m) {
            m = new Map<string, number>();
            if (to >= 0) known[to] = m;
            else strangers.set(id, m);
          }
        }
        m.set(a, (m.get(a) ?? 0) + 1);
      });
    }
    yield;
  }
  const counts = new Map(strangers);
  known.forEach((m, i) => {
    if (m) counts.set((hosts[i] as Host).id, m);
  });
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
  return finish(connectivitySteps(hosts, minGroupSize));
}

/** computeConnectivity in steps of one host's row (each maximum-mesh search is one step). */
export function* connectivitySteps(hosts: Host[], minGroupSize = 3): Steps<Connectivity> {
  const sorted = sortById(hosts);
  const reports = yield* resolveReports(sorted);
  const group = function* (rows: BitRows) {
    return idsOf(sorted, yield* largestFullMeshSteps(rows, minGroupSize));
  };
  const groups: Record<string, string[]> = {};
  for (const cidr of inventoryNetworks(hosts)) groups[cidr] = yield* group(yield* l2Reach(reports, cidr));
  groups.IPv4 = yield* group(yield* l3Reach(sorted, reports, 'ipv4'));
  groups.IPv6 = yield* group(yield* l3Reach(sorted, reports, 'ipv6'));
  return { majority_groups: groups, l3_connected_addresses: yield* l3ConnectedAddresses(sorted, reports) };
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

/** Adds to `out` the ids in exactly one of the two lists. */
function addOnlyInOne(out: Set<string>, x: readonly string[], y: readonly string[]): void {
  const [sx, sy] = [new Set(x), new Set(y)];
  for (const id of sx) if (!sy.has(id)) out.add(id);
  for (const id of sy) if (!sx.has(id)) out.add(id);
}

/**
 * The hosts whose reading of the majority groups (belongs-to-majority-group) may differ between
 * two stored values: those that joined or left a group, or whose L3-connected addresses changed.
 * 'all' when either value is missing or malformed or the networks differ. A new result of a
 * 1,000-host cluster otherwise reconciled all its Agents, to find most of them unchanged.
 */
export function hostsWhoseGroupsChanged(
  prev: string | undefined,
  next: string | undefined,
): Set<string> | 'all' {
  const changed = new Set<string>();
  if (prev === next) return changed;
  const a = parseConnectivity(prev);
  const b = parseConnectivity(next);
  if (!a || !b) return 'all';
  const networks = Object.keys(a.majority_groups);
  if (networks.length !== Object.keys(b.majority_groups).length) return 'all';
  for (const network of networks) {
    const was = a.majority_groups[network];
    const is = Object.hasOwn(b.majority_groups, network) ? b.majority_groups[network] : undefined;
    if (!Array.isArray(was) || !Array.isArray(is)) return 'all';
    addOnlyInOne(changed, was, is);
  }
  const l3 = (c: Connectivity, id: string) =>
    Object.hasOwn(c.l3_connected_addresses, id) ? JSON.stringify(c.l3_connected_addresses[id]) : undefined;
  const ids = new Set([...Object.keys(a.l3_connected_addresses), ...Object.keys(b.l3_connected_addresses)]);
  for (const id of ids) if (l3(a, id) !== l3(b, id)) changed.add(id);
  return changed;
}

/**
 * IP collisions: within one host's report, the same remote IP answering on the same outgoing NIC
 * with two different MACs. Upstream quirk kept (core.md §10.12): only the map of the *last* host
 * with a report survives. No report at all → undefined (stored as JSON null upstream).
 */
export function detectIpCollisions(hosts: Host[]): Record<string, string[]> | undefined {
  // Only the last report counts, so only it is read: the others are a million checks in a
  // 1,000-host full mesh.
  const last = hosts.findLast((h) => h.connectivity);
  if (!last?.connectivity) return undefined;
  const collisions: Record<string, string[]> = {};
  const history = new Map<string, Map<string, string>>();
  const r = connectivityReader(last.connectivity);
  for (let k = 0; k < r.remoteCount; k++) {
    for (let j = 0; j < r.l2Count(k); j++) {
      const nic = r.l2OutgoingNic(k, j) ?? '';
      const ip = r.l2RemoteIp(k, j) ?? '';
      const mac = r.l2RemoteMac(k, j) ?? '';
      const seen = history.get(nic) ?? new Map<string, string>();
      history.set(nic, seen);
      const previous = seen.get(ip);
      if (previous && previous !== mac) collisions[ip] = [previous, mac].sort();
      seen.set(ip, mac);
    }
  }
  return collisions;
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
