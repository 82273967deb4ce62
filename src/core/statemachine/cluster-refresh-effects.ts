// Cluster status texts and what the refresh rules with more than a status change do.

import type { Cluster } from '../model.ts';
import {
  type ClusterApply,
  type ClusterArgs,
  postRefresh,
  withPendingUserReset,
} from './cluster-sm-common.ts';
import { finalizingStageTimeoutMs } from './cluster-timeouts.ts';
import { clusterEvent, clusterSuccess, setClusterStatus } from './cluster-update.ts';
import { wholeMinutes } from './durations.ts';
import { effectiveRole } from './hostutil.ts';
import type { ClusterAction, ClusterResult } from './result.ts';

export const CLUSTER_INFO = {
  ready: 'Cluster ready to be installed',
  insufficient: 'Cluster is not ready for install',
  installing: 'Installation in progress',
  finalizing: 'Finalizing cluster installation',
  installed: 'Cluster is installed',
  degraded: 'Cluster is installed but degraded',
  notAllWorkersInstalled: 'Cluster is installed but some workers did not join',
  preparingForInstallation: 'Preparing cluster for installation',
  preparingTimedOut: 'Preparing cluster for installation timeout',
  finalizingTimedOut: 'Cluster installation timeout while finalizing',
  pendingForInput: 'User input required',
  error: 'cluster has hosts in error',
  pendingUserActionTimedOut:
    'cluster installation timed out while pending user action (a manual booting from installation disk)',
  addingHosts: 'cluster is adding hosts to existing OCP cluster',
  installingPendingUserAction: 'Cluster has hosts pending user action',
  unpreparingHostExists: 'At least one host has stopped preparing for installation',
  failedToPrepare: 'Cluster failed to prepare for installation',
  preparationFailedReason: 'Installation failed. Try again, and contact support if the issue persists.',
  insufficientInitial: 'Cluster is not ready for install',
  unmonitored: 'Cluster created for offline installation',
} as const;

export function stageTimeoutMinutes(a: ClusterArgs): { stage: string; minutes: number } {
  const stage = a.cluster.progress?.finalizing_stage ?? '';
  return { stage, minutes: wholeMinutes(finalizingStageTimeoutMs(stage, a.cluster, a.options, a.soft)) };
}

export const preparingTimedOut: ClusterApply = (a, _from, to) => {
  let { cluster, events } = {
    cluster: a.cluster,
    events: [] as ReturnType<typeof setClusterStatus>['events'],
  };
  if (a.cluster.status !== to || a.cluster.status_info !== CLUSTER_INFO.preparingTimedOut) {
    ({ cluster, events } = setClusterStatus(a.cluster, to, CLUSTER_INFO.preparingTimedOut, a.now));
  }
  cluster = {
    ...cluster,
    last_installation_preparation: { status: 'failed', reason: CLUSTER_INFO.preparationFailedReason },
  };
  const event = clusterEvent(
    cluster,
    'cluster_preparation_timed_out',
    'error',
    'Preparing cluster for installation timed out',
  );
  return withPendingUserReset(a, cluster, [...events, event]);
};

export const startInstalling: ClusterApply = (a, from, to) => {
  const r = postRefresh(CLUSTER_INFO.installing)(a, from, to);
  if (!r.ok) return r;
  const actions: ClusterAction[] = [{ type: 'create-dns-records' }];
  return { ...r, actions: [...r.actions, ...actions] };
};

export const clusterFailed: ClusterApply = (a, from, to) => {
  const r = postRefresh(CLUSTER_INFO.error)(a, from, to);
  if (!r.ok) return r;
  const event = clusterEvent(
    r.cluster,
    'cluster_installation_failed',
    'critical',
    `Failed installing cluster ${a.cluster.name}. Reason: ${CLUSTER_INFO.error}`,
  );
  return { ...r, events: [...r.events, event] };
};

export const finalizingStageSoftTimeout: ClusterApply = (a) => {
  const { stage, minutes } = stageTimeoutMinutes(a);
  const info = `Cluster finalizing stage '${stage}' is taking longer than the expected duration (${minutes} minutes). To troubleshoot use kubeconfig or connect to any node using ssh`;
  const cluster: Cluster = {
    ...a.cluster,
    status_info: info,
    progress: { ...a.cluster.progress, finalizing_stage_timed_out: true },
  };
  const event = clusterEvent(
    cluster,
    'cluster_finalizing_stage_timed_out',
    'warning',
    `Cluster finalizing stage '${stage}' has been timed out after ${minutes} minutes`,
  );
  return clusterSuccess(a.cluster, cluster, [event]);
};

export const enterFinalizing = postRefresh(CLUSTER_INFO.finalizing, (a) => ({
  progress: {
    ...a.cluster.progress,
    finalizing_stage_started_at: a.now.toISOString(),
    finalizing_stage_timed_out: false,
  },
}));

export function consoleUrl(cluster: Cluster): string {
  return `https://console-openshift-console.apps.${cluster.name}.${cluster.base_dns_domain}`;
}

export const pushConsoleUrl: ClusterApply = (a) => {
  const cluster = { ...a.cluster, is_ams_subscription_console_url_set: true };
  return clusterSuccess(a.cluster, cluster, [], {
    actions: [{ type: 'update-ams-console-url', consoleUrl: consoleUrl(a.cluster) }],
  });
};

/** CompleteInstallation's status_info: degraded, missing workers, or plain installed. */
export function completionStatusInfo(cluster: Cluster): string {
  const failedOlm = (cluster.monitored_operators ?? [])
    .filter((op) => op.operator_type === 'olm' && op.status === 'failed')
    .map((op) => op.name);
  if (failedOlm.length > 0) return `${CLUSTER_INFO.degraded}. Failed OLM operators: ${failedOlm.join(', ')}`;
  const workers = cluster.hosts.filter((h) => effectiveRole(h) === 'worker');
  const installedWorkers = workers.filter((h) => h.status === 'installed').length;
  return installedWorkers < workers.length ? CLUSTER_INFO.notAllWorkersInstalled : CLUSTER_INFO.installed;
}

export const completeInstallation: ClusterApply = (a, _from, to) => {
  const info = completionStatusInfo(a.cluster);
  const r = setClusterStatus(a.cluster, to, info, a.now, {
    progress: { ...a.cluster.progress, finalizing_stage_percentage: 100, total_percentage: 100 },
  });
  const actions: ClusterAction[] = a.options.ocmConfigured ? [{ type: 'mark-ams-subscription-active' }] : [];
  const events = [...r.events];
  if (info.startsWith(CLUSTER_INFO.degraded)) {
    events.push(clusterEvent(r.cluster, 'cluster_degraded_olm_operators_failed', 'warning', info));
  }
  events.push(
    clusterEvent(
      r.cluster,
      'cluster_installation_completed',
      'info',
      `Successfully completed installing cluster ${a.cluster.name}`,
    ),
  );
  return clusterSuccess(a.cluster, r.cluster, events, { actions });
};

export const logsTimedOut = (a: ClusterArgs): ClusterResult =>
  clusterSuccess(a.cluster, { ...a.cluster, logs_info: 'timeout' }, []);
