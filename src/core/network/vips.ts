// VIP rules (core.md §6.4): API-time input checks and the verification behind the
// `api-vips-valid` / `ingress-vips-valid` validations.

import type { Host, VipEntry } from '../model.ts';
import { baseVersionAtLeast } from '../version.ts';
import { broadcastAddress, canonicalIp, cidrContains, tryParseCidr, tryParseIp } from './cidr.ts';
import { isMachineNetworkCidrBigEnough } from './cidr-rules.ts';
import { validateDualStackOrder } from './dual-stack.ts';

export type VipVerification = 'unverified' | 'succeeded' | 'failed';

export interface VipCheck {
  verification: VipVerification;
  /** Present unless succeeded. */
  error?: string;
}

/** Intersection of the hosts' free-address reports for exactly `network` (hosts without one are skipped). */
export function freeAddressesSet(hosts: Host[], network: string): Set<string> {
  let result: Set<string> | undefined;
  for (const h of hosts) {
    const report = h.free_addresses?.find((f) => f.network === network);
    if (!report) continue;
    const set = new Set(report.free_addresses ?? []);
    result = result ? new Set([...result].filter((a) => set.has(a))) : set;
  }
  return result ?? new Set();
}

/** Best effort: a VIP is verified free only when a non-empty free list exists for the network. */
export function ipInFreeList(hosts: Host[], vip: string, network: string): VipVerification {
  const free = freeAddressesSet(hosts, network);
  if (free.size === 0) return 'unverified';
  return free.has(vip) ? 'succeeded' : 'failed';
}

/** A stored verify-vips result (succeeded / failed) wins over the free-address lists. */
export function verifyVipFree(
  hosts: Host[],
  vip: string,
  network: string,
  verification: VipVerification | undefined,
): VipVerification {
  if (verification === 'succeeded' || verification === 'failed') return verification;
  return ipInFreeList(hosts, vip, network);
}

/** IPv4 broadcast address of the CIDR (IPv6 has none). */
export function isBroadcastAddress(vip: string, cidr: string): boolean {
  const ip = tryParseIp(vip);
  const net = tryParseCidr(cidr);
  if (!ip || !net || ip.family !== 'ipv4' || net.family !== 'ipv4') return false;
  return ip.text === broadcastAddress(net);
}

/**
 * Verification of one VIP against one machine network. `name` is "api vips" / "ingress vips".
 * The network address itself is accepted (upstream quirk: only the IPv4 broadcast is rejected).
 */
export function verifyVip(
  hosts: Host[],
  machineCidr: string,
  vip: string,
  name: string,
  verification?: VipVerification,
): VipCheck {
  if (!machineCidr) {
    return {
      verification: 'unverified',
      error: `${name} <${vip}> cannot be set if Machine Network CIDR is empty`,
    };
  }
  if (!cidrContains(machineCidr, vip)) {
    return {
      verification: 'failed',
      error: `${name} <${vip}> does not belong to machine-network-cidr <${machineCidr}>`,
    };
  }
  if (isBroadcastAddress(vip, machineCidr)) {
    return {
      verification: 'failed',
      error: `${name} <${vip}> is the broadcast address of machine-network-cidr <${machineCidr}>`,
    };
  }
  const free = verifyVipFree(hosts, vip, machineCidr, verification);
  if (free === 'succeeded') return { verification: free };
  if (free === 'failed') {
    let error = `${name} <${vip}> is already in use in cidr ${machineCidr}`;
    if (!isMachineNetworkCidrBigEnough(machineCidr, hosts.length)) {
      error += '. The machine network range is too small for the cluster. Please redefine the network.';
    }
    return { verification: free, error };
  }
  return { verification: free, error: `${name} <${vip}> are not verified yet.` };
}

/**
 * User-managed load balancer: the VIP must sit in at least one machine network (and not be that
 * network's IPv4 broadcast address); no free-address check. `name` is "api vip" / "ingress vip".
 */
export function verifyVipUserManagedLoadBalancer(
  machineCidrs: string[],
  vip: string,
  name: string,
): string | undefined {
  for (const cidr of machineCidrs) {
    if (!cidrContains(cidr, vip)) continue;
    if (isBroadcastAddress(vip, cidr))
      return `${name} <${vip}> is the broadcast address of machine-network-cidr <${cidr}>`;
    return undefined;
  }
  return `${name} <${vip}> does not belong to machine-network-cidr <${machineCidrs.join(', ')}>`;
}

/** hashicorp go-multierror text, as upstream prints joined errors. */
export function multiErrorText(errors: string[]): string {
  const body = errors.map((e) => `\t* ${e}`).join('\n');
  return `${errors.length === 1 ? '1 error occurred' : `${errors.length} errors occurred`}:\n${body}\n\n`;
}

/** Duplicate VIPs within a list, and (unless `allowShared`) the same IP in both lists. */
export function validateNoVipDuplicates(
  apiVips: string[],
  ingressVips: string[],
  allowShared = false,
): string | undefined {
  const errors: string[] = [];
  const seenApi = new Set<string>();
  const seenIngress = new Set<string>();
  for (const ip of apiVips) {
    if (!ip) continue;
    if (seenApi.has(ip)) errors.push(`The IP address "${ip}" appears multiple times in apiVIPs`);
    seenApi.add(ip);
  }
  for (const ip of ingressVips) {
    if (!ip) continue;
    if (seenIngress.has(ip)) errors.push(`The IP address "${ip}" appears multiple times in ingressVIPs`);
    seenIngress.add(ip);
    if (!allowShared && seenApi.has(ip))
      errors.push(`The IP address "${ip}" appears both in apiVIPs and ingressVIPs`);
  }
  return errors.length > 0 ? multiErrorText(errors) : undefined;
}

