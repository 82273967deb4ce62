// One row per RefreshHost rule (spec §1.3 R1–R39, P1–P5) plus the first-match order cases.

import { describe, expect, it } from 'vitest';
import type { Cluster, Host, HostStatus, ValidationsInfo } from '../../../../src/core/model.ts';
import {
  HOST_STATE_MACHINE,
  refreshHost,
  type StateMachineOptions,
} from '../../../../src/core/statemachine/index.ts';
import { ago, allHostValidationsPass, hostsOf, MIN, makeCluster, makeHost, NOW } from './fixtures.ts';

interface Row {
  rule: string;
  from: HostStatus;
  host?: Partial<Host>;
  cluster?: Partial<Cluster> | null;
  cond?: Record<string, boolean>;
  validations?: ValidationsInfo;
  options?: Partial<StateMachineOptions>;
  to: HostStatus;
  info?: string;
  check?: (h: Host) => void;
}

const soft: Partial<StateMachineOptions> = { softTimeoutsEnabled: true };
const softCluster: Partial<Cluster> = { status: 'installing', org_soft_timeouts_enabled: true };
const failingCpu: ValidationsInfo = {
  hardware: [
    { id: 'has-min-cpu-cores', status: 'failure', message: 'The host is not eligible (cpu)' },
    { id: 'has-min-memory', status: 'failure', message: 'Another failure' },
    { id: 'hostname-valid', status: 'success', message: 'fine' },
  ],
};
const iip = (stage: string, updatedAgo: number, more: Partial<Host> = {}): Partial<Host> => ({
  progress: { current_stage: stage as never, stage_updated_at: ago(updatedAgo) },
  ...more,
});
const installed3 = hostsOf(3, 'master', 'installed', 'm');

function run(row: Row) {
  const host = makeHost({ status: row.from, ...row.host });
  const cluster = row.cluster === null ? null : makeCluster(row.cluster ?? {});
  return refreshHost(
    host,
    { cluster, ...(row.validations ? { validations: row.validations } : {}) },
    { now: NOW, conditions: allHostValidationsPass(row.cond), options: row.options ?? {} },
  );
}

