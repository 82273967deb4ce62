// Cluster timeouts at their boundaries (spec §2.4) and the predicates behind CR10–CR24.

import { describe, expect, it } from 'vitest';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import {
  finalizingStageTimeoutMs,
  hasEnoughMastersAndWorkers,
  isClusterLogCollectionTimedOut,
  isFinalizing,
  isInstalling,
  isTwoNodesWithFencing,
  refreshCluster,
  resolveOptions,
  type StateMachineOptions,
} from '../../../../src/core/statemachine/index.ts';
import {
  ago,
  allClusterValidationsPass,
  HOUR,
  hostsOf,
  MIN,
  makeCluster,
  makeHost,
  NOW,
} from './fixtures.ts';

function rule(cluster: Partial<Cluster>, options: Partial<StateMachineOptions> = {}): string | undefined {
  const r = refreshCluster(
    makeCluster(cluster),
    {},
    { now: NOW, conditions: allClusterValidationsPass(), options },
  );
  if (!r.ok) throw new Error(r.error.message);
  return r.rule;
}

const installed = hostsOf(3, 'master', 'installed');
const soft = { softTimeoutsEnabled: true };

describe('cluster timeouts at their boundaries', () => {
  const cases: [
    string,
    number,
    (age: number) => Partial<Cluster>,
    Partial<StateMachineOptions>,
    string,
    string,
  ][] = [
    [
      'CR6 preparing (10m)',
      10 * MIN,
      (age) => ({
        status: 'preparing-for-installation',
        status_updated_at: ago(age),
        hosts: hostsOf(3, 'master', 'known'),
      }),
      {},
      'CR26',
      'CR6',
    ],
    [
      'CR11 pending user action (24h from install start)',
      24 * HOUR,
      (age) => ({
        status: 'installing-pending-user-action',
        install_started_at: ago(age),
        hosts: [
          ...hostsOf(3, 'master', 'installing'),
          makeHost({ id: 'p', role: 'worker', status: 'installing-pending-user-action' }),
        ],
      }),
      {},
      'CR16',
      'CR11',
    ],
    [
      'CR12 installing with soft timeouts (24h)',
      24 * HOUR,
      (age) => ({
        status: 'installing',
        org_soft_timeouts_enabled: true,
        install_started_at: ago(age),
        status_info: 'Installation in progress',
        hosts: hostsOf(3, 'master', 'installing'),
      }),
      soft,
      'CR21',
      'CR12',
    ],
    [
      'CR13 finalizing (5h from the status change)',
      5 * HOUR,
      (age) => ({ status: 'finalizing', status_updated_at: ago(age), hosts: installed }),
      {},
      'CR26',
      'CR13',
    ],
  ];
  it.each(cases)('%s', (_name, limit, cluster, options, before, after) => {
    expect(rule(cluster(limit), options)).toBe(before);
    expect(rule(cluster(limit + 1), options)).toBe(after);
  });

  it('without soft timeouts there is no cluster-level installing timeout', () => {
    expect(
      rule({
        status: 'installing',
        install_started_at: ago(48 * HOUR),
        hosts: hostsOf(3, 'master', 'installing'),
      }),
    ).toBe('CR21');
  });
});