export interface VipInput {
  api_vips?: string[];
  ingress_vips?: string[];
  /** Legacy single-value fields; must equal element 0 when given. */
  api_vip?: string;
  ingress_vip?: string;
}

export interface VipInputContext {
  openshiftVersion: string;
  userManagedNetworking: boolean;
  vipDhcpAllocation: boolean;
  userManagedLoadBalancer: boolean;
  /** External platform name (dual-stack VIPs are not offered for "oci"). */
  externalPlatformName?: string;
  machineNetworks: string[];
  dualStack: boolean;
  hosts: Host[];
  /** Stored verifications by IP (only a "failed" one is fatal at API time). */
  verifications?: Record<string, VipVerification | undefined>;
}

function checkList(kind: 'API' | 'Ingress', vips: string[], ctx: VipInputContext): string | undefined {
  const label = kind === 'API' ? 'apiVIPs' : 'ingressVIPs';
  if (vips.length > 2) return `${label} supports 2 vips. got: ${vips.length}`;
  for (const [i, vip] of vips.entries()) {
    if (!vip) return `${kind} VIP IP at index ${i} cannot be empty`;
    if (!tryParseIp(vip)) return `Could not parse VIP ip ${vip}`;
  }
  if (vips.length > 1) {
    const dualStackVips =
      baseVersionAtLeast(ctx.openshiftVersion, '4.12') && ctx.externalPlatformName?.toLowerCase() !== 'oci';
    if (!dualStackVips) return `dual-stack VIPs are not supported in OpenShift ${ctx.openshiftVersion}`;
    return validateDualStackOrder(vips, `${kind} VIPs`, 'address', ctx.openshiftVersion);
  }
  return undefined;
}

/**
 * API-time VIP checks (400s), first failure wins. Returns the error text or undefined.
 * Callers store the VIPs normalised with `normalizeVips`.
 */
export function validateVipsInput(input: VipInput, ctx: VipInputContext): string | undefined {
  const api = input.api_vips ?? [];
  const ingress = input.ingress_vips ?? [];
  if (ctx.userManagedNetworking) {
    if (api.length > 0) return 'API VIPs cannot be set with User Managed Networking';
    if (ingress.length > 0) return 'Ingress VIPs cannot be set with User Managed Networking';
    if (ctx.vipDhcpAllocation) return 'VIP DHCP Allocation cannot be set with User Managed Networking';
  }
  if (ctx.vipDhcpAllocation) {
    if (api.length > 0) return 'Setting API VIPs is forbidden when cluster is in vip-dhcp-allocation mode';
    if (ingress.length > 0)
      return 'Setting Ingress VIPs is forbidden when cluster is in vip-dhcp-allocation mode';
  }
  const listError = checkList('API', api, ctx) ?? checkList('Ingress', ingress, ctx);
  if (listError) return listError;
  if (api.length !== ingress.length) {
    return `configuration must include the same number of apiVIPs (got ${api.length}) and ingressVIPs (got ${ingress.length})`;
  }
  if (input.api_vip !== undefined && input.api_vip !== '' && input.api_vip !== api[0]) {
    return 'apiVIP must be the same as the first element of apiVIPs';
  }
  if (input.ingress_vip !== undefined && input.ingress_vip !== '' && input.ingress_vip !== ingress[0]) {
    return 'ingressVIP must be the same as the first element of ingressVIPs';
  }
  const duplicates = validateNoVipDuplicates(api, ingress, ctx.userManagedLoadBalancer);
  if (duplicates) return duplicates;
  if (api.length === 0) return undefined;
  if (ctx.machineNetworks.length === 0) {
    return ctx.dualStack ? 'Dual-stack cluster cannot be created with empty Machine Networks' : undefined;
  }
  if (ctx.userManagedLoadBalancer) {
    return (
      verifyVipUserManagedLoadBalancer(ctx.machineNetworks, api[0] as string, 'api vip') ??
      verifyVipUserManagedLoadBalancer(ctx.machineNetworks, ingress[0] as string, 'ingress vip')
    );
  }
  for (const [name, list] of [
    ['api-vip', api],
    ['ingress-vip', ingress],
  ] as const) {
    for (const [i, vip] of list.entries()) {
      const check = verifyVip(ctx.hosts, ctx.machineNetworks[i] ?? '', vip, name, ctx.verifications?.[vip]);
      // "In use" is only fatal when already verified as used; unverified is fine at API time.
      if (check.verification === 'failed') return check.error;
    }
  }
  return undefined;
}

/** Canonical textual form of every VIP (what upstream stores). */
export function normalizeVips(vips: string[]): string[] {
  return vips.map(canonicalIp);
}

/** VipEntry list → IPs. */
export function vipIps(vips: VipEntry[] | null | undefined): string[] {
  return (vips ?? []).map((v) => v.ip);
}