const rows: Row[] = [
  {
    rule: 'R1',
    from: 'reclaiming',
    host: { status_updated_at: ago(60 * MIN + 1) },
    to: 'unbinding-pending-user-action',
    info: 'Host is waiting to be unbound from the cluster',
    check: (h) => expect([h.cluster_id, h.role, h.inventory]).toEqual([null, 'auto-assign', undefined]),
  },
  {
    rule: 'R2',
    from: 'known',
    cluster: { status: 'preparing-for-installation' },
    to: 'preparing-for-installation',
    info: 'Host finished successfully to prepare for installation',
    host: { logs_info: 'completed', images_status: { a: { name: 'a', result: 'failure' } } },
    validations: { network: [{ id: 'container-images-available', status: 'failure', message: 'x' }] },
    check: (h) => expect([h.logs_info, h.images_status]).toEqual(['', undefined]),
  },
  {
    rule: 'R3',
    from: 'preparing-for-installation',
    cluster: { status: 'preparing-for-installation' },
    cond: {
      'installation-disk-speed-check-successful': true,
      'successful-container-image-availability': true,
    },
    to: 'preparing-successful',
    info: 'Host finished successfully to prepare for installation',
  },
  {
    rule: 'R4',
    from: 'preparing-successful',
    cluster: { status: 'preparing-for-installation' },
    to: 'preparing-successful',
  },
  {
    rule: 'R5',
    from: 'preparing-successful',
    cluster: { status: 'installing' },
    to: 'installing',
    info: 'Installation is in progress',
  },
  {
    rule: 'R6',
    from: 'preparing-for-installation',
    cluster: { status: 'ready' },
    to: 'known',
    info: 'Host is ready to be installed',
  },
  {
    rule: 'R7',
    from: 'known',
    cond: { 'sufficient-installation-disk-speed': false },
    validations: {
      hardware: [{ id: 'sufficient-installation-disk-speed', status: 'failure', message: 'Disk slow' }],
    },
    to: 'insufficient',
    info: 'Host cannot be installed due to following failing validation(s): Disk slow',
  },
  {
    rule: 'R8',
    from: 'preparing-for-installation',
    cluster: { status: 'preparing-for-installation' },
    host: { status_updated_at: ago(8 * MIN + 1) },
    to: 'preparing-failed',
    info: 'The host has encountered a preparation timeout, the following conditions failed: the installation disk speed check did not complete within the timeout.\ncontainer availability was not determined within the timeout.',
  },
  {
    rule: 'R9',
    from: 'preparing-for-installation',
    cond: { 'container-images-available': false },
    validations: {
      network: [{ id: 'container-images-available', status: 'failure', message: 'Failed to fetch' }],
    },
    to: 'preparing-failed',
    info: 'Host failed to prepare for installation due to following failing validation(s): Failed to fetch',
  },
  {
    rule: 'R10',
    from: 'preparing-for-installation',
    cluster: { status: 'preparing-for-installation' },
    cond: { 'successful-container-image-availability': true },
    to: 'preparing-for-installation',
  },
  {
    rule: 'R11',
    from: 'preparing-failed',
    cluster: { status: 'ready' },
    to: 'known',
    info: 'Host is ready to be installed',
  },
  {
    rule: 'R12',
    from: 'preparing-successful',
    cluster: { status: 'ready' },
    to: 'known',
    info: 'Host is ready to be installed',
  },
  {
    rule: 'R13',
    from: 'known',
    cond: { connected: false },
    to: 'disconnected',
    info: 'Host has stopped communicating with the installation service',
  },
  { rule: 'R13', from: 'preparing-failed', cond: { 'media-connected': false }, to: 'disconnected' },
  {
    rule: 'R14',
    from: 'installing-in-progress',
    cluster: { status: 'error' },
    to: 'error',
    info: 'Host is part of a cluster that failed to install',
  },
  {
    rule: 'R15',
    from: 'installing',
    cluster: { status: 'installing' },
    host: { status_updated_at: ago(20 * MIN + 1) },
    to: 'error',
    info: 'Host failed to install due to timeout while starting installation',
  },
  {
    rule: 'R16',
    from: 'preparing-successful',
    cond: { connected: false },
    to: 'disconnected',
    info: 'Host failed to install due to timeout while connecting to host during the preparation phase.',
  },
  {
    rule: 'R17',
    from: 'installing',
    cluster: { status: 'installing' },
    cond: { connected: false },
    to: 'error',
    info: 'Host failed to install due to timeout while connecting to host during the installation phase.',
  },
  {
    rule: 'R18',
    from: 'installing-in-progress',
    cluster: softCluster,
    options: soft,
    cond: { connected: false },
    to: 'installing-in-progress',
    info: 'Host is failing to perform periodic health check during the installation phase.',
    check: (h) => expect(h.connection_timed_out).toBe(true),
  },
  {
    rule: 'R18',
    from: 'installing',
    cluster: softCluster,
    options: soft,
    cond: { connected: false },
    to: 'installing',
  },
  {
    rule: 'R19',
    from: 'installing-in-progress',
    cluster: softCluster,
    options: soft,
    host: { connection_timed_out: true },
    to: 'installing-in-progress',
    info: 'Host recovered from failure to perform periodic health check during the installation phase.',
    check: (h) => expect(h.connection_timed_out).toBe(false),
  },
  {
    rule: 'R19',
    from: 'installing',
    cluster: softCluster,
    options: soft,
    host: { connection_timed_out: true },
    to: 'installing',
  },
  {
    rule: 'R20',
    from: 'installing-in-progress',
    cluster: { status: 'installing-pending-user-action' },
    host: iip('Waiting for control plane', 2 * MIN),
    to: 'installing-in-progress',
    check: (h) => expect(h.progress?.stage_updated_at).toBe(NOW.toISOString()),
  },
  {
    rule: 'R21',
    from: 'installing-in-progress',
    cluster: { status: 'installing' },
    host: iip('Installing', 60 * MIN + 1),
    to: 'error',
    info: 'Host failed to install because its installation stage Installing took longer than expected 1h0m0s',
  },
  {
    rule: 'R22',
    from: 'installing-in-progress',
    cluster: { status: 'installing' },
    host: iip('Writing image to disk', 30 * MIN + 1),
    to: 'error',
    info: 'Host failed to install because its installation stage Writing image to disk did not sufficiently progress in the last 30m0s.',
  },
  {
    rule: 'R23',
    from: 'installing-in-progress',
    cluster: { status: 'installing' },
    host: iip('Copying registry data to disk', 90 * MIN + 1),
    to: 'error',
    info: 'Host failed to install because its installation stage Copying registry data to disk did not sufficiently progress in the last 1h30m0s.',
  },
  {
    rule: 'R24',
    from: 'installing-in-progress',
    cluster: softCluster,
    options: soft,
    host: iip('Configuring', 60 * MIN + 1),
    to: 'installing-in-progress',
    info: 'Host installation stage Configuring is taking longer than expected 1h0m0s',
    check: (h) => expect(h.progress?.stage_timed_out).toBe(true),
  },
  {
    rule: 'R25',
    from: 'installing-in-progress',
    cluster: softCluster,
    options: soft,
    host: iip('Writing image to disk', 30 * MIN + 1),
    to: 'installing-in-progress',
    info: 'Host installation stage Writing image to disk is not progressing sufficiently in the last 30m0s. To troubleshoot use kubeconfig or connect to the node using ssh',
  },
  {
    rule: 'R26',
    from: 'installing-in-progress',
    cluster: softCluster,
    options: soft,
    host: iip('Copying registry data to disk', 90 * MIN + 1),
    to: 'installing-in-progress',
    info: 'Host installation stage Copying registry data to disk is not progressing sufficiently in the last 1h30m0s. To troubleshoot use kubeconfig or connect to the node using ssh',
  },
  {
    rule: 'R27',
    from: 'installing-in-progress',
    cluster: { status: 'installing' },
    host: iip('Rebooting', 40 * MIN + 1),
    to: 'installing-pending-user-action',
    info: 'Host timed out when pulling the configuration files. Verify in the host console that the host boots from the OpenShift installation disk (sda, /dev/disk/by-id/wwn-0x1) and has network access to the cluster API. The installation will resume after the host successfully boots and can access the cluster API',
  },
  {
    rule: 'R28',
    from: 'installing-pending-user-action',
    host: { id: 'w', status_updated_at: ago(60 * MIN + 1) },
    cluster: { status: 'installing', hosts: installed3 },
    to: 'error',
    info: 'Host failed to boot from the installation disk within the expected time.',
  },
  ...(
    [
      'installing',
      'installing-in-progress',
      'installed',
      'installing-pending-user-action',
      'resetting-pending-user-action',
    ] as const
  ).map(
    (from): Row => ({
      rule: 'R29',
      from,
      cluster: { status: 'installing' },
      host: iip('Installing', MIN),
      to: from,
    }),
  ),
  {
    rule: 'R30',
    from: 'discovering',
    cond: { 'has-inventory': false },
    to: 'discovering',
    info: 'Waiting for host to send hardware details',
  },
  { rule: 'R30', from: 'disconnected', cond: { 'inventory-not-fully-truncated': false }, to: 'discovering' },
  {
    rule: 'R31',
    from: 'discovering',
    cond: { 'has-min-cpu-cores': false },
    validations: failingCpu,
    to: 'insufficient',
    info: 'Host does not meet the minimum hardware requirements: Another failure ; The host is not eligible (cpu)',
  },
  {
    rule: 'R32',
    from: 'insufficient',
    cond: { 'machine-cidr-defined': false },
    validations: {
      network: [
        { id: 'machine-cidr-defined', status: 'failure', message: 'Machine Network CIDR is undefined' },
      ],
    },
    to: 'pending-for-input',
    info: 'Waiting for user input: Machine Network CIDR is undefined',
  },
  {
    rule: 'R33',
    from: 'discovering',
    cond: { 'hostname-unique': false },
    to: 'insufficient',
    info: 'Host cannot be installed due to following failing validation(s): ',
  },
  {
    rule: 'R33',
    from: 'pending-for-input',
    cond: { 'vsphere-disk-uuid-enabled': false },
    to: 'insufficient',
  },
  {
    rule: 'R33',
    from: 'known',
    cond: { 'inventory-not-fully-truncated': false, 'has-min-memory': false, 'has-memory-for-role': false },
    to: 'insufficient',
  },
  { rule: 'R34', from: 'discovering', to: 'known', info: 'Host is ready to be installed' },
  {
    rule: 'R35',
    from: 'known',
    host: { status_info: 'stale' },
    to: 'known',
    info: 'Host is ready to be installed',
  },
  {
    rule: 'R36',
    from: 'error',
    host: { status_updated_at: ago(2 * MIN + 1) },
    to: 'error',
    check: (h) => expect(h.logs_info).toBe('timeout'),
  },
  {
    rule: 'R36',
    from: 'cancelled',
    host: { logs_info: 'requested', logs_started_at: ago(10 * MIN + 1) },
    to: 'cancelled',
  },
  { rule: 'R37', from: 'error', to: 'error' },
  { rule: 'R37', from: 'cancelled', to: 'cancelled' },
  { rule: 'R37', from: 'resetting', to: 'resetting' },
  {
    rule: 'R38',
    from: 'added-to-existing-cluster',
    host: { kind: 'AddToExistingClusterHost' },
    to: 'added-to-existing-cluster',
  },
  { rule: 'R39', from: 'reclaiming-rebooting', to: 'reclaiming-rebooting' },
  {
    rule: 'P1',
    from: 'known-unbound',
    host: { cluster_id: null },
    cluster: null,
    cond: { connected: false },
    to: 'disconnected-unbound',
    info: 'Host has stopped communicating with the installation service',
  },
  {
    rule: 'P1',
    from: 'unbinding',
    host: { cluster_id: null },
    cluster: null,
    cond: { connected: false },
    to: 'disconnected-unbound',
  },
  {
    rule: 'P2',
    from: 'discovering-unbound',
    host: { cluster_id: null },
    cluster: null,
    cond: { 'has-inventory': false },
    to: 'discovering-unbound',
    info: 'Waiting for host to send hardware details',
  },
  {
    rule: 'P3',
    from: 'known-unbound',
    host: { cluster_id: null },
    cluster: null,
    cond: { 'hostname-valid': false },
    validations: failingCpu,
    to: 'insufficient-unbound',
    info: 'Host does not meet the minimum hardware requirements: Another failure ; The host is not eligible (cpu)',
  },
  { rule: 'P4', from: 'binding', to: 'binding' },
  { rule: 'P4', from: 'unbinding', host: { cluster_id: null }, cluster: null, to: 'unbinding' },
  {
    rule: 'P5',
    from: 'discovering-unbound',
    host: { cluster_id: null },
    cluster: null,
    to: 'known-unbound',
    info: 'Host is ready to be bound to a cluster',
  },
];

