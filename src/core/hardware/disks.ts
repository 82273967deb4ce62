// Disk installation eligibility (§5.2). The agent reports its own not-eligible reasons; the service
// adds its reasons (size, drive type, multipath, iSCSI networking) against the requirements of the
// moment, recomputing them on every inventory update while keeping the agent's.

import type { Disk, Interface, Inventory, Route } from '../inventory.ts';
import { isIPv6Family } from '../inventory.ts';
import { tryParseIp } from '../network/cidr.ts';
import { baseVersionAtLeast } from '../version.ts';
import { formatSiBytes, gbToBytes } from './units.ts';

/** Reasons the agent itself reports (kept as-is by the service). */
export const AGENT_DISK_REASONS = {
  removable: 'Disk is removable',
  unknownStorageController: 'Disk has unknown storage controller',
  lvmLogicalVolume: 'Disk is an LVM logical volume',
  isoPartitionType: 'Disk appears to be an ISO installation media (has partition with type iso9660)',
  isoMountpointSuffix:
    'Disk appears to be an ISO installation media (has partition with mountpoint suffix iso)',
} as const;

/** Reasons the service computes (fixed texts; templated ones are built by the functions below). */
export const SERVICE_DISK_REASONS = {
  multipathUnsupportedPathType: 'Multipath device has path of unsupported type. It must be FC, iSCSI',
  multipathMixedPathTypes:
    'Multipath device has paths of different types, but they must all be the same type',
  multipathIscsiErrors:
    'Installation on multipath device is not possible due to errors on at least one iSCSI disk',
  iscsiHostIpMissing: 'Host IP address is not available',
  defaultRouteInterfaceMissing: 'Cannot find the network interface behind the default route',
} as const;

export function tooSmallReason(sizeBytes: number, requiredBytes: number): string {
  let has = formatSiBytes(sizeBytes);
  const required = formatSiBytes(requiredBytes);
  if (has === required) has += ` (short by ${formatSiBytes(requiredBytes - sizeBytes)})`;
  return `Disk is too small (disk only has ${has}, but ${required} are required)`;
}

export function driveTypeReason(driveType: string, allowed: readonly string[]): string {
  return `Drive type is ${driveType}, it must be one of ${allowed.join(', ')}.`;
}

export function multipathMemberReason(multipathName: string): string {
  return `Disk is a member of multipath device ${multipathName} and is not eligible for installation. Use the multipath device instead.`;
}

export function iscsiUnparsableIpReason(ip: string): string {
  return `Cannot parse iSCSI host IP ${ip}: ParseAddr(${JSON.stringify(ip)}): unable to parse IP`;
}

export function iscsiSameAsHostIpReason(ip: string): string {
  return `iSCSI host IP ${ip} is the same as host IP, they must be different`;
}

const SERVICE_REASON_PREFIXES = [
  'Disk is too small (',
  'Drive type is ',
  'Disk is a member of multipath device ',
  'Cannot parse iSCSI host IP ',
  'iSCSI host IP ',
  ...Object.values(SERVICE_DISK_REASONS),
];

/** Whether a reason is one the service generates (and so recomputes). */
export function isServiceDiskReason(reason: string): boolean {
  return SERVICE_REASON_PREFIXES.some((p) => reason.startsWith(p));
}

function normalizeArchitecture(arch: string | undefined): string {
  if (arch === 'amd64') return 'x86_64';
  if (arch === 'arm64') return 'aarch64';
  return arch ?? '';
}

/** Drive types a disk may have to be installed on, in message order. */
export function allowedDriveTypes(openshiftVersion: string, cpuArchitecture: string | undefined): string[] {
  const allowed = ['HDD', 'SSD', 'Multipath'];
  if (baseVersionAtLeast(openshiftVersion, '4.14')) allowed.push('RAID');
  if (baseVersionAtLeast(openshiftVersion, '4.15')) allowed.push('iSCSI');
  const arch = normalizeArchitecture(cpuArchitecture);
  if (arch === 's390x') allowed.push('FC', 'ECKD (ESE)', 'ECKD', 'FBA');
  if (arch === 'x86_64') allowed.push('FC');
  return allowed;
}

export interface DiskEligibilityContext {
  /** Total.disk_size_gb of the host's requirement set (decimal GB). */
  minDiskSizeGb: number;
  /** The cluster's version (day-2: the infra-env's). */
  openshiftVersion: string;
  /** The whole inventory: multipath paths, holders, routes and interfaces are looked up here. */
  inventory: Inventory;
}