describe('finalizing stage timeouts', () => {
  const options = resolveOptions();
  const stages: [string, number, number, string][] = [
    ['Waiting for cluster operators', 10 * HOUR, 70 * MIN, 'CR14'],
    ['Adding router ca', 70 * MIN, 70 * MIN, 'CR14'],
    ['Applying olm manifests', 10 * MIN, 10 * MIN, 'CR15'],
    ['Waiting for olm operators csv initialization', 70 * MIN, 70 * MIN, 'CR15'],
    ['Waiting for olm operators csv', 70 * MIN, 70 * MIN, 'CR15'],
    ['Waiting for OLM operator setup jobs', 10 * MIN, 10 * MIN, 'CR14'],
    ['Done', 70 * MIN, 70 * MIN, 'CR14'],
  ];
  const cluster = (stage: string, age: number, more: Partial<Cluster> = {}) => ({
    status: 'finalizing' as const,
    hosts: installed,
    progress: { finalizing_stage: stage, finalizing_stage_started_at: ago(age) },
    ...more,
  });

  it.each(stages)('%s: hard %i ms, soft %i ms', (stage, hard, softMs, fired) => {
    expect(finalizingStageTimeoutMs(stage, makeCluster(), options, false)).toBe(hard);
    expect(finalizingStageTimeoutMs(stage, makeCluster(), options, true)).toBe(softMs);
    expect(rule(cluster(stage, hard))).toBe('CR26');
    expect(rule(cluster(stage, hard + 1))).toBe(fired);
  });

  it('OLM stages wait at least as long as the slowest OLM operator allows', () => {
    const ops = {
      monitored_operators: [
        { name: 'odf', operator_type: 'olm' as const, timeout_seconds: 3 * 3600 },
        { name: 'cvo', operator_type: 'builtin' as const, timeout_seconds: 99 * 3600 },
      ],
    };
    expect(finalizingStageTimeoutMs('Waiting for olm operators csv', makeCluster(ops), options, false)).toBe(
      3 * HOUR,
    );
    expect(finalizingStageTimeoutMs('Adding router ca', makeCluster(ops), options, false)).toBe(70 * MIN);
    expect(rule(cluster('Waiting for olm operators csv', 3 * HOUR, ops))).toBe('CR26');
    expect(rule(cluster('Waiting for olm operators csv', 3 * HOUR + 1, ops))).toBe('CR15');
  });

  it('a stage that already timed out softly does not warn twice; unknown stages get 70m', () => {
    const flagged = cluster('Applying olm manifests', HOUR);
    flagged.progress = { ...flagged.progress, finalizing_stage_timed_out: true } as never;
    expect(rule(flagged)).toBe('CR26');
    expect(finalizingStageTimeoutMs('Something new', makeCluster(), options, false)).toBe(70 * MIN);
    expect(rule({ status: 'finalizing', hosts: installed, progress: {} })).toBe('CR26');
  });

  it('FINALIZING_STAGE_*_TIMEOUT overrides apply', () => {
    const o = resolveOptions({ finalizingStageTimeoutsMs: { 'Adding router ca': 5 * MIN } });
    expect(finalizingStageTimeoutMs('Adding router ca', makeCluster(), o, false)).toBe(5 * MIN);
  });
});

describe('controller log collection timeouts (CR25)', () => {
  const options = resolveOptions();
  const cases: [string, number, (age: number) => Partial<Cluster>][] = [
    [
      'never started: 10m from the status change',
      10 * MIN,
      (age) => ({ logs_info: '', status_updated_at: ago(age) }),
    ],
    [
      'requested, nothing collected: 60m',
      HOUR,
      (age) => ({ logs_info: 'requested', controller_logs_started_at: ago(age) }),
    ],
    [
      'requested, some collected: 60m',
      HOUR,
      (age) => ({
        logs_info: 'requested',
        controller_logs_started_at: ago(2 * HOUR),
        controller_logs_collected_at: ago(age),
      }),
    ],
    [
      'collecting: 60m from the last upload',
      HOUR,
      (age) => ({ logs_info: 'collecting', controller_logs_collected_at: ago(age) }),
    ],
  ];
  it.each(cases)('%s', (_name, limit, fields) => {
    expect(isClusterLogCollectionTimedOut(makeCluster(fields(limit)), NOW, options)).toBe(false);
    expect(isClusterLogCollectionTimedOut(makeCluster(fields(limit + 1)), NOW, options)).toBe(true);
  });
  it('settled logs never time out', () => {
    expect(
      isClusterLogCollectionTimedOut(
        makeCluster({ logs_info: 'completed', status_updated_at: ago(9 * HOUR) }),
        NOW,
        options,
      ),
    ).toBe(false);
  });
});