describe('RefreshHost rules', () => {
  it.each(rows.map((r) => [`${r.rule} ${r.from} → ${r.to}`, r] as const))('%s', (_name, row) => {
    const r = run(row);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.rule).toBe(row.rule);
    expect(r.host.status).toBe(row.to);
    if (row.info !== undefined) expect(r.host.status_info).toBe(row.info);
    row.check?.(r.host);
  });

  it('covers every refresh rule of the tables', () => {
    const ids = new Set(HOST_STATE_MACHINE.rules('RefreshHost').map((r) => r.id));
    expect(new Set(rows.map((r) => r.rule))).toEqual(ids);
    expect(ids.size).toBe(44);
  });

  it('registers the rules in upstream order (pool rules last)', () => {
    const ids = HOST_STATE_MACHINE.rules('RefreshHost').map((r) => r.id);
    const collapsed = ids.filter((id, i) => id !== ids[i - 1]);
    const expected = [
      ...Array.from({ length: 17 }, (_, i) => `R${i + 1}`),
      'R18',
      'R19',
      'R18',
      'R19',
      ...Array.from({ length: 20 }, (_, i) => `R${i + 20}`),
      'P1',
      'P2',
      'P3',
      'P4',
      'P5',
    ];
    expect(collapsed).toEqual(expected);
    expect(HOST_STATE_MACHINE.rules('RegisterHost').map((r) => r.id)).toEqual([
      'G1',
      'G2',
      'G3',
      'G4',
      'G5',
      'G6',
      'G7',
      'G8',
      'G9',
      'P-G1',
      'P-G2',
    ]);
    expect(HOST_STATE_MACHINE.rules('HostProgressChanged').map((r) => r.id)).toEqual([
      'HP1',
      'HP2',
      'HP3',
      'HP4',
      'HP5',
      'HP5',
      'HP5',
    ]);
  });

  it('emits a status event only when the status changes', () => {
    const changed = run({ rule: 'R13', from: 'known', cond: { connected: false }, to: 'disconnected' });
    expect(changed.ok && changed.events).toEqual([
      {
        name: 'host_status_updated',
        severity: 'warning',
        message:
          'Host node-1: updated status from known to disconnected (Host has stopped communicating with the installation service)',
        host_id: 'h1',
        infra_env_id: 'ie1',
        cluster_id: 'c1',
      },
    ]);
    expect(changed.ok && changed.host.status_updated_at).toBe(NOW.toISOString());
    const same = run({ rule: 'R35', from: 'known', to: 'known' });
    expect(same.ok && [same.changed, same.events]).toEqual([false, []]);
  });

  it('no-op rules report changed=false and keep the record', () => {
    const r = run({ rule: 'R29', from: 'installed', cluster: { status: 'installing' }, to: 'installed' });
    expect(r.ok && r.changed).toBe(false);
  });
});

