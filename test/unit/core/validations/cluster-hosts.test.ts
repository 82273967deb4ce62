import { describe, expect, it } from 'vitest';
import type { Cluster, Host, HostStatus } from '../../../../src/core/model.ts';
import { operatorNameOf } from '../../../../src/core/validations/cluster-hosts.ts';
import { host } from '../network/fixtures.ts';
import { NOW, outcome, readyCluster, readyHost, run } from './cluster-fixtures.ts';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;
const auto = (i: number, cores: number, ramBytes: number, f: Partial<Host> = {}) =>
  readyHost(i, {
    role: 'auto-assign',
    inventory: { cpu: { count: cores }, memory: { physical_bytes: ramBytes } },
    ...f,
  });

describe('all-hosts-are-ready-to-install', () => {
  it.each([
    [['known', 'known', 'known'], 'success'],
    [['known', 'preparing-for-installation', 'preparing-successful'], 'success'],
    [[], 'success'],
    [['known', 'insufficient'], 'failure'],
    [['known', 'pending-for-input'], 'failure'],
    [['discovering'], 'failure'],
  ] as [HostStatus[], string][])('%j', (statuses, status) => {
    const c = readyCluster({ hosts: statuses.map((s, i) => readyHost(i, { status: s })) });
    expect(outcome(c, 'all-hosts-are-ready-to-install')).toEqual([
      status,
      status === 'success'
        ? 'All hosts in the cluster are ready to install.'
        : 'The cluster has hosts that are not ready to install.',
    ]);
  });
});

