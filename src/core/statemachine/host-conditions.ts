// Facts about a host that are not validations (spec §1.4): computed from the records, never read
// from a clock — `now` is passed in.

import type { Cluster, Host } from '../model.ts';
import { HC } from './condition-ids.ts';
import { elapsedMs, isZeroTime } from './durations.ts';
import { hasSavePartitionsArgs, installationPath, isSingleNodeCluster, isUnboundHost } from './hostutil.ts';
import { hostStageTimeoutMs, type StateMachineOptions } from './options.ts';
import { MANUAL_REBOOT_STAGES, STAGE, WRONG_BOOT_STAGES } from './stages.ts';

/** An image pull is bad if it failed or crawled below 0.001 MB/s. */
export const IMAGE_DOWNLOAD_RATE_THRESHOLD = 0.001;

export function installationDiskSpeedCheckSuccessful(host: Host): boolean {
  if (isUnboundHost(host)) return false;
  if (hasSavePartitionsArgs(host.installer_args)) return true;
  if (host.inventory?.boot?.device_type === 'persistent') return true;
  const path = installationPath(host);
  if (!path) return false;
  const info = host.disks_info?.[path] ?? Object.values(host.disks_info ?? {}).find((d) => d.path === path);
  return info?.disk_speed?.tested === true && info.disk_speed.exit_code === 0;
}

export function successfulContainerImageAvailability(host: Host): boolean {
  const statuses = Object.values(host.images_status ?? {});
  return (
    statuses.length > 0 &&
    statuses.every(
      (s) =>
        s.result !== 'failure' &&
        !((s.size_bytes ?? 0) > 0 && (s.download_rate ?? 0) < IMAGE_DOWNLOAD_RATE_THRESHOLD),
    )
  );
}

/** Service flag AND the cluster's organisation flag. */
export function softTimeoutsEnabled(
  cluster: Cluster | null | undefined,
  options: StateMachineOptions,
): boolean {
  return options.softTimeoutsEnabled && cluster?.org_soft_timeouts_enabled === true;
}

/** The §1.4 condition map for a host (cluster-* conditions are false for unbound hosts). */
export function hostConditions(
  host: Host,
  cluster: Cluster | null | undefined,
  options: StateMachineOptions,
): Record<string, boolean> {
  const clusterStatus = isUnboundHost(host) ? undefined : cluster?.status;
  const stage = host.progress?.current_stage ?? '';
  return {
    [HC.installationDiskSpeedCheckSuccessful]: installationDiskSpeedCheckSuccessful(host),
    [HC.clusterPreparingForInstallation]: clusterStatus === 'preparing-for-installation',
    [HC.clusterInstalling]: clusterStatus === 'installing',
    [HC.clusterInError]: clusterStatus === 'error',
    [HC.clusterPendingUserAction]: clusterStatus === 'installing-pending-user-action',
    [HC.validRoleForInstallation]: ['master', 'arbiter', 'worker'].includes(host.role),
    [HC.stageInWrongBootStages]: stage !== '' && WRONG_BOOT_STAGES.includes(stage),
    [HC.successfulContainerImageAvailability]: successfulContainerImageAvailability(host),
    [HC.hostStageTimedOut]: host.progress?.stage_timed_out === true,
    [HC.softTimeoutsEnabled]: softTimeoutsEnabled(cluster, options),
    [HC.connectionTimedOut]: host.connection_timed_out === true,
  };
}

export function hasStatusTimedOut(
  host: Pick<Host, 'status_updated_at'>,
  now: Date,
  timeoutMs: number,
): boolean {
  return elapsedMs(now, host.status_updated_at) > timeoutMs;
}

/** Timeout of the host's current stage; Rebooting on SNO gets the longer single-node value. */
export function currentStageTimeoutMs(
  host: Host,
  cluster: Cluster | null | undefined,
  options: StateMachineOptions,
): number {
  const stage = host.progress?.current_stage ?? '';
  if (stage === STAGE.rebooting && isSingleNodeCluster(cluster)) return options.singleNodeRebootTimeoutMs;
  return hostStageTimeoutMs(stage, options);
}

/** Upstream's HasInstallationInProgressTimedOut, measured from progress.stage_updated_at. */
export function hasInstallationInProgressTimedOut(
  host: Host,
  cluster: Cluster | null | undefined,
  now: Date,
  options: StateMachineOptions,
): boolean {
  return elapsedMs(now, host.progress?.stage_updated_at) > currentStageTimeoutMs(host, cluster, options);
}

/** The four log-collection cases (R36). */
export function isHostLogCollectionTimedOut(host: Host, now: Date, options: StateMachineOptions): boolean {
  const logs = host.logs_info ?? '';
  if (logs === '' && isZeroTime(host.logs_started_at)) {
    return elapsedMs(now, host.status_updated_at) > options.hostLogPendingTimeoutMs;
  }
  if (logs === 'requested' && isZeroTime(host.logs_collected_at)) {
    return elapsedMs(now, host.logs_started_at) > options.hostLogCollectionTimeoutMs;
  }
  if (logs === 'requested')
    return elapsedMs(now, host.logs_collected_at) > options.hostLogCollectionTimeoutMs;
  if (logs === 'collecting') return elapsedMs(now, host.logs_collected_at) > options.hostLogPendingTimeoutMs;
  return false;
}

/** Upstream's IsRequireUserActionReset: only a host stuck in `resetting` ever qualifies. */
export function requiresUserActionReset(host: Host, now: Date, options: StateMachineOptions): boolean {
  if (host.status !== 'resetting') return false;
  if (elapsedMs(now, host.status_updated_at) >= options.resetClusterTimeoutMs) return true;
  const stage = host.progress?.current_stage ?? '';
  return stage !== '' && MANUAL_REBOOT_STAGES.includes(stage);
}

/** Disconnection window of a host (the bootstrap host tolerates 2 more minutes). */
export function maxDisconnectionMs(host: Host, options: StateMachineOptions): number {
  return options.hostMaxDisconnectionMs + (host.bootstrap ? options.bootstrapExtraDisconnectionMs : 0);
}