describe('RefreshHost first-match order', () => {
  const cases: [string, Row][] = [
    [
      'R2 before R35 for a known host of a preparing cluster',
      {
        rule: 'R2',
        from: 'known',
        cluster: { status: 'preparing-for-installation' },
        to: 'preparing-for-installation',
      },
    ],
    [
      'R35 keeps a known host with an invalid role while the cluster prepares',
      {
        rule: 'R35',
        from: 'known',
        host: { role: 'auto-assign' },
        cluster: { status: 'preparing-for-installation' },
        to: 'known',
      },
    ],
    [
      'R7 before R31 (disk speed failure on a known host)',
      {
        rule: 'R7',
        from: 'known',
        cond: { 'sufficient-installation-disk-speed': false, 'has-min-memory': false },
        to: 'insufficient',
      },
    ],
    [
      'R13 before R31 (disconnection wins)',
      { rule: 'R13', from: 'known', cond: { connected: false, 'has-min-memory': false }, to: 'disconnected' },
    ],
    [
      'R3 before R8 (all successful even though timed out)',
      {
        rule: 'R3',
        from: 'preparing-for-installation',
        cluster: { status: 'preparing-for-installation' },
        host: { status_updated_at: ago(9 * MIN) },
        cond: {
          'installation-disk-speed-check-successful': true,
          'successful-container-image-availability': true,
        },
        to: 'preparing-successful',
      },
    ],
    [
      'R15 before R29 for a stuck installing host',
      {
        rule: 'R15',
        from: 'installing',
        cluster: { status: 'installing' },
        host: { status_updated_at: ago(21 * MIN) },
        to: 'error',
      },
    ],
    [
      'R20 before R27 while the cluster waits for a user',
      {
        rule: 'R20',
        from: 'installing-in-progress',
        cluster: { status: 'installing-pending-user-action' },
        host: iip('Rebooting', 41 * MIN),
        to: 'installing-in-progress',
      },
    ],
    [
      'R21 before R29 when a stage times out',
      {
        rule: 'R21',
        from: 'installing-in-progress',
        cluster: { status: 'installing' },
        host: iip('Joined', 61 * MIN),
        to: 'error',
      },
    ],
    [
      'R14 does not touch day-2 hosts (R29 would not either: no rule)',
      {
        rule: 'R38',
        from: 'added-to-existing-cluster',
        host: { kind: 'AddToExistingClusterHost' },
        cluster: { status: 'error' },
        to: 'added-to-existing-cluster',
      },
    ],
    [
      'R31 before R33 when hardware and sufficiency both fail',
      {
        rule: 'R31',
        from: 'insufficient',
        cond: { 'has-min-valid-disks': false, 'hostname-unique': false },
        to: 'insufficient',
      },
    ],
    [
      'R32 before R33 when machine CIDR and sufficiency both fail',
      {
        rule: 'R32',
        from: 'discovering',
        cond: { 'machine-cidr-defined': false, 'hostname-unique': false },
        to: 'pending-for-input',
      },
    ],
    [
      'R30 before R31 without inventory',
      {
        rule: 'R30',
        from: 'discovering',
        cond: { 'has-inventory': false, 'has-min-memory': false },
        to: 'discovering',
      },
    ],
    [
      'R36 before R37 for an error host with timed-out logs',
      {
        rule: 'R36',
        from: 'error',
        host: { logs_info: 'collecting', logs_collected_at: ago(3 * MIN) },
        to: 'error',
      },
    ],
    [
      'P1 before P4 for a disconnected unbinding host',
      {
        rule: 'P1',
        from: 'unbinding',
        host: { cluster_id: null },
        cluster: null,
        cond: { connected: false },
        to: 'disconnected-unbound',
      },
    ],
  ];
  it.each(cases)('%s', (_name, row) => {
    const r = run(row);
    if (!r.ok) throw new Error(r.error.message);
    expect([r.rule, r.host.status]).toEqual([row.rule, row.to]);
  });
});

