// Durations, options and their environment variables.

import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OPTIONS,
  elapsedMs,
  formatGoDuration,
  hostStageTimeoutMs,
  isZeroTime,
  optionsFromEnv,
  parseGoDuration,
  resolveOptions,
  timeMs,
  wholeMinutes,
} from '../../../../src/core/statemachine/index.ts';
import { HOUR, MIN, NOW } from './fixtures.ts';

describe('Go durations', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [1500, '1.5s'],
    [30 * MIN, '30m0s'],
    [HOUR, '1h0m0s'],
    [90 * MIN, '1h30m0s'],
    [24 * HOUR, '24h0m0s'],
    [61_000, '1m1s'],
    [-MIN, '-1m0s'],
  ])('formats %i ms as %s', (ms, text) => {
    expect(formatGoDuration(ms)).toBe(text);
  });

  it.each([
    ['90m', 90 * MIN],
    ['1h30m', 90 * MIN],
    ['1.5h', 90 * MIN],
    ['300ms', 300],
    ['10s', 10_000],
    ['0', 0],
    ['-2m', -2 * MIN],
    ['+1h', HOUR],
    ['1000us', 1],
    ['1000000ns', 1],
  ])('parses %s', (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 6);
  });

  it.each(['', '10', 'h', '1x', '-', '1h x', 'abc'])('rejects %j', (text) => {
    expect(parseGoDuration(text)).toBeUndefined();
  });

  it('time helpers treat a missing timestamp as the distant past', () => {
    expect(timeMs(undefined)).toBe(0);
    expect(timeMs('not a date')).toBe(0);
    expect(isZeroTime('')).toBe(true);
    expect(isZeroTime('0001-01-01T00:00:00Z')).toBe(true);
    expect(isZeroTime(NOW.toISOString())).toBe(false);
    expect(elapsedMs(NOW, new Date(NOW.getTime() - 5).toISOString())).toBe(5);
    expect(wholeMinutes(90 * MIN + 59_999)).toBe(90);
  });
});

describe('options', () => {
  it('defaults follow the spec tables', () => {
    const o = resolveOptions();
    expect([
      o.hostMaxDisconnectionMs,
      o.prepareForInstallationHostTimeoutMs,
      o.hostInstallationTimeoutMs,
      o.hostInstallingPendingUserActionTimeoutMs,
      o.reclaimTimeoutMs,
      o.resetClusterTimeoutMs,
      o.singleNodeRebootTimeoutMs,
      o.hostLogCollectionTimeoutMs,
      o.hostLogPendingTimeoutMs,
      o.hostMonitorIntervalMs,
      o.hostMonitorBatchSize,
    ]).toEqual([
      3 * MIN,
      8 * MIN,
      20 * MIN,
      60 * MIN,
      60 * MIN,
      3 * MIN,
      80 * MIN,
      10 * MIN,
      2 * MIN,
      8000,
      100,
    ]);
    expect([
      o.prepareForInstallationTimeoutMs,
      o.installationTimeoutMs,
      o.finalizingTimeoutMs,
      o.clusterLogCollectionTimeoutMs,
      o.clusterLogPendingTimeoutMs,
      o.clusterMonitorIntervalMs,
      o.clusterMonitorPerClusterDeadlineMs,
      o.clusterMonitorCycleDeadlineMs,
      o.clusterMonitorBlacklistDurationMs,
      o.dhcpLeaseTimeoutMs,
    ]).toEqual([
      10 * MIN,
      24 * HOUR,
      5 * HOUR,
      60 * MIN,
      10 * MIN,
      10_000,
      2 * MIN,
      4 * MIN,
      15 * MIN,
      2 * MIN,
    ]);
    expect(hostStageTimeoutMs('Unknown stage', o)).toBe(60 * MIN);
    expect(DEFAULT_OPTIONS.kubeApiEnabled).toBe(true);
  });

  it('overrides merge over the defaults, stage by stage', () => {
    const o = resolveOptions({ hostStageTimeoutsMs: { Rebooting: MIN }, softTimeoutsEnabled: true });
    expect([
      hostStageTimeoutMs('Rebooting', o),
      hostStageTimeoutMs('Installing', o),
      o.softTimeoutsEnabled,
    ]).toEqual([MIN, 60 * MIN, true]);
  });

  it('reads the upstream environment variables', () => {
    const { options, errors } = optionsFromEnv({
      HOST_MAX_DISCONNECTION_TIME: '5m',
      INSTALLATION_TIMEOUT: '48h',
      HOST_MONITOR_BATCH_SIZE: '50',
      ENABLE_AUTO_ASSIGN: 'false',
      ENABLE_KUBE_API: 'True',
      HOST_STAGE_WRITING_IMAGE_TO_DISK_TIMEOUT: '45m',
      HOST_STAGE_DONE_TIMEOUT: '1h',
      FINALIZING_STAGE_WAITING_FOR_CLUSTER_OPERATORS_TIMEOUT: '2h',
      PREPARE_FOR_INSTALLATION_TIMEOUT: '',
    });
    expect(errors).toEqual([]);
    expect(options).toEqual({
      hostMaxDisconnectionMs: 5 * MIN,
      installationTimeoutMs: 48 * HOUR,
      hostMonitorBatchSize: 50,
      enableAutoAssign: false,
      kubeApiEnabled: true,
      hostStageTimeoutsMs: { 'Writing image to disk': 45 * MIN, Done: HOUR },
      finalizingStageTimeoutsMs: { 'Waiting for cluster operators': 2 * HOUR },
      finalizingStageSoftTimeoutsMs: { 'Waiting for cluster operators': 2 * HOUR },
    });
  });

  it('reports malformed environment values', () => {
    const { options, errors } = optionsFromEnv({
      RESET_CLUSTER_TIMEOUT: 'soon',
      HOST_MONITOR_BATCH_SIZE: '-1',
      ENABLE_AUTO_ASSIGN: 'maybe',
    });
    expect(options).toEqual({});
    expect(errors).toEqual([
      'RESET_CLUSTER_TIMEOUT: invalid duration "soon"',
      'HOST_MONITOR_BATCH_SIZE: invalid number "-1"',
      'ENABLE_AUTO_ASSIGN: invalid boolean "maybe"',
    ]);
  });
});
