// Node-IP allocation for multi-node UMN / user-managed load balancer clusters (core.md §6.7):
// pick one node IP per host such that no chosen IP falls in another host's *other* networks
// (which would make etcd / OVN tunnels see an unexpected source address).

import type { Cluster, Host } from '../model.ts';
import { type Cidr, cidrContains, type IpFamily, normalizeCidr, tryParseCidr, tryParseIp } from './cidr.ts';
import { parseConnectivity } from './connectivity.ts';
import { defaultRouteMetricForInterface, interfaceAddresses } from './host-networks.ts';

export interface NodeIpAllocation {
  node_ip: string;
  /** Network address of the chosen network. */
  hint_ip: string;
  cidr: string;
}

interface Eligible {
  ip: string;
  net: Cidr;
  metric: number;
}

interface Candidates {
  hostId: string;
  networks: Cidr[];
  eligible: Eligible[];
}

type Result<T> = { value: T; error?: undefined } | { error: string; value?: undefined };

function hostCandidates(host: Host, connected: string[] | undefined, family: IpFamily): Result<Candidates> {
  if (!connected || connected.length === 0) return { error: `no address found for host ${host.id}` };
  const connectedIps = new Set(
    connected
      .map((a) => tryParseIp(a))
      .filter((p) => p?.family === family)
      .map((p) => p?.text),
  );
  const networks: Cidr[] = [];
  const eligible: Eligible[] = [];
  for (const intf of host.inventory?.interfaces ?? []) {
    const metric = defaultRouteMetricForInterface(host.inventory?.routes, intf.name, family);
    for (const addr of interfaceAddresses(intf, family)) {
      const net = tryParseCidr(addr);
      if (!net) return { error: `failed to parse address ${addr} for host ${host.id}` };
      networks.push(net);
      if (metric !== undefined && connectedIps.has(net.ip.text))
        eligible.push({ ip: net.ip.text, net, metric });
    }
  }
  if (eligible.length === 0) return { error: `failed to create candidates for host ${host.id}` };
  return { value: { hostId: host.id, networks, eligible } };
}

interface Assignment {
  hostId: string;
  ip: string;
}
interface Prohibited {
  hostId: string;
  net: Cidr;
}

function collisions(assigned: Assignment[], prohibited: Prohibited[]): string[] {
  const errors: string[] = [];
  for (const a of assigned) {
    for (const p of prohibited) {
      if (cidrContains(p.net, a.ip)) {
        errors.push(
          `IP assignment ${a.ip} in host ${a.hostId} collides with prohibited network ${normalizeCidr(p.net)} in host ${p.hostId}`,
        );
      }
    }
  }
  return errors;
}

/**
 * Depth-first over hosts, one eligible IP each; at every level the solution whose chosen address
 * has the lowest default-route metric wins (stable on ties).
 */
function allocate(
  candidates: Candidates[],
  index: number,
  assigned: Assignment[],
  prohibited: Prohibited[],
): Result<Map<string, NodeIpAllocation>> {
  if (index === candidates.length) return { value: new Map() };
  const h = candidates[index] as Candidates;
  const errors: string[] = [];
  let best: { metric: number; result: Map<string, NodeIpAllocation> } | undefined;
  for (const c of h.eligible) {
    const mine: Assignment[] = [{ hostId: h.hostId, ip: c.ip }];
    const chosenNet = normalizeCidr(c.net);
    const myProhibited = h.networks
      .filter((n) => normalizeCidr(n) !== chosenNet)
      .map((net) => ({ hostId: h.hostId, net }));
    const clash = [...collisions(mine, prohibited), ...collisions(assigned, myProhibited)];
    if (clash.length > 0) {
      errors.push(...clash);
      continue;
    }
    const child = allocate(candidates, index + 1, [...assigned, ...mine], [...prohibited, ...myProhibited]);
    if (child.error !== undefined) {
      errors.push(child.error);
      continue;
    }
    child.value.set(h.hostId, { node_ip: c.ip, hint_ip: networkText(c.net), cidr: chosenNet });
    if (!best || c.metric < best.metric) best = { metric: c.metric, result: child.value };
  }
  if (best) return { value: best.result };
  return { error: [...new Set(errors.join('\n').split('\n'))].join('\n') };
}

function networkText(net: Cidr): string {
  return normalizeCidr(net).split('/')[0] as string;
}

/** IPv4 if any cluster/service CIDR is IPv4, else IPv6 if any is IPv6. */
function allocationFamily(cluster: Cluster): IpFamily | undefined {
  const families = [...cluster.cluster_networks, ...cluster.service_networks].map(
    (n) => tryParseCidr(n.cidr)?.family,
  );
  if (families.includes('ipv4')) return 'ipv4';
  if (families.includes('ipv6')) return 'ipv6';
  return undefined;
}

/** Node IP per host id, or the reason none could be computed. */
export function allocateNodeIps(cluster: Cluster): Result<Record<string, NodeIpAllocation>> {
  const family = allocationFamily(cluster);
  if (!family) return { error: `No address family found for cluster ${cluster.id}` };
  if (!cluster.connectivity_majority_groups) {
    return { error: `connectivity majority groups are missing for cluster ${cluster.id}` };
  }
  const connectivity = parseConnectivity(cluster.connectivity_majority_groups);
  if (!connectivity) return { error: `failed to unmarshal majority groups for cluster ${cluster.id}` };
  if (cluster.hosts.length !== Object.keys(connectivity.l3_connected_addresses).length) {
    return {
      error: `not all the hosts are connected.  Skipping address allocation for cluster ${cluster.id}`,
    };
  }
  const candidates: Candidates[] = [];
  for (const h of cluster.hosts) {
    const c = hostCandidates(h, connectivity.l3_connected_addresses[h.id], family);
    if (c.error !== undefined)
      return { error: `failed to create hosts candidates for cluster ${cluster.id}: ${c.error}` };
    candidates.push(c.value);
  }
  const result = allocate(candidates, 0, [], []);
  if (result.error !== undefined) {
    return { error: `failed to perform node ips allocation for cluster ${cluster.id}: ${result.error}` };
  }
  return {
    value: Object.fromEntries(cluster.hosts.map((h) => [h.id, result.value.get(h.id) as NodeIpAllocation])),
  };
}
