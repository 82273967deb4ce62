// Small host helpers upstream keeps in `hostutil` (spec §1.9), used by both state machines.

import { diskMatchesHints, type RootDeviceHints } from '../hardware/installation-disk.ts';
import type { Disk } from '../inventory.ts';
import type { Cluster, Host, HostRole, HostStatus } from '../model.ts';

/** `suggested_role` when the role is auto-assign and a suggestion exists, else `role`. */
export function effectiveRole(host: Pick<Host, 'role' | 'suggested_role'>): HostRole {
  if (host.role === 'auto-assign' && host.suggested_role) return host.suggested_role;
  return host.role;
}

export function isDay2Host(host: Pick<Host, 'kind'>): boolean {
  return host.kind === 'AddToExistingClusterHost';
}

export function isUnboundHost(host: Pick<Host, 'cluster_id'>): boolean {
  return !host.cluster_id;
}

/** SNO = one control-plane node (upstream: high_availability_mode None). */
export function isSingleNodeCluster(
  cluster: Pick<Cluster, 'control_plane_count'> | null | undefined,
): boolean {
  return cluster?.control_plane_count === 1;
}

export function effectiveHostname(host: Pick<Host, 'requested_hostname' | 'inventory'>): string {
  return host.requested_hostname || host.inventory?.hostname || '';
}

/** Hostname for messages and events; the host id when nothing better is known. */
export function hostnameForMessage(host: Pick<Host, 'id' | 'requested_hostname' | 'inventory'>): string {
  return effectiveHostname(host) || host.id;
}

export const HOSTNAME_PATTERN = '^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$';
const HOSTNAME_RE = new RegExp(HOSTNAME_PATTERN);
export const FORBIDDEN_HOSTNAMES: readonly string[] = [
  'localhost',
  'localhost.localdomain',
  'localhost4',
  'localhost4.localdomain4',
  'localhost6',
  'localhost6.localdomain6',
];

export function isForbiddenHostname(name: string): boolean {
  return FORBIDDEN_HOSTNAMES.includes(name);
}

export function isValidHostname(name: string): boolean {
  return name.length <= 63 && HOSTNAME_RE.test(name) && !isForbiddenHostname(name);
}

/** Roles a user may request; day-2 hosts cannot be bootstrap. */
export function isValidRole(role: string, day2: boolean): boolean {
  const roles = ['auto-assign', 'bootstrap', 'master', 'arbiter', 'worker'];
  if (day2 && role === 'bootstrap') return false;
  return roles.includes(role);
}

/** The installation disk as the host record names it: the disk id, else the legacy path. */
export function installationPath(
  host: Pick<Host, 'installation_disk_id' | 'installation_disk_path'>,
): string {
  return host.installation_disk_id || host.installation_disk_path || '';
}

export function deviceFullName(disk: Disk): string {
  return `/dev/${disk.name ?? ''}`;
}

/** Upstream's GetDeviceIdentifier: the disk id when known, else its /dev path. */
export function deviceIdentifier(disk: Disk): string {
  return disk.id || deviceFullName(disk);
}

export function findDiskByPath(disks: readonly Disk[], path: string): Disk | undefined {
  if (!path) return undefined;
  return disks.find(
    (d) => (d.id && d.id === path) || (d.by_path && d.by_path === path) || deviceFullName(d) === path,
  );
}

export function findInstallationDisk(host: Host): Disk | undefined {
  return findDiskByPath(host.inventory?.disks ?? [], installationPath(host));
}

/** "(<name>, <id>)" for messages, or "" when the disk is unknown. */
export function installationDiskLabel(host: Host): string {
  const disk = findInstallationDisk(host);
  return disk ? `(${disk.name ?? ''}, ${deviceIdentifier(disk)})` : '';
}

/** BareMetalHost root-device hints (the subset the kube-API flows use). */
export type { RootDeviceHints };

/** Eligible disks that satisfy every given hint (no hints → every eligible disk). */
export function acceptableDisksWithHints(disks: readonly Disk[], hints: RootDeviceHints | undefined): Disk[] {
  const eligible = disks.filter((d) => d.installation_eligibility?.eligible === true);
  return hints ? eligible.filter((d) => diskMatchesHints(d, hints)) : eligible;
}

export function ignitionFileName(host: Host): string {
  return `${effectiveRole(host)}-${host.id}.ign`;
}

/** `--save-partlabel` / `--save-partindex` anywhere in the installer args: keep partitions. */
export function hasSavePartitionsArgs(installerArgs: string | undefined): boolean {
  return (
    !!installerArgs &&
    (installerArgs.includes('--save-partlabel') || installerArgs.includes('--save-partindex'))
  );
}

export type EventSeverity = 'info' | 'warning' | 'error' | 'critical';

export function hostStatusSeverity(status: HostStatus): EventSeverity {
  switch (status) {
    case 'disconnected':
    case 'installing-pending-user-action':
    case 'insufficient':
      return 'warning';
    case 'error':
      return 'error';
    default:
      return 'info';
  }
}

/**
 * Statuses of a host whose installation is under way: its cluster binding must not change
 * (kubeapi.md §3.4.4, upstream's list); the Agent webhook and the unbind refuse it.
 */
export const HOST_INSTALLING_STATUSES: readonly HostStatus[] = [
  'preparing-for-installation',
  'preparing-failed',
  'preparing-successful',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
];

/**
 * Statuses of a host whose installation has started: the installing ones and those an
 * installation ends in. Unbinding such a host needs the user (U2); the webhook refuses host
 * settings edits in them.
 */
export const HOST_INSTALL_STARTED_STATUSES: readonly HostStatus[] = [
  ...HOST_INSTALLING_STATUSES,
  'installed',
  'added-to-existing-cluster',
  'error',
  'cancelled',
];

/** Statuses in which role, hostname, disk, pool, labels and similar host fields may change. */
export const HOST_UPDATABLE_STATUSES: readonly HostStatus[] = [
  'discovering',
  'known',
  'disconnected',
  'insufficient',
  'pending-for-input',
  'discovering-unbound',
  'known-unbound',
  'disconnected-unbound',
  'insufficient-unbound',
  'disabled-unbound',
  'binding',
];

export function hostFieldsUpdatable(status: HostStatus): boolean {
  return HOST_UPDATABLE_STATUSES.includes(status);
}