describe('RefreshHost errors', () => {
  it('fails when a referenced condition id is missing', () => {
    const conditions = allHostValidationsPass();
    delete conditions.connected;
    const r = refreshHost(
      makeHost({ status: 'known' }),
      { cluster: makeCluster() },
      { now: NOW, conditions },
    );
    expect(r).toEqual({ ok: false, error: { code: 500, message: 'If(connected) no such condition' } });
  });

  it('reports no rule for an unbound host whose media is disconnected while it checks in', () => {
    const r = refreshHost(
      makeHost({ status: 'known-unbound', cluster_id: null }),
      {},
      { now: NOW, conditions: allHostValidationsPass({ 'media-connected': false }) },
    );
    expect(r).toEqual({ ok: false, error: { code: 409, message: 'no condition found to run transition' } });
  });

  it('truncates status_info to 2040 characters', () => {
    const long = 'x'.repeat(3000);
    const r = run({
      rule: 'R31',
      from: 'discovering',
      cond: { 'has-min-cpu-cores': false },
      validations: { hardware: [{ id: 'has-min-cpu-cores', status: 'failure', message: long }] },
      to: 'insufficient',
    });
    expect(r.ok && r.host.status_info.length).toBe(2040);
  });

  it('R8 lists only the conditions that did not finish', () => {
    const r = run({
      rule: 'R8',
      from: 'preparing-for-installation',
      cluster: { status: 'preparing-for-installation' },
      host: { status_updated_at: ago(9 * MIN), images_status: { i: { name: 'i', result: 'success' } } },
      to: 'preparing-failed',
    });
    expect(r.ok && r.host.status_info).toBe(
      'The host has encountered a preparation timeout, the following conditions failed: the installation disk speed check did not complete within the timeout.',
    );
  });

  it('R20 refreshes the stage timer at most once a minute', () => {
    const r = run({
      rule: 'R20',
      from: 'installing-in-progress',
      cluster: { status: 'installing-pending-user-action' },
      host: iip('Waiting for bootkube', 30_000),
      to: 'installing-in-progress',
    });
    expect(r.ok && r.changed).toBe(false);
  });

  it('R24 fires once: the timed-out flag stops the next soft timeout', () => {
    const r = run({
      rule: 'R29',
      from: 'installing-in-progress',
      cluster: softCluster,
      options: soft,
      host: iip('Configuring', 61 * MIN, {}),
      to: 'installing-in-progress',
    });
    expect(r.ok && r.rule).toBe('R24');
    if (!r.ok) return;
    const again = refreshHost(
      r.host,
      { cluster: makeCluster(softCluster) },
      { now: NOW, conditions: allHostValidationsPass(), options: soft },
    );
    expect(again.ok && again.rule).toBe('R29');
    expect(r.events.map((e) => e.message)).toContain(
      'Host node-1: installation stage Configuring is taking longer than expected (60 minutes)',
    );
  });
});