describe('sufficient-masters-count', () => {
  const ok = 'The cluster has the exact amount of dedicated control plane nodes.';
  const need = (n: number, suffix = '') =>
    `The cluster must have exactly ${n} dedicated control plane nodes${suffix}. Add or remove hosts, or change their roles configurations to meet the requirement.`;
  const tnaSuffix = ' and at least 1 arbiter node or the control plane nodes must have fencing credentials';
  const snoFail = 'Single-node clusters must have a single control plane node and no workers.';
  const big = 16 * GiB;

  it.each<[string, Partial<Cluster>, string, string]>([
    ['three masters', {}, 'success', ok],
    ['two masters', { hosts: [readyHost(0), readyHost(1)] }, 'failure', need(3)],
    ['four masters', { hosts: [0, 1, 2, 3].map((i) => readyHost(i)) }, 'failure', need(3)],
    [
      'masters + workers',
      { hosts: [0, 1, 2].map((i) => readyHost(i)).concat([readyHost(3, { role: 'worker' })]) },
      'success',
      ok,
    ],
    [
      'bootstrap counts as master',
      { hosts: [readyHost(0, { role: 'bootstrap' }), readyHost(1), readyHost(2)] },
      'success',
      ok,
    ],
    [
      'suggested role is used',
      {
        hosts: [
          readyHost(0, { role: 'auto-assign', suggested_role: 'master', inventory: undefined }),
          readyHost(1),
          readyHost(2),
        ],
      },
      'success',
      ok,
    ],
    // Auto-assign candidates become masters when they meet master cpu (4) + memory (16384 MiB − 100 MiB).
    ['auto-assign fills masters', { hosts: [readyHost(0), readyHost(1), auto(2, 4, big)] }, 'success', ok],
    [
      'auto-assign at the memory boundary',
      { hosts: [readyHost(0), readyHost(1), auto(2, 4, (16384 - 100) * MiB)] },
      'success',
      ok,
    ],
    [
      'auto-assign 1 byte short',
      { hosts: [readyHost(0), readyHost(1), auto(2, 4, (16384 - 100) * MiB - 1)] },
      'failure',
      need(3),
    ],
    [
      'auto-assign with 3 cores',
      { hosts: [readyHost(0), readyHost(1), auto(2, 3, big)] },
      'failure',
      need(3),
    ],
    [
      'auto-assign without inventory',
      { hosts: [readyHost(0), readyHost(1), host('x', { role: 'auto-assign', status: 'known' })] },
      'failure',
      need(3),
    ],
    [
      'surplus auto-assign become workers',
      { hosts: [0, 1, 2].map((i) => readyHost(i)).concat([auto(3, 8, big)]) },
      'success',
      ok,
    ],
    [
      '4 control-plane nodes',
      { control_plane_count: 4, hosts: [0, 1, 2, 3].map((i) => readyHost(i)) },
      'success',
      ok,
    ],
    [
      '5 control-plane nodes, 4 masters',
      { control_plane_count: 5, hosts: [0, 1, 2, 3].map((i) => readyHost(i)) },
      'failure',
      need(5),
    ],
    // Two control-plane nodes need an arbiter or fencing.
    [
      'TNA with arbiter',
      { control_plane_count: 2, hosts: [readyHost(0), readyHost(1), readyHost(2, { role: 'arbiter' })] },
      'success',
      ok,
    ],
    [
      'two masters alone',
      { control_plane_count: 2, hosts: [readyHost(0), readyHost(1)] },
      'failure',
      need(2, tnaSuffix),
    ],
    [
      'TNF: both masters with fencing credentials',
      {
        control_plane_count: 2,
        hosts: [readyHost(0, { fencing_credentials: '{}' }), readyHost(1, { fencing_credentials: '{}' })],
      },
      'success',
      ok,
    ],
    [
      'TNF: one master without credentials',
      { control_plane_count: 2, hosts: [readyHost(0, { fencing_credentials: '{}' }), readyHost(1)] },
      'failure',
      need(2, tnaSuffix),
    ],
    [
      'auto-assign becomes arbiter (2 cores, 8 GiB)',
      { control_plane_count: 2, hosts: [readyHost(0), readyHost(1), auto(2, 2, 8 * GiB)] },
      'success',
      ok,
    ],
    [
      'auto-assign too small for an arbiter',
      { control_plane_count: 2, hosts: [readyHost(0), readyHost(1), auto(2, 1, 8 * GiB)] },
      'failure',
      need(2, tnaSuffix),
    ],
    [
      'three masters on a 2-node topology',
      {
        control_plane_count: 2,
        hosts: [readyHost(0), readyHost(1), readyHost(2), readyHost(3, { role: 'arbiter' })],
      },
      'failure',
      need(2, tnaSuffix),
    ],
  ])('%s', (_, fields, status, message) => {
    expect(outcome(readyCluster(fields), 'sufficient-masters-count')).toEqual([status, message]);
  });

  describe('SNO', () => {
    const sno = (hosts: Host[]) =>
      readyCluster({
        control_plane_count: 1,
        user_managed_networking: true,
        platform: { type: 'none' },
        hosts,
      });
    it.each<[string, Host[], string, string]>([
      ['one master', [readyHost(0)], 'success', ok],
      ['auto-assign meeting SNO (8 cores)', [auto(0, 8, big)], 'success', ok],
      ['auto-assign below SNO cores', [auto(0, 4, big)], 'failure', snoFail],
      ['master + worker', [readyHost(0), readyHost(1, { role: 'worker' })], 'failure', snoFail],
      ['no hosts', [], 'failure', snoFail],
    ])('%s', (_, hosts, status, message) => {
      expect(outcome(sno(hosts), 'sufficient-masters-count')).toEqual([status, message]);
    });
    it('SNO cores drop to 4 from OCP 4.22', () => {
      const c = sno([auto(0, 4, big)]);
      c.openshift_version = '4.22.0';
      expect(outcome(c, 'sufficient-masters-count')).toEqual(['success', ok]);
    });
    it('requirements lookup failures count as not eligible', () => {
      const c = sno([auto(0, 64, 64 * GiB)]);
      const config = { hardwareRequirements: { exact: new Map(), minVersion: [] } };
      expect(outcome(c, 'sufficient-masters-count', { config })).toEqual(['failure', snoFail]);
    });
  });
});

describe('ntp-server-configured', () => {
  const t = NOW.getTime() / 1000;
  const ok = ['success', 'No ntp problems found'];
  const bad = [
    'failure',
    "Hosts' clocks are not synchronized (there's more than a 4 minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually.",
  ];
  it.each<[string, Partial<Host>[], string[]]>([
    ['same time', [{}, {}, {}], ok],
    ['4m59s gap (4 whole minutes)', [{ timestamp: t }, { timestamp: t + 299 }], ok],
    ['5 minutes gap', [{ timestamp: t }, { timestamp: t + 300 }], bad],
    [
      'disconnected hosts are skipped',
      [{ timestamp: t }, { timestamp: t + 900, status: 'disconnected' }],
      ok,
    ],
    ['discovering hosts are skipped', [{ timestamp: t }, { timestamp: t + 900, status: 'discovering' }], ok],
    [
      'resetting hosts are skipped',
      [{ timestamp: t }, { timestamp: t + 900, status: 'resetting-pending-user-action' }],
      ok,
    ],
    [
      'hosts without time are skipped',
      [{ timestamp: t + 900 }, { timestamp: 0 }, { timestamp: undefined }],
      ok,
    ],
    ['insufficient hosts count', [{ timestamp: t }, { timestamp: t - 600, status: 'insufficient' }], bad],
  ])('%s', (_, fields, expected) => {
    const c = readyCluster({ hosts: fields.map((f, i) => readyHost(i, f)) });
    expect(outcome(c, 'ntp-server-configured')).toEqual(expected);
  });
});

