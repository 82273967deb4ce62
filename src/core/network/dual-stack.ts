// Dual-stack rules (core.md §6.5): when a cluster is dual-stack, per-list shape checks, the primary
// IP stack (family of the first element of each list, which must agree), and address-family sets.

import { baseVersionAtLeast } from '../version.ts';
import { type IpFamily, ipFamily, isIPv4, isIPv6, parseCidr } from './cidr.ts';

/** First OpenShift version that accepts an IPv6-first dual-stack configuration. */
export const MIN_VERSION_IPV6_PRIMARY_DUAL_STACK = '4.12';

export interface NetworkLists {
  machine_networks?: { cidr: string }[] | null;
  service_networks?: { cidr: string }[] | null;
  cluster_networks?: { cidr: string }[] | null;
}

export interface NetworkAndVipLists extends NetworkLists {
  api_vips?: { ip: string }[] | null;
  ingress_vips?: { ip: string }[] | null;
}

/** Primary IP stack: 4 or 6 (upstream stores it as the number). */
export type PrimaryIpStack = 4 | 6;

function hasBothFamilies(cidrs: string[]): boolean {
  return cidrs.some((c) => isIPv4(c)) && cidrs.some((c) => isIPv6(c));
}

export function cidrsOf(list: { cidr: string }[] | null | undefined): string[] {
  return (list ?? []).map((n) => n.cidr);
}

/** A cluster is dual-stack when any of its machine/service/cluster lists holds both families. */
export function isDualStack(c: NetworkLists): boolean {
  return (
    hasBothFamilies(cidrsOf(c.machine_networks)) ||
    hasBothFamilies(cidrsOf(c.service_networks)) ||
    hasBothFamilies(cidrsOf(c.cluster_networks))
  );
}

export function supportsIpv6PrimaryDualStack(openshiftVersion: string | undefined): boolean {
  return baseVersionAtLeast(openshiftVersion, MIN_VERSION_IPV6_PRIMARY_DUAL_STACK);
}

/**
 * Shape of one dual-stack list: exactly two items, one per family; before 4.12 IPv4 must come first.
 * `itemType` is e.g. "machine networks" / "API VIPs"; `itemUnit` "subnet" or "address".
 * Returns the error message, or undefined when valid.
 */
export function validateDualStackOrder(
  items: string[],
  itemType: string,
  itemUnit: 'subnet' | 'address',
  openshiftVersion: string | undefined,
): string | undefined {
  if (items.length !== 2) return `Expected 2 ${itemType}, found ${items.length}`;
  const first = items[0] as string;
  const second = items[1] as string;
  if (supportsIpv6PrimaryDualStack(openshiftVersion)) {
    const families = items.map((i) => ipFamily(i));
    if (!families.includes('ipv4')) return `dual-stack ${itemType} must include exactly one IPv4 ${itemUnit}`;
    if (!families.includes('ipv6')) return `dual-stack ${itemType} must include exactly one IPv6 ${itemUnit}`;
    return undefined;
  }
  if (ipFamily(first) !== 'ipv4') {
    return `First ${itemType} has to be IPv4 ${itemUnit} (IPv6-primary dual-stack requires OpenShift 4.12+), got ${first}`;
  }
  if (ipFamily(second) !== 'ipv6') return `Second ${itemType} has to be IPv6 ${itemUnit}, got ${second}`;
  return undefined;
}

/**
 * The dual-stack checks for the network lists of a dual-stack cluster, in upstream order (machine,
 * service, cluster); empty lists are not checked (they were not part of the request). Returns the
 * first error message.
 */
export function validateDualStackNetworks(
  c: NetworkLists,
  openshiftVersion: string | undefined,
): string | undefined {
  if (!isDualStack(c)) return undefined;
  const lists: [string[], string][] = [
    [cidrsOf(c.machine_networks), 'machine networks'],
    [cidrsOf(c.service_networks), 'service networks'],
    [cidrsOf(c.cluster_networks), 'cluster networks'],
  ];
  for (const [cidrs, name] of lists) {
    if (cidrs.length === 0) continue;
    const error = validateDualStackOrder(cidrs, name, 'subnet', openshiftVersion);
    if (error) return error;
  }
  return undefined;
}

