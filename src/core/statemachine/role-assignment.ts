// Role auto-assignment (spec §1.7): weakest sufficient non-GPU hosts become masters, leaving big and
// GPU hosts as workers. Whether a host could take a role is a validation question the caller answers
// through `RoleFitness` (cpu/memory/operator requirements evaluated as if the host had that role).

import { jsonEqual } from '../../util/json-equal.ts';
import type { Cluster, Host, HostRole, HostStatus } from '../model.ts';
import { hostEvent } from './host-update.ts';
import { effectiveRole, hostnameForMessage, isDay2Host } from './hostutil.ts';
import type { SmEvent } from './result.ts';

/**
 * master: has-cpu-cores-for-role, has-memory-for-role and the lso/odf/cnv/lvm requirements pass as
 * master; arbiter: cpu and memory pass as arbiter.
 */
export type RoleFitness = (host: Host, role: 'master' | 'arbiter') => boolean;

/** Statuses in which suggestions are refreshed. */
export const HOST_STATUSES_BEFORE_INSTALLATION: readonly HostStatus[] = [
  'discovering',
  'known',
  'disconnected',
  'insufficient',
  'pending-for-input',
];

const GIB = 1024 ** 3;

function eligibleDiskBytes(host: Host): number {
  return (host.inventory?.disks ?? [])
    .filter((d) => d.installation_eligibility?.eligible === true)
    .reduce((sum, d) => sum + (d.size_bytes ?? 0), 0);
}

/** (cores−4) + 0.1·(usable RAM GiB−16) + 0.004·(eligible disk GiB−100); undefined without inventory. */
export function hostWeight(host: Host): number | undefined {
  const inv = host.inventory;
  if (!inv) return undefined;
  const cores = inv.cpu?.count ?? 0;
  const ram = (inv.memory?.usable_bytes ?? 0) / GIB;
  const disk = eligibleDiskBytes(host) / GIB;
  return cores - 4 + 0.1 * (ram - 16) + 0.004 * (disk - 100);
}

export function hasGpu(host: Host): boolean {
  return (host.inventory?.gpus?.length ?? 0) > 0;
}

/** Non-GPU hosts first, then GPU hosts, each ascending by weight; hosts without inventory last. */
export function sortHostsForRoleAssignment(hosts: readonly Host[]): Host[] {
  return [...hosts].sort((a, b) => {
    const wa = hostWeight(a);
    const wb = hostWeight(b);
    if (wa === undefined || wb === undefined) return (wa === undefined ? 1 : 0) - (wb === undefined ? 1 : 0);
    const ga = hasGpu(a) ? 1 : 0;
    const gb = hasGpu(b) ? 1 : 0;
    return ga !== gb ? ga - gb : wa - wb;
  });
}

export function allHostsHaveInventory(hosts: readonly Host[]): boolean {
  return hosts.every((h) => !!h.inventory);
}

/** The role a host should take given the roles (effective) the other hosts already have. */
export function selectRole(host: Host, cluster: Cluster, fits: RoleFitness): HostRole {
  if (isDay2Host(host)) return 'worker';
  if (!host.inventory) return 'auto-assign';
  const others = cluster.hosts.filter((h) => h.id !== host.id);
  const masters = others.filter((h) => ['master', 'bootstrap'].includes(effectiveRole(h))).length;
  if (masters < cluster.control_plane_count && fits(host, 'master')) return 'master';
  const hasArbiter = others.some((h) => effectiveRole(h) === 'arbiter');
  if (cluster.control_plane_count === 2 && !hasArbiter && fits(host, 'arbiter')) return 'arbiter';
  return 'worker';
}

function hasNoSuggestion(h: Host): boolean {
  return !h.suggested_role || h.suggested_role === 'auto-assign';
}

/** Whether the monitor must wipe all auto-assign suggestions of the cluster before recomputing. */
export function needsSuggestionReset(cluster: Cluster): boolean {
  return cluster.hosts.some(
    (h) =>
      h.role === 'auto-assign' &&
      !isDay2Host(h) &&
      h.status !== 'disconnected' &&
      h.status !== 'disabled' &&
      hasNoSuggestion(h),
  );
}

