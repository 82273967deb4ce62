// Timeouts and service flags of both state machines (spec §1.5, §2.4). Defaults are upstream's;
// callers override with an options object (optionsFromEnv turns the upstream env variables into one).

import type { HostStage } from '../model.ts';
import { HOUR, MINUTE, parseGoDuration, SECOND } from './durations.ts';
import { FINALIZING_STAGES, type FinalizingStage, stageEnvKey } from './stages.ts';

export interface StateMachineOptions {
  /** HOST_MAX_DISCONNECTION_TIME: `connected` validation window and per-host monitor deadline. */
  hostMaxDisconnectionMs: number;
  /** Extra tolerance for the bootstrap host. */
  bootstrapExtraDisconnectionMs: number;
  /** PREPARE_FOR_INSTALLATION_HOST_TIMEOUT (R8). */
  prepareForInstallationHostTimeoutMs: number;
  /** InstallationTimeout constant: a host stuck in `installing` (R15). */
  hostInstallationTimeoutMs: number;
  /** HOST_INSTALLING_PENDING_USER_ACTION_TIMEOUT (R28). */
  hostInstallingPendingUserActionTimeoutMs: number;
  /** ReclaimTimeout constant (R1/R39). */
  reclaimTimeoutMs: number;
  /** RESET_CLUSTER_TIMEOUT: a host in `resetting` longer than this requires user action. */
  resetClusterTimeoutMs: number;
  /** singleNodeRebootTimeout constant: the Rebooting stage on SNO. */
  singleNodeRebootTimeoutMs: number;
  hostLogCollectionTimeoutMs: number;
  hostLogPendingTimeoutMs: number;
  hostMonitorIntervalMs: number;
  hostMonitorBatchSize: number;
  /** HOST_STAGE_<STAGE>_TIMEOUT overrides, merged over the defaults. */
  hostStageTimeoutsMs: Partial<Record<HostStage, number>>;

  prepareForInstallationTimeoutMs: number;
  installationTimeoutMs: number;
  finalizingTimeoutMs: number;
  clusterLogCollectionTimeoutMs: number;
  clusterLogPendingTimeoutMs: number;
  clusterMonitorIntervalMs: number;
  clusterMonitorPerClusterDeadlineMs: number;
  clusterMonitorCycleDeadlineMs: number;
  clusterMonitorBlacklistDurationMs: number;
  dhcpLeaseTimeoutMs: number;
  /** FINALIZING_STAGE_<STAGE>_TIMEOUT overrides (hard timeouts). */
  finalizingStageTimeoutsMs: Partial<Record<FinalizingStage, number>>;
  /** Timeouts used instead when soft timeouts are on. */
  finalizingStageSoftTimeoutsMs: Partial<Record<FinalizingStage, number>>;

  /** Service-wide soft-timeouts switch (effective only where the cluster's org also enables it). */
  softTimeoutsEnabled: boolean;
  /** Kube-API mode: day-2 hosts keep reporting stages after Rebooting. */
  kubeApiEnabled: boolean;
  /** ENABLE_AUTO_ASSIGN: suggest roles for auto-assign hosts. */
  enableAutoAssign: boolean;
  /** An OCM client is configured (SaaS only): enables CR22's console-URL push. */
  ocmConfigured: boolean;
}

export const DEFAULT_HOST_STAGE_TIMEOUTS_MS: Readonly<Partial<Record<HostStage, number>>> = {
  'Starting installation': 30 * MINUTE,
  'Waiting for control plane': 60 * MINUTE,
  'Waiting for controller': 60 * MINUTE,
  'Waiting for bootkube': 60 * MINUTE,
  Installing: 60 * MINUTE,
  Joined: 60 * MINUTE,
  'Writing image to disk': 30 * MINUTE,
  'Copying registry data to disk': 90 * MINUTE,
  Rebooting: 40 * MINUTE,
  Configuring: 60 * MINUTE,
  'Waiting for ignition': 24 * HOUR,
};
export const DEFAULT_HOST_STAGE_TIMEOUT_MS = 60 * MINUTE;