function holdersOf(disk: Disk): string[] {
  return (disk.holders ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
}

function ipOfAddress(address: string): string {
  const slash = address.indexOf('/');
  return slash < 0 ? address : address.slice(0, slash);
}

function routeFamily(route: Route): 'ipv4' | 'ipv6' | undefined {
  if (route.family !== undefined) return isIPv6Family(route.family) ? 'ipv6' : 'ipv4';
  return tryParseIp(route.destination ?? '')?.family;
}

function isUnspecified(address: string | undefined): boolean {
  const ip = tryParseIp(address ?? '');
  return ip !== undefined && ip.value === 0n;
}

/** Reasons an iSCSI disk's networking is unusable (host IP and default route checks). */
export function iscsiNetworkReasons(disk: Disk, inventory: Inventory): string[] {
  const hostIp = disk.iscsi?.host_ip_address;
  if (!hostIp) return [SERVICE_DISK_REASONS.iscsiHostIpMissing];
  const ip = tryParseIp(hostIp);
  if (!ip) return [iscsiUnparsableIpReason(hostIp)];
  const defaults = (inventory.routes ?? []).filter(
    (r) => routeFamily(r) === ip.family && isUnspecified(r.destination),
  );
  if (defaults.length === 0) return [];
  const best = defaults.reduce((a, b) => ((b.metric ?? 0) < (a.metric ?? 0) ? b : a));
  const nic: Interface | undefined = (inventory.interfaces ?? []).find((i) => i.name === best.interface);
  if (!nic) return [SERVICE_DISK_REASONS.defaultRouteInterfaceMissing];
  const addresses = [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])];
  if (addresses.some((a) => tryParseIp(ipOfAddress(a))?.text === ip.text))
    return [iscsiSameAsHostIpReason(hostIp)];
  return [];
}

function multipathReasons(disk: Disk, ctx: DiskEligibilityContext, allowed: readonly string[]): string[] {
  const disks = ctx.inventory.disks ?? [];
  const paths = disks.filter(
    (d) => d !== disk && disk.name !== undefined && holdersOf(d).includes(disk.name),
  );
  const types = new Set(paths.map((p) => p.drive_type ?? ''));
  if (!types.has('FC') && !types.has('iSCSI')) return [SERVICE_DISK_REASONS.multipathUnsupportedPathType];
  const reasons: string[] = [];
  if (types.size > 1) reasons.push(SERVICE_DISK_REASONS.multipathMixedPathTypes);
  const iscsiBroken = paths.some(
    (p) =>
      p.drive_type === 'iSCSI' &&
      (!allowed.includes('iSCSI') || iscsiNetworkReasons(p, ctx.inventory).length > 0),
  );
  if (iscsiBroken) reasons.push(SERVICE_DISK_REASONS.multipathIscsiErrors);
  return reasons;
}

/** The service's not-eligible reasons for one disk, in upstream order. */
export function serviceDiskReasons(disk: Disk, ctx: DiskEligibilityContext): string[] {
  const reasons: string[] = [];
  const requiredBytes = gbToBytes(ctx.minDiskSizeGb);
  const size = disk.size_bytes ?? 0;
  if (size < requiredBytes) reasons.push(tooSmallReason(size, requiredBytes));
  const allowed = allowedDriveTypes(ctx.openshiftVersion, ctx.inventory.cpu?.architecture);
  const driveType = disk.drive_type ?? '';
  if (!allowed.includes(driveType)) reasons.push(driveTypeReason(driveType, allowed));
  if (driveType === 'FC' || driveType === 'iSCSI') {
    const multipath = (ctx.inventory.disks ?? []).find(
      (d) => d.drive_type === 'Multipath' && d.name !== undefined && holdersOf(disk).includes(d.name),
    );
    if (multipath) reasons.push(multipathMemberReason(multipath.name!));
  }
  if (driveType === 'Multipath') reasons.push(...multipathReasons(disk, ctx, allowed));
  if (driveType === 'iSCSI') reasons.push(...iscsiNetworkReasons(disk, ctx.inventory));
  return reasons;
}

/** Agent reasons kept, service reasons recomputed; eligible ⇔ no reasons. */
export function diskEligibility(disk: Disk, ctx: DiskEligibilityContext) {
  const agentReasons = (disk.installation_eligibility?.not_eligible_reasons ?? []).filter(
    (r) => !isServiceDiskReason(r),
  );
  const reasons = [...agentReasons, ...serviceDiskReasons(disk, ctx)];
  return { eligible: reasons.length === 0, not_eligible_reasons: reasons };
}

/** A copy of the inventory with every disk's installation_eligibility recomputed. */
export function updateDisksEligibility(ctx: DiskEligibilityContext): Inventory {
  const disks = ctx.inventory.disks;
  if (!disks) return { ...ctx.inventory };
  return {
    ...ctx.inventory,
    disks: disks.map((d) => ({ ...d, installation_eligibility: diskEligibility(d, ctx) })),
  };
}

/** Eligible per the stored data; a disk without eligibility data (old agents) counts as eligible. */
export function isDiskEligible(disk: Disk): boolean {
  const e = disk.installation_eligibility;
  if (!e) return true;
  if (e.eligible !== undefined) return e.eligible;
  return (e.not_eligible_reasons ?? []).length === 0;
}

export function listEligibleDisks(inventory: Inventory | undefined): Disk[] {
  return (inventory?.disks ?? []).filter(isDiskEligible);
}