/** Single-stack clusters may not list several machine networks unless the load balancer is user-managed. */
export function validateSingleStackMachineNetworks(
  c: NetworkLists,
  userManagedLoadBalancer: boolean,
): string | undefined {
  if (isDualStack(c) || userManagedLoadBalancer) return undefined;
  if (cidrsOf(c.machine_networks).length > 1)
    return 'Single-stack cluster cannot contain multiple Machine Networks';
  return undefined;
}

function stackOf(text: string): PrimaryIpStack | undefined {
  const f = ipFamily(text);
  return f === undefined ? undefined : f === 'ipv4' ? 4 : 6;
}

function firstEntries(c: NetworkAndVipLists): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  const push = (name: string, value: string | undefined) => {
    if (value) out.push({ name, value });
  };
  push('machine_networks', c.machine_networks?.[0]?.cidr);
  push('api_vips', c.api_vips?.[0]?.ip);
  push('ingress_vips', c.ingress_vips?.[0]?.ip);
  push('service_networks', c.service_networks?.[0]?.cidr);
  push('cluster_networks', c.cluster_networks?.[0]?.cidr);
  return out;
}

export type PrimaryStackResult =
  | { stack: PrimaryIpStack | undefined; error?: undefined }
  | { stack?: undefined; error: string };

/**
 * Primary IP stack: the family of the first element of machine networks, API VIPs, Ingress VIPs,
 * service networks, cluster networks (in that order); unparseable entries are skipped. All first
 * elements must agree. No entries at all → stack undefined.
 */
export function computePrimaryIpStack(c: NetworkAndVipLists): PrimaryStackResult {
  let first: { name: string; value: string; stack: PrimaryIpStack } | undefined;
  for (const e of firstEntries(c)) {
    const stack = stackOf(e.value);
    if (stack === undefined) continue;
    if (!first) {
      first = { ...e, stack };
    } else if (first.stack !== stack) {
      return {
        error: `Inconsistent IP family order: ${first.name} first IP is ${first.value} but ${e.name} first IP is ${e.value}. All networks must have the same IP family first`,
      };
    }
  }
  return { stack: first?.stack };
}

/** A partial update: every list it carries must start with the stored primary stack's family. */
export function validatePrimaryStackPartialUpdate(
  update: NetworkAndVipLists,
  expected: PrimaryIpStack,
): string | undefined {
  for (const e of firstEntries(update)) {
    const stack = stackOf(e.value);
    if (stack === undefined || stack === expected) continue;
    return `Inconsistent IP family order: ${e.name} first IP is ${e.value} but existing primary IP stack is IPv${expected}. All networks must have the same IP family first`;
  }
  return undefined;
}

/** Orders a list so the primary stack's family comes first (stable otherwise); IPv4 first by default. */
export function orderByPrimaryStack<T>(
  items: T[],
  textOf: (t: T) => string,
  primary: PrimaryIpStack = 4,
): T[] {
  const rank = (t: T) => (stackOf(textOf(t)) === primary ? 0 : 1);
  return [...items].sort((a, b) => rank(a) - rank(b));
}

/**
 * Address families of a CIDR list, one per entry, IPv4 sorted before IPv6. Throws on a bad CIDR
 * (callers map that to their own message).
 */
export function addressFamiliesOf(cidrs: string[]): IpFamily[] {
  const families = cidrs.map((c) => parseCidr(c).family);
  return families.sort((a, b) => (a === b ? 0 : a === 'ipv4' ? -1 : 1));
}

/** De-duplicates a sorted family list ("canonize" upstream). */
export function canonizeFamilies(families: IpFamily[]): IpFamily[] {
  return [...new Set(families)];
}

export function sameFamilies(a: IpFamily[], b: IpFamily[]): boolean {
  return a.length === b.length && a.every((f, i) => f === b[i]);
}
