// What the hosts' inventories say about networks: interface networks, addresses per family,
// default routes. Shared by machine-network calculation, VIP checks and node-IP allocation.

import { memoSlot } from '../../util/memo-slot.ts';
import type { Interface, Route } from '../inventory.ts';
import { isIPv6Family } from '../inventory.ts';
import type { Host } from '../model.ts';
import { type IpFamily, ipFamily, normalizeCidr, parseCidr, tryParseCidr, tryParseIp } from './cidr.ts';

/** The inventory addresses (CIDR form, e.g. "192.168.1.5/24") of one family on an interface. */
export function interfaceAddresses(intf: Interface, family: IpFamily): string[] {
  return (family === 'ipv4' ? intf.ipv4_addresses : intf.ipv6_addresses) ?? [];
}

/** Every interface address of a host (IPv4 then IPv6 per interface, interface order). */
export function hostAddresses(host: Host): string[] {
  const out: string[] = [];
  for (const intf of host.inventory?.interfaces ?? []) {
    out.push(...interfaceAddresses(intf, 'ipv4'), ...interfaceAddresses(intf, 'ipv6'));
  }
  return out;
}

/**
 * Distinct interface networks of the hosts, normalised ("192.168.1.5/24" → "192.168.1.0/24").
 * Order: host order, interface order, IPv4 before IPv6 — deterministic where upstream iterates a map.
 */
export function inventoryNetworks(hosts: Host[]): string[] {
  const seen = new Set<string>();
  for (const h of hosts) for (const n of parsedAddresses(h).networks) seen.add(n);
  return [...seen];
}

interface ParsedAddresses {
  /** Normalised networks, in hostAddresses order (repeats kept). */
  networks: string[];
  ips: Record<IpFamily, string[]>;
}

/** Per inventory object: hosts of the informer cache share theirs until the Agent changes. */
const parsedByInventory = memoSlot<object, ParsedAddresses>('parsed addresses');

/**
 * A host's addresses parsed once per inventory: the cluster monitor reads every host's networks
 * and IPs on each pass, one pass per host change, which parsed a 500-host cluster's addresses 500
 * times over in one inventory wave (issue 16).
 */
function parsedAddresses(host: Host): ParsedAddresses {
  const inventory = host.inventory;
  const memo = inventory ? parsedByInventory.get(inventory) : undefined;
  if (memo) return memo;
  const parsed: ParsedAddresses = { networks: [], ips: { ipv4: [], ipv6: [] } };
  for (const intf of inventory?.interfaces ?? []) {
    for (const family of ['ipv4', 'ipv6'] as const) {
      for (const addr of interfaceAddresses(intf, family)) {
        const c = tryParseCidr(addr);
        if (!c) continue;
        parsed.networks.push(normalizeCidr(c));
        parsed.ips[family].push(c.ip.text);
      }
    }
  }
  if (inventory) parsedByInventory.set(inventory, parsed);
  return parsed;
}

export function inventoryNetworksByFamily(hosts: Host[]): Record<IpFamily, string[]> {
  const out: Record<IpFamily, string[]> = { ipv4: [], ipv6: [] };
  for (const n of inventoryNetworks(hosts)) out[parseCidr(n).family].push(n);
  return out;
}

/** A default route: the destination is the unspecified address (0.0.0.0 or ::). */
export function isDefaultRoute(route: Route): boolean {
  const dest = tryParseIp(route.destination ?? '');
  return dest !== undefined && dest.value === 0n;
}

function routeFamily(route: Route): IpFamily | undefined {
  if (route.family !== undefined) return isIPv6Family(route.family) ? 'ipv6' : 'ipv4';
  return route.gateway ? ipFamily(route.gateway) : undefined;
}

/** The lowest-metric default route whose gateway is of `family` (first wins on ties). */
export function lowestMetricDefaultRoute(
  routes: Route[] | null | undefined,
  family: IpFamily,
): Route | undefined {
  let best: Route | undefined;
  for (const r of routes ?? []) {
    if (!isDefaultRoute(r)) continue;
    // Upstream classifies by the gateway's family; a route without a usable gateway is skipped.
    if (tryParseIp(r.gateway ?? '')?.family !== family) continue;
    if (!best || (r.metric ?? 0) < (best.metric ?? 0)) best = r;
  }
  return best;
}

/** Metric of the default route of `family` leaving through `interfaceName`, if any. */
export function defaultRouteMetricForInterface(
  routes: Route[] | null | undefined,
  interfaceName: string | undefined,
  family: IpFamily,
): number | undefined {
  for (const r of routes ?? []) {
    if (routeFamily(r) !== family || !isDefaultRoute(r)) continue;
    if (r.interface === interfaceName) return r.metric ?? 0;
  }
  return undefined;
}

/** First address (CIDR form) of the host that lies inside `cidr`, with its interface. */
export function findHostAddressInCidr(
  host: Host,
  cidr: string,
): { address: string; ip: string; interface: Interface } | undefined {
  const net = tryParseCidr(cidr);
  if (!net) return undefined;
  for (const intf of host.inventory?.interfaces ?? []) {
    for (const addr of interfaceAddresses(intf, net.family)) {
      const a = tryParseCidr(addr);
      if (a && a.ip.value >= net.network && a.ip.value <= net.last)
        return { address: addr, ip: a.ip.text, interface: intf };
    }
  }
  return undefined;
}

/** Whether the host has an address inside `cidr`. */
export function hostBelongsToNetwork(host: Host, cidr: string): boolean {
  return findHostAddressInCidr(host, cidr) !== undefined;
}

/** Bare IPs of a host's addresses of one family. */
export function hostIps(host: Host, family: IpFamily): string[] {
  return [...parsedAddresses(host).ips[family]];
}
