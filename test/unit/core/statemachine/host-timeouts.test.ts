// Every host timeout at its boundary: exactly at the limit nothing happens, 1 ms later it fires.

import { describe, expect, it } from 'vitest';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import {
  currentStageTimeoutMs,
  isHostLogCollectionTimedOut,
  maxDisconnectionMs,
  refreshHost,
  requiresUserActionReset,
  resolveOptions,
  type StateMachineOptions,
} from '../../../../src/core/statemachine/index.ts';
import { ago, allHostValidationsPass, HOUR, hostsOf, MIN, makeCluster, makeHost, NOW } from './fixtures.ts';

function rule(
  host: Host,
  cluster: Partial<Cluster>,
  options: Partial<StateMachineOptions> = {},
): string | undefined {
  const r = refreshHost(
    host,
    { cluster: makeCluster(cluster) },
    { now: NOW, conditions: allHostValidationsPass(), options },
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.rule;
}

describe('status-age timeouts', () => {
  const cases: [string, number, (age: number) => Host, Partial<Cluster>, string, string][] = [
    [
      'R8 preparing (8m)',
      8 * MIN,
      (age) => makeHost({ status: 'preparing-for-installation', status_updated_at: ago(age) }),
      { status: 'preparing-for-installation' },
      'R10',
      'R8',
    ],
    [
      'R15 installing (20m)',
      20 * MIN,
      (age) => makeHost({ status: 'installing', status_updated_at: ago(age) }),
      { status: 'installing' },
      'R29',
      'R15',
    ],
    [
      'R28 pending user action (60m)',
      60 * MIN,
      (age) => makeHost({ id: 'w', status: 'installing-pending-user-action', status_updated_at: ago(age) }),
      { status: 'installing', hosts: hostsOf(3, 'master', 'installed') },
      'R29',
      'R28',
    ],
    [
      'R1/R39 reclaim (60m)',
      60 * MIN,
      (age) => makeHost({ status: 'reclaiming', status_updated_at: ago(age) }),
      {},
      'R39',
      'R1',
    ],
  ];
  it.each(cases)('%s', (_name, limit, host, cluster, before, after) => {
    expect(rule(host(limit), cluster)).toBe(before);
    expect(rule(host(limit + 1), cluster)).toBe(after);
  });

  it('R28 waits while the cluster still needs the host, or is already done', () => {
    const host = makeHost({
      id: 'w',
      status: 'installing-pending-user-action',
      status_updated_at: ago(2 * HOUR),
    });
    expect(rule(host, { status: 'installing', hosts: hostsOf(2, 'master', 'installed') })).toBe('R29');
    expect(rule(host, { status: 'installed', hosts: hostsOf(3, 'master', 'installed') })).toBe('R29');
  });

  it('timeouts follow the options object', () => {
    const host = makeHost({ status: 'installing', status_updated_at: ago(5 * MIN + 1) });
    expect(rule(host, { status: 'installing' }, { hostInstallationTimeoutMs: 5 * MIN })).toBe('R15');
  });
});

describe('installation stage timeouts (from progress.stage_updated_at)', () => {
  const stages: [string, number, string][] = [
    ['Starting installation', 30 * MIN, 'R21'],
    ['Installing', 60 * MIN, 'R21'],
    ['Waiting for control plane', 60 * MIN, 'R21'],
    ['Waiting for controller', 60 * MIN, 'R21'],
    ['Waiting for bootkube', 60 * MIN, 'R21'],
    ['Writing image to disk', 30 * MIN, 'R22'],
    ['Copying registry data to disk', 90 * MIN, 'R23'],
    ['Rebooting', 40 * MIN, 'R27'],
    ['Waiting for ignition', 24 * HOUR, 'R21'],
    ['Configuring', 60 * MIN, 'R21'],
    ['Joined', 60 * MIN, 'R21'],
    ['Done', 60 * MIN, 'R21'],
  ];
  const host = (stage: string, age: number) =>
    makeHost({
      status: 'installing-in-progress',
      progress: { current_stage: stage as never, stage_updated_at: ago(age) },
    });

  it.each(stages)('%s times out after %i ms', (stage, limit, fired) => {
    expect(rule(host(stage, limit), { status: 'installing' })).toBe('R29');
    expect(rule(host(stage, limit + 1), { status: 'installing' })).toBe(fired);
  });

  it('Rebooting on SNO gets 80 minutes', () => {
    const sno = { status: 'installing' as const, control_plane_count: 1 };
    expect(rule(host('Rebooting', 80 * MIN), sno)).toBe('R29');
    expect(rule(host('Rebooting', 80 * MIN + 1), sno)).toBe('R27');
    expect(currentStageTimeoutMs(host('Rebooting', 0), makeCluster(sno), resolveOptions())).toBe(80 * MIN);
  });

  it('HOST_STAGE_*_TIMEOUT overrides apply (and show up in $MAX_TIME)', () => {
    const options = { hostStageTimeoutsMs: { Installing: 5 * MIN } };
    const r = refreshHost(
      host('Installing', 5 * MIN + 1),
      { cluster: makeCluster({ status: 'installing' }) },
      { now: NOW, conditions: allHostValidationsPass(), options },
    );
    expect(r.ok && r.host.status_info).toBe(
      'Host failed to install because its installation stage Installing took longer than expected 5m0s',
    );
  });

  it('R20 refreshes the timer once a full minute has passed', () => {
    const r = refreshHost(
      host('Waiting for controller', MIN),
      { cluster: makeCluster({ status: 'installing-pending-user-action' }) },
      { now: NOW, conditions: allHostValidationsPass() },
    );
    expect(r.ok && [r.rule, r.changed]).toEqual(['R20', true]);
  });
});

describe('log collection timeouts (R36)', () => {
  const options = resolveOptions();
  const cases: [string, number, (age: number) => Partial<Host>][] = [
    [
      'never started: 2m from the status change',
      2 * MIN,
      (age) => ({ logs_info: '', status_updated_at: ago(age) }),
    ],
    [
      'requested, nothing collected: 10m from the request',
      10 * MIN,
      (age) => ({ logs_info: 'requested', logs_started_at: ago(age) }),
    ],
    [
      'requested, some collected: 10m from the last upload',
      10 * MIN,
      (age) => ({ logs_info: 'requested', logs_started_at: ago(HOUR), logs_collected_at: ago(age) }),
    ],
    [
      'collecting: 2m from the last upload',
      2 * MIN,
      (age) => ({ logs_info: 'collecting', logs_collected_at: ago(age) }),
    ],
  ];
  it.each(cases)('%s', (_name, limit, fields) => {
    expect(isHostLogCollectionTimedOut(makeHost({ status: 'error', ...fields(limit) }), NOW, options)).toBe(
      false,
    );
    expect(
      isHostLogCollectionTimedOut(makeHost({ status: 'error', ...fields(limit + 1) }), NOW, options),
    ).toBe(true);
  });

  it('completed or timed-out logs never time out again', () => {
    for (const logs_info of ['completed', 'timeout'] as const) {
      expect(
        isHostLogCollectionTimedOut(makeHost({ logs_info, status_updated_at: ago(HOUR) }), NOW, options),
      ).toBe(false);
    }
    expect(
      isHostLogCollectionTimedOut(
        makeHost({ logs_info: '', logs_started_at: ago(HOUR), status_updated_at: ago(HOUR) }),
        NOW,
        options,
      ),
    ).toBe(false);
  });
});

describe('other host timing facts', () => {
  const options = resolveOptions();
  it('disconnection window: 3 minutes, 5 for the bootstrap host', () => {
    expect(maxDisconnectionMs(makeHost(), options)).toBe(3 * MIN);
    expect(maxDisconnectionMs(makeHost({ bootstrap: true }), options)).toBe(5 * MIN);
  });

  it('a host stuck in resetting needs user action after 3 minutes, or at once in a manual-reboot stage', () => {
    expect(
      requiresUserActionReset(
        makeHost({ status: 'resetting', status_updated_at: ago(3 * MIN - 1) }),
        NOW,
        options,
      ),
    ).toBe(false);
    expect(
      requiresUserActionReset(
        makeHost({ status: 'resetting', status_updated_at: ago(3 * MIN) }),
        NOW,
        options,
      ),
    ).toBe(true);
    expect(
      requiresUserActionReset(
        makeHost({ status: 'resetting', progress: { current_stage: 'Joined' } }),
        NOW,
        options,
      ),
    ).toBe(true);
    expect(
      requiresUserActionReset(makeHost({ status: 'error', status_updated_at: ago(HOUR) }), NOW, options),
    ).toBe(false);
  });
});