describe('pull-secret-set', () => {
  it.each<[Partial<Cluster>, string]>([
    [{ pull_secret_set: true }, 'success'],
    [{ pull_secret_set: false, pull_secret: 'x' }, 'failure'],
    [{ pull_secret_set: undefined, pull_secret: '{"auths":{}}' }, 'success'],
    [{ pull_secret_set: undefined }, 'failure'],
  ])('%j', (fields, status) => {
    expect(outcome(readyCluster(fields), 'pull-secret-set')).toEqual([
      status,
      status === 'success' ? 'The pull secret is set.' : 'The pull secret is not set.',
    ]);
  });
});

describe('platform-requirements-satisfied', () => {
  const oci = {
    type: 'external' as const,
    external: { platform_name: 'oci', cloud_controller_manager: 'External' },
  };
  it.each<[string, Partial<Cluster>, string, string]>([
    ['baremetal', {}, 'success', 'Platform requirements satisfied'],
    [
      'external non-OCI',
      { platform: { type: 'external', external: { platform_name: 'other' } } },
      'success',
      'Platform requirements satisfied',
    ],
    [
      'OCI without manifest',
      { platform: oci },
      'failure',
      'The custom manifest required for Oracle Cloud Infrastructure platform integration has not been added. Add a custom manifest to continue.',
    ],
    [
      'OCI with manifest',
      { platform: oci, custom_manifests: [{ folder: 'openshift', file_name: 'oci.yaml' }] },
      'success',
      'Platform requirements satisfied',
    ],
    [
      'OCI with usage',
      {
        platform: oci,
        feature_usage: '{"Custom manifest":{"id":"CUSTOM_MANIFEST","name":"Custom manifest"}}',
      },
      'success',
      'Platform requirements satisfied',
    ],
    ['OCI bad usage', { platform: oci, feature_usage: 'nope' }, 'failure', 'Failed to parse feature usages'],
  ])('%s', (_, fields, status, message) => {
    expect(outcome(readyCluster(fields), 'platform-requirements-satisfied')).toEqual([status, message]);
  });
  it('is informational: its failure does not touch the required conditions', () => {
    const report = run(readyCluster({ platform: oci }));
    expect(report.conditions['platform-requirements-satisfied']).toBe(false);
    expect(report.validations_info.configuration?.[0]?.status).toBe('failure');
  });
});

describe('operators', () => {
  it('reported results are used, missing ones are "disabled"', () => {
    const report = run(readyCluster(), {
      operatorResults: [
        {
          id: 'odf-requirements-satisfied',
          status: 'failure',
          reasons: ['Too few hosts', 'Not enough disks'],
        },
        { id: 'cnv-requirements-satisfied', status: 'success', reasons: ['cnv is ok'] },
        { id: 'lvm-requirements-satisfied', status: 'pending', reasons: [] },
      ],
    });
    const by = (id: string) => report.outcomes.find((o) => o.id === id);
    expect(by('odf-requirements-satisfied')).toMatchObject({
      status: 'failure',
      message: 'Too few hosts\nNot enough disks',
      category: 'operators',
    });
    expect(by('cnv-requirements-satisfied')).toMatchObject({ status: 'success', message: 'cnv is ok' });
    expect(by('lvm-requirements-satisfied')).toMatchObject({ status: 'pending', message: '' });
    expect(by('mce-requirements-satisfied')).toMatchObject({ status: 'success', message: 'mce is disabled' });
    expect(report.conditions['odf-requirements-satisfied']).toBe(false);
    expect(report.conditions['lvm-requirements-satisfied']).toBe(false);
  });
  it('day-2 clusters do not check operators', () => {
    const c = readyCluster({ kind: 'AddHostsCluster' });
    expect(
      outcome(c, 'odf-requirements-satisfied', {
        operatorResults: [{ id: 'odf-requirements-satisfied', status: 'failure', reasons: ['x'] }],
      }),
    ).toEqual(['success', 'odf validation is disabled when adding hosts to an existing cluster.']);
  });
  it('names', () => {
    expect(operatorNameOf('node-feature-discovery-requirements-satisfied')).toBe('node-feature-discovery');
    expect(operatorNameOf('openshift-ai-gpu-requirements-satisfied')).toBe('openshift-ai-gpu');
  });
});