export interface RoleAssignmentResult {
  readonly hosts: Host[];
  readonly changedHostIds: string[];
  readonly events: SmEvent[];
}

function replaceHost(cluster: Cluster, host: Host): Cluster {
  return { ...cluster, hosts: cluster.hosts.map((h) => (h.id === host.id ? host : h)) };
}

function finish(original: Cluster, current: Cluster, events: SmEvent[]): RoleAssignmentResult {
  const before = new Map(original.hosts.map((h) => [h.id, h]));
  const changedHostIds = current.hosts.filter((h) => !jsonEqual(before.get(h.id), h)).map((h) => h.id);
  return { hosts: current.hosts, changedHostIds, events };
}

/**
 * One monitor cycle of role suggestions: reset stale suggestions, then (only when every host has an
 * inventory) suggest a role for each auto-assign host in pre-install states, weakest first.
 */
export function refreshSuggestedRoles(
  cluster: Cluster,
  fits: RoleFitness,
  options: { readonly enableAutoAssign: boolean },
): RoleAssignmentResult {
  let current = cluster;
  if (needsSuggestionReset(current)) {
    current = {
      ...current,
      hosts: current.hosts.map((h) =>
        h.role === 'auto-assign' && h.suggested_role !== 'auto-assign'
          ? { ...h, suggested_role: 'auto-assign' }
          : h,
      ),
    };
  }
  const events: SmEvent[] = [];
  if (!options.enableAutoAssign || !allHostsHaveInventory(current.hosts))
    return finish(cluster, current, events);
  for (const sorted of sortHostsForRoleAssignment(current.hosts)) {
    const host = current.hosts.find((h) => h.id === sorted.id) as Host;
    if (host.role !== 'auto-assign' || !HOST_STATUSES_BEFORE_INSTALLATION.includes(host.status)) continue;
    const suggested = selectRole(host, current, fits);
    if (suggested === host.suggested_role) continue;
    const updated = { ...host, suggested_role: suggested };
    current = replaceHost(current, updated);
    const original = cluster.hosts.find((h) => h.id === host.id);
    if (original?.suggested_role !== suggested) {
      events.push(
        hostEvent(
          updated,
          'host_role_suggested',
          'info',
          `Host ${hostnameForMessage(updated)}: suggested role changed to ${suggested}`,
        ),
      );
    }
  }
  return finish(cluster, current, events);
}

/** Sets a host's role the way upstream's updateRole does (worker clears bootstrap; day-2 pool follows). */
export function withRole(host: Host, role: HostRole, suggestedRole: HostRole = role): Host {
  const next: Host = { ...host, suggested_role: suggestedRole };
  if (host.role === role) return next;
  next.role = role;
  if (role === 'worker') next.bootstrap = false;
  if (isDay2Host(host) && (!host.machine_config_pool_name || host.machine_config_pool_name === host.role)) {
    next.machine_config_pool_name = role;
  }
  return next;
}

/**
 * Install time (AutoAssignRole): every auto-assign host gets a freshly computed suggestion copied
 * into its role, weakest hosts first. Does nothing unless every host has an inventory.
 */
export function autoAssignRoles(cluster: Cluster, fits: RoleFitness): RoleAssignmentResult {
  let current = cluster;
  if (!allHostsHaveInventory(current.hosts)) return finish(cluster, current, []);
  for (const sorted of sortHostsForRoleAssignment(current.hosts)) {
    const host = current.hosts.find((h) => h.id === sorted.id) as Host;
    if (host.role !== 'auto-assign') continue;
    const role = selectRole(host, current, fits);
    current = replaceHost(current, withRole(host, role));
  }
  return finish(cluster, current, []);
}

/** Whether any host's role was auto-assigned (the install flow then re-validates, §2.5 step 2). */
export function anyRoleAutoAssigned(result: RoleAssignmentResult): boolean {
  return result.changedHostIds.length > 0;
}