describe('HasEnoughMastersAndWorkers', () => {
  const c = (hosts: Host[], more: Partial<Cluster> = {}) => makeCluster({ hosts, ...more });
  const cases: [string, Cluster, boolean, boolean][] = [
    ['3 masters installed', c(installed), true, true],
    [
      '2 of 3 masters installed',
      c([...hostsOf(2, 'master', 'installed'), makeHost({ id: 'm3', status: 'installing' })]),
      false,
      true,
    ],
    [
      '5 masters: all must be installed',
      c([...hostsOf(4, 'master', 'installed'), makeHost({ id: 'm5', status: 'error' })]),
      false,
      false,
    ],
    [
      '2 workers expected: both needed',
      c([
        ...installed,
        makeHost({ id: 'w1', role: 'worker', status: 'installed' }),
        makeHost({ id: 'w2', role: 'worker', status: 'error' }),
      ]),
      false,
      false,
    ],
    [
      '3 workers expected: 2 suffice',
      c([
        ...installed,
        ...hostsOf(2, 'worker', 'installed'),
        makeHost({ id: 'w9', role: 'worker', status: 'error' }),
      ]),
      true,
      true,
    ],
    [
      '1 worker expected: anything goes',
      c([...installed, makeHost({ id: 'w1', role: 'worker', status: 'error' })]),
      true,
      true,
    ],
    ['only 2 masters defined (no arbiter, no fencing)', c(hostsOf(2, 'master', 'installed')), false, false],
    ['SNO: exactly one master', c(hostsOf(1, 'master', 'installed'), { control_plane_count: 1 }), true, true],
    [
      'SNO with a worker in status',
      c([...hostsOf(1, 'master', 'installed'), makeHost({ id: 'w', role: 'worker', status: 'installed' })], {
        control_plane_count: 1,
      }),
      false,
      false,
    ],
    [
      'two masters + arbiter',
      c([...hostsOf(2, 'master', 'installed'), makeHost({ id: 'a', role: 'arbiter', status: 'installed' })], {
        control_plane_count: 2,
      }),
      true,
      true,
    ],
    [
      'two masters + arbiter not yet installed',
      c(
        [...hostsOf(2, 'master', 'installed'), makeHost({ id: 'a', role: 'arbiter', status: 'installing' })],
        { control_plane_count: 2 },
      ),
      false,
      true,
    ],
    [
      'two nodes with fencing',
      c(
        hostsOf(2, 'master', 'installed').map((h) => ({
          ...h,
          fencing_credentials: '{"address":"redfish://x"}',
        })),
        { control_plane_count: 2 },
      ),
      true,
      true,
    ],
    [
      'bootstrap role counts as master',
      c([
        ...hostsOf(2, 'master', 'installed'),
        makeHost({ id: 'b', role: 'bootstrap', status: 'installed' }),
      ]),
      true,
      true,
    ],
  ];
  it.each(cases)('%s', (_name, cluster, finalizing, installing) => {
    expect(isFinalizing(cluster)).toBe(finalizing);
    expect(isInstalling(cluster)).toBe(installing);
  });

  it('counts effective roles in status (auto-assign with a suggestion)', () => {
    const hosts = hostsOf(3, 'master', 'installed').map((h) => ({ ...h }));
    expect(hasEnoughMastersAndWorkers(makeCluster({ hosts }), ['installed'])).toBe(true);
  });

  it('two-nodes-with-fencing needs cp count 2, no arbiter and credentials on both masters', () => {
    const fenced = hostsOf(2, 'master', 'known').map((h) => ({ ...h, fencing_credentials: 'x' }));
    expect(isTwoNodesWithFencing(makeCluster({ control_plane_count: 2, hosts: fenced }))).toBe(true);
    expect(isTwoNodesWithFencing(makeCluster({ control_plane_count: 3, hosts: fenced }))).toBe(false);
    expect(
      isTwoNodesWithFencing(
        makeCluster({
          control_plane_count: 2,
          hosts: [fenced[0]!, { ...fenced[1]!, fencing_credentials: '' }],
        }),
      ),
    ).toBe(false);
    expect(
      isTwoNodesWithFencing(
        makeCluster({ control_plane_count: 2, hosts: [...fenced, makeHost({ id: 'a', role: 'arbiter' })] }),
      ),
    ).toBe(false);
  });
});
