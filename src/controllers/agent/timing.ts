// When a host's state can next change by the clock alone (core.md §1.5): the disconnection window,
// status and stage timeouts, log-collection timeouts, the end of the warm-up, a signed URL due for
// re-issue. The reconciler requeues for the earliest, so nothing polls on a fixed period.

import type { Cluster, Host, HostStatus } from '../../core/model.ts';
import {
  currentStageTimeoutMs,
  maxDisconnectionMs,
  type StateMachineOptions,
  timeMs,
} from '../../core/statemachine/index.ts';

/** States in which a missed check-in changes something (validations or a refresh rule). */
const CONNECTION_WATCHED: readonly HostStatus[] = [
  'discovering',
  'known',
  'insufficient',
  'pending-for-input',
  'preparing-for-installation',
  'preparing-successful',
  'preparing-failed',
  'installing',
  'installing-in-progress',
  'discovering-unbound',
  'known-unbound',
  'insufficient-unbound',
  'binding',
  'unbinding',
];

export interface DeadlineInputs {
  host: Host;
  cluster?: Cluster | null;
  now: Date;
  options: StateMachineOptions;
  /** End of the warm-up when the host is still warming up. */
  warmUpEndsAt?: number;
  /** Other moments to look again (e.g. URL re-issue). */
  extra?: readonly (Date | number | undefined)[];
}

/** Milliseconds until the next time-based change, or undefined when none is pending. */
export function nextTimedChangeMs(d: DeadlineInputs): number | undefined {
  const { host, options } = d;
  const now = d.now.getTime();
  const at: number[] = [];
  const add = (t: number | undefined) => {
    if (t !== undefined && Number.isFinite(t) && t > 0) at.push(t);
  };
  const since = (iso: string | undefined, ms: number) => {
    const t = timeMs(iso);
    if (t > 0) add(t + ms);
  };
  if (CONNECTION_WATCHED.includes(host.status)) since(host.checked_in_at, maxDisconnectionMs(host, options));
  switch (host.status) {
    case 'preparing-for-installation':
      since(host.status_updated_at, options.prepareForInstallationHostTimeoutMs);
      break;
    case 'installing':
      since(host.status_updated_at, options.hostInstallationTimeoutMs);
      break;
    case 'installing-in-progress':
      since(host.progress?.stage_updated_at, currentStageTimeoutMs(host, d.cluster, options));
      break;
    case 'installing-pending-user-action':
      since(host.status_updated_at, options.hostInstallingPendingUserActionTimeoutMs);
      break;
    case 'reclaiming':
    case 'reclaiming-rebooting':
      since(host.status_updated_at, options.reclaimTimeoutMs);
      break;
    case 'error':
    case 'cancelled': {
      const logs = host.logs_info ?? '';
      if (logs === '') since(host.status_updated_at, options.hostLogPendingTimeoutMs);
      if (logs === 'requested') {
        since(host.logs_started_at, options.hostLogCollectionTimeoutMs);
        since(host.logs_collected_at, options.hostLogCollectionTimeoutMs);
      }
      if (logs === 'collecting') since(host.logs_collected_at, options.hostLogPendingTimeoutMs);
      break;
    }
    default:
      break;
  }
  add(d.warmUpEndsAt);
  for (const e of d.extra ?? []) add(e === undefined ? undefined : typeof e === 'number' ? e : e.getTime());
  const future = at.filter((t) => t > now);
  if (future.length === 0) return undefined;
  // One second past the deadline: the core compares with "longer than", not "at least".
  return Math.min(...future) - now + 1000;
}
