// Writing a cluster status the way upstream's updateClusterStatus does, plus the reset field groups.

import { jsonEqual } from '../../util/json-equal.ts';
import type { Cluster, ClusterStatus } from '../model.ts';
import { type ClusterAction, type ClusterSuccess, patched, type SmEvent } from './result.ts';

const COMPLETION_STATUSES: readonly ClusterStatus[] = ['installed', 'error', 'cancelled'];

export function clusterEvent(
  cluster: Cluster,
  name: string,
  severity: SmEvent['severity'],
  message: string,
): SmEvent {
  return { name, severity, message, cluster_id: cluster.id };
}

/** New record with status + info; status_updated_at (and install_completed_at) move only on change. */
export function setClusterStatus(
  cluster: Cluster,
  status: ClusterStatus,
  statusInfo: string,
  now: Date,
  extra: Partial<Cluster> = {},
): { cluster: Cluster; events: SmEvent[] } {
  const changed = cluster.status !== status;
  const iso = now.toISOString();
  const next = patched(cluster, {
    ...extra,
    status,
    status_info: statusInfo,
    ...(changed ? { status_updated_at: iso } : {}),
    ...(changed && COMPLETION_STATUSES.includes(status) ? { install_completed_at: iso } : {}),
  });
  const severity = status === 'error' ? 'error' : 'info';
  const events = changed
    ? [clusterEvent(next, 'cluster_status_updated', severity, `Updated status of the cluster to ${status}`)]
    : [];
  return { cluster: next, events };
}

export function clusterSuccess(
  before: Cluster,
  after: Cluster,
  events: SmEvent[],
  more: { rule?: string; actions?: ClusterAction[]; changedHostIds?: string[] } = {},
): ClusterSuccess {
  return {
    ok: true,
    cluster: after,
    changed: !jsonEqual(before, after),
    events,
    changedHostIds: more.changedHostIds ?? [],
    actions: more.actions ?? [],
    ...(more.rule ? { rule: more.rule } : {}),
  };
}

export const NOT_STARTED_PREPARATION = { status: 'not_started', reason: 'not performed' } as const;

export function resetClusterLogsFields(): Partial<Cluster> {
  return { logs_info: '', controller_logs_started_at: undefined, controller_logs_collected_at: undefined };
}

/** Everything ResetCluster clears (SNO also loses the VIPs it got at install time). */
export function resetClusterFields(cluster: Cluster): Partial<Cluster> {
  return {
    progress: {
      total_percentage: 0,
      preparing_for_installation_stage_percentage: 0,
      installing_stage_percentage: 0,
      finalizing_stage_percentage: 0,
    },
    ...resetClusterLogsFields(),
    openshift_cluster_id: '',
    last_installation_preparation: { ...NOT_STARTED_PREPARATION },
    ...(cluster.control_plane_count === 1 ? { api_vips: [], ingress_vips: [] } : {}),
  };
}
