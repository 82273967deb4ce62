// One row per cluster refresh rule (spec §2.3 CR1–CR26), order cases, side effects and events.

import { describe, expect, it } from 'vitest';
import type { Cluster, ClusterStatus, Host, MonitoredOperator } from '../../../../src/core/model.ts';
import {
  CLUSTER_STATE_MACHINE,
  type ClusterResult,
  cancelClusterTransition,
  prepareForInstallation,
  refreshCluster,
  resetClusterTransition,
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

interface Row {
  rule: string;
  from: ClusterStatus;
  cluster?: Partial<Cluster>;
  cond?: Record<string, boolean>;
  options?: Partial<StateMachineOptions>;
  to: ClusterStatus;
  info?: string;
  check?: (c: Cluster, r: Extract<ClusterResult, { ok: true }>) => void;
}

const masters = (status: Host['status']) => hostsOf(3, 'master', status, 'm');
const op = (
  name: string,
  operator_type: 'builtin' | 'olm',
  status: MonitoredOperator['status'],
): MonitoredOperator => ({
  name,
  operator_type,
  status,
});
const soft = { softTimeoutsEnabled: true };

function run(row: Row): ClusterResult {
  const cluster = makeCluster({ status: row.from, ...row.cluster });
  return refreshCluster(
    cluster,
    {},
    { now: NOW, conditions: allClusterValidationsPass(row.cond), options: row.options ?? {} },
  );
}

function ok(r: ClusterResult): Extract<ClusterResult, { ok: true }> {
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.message}`);
  return r;
}

const rows: Row[] = [
  {
    rule: 'CR1',
    from: 'insufficient',
    cond: { 'api-vips-defined': false },
    to: 'pending-for-input',
    info: 'User input required',
  },
  { rule: 'CR1', from: 'ready', cond: { 'pull-secret-set': false }, to: 'pending-for-input' },
  {
    rule: 'CR2',
    from: 'pending-for-input',
    cond: { 'network-prefix-valid': false },
    to: 'insufficient',
    info: 'Cluster is not ready for install',
  },
  {
    rule: 'CR3',
    from: 'ready',
    cluster: { vip_dhcp_allocation: true },
    cond: { 'dns-domain-defined': false },
    to: 'pending-for-input',
    info: 'User input required',
  },
  {
    rule: 'CR4',
    from: 'pending-for-input',
    cluster: { vip_dhcp_allocation: true },
    cond: { 'ingress-vips-defined': false },
    to: 'insufficient',
    info: 'Cluster is not ready for install',
  },
  { rule: 'CR5', from: 'insufficient', to: 'ready', info: 'Cluster ready to be installed' },
  {
    rule: 'CR6',
    from: 'preparing-for-installation',
    cluster: { status_updated_at: ago(10 * MIN + 1), hosts: masters('known') },
    to: 'ready',
    info: 'Preparing cluster for installation timeout',
    check: (c) =>
      expect(c.last_installation_preparation).toEqual({
        status: 'failed',
        reason: 'Installation failed. Try again, and contact support if the issue persists.',
      }),
  },
  {
    rule: 'CR7',
    from: 'preparing-for-installation',
    cluster: {
      hosts: masters('preparing-successful'),
      last_installation_preparation: { status: 'success', reason: '' },
    },
    to: 'installing',
    info: 'Installation in progress',
    check: (c, r) => {
      expect(c.progress).toEqual({ preparing_for_installation_stage_percentage: 100, total_percentage: 10 });
      expect(r.actions).toEqual([{ type: 'create-dns-records' }]);
    },
  },
  {
    rule: 'CR8',
    from: 'preparing-for-installation',
    cluster: { hosts: [...hostsOf(2, 'master', 'known'), makeHost({ id: 'x', status: 'disconnected' })] },
    to: 'insufficient',
    info: 'At least one host has stopped preparing for installation',
  },
  {
    rule: 'CR9',
    from: 'preparing-for-installation',
    cluster: { hosts: [makeHost({ status: 'preparing-failed' })] },
    to: 'ready',
    info: 'Cluster failed to prepare for installation',
  },
  {
    rule: 'CR9',
    from: 'preparing-for-installation',
    cluster: { hosts: masters('known'), last_installation_preparation: { status: 'failed', reason: 'boom' } },
    to: 'ready',
  },
  {
    rule: 'CR10',
    from: 'installing-pending-user-action',
    cluster: { hosts: [...hostsOf(2, 'master', 'installed'), makeHost({ id: 'e', status: 'error' })] },
    to: 'error',
    info: 'cluster has hosts in error',
    check: (c, r) => {
      expect(c.install_completed_at).toBe(NOW.toISOString());
      expect(r.events.map((e) => e.name)).toEqual(['cluster_status_updated', 'cluster_installation_failed']);
    },
  },
  {
    rule: 'CR11',
    from: 'installing-pending-user-action',
    cluster: {
      install_started_at: ago(24 * HOUR + 1),
      hosts: [
        ...masters('installing'),
        makeHost({ id: 'p', status: 'installing-pending-user-action', role: 'worker' }),
      ],
    },
    to: 'error',
    info: 'cluster installation timed out while pending user action (a manual booting from installation disk)',
  },
  {
    rule: 'CR12',
    from: 'installing',
    options: soft,
    cluster: {
      org_soft_timeouts_enabled: true,
      install_started_at: ago(24 * HOUR + 1),
      hosts: masters('installing'),
    },
    to: 'error',
    info: 'cluster installation timeout (1440 minutes) has expired',
  },
  {
    rule: 'CR13',
    from: 'finalizing',
    cluster: { status_updated_at: ago(5 * HOUR + 1), hosts: masters('installed') },
    to: 'error',
    info: 'Cluster installation timeout while finalizing',
  },
  {
    rule: 'CR14',
    from: 'finalizing',
    cluster: {
      hosts: masters('installed'),
      progress: {
        finalizing_stage: 'Waiting for cluster operators',
        finalizing_stage_started_at: ago(10 * HOUR + 1),
      },
    },
    to: 'error',
    info: "Cluster finalizing stage 'Waiting for cluster operators' has been timed out after timeout duration of 600 minutes",
  },
  {
    rule: 'CR15',
    from: 'finalizing',
    cluster: {
      hosts: masters('installed'),
      progress: {
        finalizing_stage: 'Applying olm manifests',
        finalizing_stage_started_at: ago(10 * MIN + 1),
      },
    },
    to: 'finalizing',
    info: "Cluster finalizing stage 'Applying olm manifests' is taking longer than the expected duration (10 minutes). To troubleshoot use kubeconfig or connect to any node using ssh",
    check: (c, r) => {
      expect(c.progress?.finalizing_stage_timed_out).toBe(true);
      expect(r.events[0]?.name).toBe('cluster_finalizing_stage_timed_out');
    },
  },
  {
    rule: 'CR16',
    from: 'installing-pending-user-action',
    cluster: {
      hosts: [
        ...masters('installing-in-progress'),
        makeHost({ id: 'p', role: 'worker', status: 'installing-pending-user-action' }),
      ],
    },
    to: 'installing-pending-user-action',
    check: (_c, r) => expect(r.changed).toBe(false),
  },
  {
    rule: 'CR17',
    from: 'installing-pending-user-action',
    cluster: { hosts: masters('installing-in-progress') },
    to: 'installing',
    info: 'Installation in progress',
  },
  {
    rule: 'CR18',
    from: 'installing-pending-user-action',
    cluster: { hosts: masters('installed'), progress: { finalizing_stage_timed_out: true } },
    to: 'finalizing',
    info: 'Finalizing cluster installation',
    check: (c) =>
      expect(c.progress).toEqual({
        finalizing_stage_started_at: NOW.toISOString(),
        finalizing_stage_timed_out: false,
      }),
  },
  {
    rule: 'CR19',
    from: 'installing',
    cluster: {
      hosts: [
        ...masters('installing'),
        makeHost({ id: 'p', role: 'worker', status: 'installing-pending-user-action' }),
      ],
    },
    to: 'installing-pending-user-action',
    info: 'Cluster has hosts pending user action',
  },
  {
    rule: 'CR19',
    from: 'finalizing',
    cluster: {
      hosts: [
        ...masters('installed'),
        makeHost({ id: 'p', role: 'worker', status: 'installing-pending-user-action' }),
      ],
    },
    to: 'installing-pending-user-action',
  },
  {
    rule: 'CR20',
    from: 'installing',
    cluster: { hosts: masters('installed') },
    to: 'finalizing',
    info: 'Finalizing cluster installation',
  },
  {
    rule: 'CR21',
    from: 'installing',
    cluster: { status_info: 'Installation in progress', hosts: masters('installing-in-progress') },
    to: 'installing',
    check: (_c, r) => expect(r.changed).toBe(false),
  },
  {
    rule: 'CR22',
    from: 'finalizing',
    options: { ocmConfigured: true },
    cluster: {
      hosts: masters('installed'),
      monitored_operators: [op('console', 'builtin', 'available'), op('x', 'builtin', '')],
    },
    to: 'finalizing',
    check: (c, r) => {
      expect(c.is_ams_subscription_console_url_set).toBe(true);
      expect(r.actions).toEqual([
        {
          type: 'update-ams-console-url',
          consoleUrl: 'https://console-openshift-console.apps.demo.example.com',
        },
      ]);
    },
  },
  {
    rule: 'CR23',
    from: 'finalizing',
    cluster: { hosts: masters('installed'), kubeconfig_uploaded: true },
    to: 'installed',
    info: 'Cluster is installed',
    check: (c) => {
      expect(c.progress).toEqual({ finalizing_stage_percentage: 100, total_percentage: 100 });
      expect(c.install_completed_at).toBe(NOW.toISOString());
    },
  },
  {
    rule: 'CR24',
    from: 'installing',
    cluster: { hosts: [...hostsOf(2, 'master', 'error'), makeHost({ id: 'm3' })] },
    to: 'error',
    info: 'cluster has hosts in error',
  },
  {
    rule: 'CR25',
    from: 'error',
    cluster: { logs_info: '', status_updated_at: ago(10 * MIN + 1) },
    to: 'error',
    check: (c) => expect(c.logs_info).toBe('timeout'),
  },
  {
    rule: 'CR25',
    from: 'cancelled',
    cluster: { logs_info: 'requested', controller_logs_started_at: ago(HOUR + 1) },
    to: 'cancelled',
  },
  ...(
    [
      'preparing-for-installation',
      'finalizing',
      'installed',
      'error',
      'cancelled',
      'adding-hosts',
      'unmonitored',
    ] as const
  ).map(
    (from): Row => ({
      rule: 'CR26',
      from,
      cluster: {
        hosts:
          from === 'finalizing'
            ? masters('installed')
            : from === 'preparing-for-installation'
              ? masters('preparing-for-installation')
              : [],
      },
      to: from,
    }),
  ),
];

describe('cluster RefreshStatus rules', () => {
  it.each(rows.map((r) => [`${r.rule} ${r.from} → ${r.to}`, r] as const))('%s', (_name, row) => {
    const r = ok(run(row));
    expect([r.rule, r.cluster.status]).toEqual([row.rule, row.to]);
    if (row.info !== undefined) expect(r.cluster.status_info).toBe(row.info);
    row.check?.(r.cluster, r);
  });

  it('registers the rules in upstream order', () => {
    const ids = CLUSTER_STATE_MACHINE.rules('RefreshStatus').map((r) => r.id);
    expect(ids.filter((id, i) => id !== ids[i - 1])).toEqual(
      Array.from({ length: 26 }, (_, i) => `CR${i + 1}`),
    );
    expect(CLUSTER_STATE_MACHINE.types()).toEqual([
      'CancelInstallation',
      'ResetCluster',
      'PrepareForInstallation',
      'RefreshStatus',
    ]);
  });

  it('covers every refresh rule', () => {
    const ids = new Set(CLUSTER_STATE_MACHINE.rules('RefreshStatus').map((r) => r.id));
    expect(new Set(rows.map((r) => r.rule))).toEqual(ids);
    expect(ids.size).toBe(26);
  });
});

describe('cluster first-match order', () => {
  const cases: [string, Row][] = [
    [
      'CR1 before CR2 when VIPs and requirements both fail',
      {
        rule: 'CR1',
        from: 'insufficient',
        cond: { 'api-vips-defined': false, 'ntp-server-configured': false },
        to: 'pending-for-input',
      },
    ],
    [
      'CR6 wins over CR7 once preparation has timed out',
      {
        rule: 'CR6',
        from: 'preparing-for-installation',
        to: 'ready',
        cluster: {
          status_updated_at: ago(11 * MIN),
          hosts: masters('preparing-successful'),
          last_installation_preparation: { status: 'success', reason: '' },
        },
      },
    ],
    [
      'CR9 (failed host) is reached only when no host stopped preparing',
      {
        rule: 'CR8',
        from: 'preparing-for-installation',
        to: 'insufficient',
        cluster: {
          hosts: [makeHost({ status: 'preparing-failed' }), makeHost({ id: 'x', status: 'discovering' })],
        },
      },
    ],
    [
      'CR10 before CR11 when hosts failed and time ran out',
      {
        rule: 'CR10',
        from: 'installing-pending-user-action',
        to: 'error',
        cluster: { install_started_at: ago(25 * HOUR), hosts: hostsOf(3, 'master', 'error') },
      },
    ],
    [
      'CR13 before CR14 when both finalizing timeouts expired',
      {
        rule: 'CR13',
        from: 'finalizing',
        to: 'error',
        info: 'Cluster installation timeout while finalizing',
        cluster: {
          status_updated_at: ago(11 * HOUR),
          hosts: masters('installed'),
          progress: {
            finalizing_stage: 'Waiting for cluster operators',
            finalizing_stage_started_at: ago(11 * HOUR),
          },
        },
      },
    ],
    [
      'CR19 before CR20: a pending host beats finalizing',
      {
        rule: 'CR19',
        from: 'installing',
        to: 'installing-pending-user-action',
        cluster: {
          hosts: [
            ...masters('installed'),
            makeHost({ id: 'p', role: 'worker', status: 'installing-pending-user-action' }),
          ],
        },
      },
    ],
    [
      'CR16 before CR18 with a pending host',
      {
        rule: 'CR16',
        from: 'installing-pending-user-action',
        to: 'installing-pending-user-action',
        cluster: {
          hosts: [
            ...masters('installed'),
            makeHost({ id: 'p', role: 'worker', status: 'installing-pending-user-action' }),
          ],
        },
      },
    ],
    [
      'CR15 with soft timeouts on a failing stage warns instead of failing (CR14 needs NOT soft)',
      {
        rule: 'CR15',
        from: 'finalizing',
        to: 'finalizing',
        options: soft,
        cluster: {
          org_soft_timeouts_enabled: true,
          hosts: masters('installed'),
          progress: {
            finalizing_stage: 'Waiting for cluster operators',
            finalizing_stage_started_at: ago(70 * MIN + 1),
          },
        },
      },
    ],
    [
      'CR23 waits for the kubeconfig: CR26 keeps finalizing',
      { rule: 'CR26', from: 'finalizing', to: 'finalizing', cluster: { hosts: masters('installed') } },
    ],
  ];
  it.each(cases)('%s', (_name, row) => {
    const r = ok(run(row));
    expect([r.rule, r.cluster.status]).toEqual([row.rule, row.to]);
    if (row.info) expect(r.cluster.status_info).toBe(row.info);
  });
});

describe('CompleteInstallation status info', () => {
  const finalizing = (more: Partial<Cluster>): Row => ({
    rule: 'CR23',
    from: 'finalizing',
    to: 'installed',
    cluster: { kubeconfig_uploaded: true, hosts: masters('installed'), ...more },
  });
  it('degraded when an OLM operator failed', () => {
    const r = ok(
      run(
        finalizing({
          monitored_operators: [
            op('lso', 'olm', 'failed'),
            op('odf', 'olm', 'failed'),
            op('cvo', 'builtin', 'available'),
          ],
        }),
      ),
    );
    expect(r.cluster.status_info).toBe('Cluster is installed but degraded. Failed OLM operators: lso, odf');
    expect(r.events.map((e) => e.name)).toContain('cluster_degraded_olm_operators_failed');
  });
  it('some workers did not join', () => {
    const hosts = [
      ...masters('installed'),
      ...hostsOf(2, 'worker', 'installed'),
      makeHost({ id: 'w9', role: 'worker', status: 'error' }),
    ];
    expect(ok(run(finalizing({ hosts }))).cluster.status_info).toBe(
      'Cluster is installed but some workers did not join',
    );
  });
  it('waits for builtin operators and unsettled OLM operators', () => {
    for (const ops of [[op('cvo', 'builtin', 'progressing')], [op('lso', 'olm', 'progressing')]]) {
      expect(ok(run(finalizing({ monitored_operators: ops }))).rule).toBe('CR26');
    }
  });
  it('asks to activate the AMS subscription when OCM is configured', () => {
    const r = ok(run({ ...finalizing({}), options: { ocmConfigured: true } }));
    expect(r.actions).toEqual([{ type: 'mark-ams-subscription-active' }]);
  });
});

describe('post-refresh side effects', () => {
  it('insufficient + a host stuck resetting → every host to resetting-pending-user-action', () => {
    const hosts = [
      makeHost({ id: 'a', status: 'resetting', status_updated_at: ago(4 * MIN) }),
      makeHost({ id: 'b', status: 'known' }),
    ];
    const r = ok(
      run({ rule: 'CR8', from: 'preparing-for-installation', cluster: { hosts }, to: 'insufficient' }),
    );
    expect(r.cluster.hosts.map((h) => h.status)).toEqual([
      'resetting-pending-user-action',
      'resetting-pending-user-action',
    ]);
    expect(r.changedHostIds).toEqual(['a', 'b']);
    expect(r.events.filter((e) => e.name === 'host_status_updated')).toHaveLength(2);
  });

  it('a host without a reset rule leaves all hosts untouched', () => {
    const hosts = [
      makeHost({ id: 'a', status: 'resetting', status_updated_at: ago(4 * MIN) }),
      makeHost({ id: 'b', status: 'disconnected' }),
    ];
    const r = ok(
      run({ rule: 'CR8', from: 'preparing-for-installation', cluster: { hosts }, to: 'insufficient' }),
    );
    expect(r.cluster.hosts.map((h) => h.status)).toEqual(['resetting', 'disconnected']);
    expect(r.changedHostIds).toEqual([]);
  });

  it('SNO entering installing gets its VIPs from the node address in the machine network', () => {
    const node = makeHost({ status: 'preparing-successful', bootstrap: true });
    const r = ok(
      run({
        rule: 'CR7',
        from: 'preparing-for-installation',
        to: 'installing',
        cluster: {
          control_plane_count: 1,
          api_vips: [],
          ingress_vips: [],
          hosts: [node],
          last_installation_preparation: { status: 'success', reason: '' },
        },
      }),
    );
    expect([r.cluster.api_vips, r.cluster.ingress_vips]).toEqual([
      [{ ip: '192.168.1.10' }],
      [{ ip: '192.168.1.10' }],
    ]);
  });

  it('SNO without an address in the machine network cannot start installing', () => {
    const node = makeHost({ status: 'preparing-successful', bootstrap: true });
    const r = run({
      rule: 'CR7',
      from: 'preparing-for-installation',
      to: 'installing',
      cluster: {
        control_plane_count: 1,
        machine_networks: [{ cidr: '10.9.0.0/16' }],
        hosts: [node],
        last_installation_preparation: { status: 'success', reason: '' },
      },
    });
    expect(r.ok || r.error.message).toBe(
      'Failed to find host ip for single node installation in machine network 10.9.0.0/16',
    );
    const lone = makeHost({ status: 'installing', inventory: { ...node.inventory, interfaces: [] } });
    const none = run({
      rule: 'CR17',
      from: 'installing-pending-user-action',
      to: 'installing',
      cluster: { control_plane_count: 1, hosts: [lone] },
    });
    expect(none.ok || none.error.message).toBe(
      'Failed to find host ip for single node installation in machine network 192.168.1.0/24',
    );
    const nobody = run({
      rule: 'CR17',
      from: 'installing-pending-user-action',
      to: 'installing',
      cluster: {
        control_plane_count: 1,
        hosts: [
          { ...lone, id: 'a' },
          { ...lone, id: 'b', role: 'worker', status: 'discovering' },
        ],
      },
    });
    expect(nobody.ok || nobody.error.message).toBe('no bootstrap host were found in cluster');
  });

  it('missing condition ids abort the refresh', () => {
    const r = refreshCluster(makeCluster(), {}, { now: NOW, conditions: {} });
    expect(r).toEqual({
      ok: false,
      error: { code: 500, message: 'If(ingress-vips-defined) no such condition' },
    });
  });
});

describe('cluster event-driven transitions', () => {
  it('CancelInstallation: installing → cancelled, preparing → ready', () => {
    const a = ok(cancelClusterTransition(makeCluster({ status: 'finalizing' }), {}, { now: NOW }));
    expect([a.rule, a.cluster.status, a.cluster.status_info, a.cluster.install_completed_at]).toEqual([
      'CC1',
      'cancelled',
      'Installation was cancelled by user',
      NOW.toISOString(),
    ]);
    const b = ok(
      cancelClusterTransition(
        makeCluster({ status: 'preparing-for-installation' }),
        { reason: 'r' },
        { now: NOW },
      ),
    );
    expect([b.rule, b.cluster.status, b.cluster.status_info]).toEqual(['CC2', 'ready', 'r']);
    expect(cancelClusterTransition(makeCluster({ status: 'ready' }), {}, { now: NOW })).toEqual({
      ok: false,
      error: { code: 409, message: 'no condition found to run transition' },
    });
  });

  it('ResetCluster clears progress, logs, preparation and (SNO) VIPs', () => {
    const c = makeCluster({
      status: 'error',
      control_plane_count: 1,
      logs_info: 'completed',
      openshift_cluster_id: 'x',
      progress: { total_percentage: 80, finalizing_stage: 'Done' },
      last_installation_preparation: { status: 'success', reason: '' },
    });
    const r = ok(resetClusterTransition(c, {}, { now: NOW }));
    expect(r.cluster).toMatchObject({
      status: 'insufficient',
      status_info: 'cluster was reset by user',
      logs_info: '',
      openshift_cluster_id: '',
      api_vips: [],
      ingress_vips: [],
      last_installation_preparation: { status: 'not_started', reason: 'not performed' },
    });
    expect(r.cluster.progress).toEqual({
      total_percentage: 0,
      preparing_for_installation_stage_percentage: 0,
      installing_stage_percentage: 0,
      finalizing_stage_percentage: 0,
    });
    const multi = ok(resetClusterTransition(makeCluster({ status: 'cancelled' }), {}, { now: NOW }));
    expect(multi.cluster.api_vips).toEqual([{ ip: '192.168.1.100' }]);
  });

  it('PrepareForInstallation: ready → preparing, stamps install_started_at', () => {
    const r = ok(
      prepareForInstallation(makeCluster({ status: 'ready', logs_info: 'completed' }), {}, { now: NOW }),
    );
    expect(r.cluster).toMatchObject({
      status: 'preparing-for-installation',
      status_info: 'Preparing cluster for installation',
      install_started_at: NOW.toISOString(),
      logs_info: '',
      last_installation_preparation: { status: 'not_started', reason: 'not performed' },
    });
    expect(prepareForInstallation(makeCluster({ status: 'insufficient' }), {}, { now: NOW }).ok).toBe(false);
  });
});