export const DEFAULT_FINALIZING_STAGE_TIMEOUTS_MS: Readonly<Record<FinalizingStage, number>> = {
  'Waiting for cluster operators': 10 * HOUR,
  'Adding router ca': 70 * MINUTE,
  'Applying olm manifests': 10 * MINUTE,
  'Waiting for olm operators csv initialization': 70 * MINUTE,
  'Waiting for olm operators csv': 70 * MINUTE,
  'Waiting for OLM operator setup jobs': 10 * MINUTE,
  Done: 70 * MINUTE,
};
export const DEFAULT_FINALIZING_STAGE_SOFT_TIMEOUTS_MS: Readonly<Partial<Record<FinalizingStage, number>>> = {
  'Waiting for cluster operators': 70 * MINUTE,
};

export const DEFAULT_OPTIONS: Readonly<StateMachineOptions> = {
  hostMaxDisconnectionMs: 3 * MINUTE,
  bootstrapExtraDisconnectionMs: 2 * MINUTE,
  prepareForInstallationHostTimeoutMs: 8 * MINUTE,
  hostInstallationTimeoutMs: 20 * MINUTE,
  hostInstallingPendingUserActionTimeoutMs: 60 * MINUTE,
  reclaimTimeoutMs: 60 * MINUTE,
  resetClusterTimeoutMs: 3 * MINUTE,
  singleNodeRebootTimeoutMs: 80 * MINUTE,
  hostLogCollectionTimeoutMs: 10 * MINUTE,
  hostLogPendingTimeoutMs: 2 * MINUTE,
  hostMonitorIntervalMs: 8 * SECOND,
  hostMonitorBatchSize: 100,
  hostStageTimeoutsMs: {},
  prepareForInstallationTimeoutMs: 10 * MINUTE,
  installationTimeoutMs: 24 * HOUR,
  finalizingTimeoutMs: 5 * HOUR,
  clusterLogCollectionTimeoutMs: 60 * MINUTE,
  clusterLogPendingTimeoutMs: 10 * MINUTE,
  clusterMonitorIntervalMs: 10 * SECOND,
  clusterMonitorPerClusterDeadlineMs: 2 * MINUTE,
  clusterMonitorCycleDeadlineMs: 4 * MINUTE,
  clusterMonitorBlacklistDurationMs: 15 * MINUTE,
  dhcpLeaseTimeoutMs: 2 * MINUTE,
  finalizingStageTimeoutsMs: {},
  finalizingStageSoftTimeoutsMs: {},
  softTimeoutsEnabled: false,
  kubeApiEnabled: true,
  enableAutoAssign: true,
  ocmConfigured: false,
};

/** Fills every option: the given values over the defaults (stage maps merge key by key). */
export function resolveOptions(options?: Partial<StateMachineOptions>): StateMachineOptions {
  return {
    ...DEFAULT_OPTIONS,
    ...options,
    hostStageTimeoutsMs: { ...DEFAULT_HOST_STAGE_TIMEOUTS_MS, ...options?.hostStageTimeoutsMs },
    finalizingStageTimeoutsMs: {
      ...DEFAULT_FINALIZING_STAGE_TIMEOUTS_MS,
      ...options?.finalizingStageTimeoutsMs,
    },
    finalizingStageSoftTimeoutsMs: {
      ...DEFAULT_FINALIZING_STAGE_SOFT_TIMEOUTS_MS,
      ...options?.finalizingStageSoftTimeoutsMs,
    },
  };
}

/** Configured timeout of a host stage (60m for any stage not listed). */
export function hostStageTimeoutMs(stage: string, options: StateMachineOptions): number {
  return options.hostStageTimeoutsMs[stage as HostStage] ?? DEFAULT_HOST_STAGE_TIMEOUT_MS;
}

