// What the host refresh rules with more than a status change do.

import { HC, HV } from './condition-ids.ts';
import { elapsedMs, MINUTE, wholeMinutes } from './durations.ts';
import { expandHostTemplate, type HostArgs, type HostState, moveTo, stay } from './host-sm-common.ts';
import { HOST_INFO, validationFailed } from './host-status-info.ts';
import { hostEvent, hostSuccess, resetLogsFields } from './host-update.ts';
import { hostnameForMessage } from './hostutil.ts';
import { hostStageTimeoutMs } from './options.ts';
import type { HostResult } from './result.ts';

export function enterPreparing(a: HostArgs, from: HostState, to: HostState): HostResult {
  const clearImages = validationFailed(a.validations, HV.containerImagesAvailable);
  return moveTo(HOST_INFO.preparationSuccessful, () => ({
    ...(clearImages ? { images_status: undefined } : {}),
    ...resetLogsFields(),
  }))(a, from, to);
}

export function preparationTimedOut(a: HostArgs, from: HostState, to: HostState): HostResult {
  const failed: string[] = [];
  if (!a.conditions[HC.installationDiskSpeedCheckSuccessful])
    failed.push(HOST_INFO.preparationTimeoutDiskSpeed);
  if (!a.conditions[HC.successfulContainerImageAvailability])
    failed.push(HOST_INFO.preparationTimeoutImageAvailability);
  return moveTo(HOST_INFO.preparationTimeout.replace('$FAILING_CONDITIONS', () => failed.join('\n')))(
    a,
    from,
    to,
  );
}

export function connectionSoftTimeout(info: string, timedOut: boolean) {
  return (a: HostArgs, from: HostState, to: HostState): HostResult => {
    const r = moveTo(info, () => ({ connection_timed_out: timedOut }))(a, from, to);
    const name = timedOut ? 'host_connection_timed_out' : 'host_connection_recovered';
    const event = hostEvent(
      a.host,
      name,
      timedOut ? 'warning' : 'info',
      `Host ${hostnameForMessage(a.host)}: ${info}`,
    );
    return { ...r, events: [...r.events, event] };
  };
}

/** R20: keep the stage timer fresh while the cluster waits for a user (at most once a minute). */
export function refreshStageUpdatedAt(a: HostArgs): HostResult {
  if (elapsedMs(a.now, a.host.progress?.stage_updated_at) < MINUTE) return stay(a);
  const host = { ...a.host, progress: { ...a.host.progress, stage_updated_at: a.now.toISOString() } };
  return hostSuccess(a.host, host, []);
}

/** R24–R26: soft stage timeout — flag it once, tell the user, keep installing. */
export function stageSoftTimeout(template: string) {
  return (a: HostArgs, from: HostState, to: HostState): HostResult => {
    const stage = a.host.progress?.current_stage ?? '';
    const r = moveTo(expandHostTemplate(template, a), (x) => ({
      progress: { ...x.host.progress, stage_timed_out: true },
    }))(a, from, to);
    const minutes = wholeMinutes(hostStageTimeoutMs(stage, a.options));
    const event = hostEvent(
      a.host,
      'host_installation_stage_timed_out',
      'warning',
      `Host ${hostnameForMessage(a.host)}: installation stage ${stage} is taking longer than expected (${minutes} minutes)`,
    );
    return { ...r, events: [...r.events, event] };
  };
}

export const logsTimedOut = (a: HostArgs): HostResult =>
  hostSuccess(a.host, { ...a.host, logs_info: 'timeout' }, []);
