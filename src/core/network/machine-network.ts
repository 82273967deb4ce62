// Machine network auto-calculation (core.md §6.3) and the UMN / SNO machine-network helpers.

import type { CidrEntry, Cluster, Host } from '../model.ts';
import { cidrContains, type IpFamily, normalizeCidr, tryParseCidr, tryParseIp } from './cidr.ts';
import { addressFamiliesOf, canonizeFamilies, cidrsOf, isDualStack, sameFamilies } from './dual-stack.ts';
import {
  findHostAddressInCidr,
  interfaceAddresses,
  inventoryNetworks,
  inventoryNetworksByFamily,
  lowestMetricDefaultRoute,
} from './host-networks.ts';
import { isSingleNode, isUserManagedLoadBalancer, isVipDhcp } from './topology.ts';

export type CidrResult = { cidr: string; error?: undefined } | { error: string; cidr?: undefined };

/**
 * The network of the first host interface (host order, then interface order) containing the VIP:
 * API VIP if given, else Ingress VIP. No VIP → "". No match → "" or, when a match is required,
 * "No suitable matching CIDR found for VIP <ip>".
 */
export function calculateMachineNetworkCidr(
  apiVip: string | undefined,
  ingressVip: string | undefined,
  hosts: Host[],
  matchRequired: boolean,
): CidrResult {
  const vip = apiVip || ingressVip;
  if (!vip) return { cidr: '' };
  const ip = tryParseIp(vip);
  if (!ip) return { error: `Could not parse VIP ip ${vip}` };
  for (const h of hosts) {
    for (const intf of h.inventory?.interfaces ?? []) {
      for (const addr of interfaceAddresses(intf, ip.family)) {
        const net = tryParseCidr(addr);
        if (net && cidrContains(net, ip.text)) return { cidr: normalizeCidr(net) };
      }
    }
  }
  return matchRequired ? { error: `No suitable matching CIDR found for VIP ${vip}` } : { cidr: '' };
}

export type MachineNetworkUpdate =
  | { changed: false; error?: undefined }
  | {
      changed: true;
      machine_networks: CidrEntry[];
      machine_network_cidr_updated_at: string;
      error?: undefined;
    }
  | { changed: false; error: string };

const NO_CHANGE: MachineNetworkUpdate = { changed: false };

function changedTo(cidrs: string[], now: Date): MachineNetworkUpdate {
  return {
    changed: true,
    machine_networks: cidrs.map((cidr) => ({ cidr })),
    machine_network_cidr_updated_at: now.toISOString(),
  };
}

function familyLabel(f: IpFamily): string {
  return f === 'ipv4' ? 'IPv4' : 'IPv6';
}

/** SNO: one network per family of the cluster/service networks, from the hosts' interfaces. */
function singleNodeMachineNetworks(cluster: Cluster, now: Date): MachineNetworkUpdate {
  if (cluster.machine_networks.length > 0) return NO_CHANGE;
  let clusterFamilies: IpFamily[];
  let serviceFamilies: IpFamily[];
  try {
    clusterFamilies = canonizeFamilies(addressFamiliesOf(cidrsOf(cluster.cluster_networks)));
    serviceFamilies = canonizeFamilies(addressFamiliesOf(cidrsOf(cluster.service_networks)));
  } catch {
    return NO_CHANGE;
  }
  if (!sameFamilies(clusterFamilies, serviceFamilies)) return NO_CHANGE;
  const byFamily = inventoryNetworksByFamily(cluster.hosts);
  const chosen: string[] = [];
  for (const family of clusterFamilies) {
    const candidates = byFamily[family];
    if (candidates.length === 0) return NO_CHANGE;
    if (candidates.length === 1) {
      chosen.push(candidates[0] as string);
      continue;
    }
    const first = cluster.hosts.find((h) => h.inventory);
    const route = lowestMetricDefaultRoute(first?.inventory?.routes, family);
    const gateway = route?.gateway;
    const match = gateway ? candidates.find((c) => cidrContains(c, gateway)) : undefined;
    if (!match) return { changed: false, error: `missing default cidr for ${familyLabel(family)}` };
    chosen.push(match);
  }
  return chosen.length > 0 ? changedTo(chosen, now) : NO_CHANGE;
}

/**
 * What the cluster monitor would set as machine networks (only while pending-for-input or
 * insufficient). Returns `changed: false` when nothing is to be written.
 */
