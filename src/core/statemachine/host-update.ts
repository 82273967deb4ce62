// Writing a host status the way upstream's UpdateHostStatus does, and the field groups that
// registration, binding and unbinding reset.

import { jsonEqual } from '../../util/json-equal.ts';
import type { Host, HostProgressInfo, HostStatus } from '../model.ts';
import { hostnameForMessage, hostStatusSeverity } from './hostutil.ts';
import { type HostSuccess, patched, type SmEvent } from './result.ts';

/** Upstream's StatusInfoMaxLength. */
export const STATUS_INFO_MAX_LENGTH = 2040;

export function truncateStatusInfo(info: string): string {
  return info.length > STATUS_INFO_MAX_LENGTH ? info.slice(0, STATUS_INFO_MAX_LENGTH) : info;
}

export function hostEvent(host: Host, name: string, severity: SmEvent['severity'], message: string): SmEvent {
  return {
    name,
    severity,
    message,
    host_id: host.id,
    infra_env_id: host.infra_env_id,
    ...(host.cluster_id ? { cluster_id: host.cluster_id } : {}),
  };
}

/**
 * New record with status + status_info (+ extra fields). `status_updated_at` moves and a status
 * event is emitted only when the status really changes.
 */
export function setHostStatus(
  host: Host,
  status: HostStatus,
  statusInfo: string,
  now: Date,
  extra: Partial<Host> = {},
): { host: Host; events: SmEvent[] } {
  const info = truncateStatusInfo(statusInfo);
  const changedStatus = host.status !== status;
  const next = patched(host, {
    ...extra,
    status,
    status_info: info,
    ...(changedStatus ? { status_updated_at: now.toISOString() } : {}),
  });
  const events = changedStatus
    ? [
        hostEvent(
          next,
          'host_status_updated',
          hostStatusSeverity(status),
          `Host ${hostnameForMessage(next)}: updated status from ${host.status} to ${status} (${info})`,
        ),
      ]
    : [];
  return { host: next, events };
}

export function hostSuccess(
  before: Host,
  after: Host,
  events: SmEvent[],
  rule?: string,
  more: Partial<HostSuccess> = {},
): HostSuccess {
  return {
    ok: true,
    host: after,
    changed: !jsonEqual(before, after),
    events,
    ...(rule ? { rule } : {}),
    ...more,
  };
}

/** Progress cleared (upstream's resetProgressFields; the stage-timed-out flag is not touched). */
export function resetProgress(progress: HostProgressInfo | undefined): HostProgressInfo {
  const out: HostProgressInfo = { current_stage: '', installation_percentage: 0, progress_info: '' };
  if (progress?.stage_timed_out !== undefined) out.stage_timed_out = progress.stage_timed_out;
  return out;
}

export function resetLogsFields(): Partial<Host> {
  return { logs_info: '', logs_started_at: undefined, logs_collected_at: undefined };
}

/** Re-registration / binding: the host is treated as new hardware. */
export function resetDiscoveryFields(host: Host): Partial<Host> {
  return {
    progress: resetProgress(host.progress),
    progress_stages: undefined,
    inventory: undefined,
    bootstrap: false,
    images_status: undefined,
  };
}

/** Everything unbinding clears (spec §1.3 "Unbind reset"). */
export function unbindResetFields(host: Host): Partial<Host> {
  return {
    ...resetDiscoveryFields(host),
    ...resetLogsFields(),
    cluster_id: null,
    kind: 'Host',
    connectivity: undefined,
    domain_name_resolutions: undefined,
    free_addresses: undefined,
    installation_disk_id: '',
    installation_disk_path: '',
    machine_config_pool_name: '',
    role: 'auto-assign',
    suggested_role: '',
    api_vip_connectivity: undefined,
  };
}
