// CIDR rules (core.md §6.2): subnet size/shape checks, host-prefix checks, overlap checks.
// Every function returns an error message (the upstream error text) or undefined when valid.

import type { CidrEntry, ClusterNetwork } from '../model.ts';
import { type Cidr, cidrsOverlap, tryParseCidr } from './cidr.ts';

/** Cluster and service networks must hold at least 2^7 = 128 addresses. */
export const MIN_MASK_DELTA = 7;
/** Machine networks: at least 16 addresses. */
export const MIN_MACHINE_MASK_DELTA = 4;
/** SNO machine networks: at least 2 addresses. */
export const MIN_SNO_MACHINE_MASK_DELTA = 1;
/** Machine networks with a user-managed load balancer: at least 4 addresses. */
export const MIN_USER_MANAGED_LB_MACHINE_MASK_DELTA = 2;

/** Go's ParseCIDR error as upstream wraps it. */
export function cidrParseErrorMessage(cidr: string): string {
  return `Failed to parse CIDR '${cidr}': invalid CIDR address: ${cidr}`;
}

function parseOrError(cidr: string): Cidr | string {
  return tryParseCidr(cidr) ?? cidrParseErrorMessage(cidr);
}

/** Prefix in 1..bits−delta, base not the unspecified address, written as its network address. */
export function verifySubnetCidr(cidr: string, minMaskDelta: number): string | undefined {
  const c = parseOrError(cidr);
  if (typeof c === 'string') return c;
  if (c.prefix < 1 || c.prefix > c.bits - minMaskDelta) {
    return `Address mask size must be between 1 to ${c.bits - minMaskDelta} and must include at least ${2 ** minMaskDelta} addresses`;
  }
  if (c.network === 0n) {
    return `The specified CIDR ${cidr} is invalid because its resulting routing prefix matches the unspecified address`;
  }
  if (c.ip.value !== c.network) return `${c.ip.text}/${c.prefix} is not a valid network CIDR`;
  return undefined;
}

export function verifyClusterOrServiceCidr(cidr: string): string | undefined {
  return verifySubnetCidr(cidr, MIN_MASK_DELTA);
}

/** Machine CIDR: 16 addresses, SNO 2, user-managed load balancer 4. */
export function verifyMachineCidr(
  cidr: string,
  opts: { singleNode?: boolean; userManagedLoadBalancer?: boolean } = {},
): string | undefined {
  let delta = MIN_MACHINE_MASK_DELTA;
  if (opts.singleNode) delta = MIN_SNO_MACHINE_MASK_DELTA;
  else if (opts.userManagedLoadBalancer) delta = MIN_USER_MANAGED_LB_MACHINE_MASK_DELTA;
  return verifySubnetCidr(cidr, delta);
}

export function verifyNetworkHostPrefix(prefix: number): string | undefined {
  if (!(prefix >= 1)) return `Host prefix, now ${prefix}, must be a positive integer`;
  return undefined;
}

/**
 * hostPrefix ≤ bits−7, and the cluster network must fit the hosts: 2^(hostPrefix − cidrPrefix)
 * (at least 1) ≥ (1 for a single host, else max(4, hosts)).
 */
export function verifyClusterCidrSize(
  hostPrefix: number,
  clusterCidr: string,
  numberOfHosts: number,
): string | undefined {
  const c = parseOrError(clusterCidr);
  if (typeof c === 'string') return c;
  if (hostPrefix > c.bits - MIN_MASK_DELTA) {
    return `Host prefix, now ${hostPrefix}, must be less than or equal to ${c.bits - MIN_MASK_DELTA} to allow at least 128 addresses`;
  }
  const requested = numberOfHosts === 1 ? 1 : Math.max(4, numberOfHosts);
  const possible = 2n ** BigInt(Math.min(63, Math.max(hostPrefix - c.prefix, 0)));
  if (BigInt(requested) > possible) {
    const perHost = 2n ** BigInt(Math.min(63, c.bits - hostPrefix));
    return `Cluster network CIDR prefix ${c.prefix} does not contain enough addresses for ${numberOfHosts} hosts each one with ${hostPrefix} prefix (${perHost} addresses)`;
  }
  return undefined;
}

/** "CIDRS a and b overlap" (texts as given); empty inputs never overlap. */
export function verifyNetworksNotOverlap(a: string, b: string): string | undefined {
  if (!a || !b) return undefined;
  const x = parseOrError(a);
  if (typeof x === 'string') return x;
  const y = parseOrError(b);
  if (typeof y === 'string') return y;
  return cidrsOverlap(x, y) ? `CIDRS ${a} and ${b} overlap` : undefined;
}

/**
 * One index of the machine/cluster/service triple. The machine comparisons run only when a
 * machine network is required. The pair name is prefixed as upstream's error wrapping does.
 */
export function verifyClusterCidrsNotOverlap(
  machineCidr: string,
  clusterCidr: string,
  serviceCidr: string,
  machineNetworkRequired: boolean,
): string | undefined {
  if (machineNetworkRequired) {
    const ms = verifyNetworksNotOverlap(machineCidr, serviceCidr);
    if (ms) return `MachineNetworkCIDR and ServiceNetworkCIDR: ${ms}`;
    const mc = verifyNetworksNotOverlap(machineCidr, clusterCidr);
    if (mc) return `MachineNetworkCIDR and ClusterNetworkCidr: ${mc}`;
  }
  const sc = verifyNetworksNotOverlap(serviceCidr, clusterCidr);
  if (sc) return `ServiceNetworkCidr and ClusterNetworkCidr: ${sc}`;
  return undefined;
}

/**
 * Per-index overlap check over the cluster's lists (callers guarantee equal cluster/service counts).
 * Quirk kept from upstream: with fewer machine networks than cluster networks the previous index's
 * machine CIDR is reused.
 */
export function checkCidrsOverlapping(
  lists: { machine_networks: CidrEntry[]; cluster_networks: ClusterNetwork[]; service_networks: CidrEntry[] },
  machineNetworkRequired: boolean,
): string | undefined {
  let machine = '';
  for (let i = 0; i < lists.cluster_networks.length; i++) {
    if (i < lists.machine_networks.length) machine = lists.machine_networks[i]?.cidr ?? '';
    const error = verifyClusterCidrsNotOverlap(
      machine,
      lists.cluster_networks[i]?.cidr ?? '',
      lists.service_networks[i]?.cidr ?? '',
      machineNetworkRequired,
    );
    if (error) return error;
  }
  return undefined;
}

/** Whether the machine network at `machineCidr` can hold the hosts plus network/broadcast/VIP addresses. */
export function isMachineNetworkCidrBigEnough(machineCidr: string, numberOfHosts: number): boolean {
  const c = tryParseCidr(machineCidr);
  if (!c) return true;
  if (numberOfHosts === 1) return c.prefix <= c.bits - MIN_SNO_MACHINE_MASK_DELTA;
  return 2n ** BigInt(c.bits - c.prefix) - BigInt(numberOfHosts) - 4n >= 0n;
}
