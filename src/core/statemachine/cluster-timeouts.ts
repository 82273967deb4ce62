// Time-based facts about a cluster (spec §2.4). `now` is always an input.

import type { Cluster } from '../model.ts';
import { elapsedMs, isZeroTime } from './durations.ts';
import type { StateMachineOptions } from './options.ts';
import { type FinalizingStage, OLM_FINALIZING_STAGES } from './stages.ts';

const DEFAULT_FINALIZING_STAGE_TIMEOUT_MS = 70 * 60 * 1000;

/**
 * Timeout of a finalizing stage: the soft value when soft timeouts are on (where one exists), and
 * for the OLM stages at least the largest `timeout_seconds` of any OLM operator.
 */
export function finalizingStageTimeoutMs(
  stage: string,
  cluster: Cluster,
  options: StateMachineOptions,
  soft: boolean,
): number {
  const key = stage as FinalizingStage;
  let timeout =
    (soft ? options.finalizingStageSoftTimeoutsMs[key] : undefined) ??
    options.finalizingStageTimeoutsMs[key] ??
    DEFAULT_FINALIZING_STAGE_TIMEOUT_MS;
  if (OLM_FINALIZING_STAGES.includes(stage)) {
    for (const op of cluster.monitored_operators ?? []) {
      if (op.operator_type === 'olm' && op.timeout_seconds)
        timeout = Math.max(timeout, op.timeout_seconds * 1000);
    }
  }
  return timeout;
}

export function isFinalizingStageTimedOut(
  cluster: Cluster,
  now: Date,
  options: StateMachineOptions,
  soft: boolean,
): boolean {
  const stage = cluster.progress?.finalizing_stage;
  if (!stage) return false;
  return (
    elapsedMs(now, cluster.progress?.finalizing_stage_started_at) >
    finalizingStageTimeoutMs(stage, cluster, options, soft)
  );
}

/** INSTALLATION_TIMEOUT, measured from install_started_at (CR11/CR12). */
export function isInstallationTimedOut(cluster: Cluster, now: Date, options: StateMachineOptions): boolean {
  return elapsedMs(now, cluster.install_started_at) > options.installationTimeoutMs;
}

export function hasClusterStatusTimedOut(cluster: Cluster, now: Date, timeoutMs: number): boolean {
  return elapsedMs(now, cluster.status_updated_at) > timeoutMs;
}

/** The four log-collection cases on the controller logs (CR25). */
export function isClusterLogCollectionTimedOut(
  cluster: Cluster,
  now: Date,
  options: StateMachineOptions,
): boolean {
  const logs = cluster.logs_info ?? '';
  if (logs === '' && isZeroTime(cluster.controller_logs_started_at)) {
    return elapsedMs(now, cluster.status_updated_at) > options.clusterLogPendingTimeoutMs;
  }
  if (logs === 'requested' && isZeroTime(cluster.controller_logs_collected_at)) {
    return elapsedMs(now, cluster.controller_logs_started_at) > options.clusterLogCollectionTimeoutMs;
  }
  if (logs === 'requested' || logs === 'collecting') {
    // Upstream measures an interrupted upload with the collection timeout on clusters.
    return elapsedMs(now, cluster.controller_logs_collected_at) > options.clusterLogCollectionTimeoutMs;
  }
  return false;
}