const DURATION_ENV: readonly [string, keyof StateMachineOptions][] = [
  ['HOST_MAX_DISCONNECTION_TIME', 'hostMaxDisconnectionMs'],
  ['PREPARE_FOR_INSTALLATION_HOST_TIMEOUT', 'prepareForInstallationHostTimeoutMs'],
  ['HOST_INSTALLING_PENDING_USER_ACTION_TIMEOUT', 'hostInstallingPendingUserActionTimeoutMs'],
  ['RESET_CLUSTER_TIMEOUT', 'resetClusterTimeoutMs'],
  ['HOST_LOG_COLLECTION_TIMEOUT', 'hostLogCollectionTimeoutMs'],
  ['HOST_LOG_PENDING_TIMEOUT', 'hostLogPendingTimeoutMs'],
  ['HOST_MONITOR_INTERVAL', 'hostMonitorIntervalMs'],
  ['PREPARE_FOR_INSTALLATION_TIMEOUT', 'prepareForInstallationTimeoutMs'],
  ['INSTALLATION_TIMEOUT', 'installationTimeoutMs'],
  ['FINALIZING_TIMEOUT', 'finalizingTimeoutMs'],
  ['LOG_COLLECTION_TIMEOUT', 'clusterLogCollectionTimeoutMs'],
  ['LOG_PENDING_TIMEOUT', 'clusterLogPendingTimeoutMs'],
  ['CLUSTER_MONITOR_INTERVAL', 'clusterMonitorIntervalMs'],
  ['CLUSTER_MONITOR_PER_CLUSTER_DEADLINE', 'clusterMonitorPerClusterDeadlineMs'],
  ['CLUSTER_MONITOR_CYCLE_DEADLINE', 'clusterMonitorCycleDeadlineMs'],
  ['CLUSTER_MONITOR_BLACKLIST_DURATION', 'clusterMonitorBlacklistDurationMs'],
];

const HOST_STAGES_WITH_TIMEOUTS: readonly HostStage[] = [
  ...(Object.keys(DEFAULT_HOST_STAGE_TIMEOUTS_MS) as HostStage[]),
  'Done',
  'Failed',
];

function parseBool(text: string): boolean | undefined {
  const t = text.trim().toLowerCase();
  if (['1', 't', 'true'].includes(t)) return true;
  if (['0', 'f', 'false'].includes(t)) return false;
  return undefined;
}

/**
 * Options from upstream's environment variables (durations in Go syntax, e.g. "90m"). The
 * environment is passed in; malformed values are reported in `errors` and otherwise ignored.
 */
export function optionsFromEnv(env: Readonly<Record<string, string | undefined>>): {
  options: Partial<StateMachineOptions>;
  errors: string[];
} {
  const options: Record<string, unknown> = {};
  const errors: string[] = [];
  const duration = (name: string): number | undefined => {
    const raw = env[name];
    if (raw === undefined || raw === '') return undefined;
    const ms = parseGoDuration(raw);
    if (ms === undefined) errors.push(`${name}: invalid duration "${raw}"`);
    return ms;
  };
  for (const [name, key] of DURATION_ENV) {
    const ms = duration(name);
    if (ms !== undefined) options[key] = ms;
  }
  const batch = env.HOST_MONITOR_BATCH_SIZE;
  if (batch !== undefined && batch !== '') {
    const n = Number(batch);
    if (Number.isInteger(n) && n > 0) options.hostMonitorBatchSize = n;
    else errors.push(`HOST_MONITOR_BATCH_SIZE: invalid number "${batch}"`);
  }
  for (const [name, key] of [
    ['ENABLE_AUTO_ASSIGN', 'enableAutoAssign'],
    ['ENABLE_KUBE_API', 'kubeApiEnabled'],
  ] as const) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const b = parseBool(raw);
    if (b === undefined) errors.push(`${name}: invalid boolean "${raw}"`);
    else options[key] = b;
  }
  const stages: Partial<Record<HostStage, number>> = {};
  for (const stage of HOST_STAGES_WITH_TIMEOUTS) {
    const ms = duration(`HOST_STAGE_${stageEnvKey(stage)}_TIMEOUT`);
    if (ms !== undefined) stages[stage] = ms;
  }
  if (Object.keys(stages).length > 0) options.hostStageTimeoutsMs = stages;
  const finalizing: Partial<Record<FinalizingStage, number>> = {};
  for (const stage of FINALIZING_STAGES) {
    const ms = duration(`FINALIZING_STAGE_${stageEnvKey(stage)}_TIMEOUT`);
    if (ms !== undefined) finalizing[stage] = ms;
  }
  if (Object.keys(finalizing).length > 0) {
    // One variable sets the stage's timeout whether or not soft timeouts are on.
    options.finalizingStageTimeoutsMs = finalizing;
    options.finalizingStageSoftTimeoutsMs = finalizing;
  }
  return { options: options as Partial<StateMachineOptions>, errors };
}
