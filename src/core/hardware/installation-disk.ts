// Installation disk choice (§5.2): ordering of eligible disks, keeping the user's / previous choice,
// disk lookup by path, disks to format, and root-device hints (§1.9).

import type { Disk, Inventory } from '../inventory.ts';
import type { Host } from '../model.ts';
import { compareStrings } from '../validations/types.ts';
import { isDiskEligible, listEligibleDisks } from './disks.ts';
import { GB } from './units.ts';

export const REQUESTED_DISK_NOT_ELIGIBLE =
  "Requested installation disk is not part of the host's valid disks";

/** "/dev/<name>". */
export function deviceFullName(disk: Disk): string {
  return `/dev/${disk.name ?? ''}`;
}

/** The id stored for a disk: its id, falling back to "/dev/<name>". */
export function deviceIdentifier(disk: Disk): string {
  return disk.id ? disk.id : deviceFullName(disk);
}

/** Whether `path` names the disk: by id, by-path, or "/dev/<name>". */
export function diskMatchesPath(disk: Disk, path: string): boolean {
  if (path === '') return false;
  return disk.id === path || disk.by_path === path || deviceFullName(disk) === path;
}

/** installation_disk_id if set, else installation_disk_path ("" when neither). */
export function installationPath(
  host: Pick<Host, 'installation_disk_id' | 'installation_disk_path'>,
): string {
  return host.installation_disk_id || host.installation_disk_path || '';
}

export function findDiskByPath(inventory: Inventory | undefined, path: string): Disk | undefined {
  return (inventory?.disks ?? []).find((d) => diskMatchesPath(d, path));
}

/** The host's installation disk in its inventory, if any. */
export function installationDisk(
  host: Pick<Host, 'inventory' | 'installation_disk_id' | 'installation_disk_path'>,
) {
  return findDiskByPath(host.inventory, installationPath(host));
}

/** Bootable first, non-NVMe first, drive type (byte order), smaller first, then HCTL. */
export function compareDisksForInstallation(a: Disk, b: Disk): number {
  const bootable = Number(b.bootable === true) - Number(a.bootable === true);
  if (bootable !== 0) return bootable;
  const nvme = Number((a.name ?? '').startsWith('nvme')) - Number((b.name ?? '').startsWith('nvme'));
  if (nvme !== 0) return nvme;
  const type = compareStrings(a.drive_type ?? '', b.drive_type ?? '');
  if (type !== 0) return type;
  const size = (a.size_bytes ?? 0) - (b.size_bytes ?? 0);
  if (size !== 0) return size < 0 ? -1 : 1;
  return compareStrings(a.hctl ?? '', b.hctl ?? '');
}

/** Eligible disks in installation preference order. */
export function sortedEligibleDisks(inventory: Inventory | undefined): Disk[] {
  return listEligibleDisks(inventory).sort(compareDisksForInstallation);
}

export interface InstallationDiskChoice {
  /** "" when no eligible disk exists (both fields cleared). */
  installation_disk_id: string;
  installation_disk_path: string;
}

/**
 * Chooses the installation disk on an inventory update: keep the current choice (id, else legacy
 * path) while it still names an eligible disk, else the first eligible disk in preference order.
 */
export function selectInstallationDisk(
  inventory: Inventory | undefined,
  current: Pick<Host, 'installation_disk_id' | 'installation_disk_path'> = {},
): InstallationDiskChoice {
  const eligible = sortedEligibleDisks(inventory);
  const wanted = installationPath(current);
  const chosen = eligible.find((d) => diskMatchesPath(d, wanted)) ?? eligible[0];
  if (!chosen) return { installation_disk_id: '', installation_disk_path: '' };
  return { installation_disk_id: deviceIdentifier(chosen), installation_disk_path: deviceFullName(chosen) };
}

/**
 * A user's disk request: the eligible disk it names, or the 400 message when it names none.
 */
export function resolveRequestedInstallationDisk(
  inventory: Inventory | undefined,
  requestedId: string,
): { choice: InstallationDiskChoice } | { error: string } {
  const disk = listEligibleDisks(inventory).find((d) => diskMatchesPath(d, requestedId));
  if (!disk) return { error: REQUESTED_DISK_NOT_ELIGIBLE };
  return {
    choice: { installation_disk_id: deviceIdentifier(disk), installation_disk_path: deviceFullName(disk) },
  };
}

const NOT_FORMATTED_DRIVE_TYPES = ['FC', 'iSCSI', 'LVM', 'Multipath'];

/** Whether the installer formats the disk: bootable, fixed, local, not the installation media. */
export function isDiskToFormat(disk: Disk): boolean {
  const removable = disk.removable === true || (disk.by_path ?? '').includes('mmcblk');
  return (
    disk.bootable === true &&
    !removable &&
    !NOT_FORMATTED_DRIVE_TYPES.includes(disk.drive_type ?? '') &&
    disk.is_installation_media !== true
  );
}

/** `skip_formatting_disks` as a list of disk identifiers. */
export function skippedFormattingDisks(host: Pick<Host, 'skip_formatting_disks'>): string[] {
  return (host.skip_formatting_disks ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Identifiers of the disks to format, minus those the user asked to skip. */
export function disksToFormat(
  inventory: Inventory | undefined,
  host: Pick<Host, 'skip_formatting_disks'> = {},
): string[] {
  const skipped = new Set(skippedFormattingDisks(host));
  return (inventory?.disks ?? [])
    .filter(isDiskToFormat)
    .map(deviceIdentifier)
    .filter((id) => !skipped.has(id));
}

/** BareMetalHost root-device hints (only the fields given must match). */
export interface RootDeviceHints {
  deviceName?: string;
  hctl?: string;
  model?: string;
  vendor?: string;
  serialNumber?: string;
  minSizeGigabytes?: number;
  wwn?: string;
  rotational?: boolean;
}

/** Whether the disk satisfies every given hint. */
export function diskMatchesHints(disk: Disk, hints: RootDeviceHints): boolean {
  if (hints.deviceName && hints.deviceName !== disk.path && hints.deviceName !== disk.by_path) return false;
  if (hints.hctl && hints.hctl !== disk.hctl) return false;
  if (hints.model && !(disk.model ?? '').includes(hints.model)) return false;
  if (hints.vendor && !(disk.vendor ?? '').includes(hints.vendor)) return false;
  if (hints.serialNumber && hints.serialNumber !== disk.serial) return false;
  if (hints.minSizeGigabytes && Math.floor((disk.size_bytes ?? 0) / GB) < hints.minSizeGigabytes)
    return false;
  if (hints.wwn && hints.wwn !== disk.wwn) return false;
  if (hints.rotational !== undefined && hints.rotational !== (disk.drive_type === 'HDD')) return false;
  return true;
}

/** Eligible disks satisfying every given hint. */
export function acceptableDisksWithHints(
  inventory: Inventory | undefined,
  hints: RootDeviceHints | undefined,
) {
  return (inventory?.disks ?? []).filter((d) => isDiskEligible(d) && (!hints || diskMatchesHints(d, hints)));
}
