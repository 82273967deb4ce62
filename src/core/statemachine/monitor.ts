// What the host and cluster monitors look at each cycle (spec §1.8, §2.6), as pure functions.

import { jsonEqual } from '../../util/json-equal.ts';
import type { Cluster, Host, HostStatus, ValidationResult, ValidationsInfo } from '../model.ts';
import { elapsedMs, timeMs } from './durations.ts';
import { hostEvent } from './host-update.ts';
import { effectiveRole, hostnameForMessage } from './hostutil.ts';
import type { StateMachineOptions } from './options.ts';
import type { SmEvent } from './result.ts';

/** Bound-host statuses that keep a cluster under host monitoring. */
export const HOST_MONITOR_STATUSES: readonly HostStatus[] = [
  'discovering',
  'known',
  'disconnected',
  'insufficient',
  'pending-for-input',
  'preparing-for-installation',
  'preparing-successful',
  'preparing-failed',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
  'resetting-pending-user-action',
];

/** Infra-env (unbound) host statuses the monitor refreshes. */
export const UNBOUND_HOST_MONITOR_STATUSES: readonly HostStatus[] = [
  'binding',
  'discovering-unbound',
  'known-unbound',
  'disconnected-unbound',
  'insufficient-unbound',
  'disabled-unbound',
  'reclaiming',
  'reclaiming-rebooting',
];

function logsStillPending(host: Host): boolean {
  const logs = host.logs_info ?? '';
  return logs !== '' && logs !== 'completed' && logs !== 'timeout';
}

/** Whether the host monitor refreshes this cluster's hosts this cycle. */
export function clusterNeedsHostMonitoring(cluster: Cluster): boolean {
  return cluster.hosts.some(
    (h) =>
      HOST_MONITOR_STATUSES.includes(h.status) ||
      ((h.status === 'error' || h.status === 'cancelled') && logsStillPending(h)) ||
      (h.status === 'installed' && cluster.status !== 'installed'),
  );
}

export function unboundHostNeedsMonitoring(host: Host): boolean {
  return !host.cluster_id && UNBOUND_HOST_MONITOR_STATUSES.includes(host.status);
}

/** Each host refresh is bounded by the disconnection window. */
export function hostRefreshDeadlineMs(options: StateMachineOptions): number {
  return options.hostMaxDisconnectionMs;
}

function findResult(
  info: ValidationsInfo | undefined,
  category: string,
  id: string,
): ValidationResult | undefined {
  return info?.[category]?.find((r) => r.id === id);
}

/**
 * Stores freshly computed validations (only when non-empty and different) and reports the
 * "failed" / "fixed" events upstream emits for status changes.
 */
export function applyHostValidations(
  host: Host,
  next: ValidationsInfo,
): { host: Host; changed: boolean; events: SmEvent[] } {
  const current = host.validations_info;
  if (Object.keys(next).length === 0 || jsonEqual(current, next)) return { host, changed: false, events: [] };
  const events: SmEvent[] = [];
  const name = hostnameForMessage(host);
  for (const category of Object.keys(next).sort()) {
    for (const v of next[category] ?? []) {
      const prev = findResult(current, category, v.id);
      if (!prev) continue;
      if (v.status === 'failure' && prev.status !== 'failure') {
        const how = prev.status === 'success' ? 'that used to succeed is now failing' : 'failed';
        events.push(
          hostEvent(host, 'host_validation_failed', 'warning', `Host ${name}: validation '${v.id}' ${how}`),
        );
      } else if (v.status === 'success' && prev.status === 'failure') {
        events.push(
          hostEvent(host, 'host_validation_fixed', 'info', `Host ${name}: validation '${v.id}' is now fixed`),
        );
      }
    }
  }
  return { host: { ...host, validations_info: next }, changed: true, events };
}

/** The cluster monitor skips finished clusters whose logs are settled (installed/unmonitored never run). */
export function clusterNeedsMonitoring(cluster: Cluster): boolean {
  if (cluster.status === 'installed' || cluster.status === 'unmonitored') return false;
  if (cluster.status === 'error' || cluster.status === 'cancelled') {
    return cluster.logs_info !== 'completed' && cluster.logs_info !== 'timeout';
  }
  return true;
}

/** Machine-network auto-calculation runs only while the cluster waits for input. */
export function shouldAutoAssignMachineNetwork(cluster: Cluster): boolean {
  return cluster.status === 'pending-for-input' || cluster.status === 'insufficient';
}

/** Majority groups, L3 connectivity and IP collisions are recomputed before installation only. */
export function shouldComputeConnectivity(cluster: Cluster): boolean {
  return shouldAutoAssignMachineNetwork(cluster) || cluster.status === 'ready';
}

export function schedulableMastersForcedTrue(cluster: Cluster): boolean {
  if (cluster.control_plane_count === 1) return true;
  // Every cluster record build asks: stop at the second worker instead of counting them all.
  let workers = 0;
  for (const h of cluster.hosts) if (effectiveRole(h) === 'worker' && ++workers >= 2) return false;
  return true;
}

/**
 * DHCP mode, a VIP still missing, a machine network set, and its 2-minute lease wait expired
 * between the previous monitor run and this one.
 */
export function dhcpLeaseTimedOutSince(
  cluster: Cluster,
  previousRun: Date,
  now: Date,
  options: StateMachineOptions,
): boolean {
  if (!cluster.vip_dhcp_allocation) return false;
  if (cluster.api_vips.length > 0 && cluster.ingress_vips.length > 0) return false;
  if (cluster.machine_networks.length === 0 || !cluster.machine_network_cidr_updated_at) return false;
  const deadline = timeMs(cluster.machine_network_cidr_updated_at) + options.dhcpLeaseTimeoutMs;
  return deadline > previousRun.getTime() && deadline <= now.getTime();
}

/** Whether a monitor pass over one cluster ran past its deadline. */
export function monitorDeadlinePassed(startedAt: string, now: Date, deadlineMs: number): boolean {
  return elapsedMs(now, startedAt) > deadlineMs;
}