export function autoAssignMachineNetworks(cluster: Cluster, now: Date): MachineNetworkUpdate {
  if (cluster.status !== 'pending-for-input' && cluster.status !== 'insufficient') return NO_CHANGE;
  const current = cidrsOf(cluster.machine_networks);
  if (isVipDhcp(cluster) && !cluster.user_managed_networking) {
    const networks = inventoryNetworks(cluster.hosts);
    if (networks.length !== 1) return NO_CHANGE;
    const only = networks[0] as string;
    return current.length === 1 && current[0] === only ? NO_CHANGE : changedTo([only], now);
  }
  if (isSingleNode(cluster)) return singleNodeMachineNetworks(cluster, now);
  if (cluster.user_managed_networking || isUserManagedLoadBalancer(cluster)) return NO_CHANGE;

  const calc = (i: number) =>
    calculateMachineNetworkCidr(cluster.api_vips[i]?.ip, cluster.ingress_vips[i]?.ip, cluster.hosts, false)
      .cidr ?? '';
  const primary = calc(0);
  const secondary = calc(1);
  if (primary === '' && isDualStack(cluster)) return NO_CHANGE;
  if (primary === (current[0] ?? '') && (secondary === '' || secondary === current[1])) return NO_CHANGE;
  return changedTo(
    [primary, secondary].filter((c) => c !== ''),
    now,
  );
}

export function bootstrapHost(cluster: Pick<Cluster, 'hosts'>): Host | undefined {
  return cluster.hosts.find((h) => h.bootstrap === true);
}

/**
 * Machine networks for UMN install-configs: the cluster's if set, else the bootstrap host's
 * networks — at most one IPv4 and one IPv6, primary stack first (IPv4 by default). Where the
 * bootstrap host has several networks of a family we take the first in interface order (upstream
 * picks from a Go map, i.e. arbitrarily).
 */
export function machineNetworksForUserManagedNetworking(cluster: Cluster): CidrEntry[] {
  if (cluster.machine_networks.length > 0) return cluster.machine_networks;
  const bootstrap = bootstrapHost(cluster);
  if (!bootstrap) return [];
  const byFamily = inventoryNetworksByFamily([bootstrap]);
  const order: IpFamily[] = cluster.primary_ip_stack === 6 ? ['ipv6', 'ipv4'] : ['ipv4', 'ipv6'];
  return order.flatMap((f) => (byFamily[f][0] ? [{ cidr: byFamily[f][0] }] : []));
}

/** The "primary" UMN machine CIDR: first machine network, else the bootstrap host's network of the primary family. */
export function primaryMachineCidrForUserManagedNetworking(cluster: Cluster): string {
  return machineNetworksForUserManagedNetworking(cluster)[0]?.cidr ?? '';
}

/** The bootstrap host's IP in the primary machine network: SNO VIPs are set to it at install. */
export function ipForSingleNodeInstallation(
  cluster: Cluster,
): { ip: string; error?: undefined } | { error: string; ip?: undefined } {
  const bootstrap = bootstrapHost(cluster);
  if (!bootstrap) return { error: 'no bootstrap host were found in cluster' };
  const cidr = primaryMachineCidrForUserManagedNetworking(cluster);
  const found = cidr ? findHostAddressInCidr(bootstrap, cidr) : undefined;
  if (!found) return { error: 'failed to get ip for single node installation' };
  return { ip: found.ip };
}

/** Hosts with an address in the first machine network. */
export function hostsInPrimaryMachineNetwork(cluster: Cluster): Host[] {
  const cidr = cluster.machine_networks[0]?.cidr;
  if (!cidr) return [];
  return cluster.hosts.filter((h) => findHostAddressInCidr(h, cidr) !== undefined);
}

/** The NIC name of the host's address in the first machine network (DHCP allocation, kernel args). */
export function primaryMachineCidrInterface(host: Host, cluster: Cluster): string | undefined {
  const cidr = cluster.machine_networks[0]?.cidr;
  return cidr ? findHostAddressInCidr(host, cidr)?.interface.name : undefined;
}

/** Whether the host has an address in every machine network (false when there are none). */
export function hostInAllMachineNetworks(host: Host, cluster: Pick<Cluster, 'machine_networks'>): boolean {
  if (cluster.machine_networks.length === 0) return false;
  return cluster.machine_networks.every((m) => findHostAddressInCidr(host, m.cidr) !== undefined);
}
