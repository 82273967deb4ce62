import { describe, expect, it } from 'vitest';
import type { Cluster, Host, HostStage } from '../../../../src/core/model.ts';
import { MEDIA_DISCONNECTED_MESSAGE } from '../../../../src/core/validations/host-network.ts';
import { bound, host, infraEnv, inventory, NOW, peers, unbound } from './host-fixtures.ts';
import { outcome } from './host-helpers.ts';

const MIN = 60_000;
const checkedIn = (agoMs: number) => new Date(NOW - agoMs).toISOString();

describe('connected (3 min, bootstrap 5 min, always after reboot)', () => {
  it.each([
    [3 * MIN, false, undefined, 'success'],
    [3 * MIN + 1, false, undefined, 'failure'],
    [5 * MIN, true, undefined, 'success'],
    [5 * MIN + 1, true, undefined, 'failure'],
    [60 * MIN, false, 'Rebooting', 'success'],
    [60 * MIN, false, 'Configuring', 'success'],
    [60 * MIN, false, 'Done', 'success'],
    [60 * MIN, false, 'Writing image to disk', 'failure'],
    [60 * MIN, false, 'Waiting for controller', 'failure'],
  ] as const)('last check-in %d ms ago, bootstrap %s, stage %s', (ago, bootstrap, stage, status) => {
    const h = host({
      checked_in_at: checkedIn(ago),
      bootstrap,
      ...(stage ? { progress: { current_stage: stage } } : {}),
    });
    expect(outcome(bound(h), 'connected')).toEqual([
      status,
      status === 'success' ? 'Host is connected' : 'Host is disconnected',
    ]);
  });
  it('never checked in → connected', () => {
    expect(outcome(bound(host({ checked_in_at: undefined })), 'connected')[0]).toBe('success');
    expect(outcome(bound(host({ checked_in_at: 'garbage' })), 'connected')[0]).toBe('success');
  });
  it('HOST_MAX_DISCONNECTION_TIME is configurable', () => {
    const input = bound(
      host({ checked_in_at: checkedIn(MIN + 1) }),
      {},
      { config: { maxHostDisconnectionMs: MIN } },
    );
    expect(outcome(input, 'connected')[0]).toBe('failure');
  });
});

describe('media-connected', () => {
  it.each([
    [undefined, 'success', 'Media device is connected'],
    ['connected', 'success', 'Media device is connected'],
    ['disconnected', 'failure', MEDIA_DISCONNECTED_MESSAGE],
  ] as const)('%s', (media_status, status, message) => {
    expect(outcome(bound(host({ media_status })), 'media-connected')).toEqual([status, message]);
  });
  it('message text', () => {
    expect(MEDIA_DISCONNECTED_MESSAGE).toBe(
      'Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed',
    );
  });
});

describe('machine-cidr-defined', () => {
  it.each([
    [
      { user_managed_networking: true, machine_networks: [] },
      'success',
      'No Machine Network CIDR needed: User Managed Networking',
    ],
    [
      { user_managed_networking: true, control_plane_count: 1, machine_networks: [] },
      'success',
      'No Machine Network CIDR needed: User Managed Networking',
    ],
    [
      { kind: 'AddHostsCluster', machine_networks: [] },
      'success',
      'No Machine Network CIDR needed: Day2 cluster',
    ],
    [{}, 'success', 'Machine Network CIDR is defined'],
    [{ machine_networks: [], vip_dhcp_allocation: true }, 'failure', 'Machine Network CIDR is undefined'],
    [
      { machine_networks: [] },
      'failure',
      'Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs',
    ],
  ] as const)('%j', (cl, status, message) => {
    expect(outcome(bound(host(), cl as Partial<Cluster>), 'machine-cidr-defined')).toEqual([status, message]);
  });
  it('suppressed for unbound hosts', () => {
    expect(outcome(unbound(), 'machine-cidr-defined')[0]).toBe('success-suppress-output');
  });
});

describe('belongs-to-machine-cidr', () => {
  const dual = { machine_networks: [{ cidr: '192.168.10.0/24' }, { cidr: 'fd00::/64' }] };
  const v6host = host({
    inventory: inventory({
      interfaces: [{ name: 'eth0', ipv4_addresses: ['192.168.10.10/24'], ipv6_addresses: ['fd00::10/64'] }],
    }),
  });
  const all = ['success', 'Host belongs to all machine network CIDRs'];
  const notAll = [
    'failure',
    'Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks',
  ];
  const some = ['success', 'Host belongs to at least one machine network CIDR'];
  const none = [
    'failure',
    'Host does not belong to any machine network CIDR. Verify that the host belongs to at least one CIDR listed under machine networks',
  ];
  it.each([
    ['in the only network', host(), {}, all],
    ['outside', host(), { machine_networks: [{ cidr: '10.0.0.0/24' }] }, notAll],
    ['dual-stack, in both', v6host, dual, all],
    ['dual-stack, only IPv4', host(), dual, notAll],
    ['user-managed LB, in one', host(), { ...dual, load_balancer: { type: 'user-managed' } }, some],
    [
      'user-managed LB, in none',
      host(),
      { machine_networks: [{ cidr: '10.0.0.0/24' }], load_balancer: { type: 'user-managed' } },
      none,
    ],
    [
      'UMN multi-node',
      host(),
      { user_managed_networking: true },
      ['success', 'No machine network CIDR validation needed: User Managed Networking'],
    ],
    [
      'UMN multi-node bootstrap without CIDR',
      host({ bootstrap: true }),
      { user_managed_networking: true, machine_networks: [] },
      ['success', 'No machine network CIDR validation needed: User Managed Networking'],
    ],
    [
      'UMN multi-node bootstrap with CIDR is checked',
      host({ bootstrap: true }),
      { user_managed_networking: true, machine_networks: [{ cidr: '10.0.0.0/24' }] },
      notAll,
    ],
    [
      'SNO is checked',
      host(),
      { user_managed_networking: true, control_plane_count: 1, machine_networks: [{ cidr: '10.0.0.0/24' }] },
      notAll,
    ],
    [
      'day-2',
      host(),
      { kind: 'AddHostsCluster' },
      ['success', 'No machine network CIDR validation needed: Day2 cluster'],
    ],
    [
      'no machine network',
      host(),
      { machine_networks: [] },
      ['pending', 'Missing inventory or machine network CIDR'],
    ],
    [
      'no inventory',
      host({ inventory: undefined }),
      {},
      ['pending', 'Missing inventory or machine network CIDR'],
    ],
  ] as const)('%s', (_name, h, cl, want) => {
    expect(outcome(bound(h, cl as Partial<Cluster>), 'belongs-to-machine-cidr')).toEqual(want);
  });
  it('suppressed for unbound hosts', () => {
    expect(outcome(unbound(), 'belongs-to-machine-cidr')[0]).toBe('success-suppress-output');
  });
});

describe('ignition-downloadable (day-2 hosts)', () => {
  const day2 = (api_vip_connectivity: unknown) =>
    bound(host({ kind: 'AddToExistingClusterHost', api_vip_connectivity: api_vip_connectivity as never }), {
      kind: 'AddHostsCluster',
    });
  it.each([
    [undefined, 'pending', 'Ignition is not yet available, pending API connectivity'],
    ['', 'pending', 'Ignition is not yet available, pending API connectivity'],
    ['{bad', 'error', 'Internal error - failed to parse agent API connectivity response'],
    [{ is_success: true }, 'success', 'Ignition is downloadable'],
    ['{"is_success":true}', 'success', 'Ignition is downloadable'],
    [
      { is_success: false },
      'failure',
      'This host has failed to download the ignition file from the cluster, please ensure the host can reach the cluster',
    ],
    [
      { is_success: false, url: 'https://api.x:22623/config/worker', download_error: 'connection refused' },
      'failure',
      'This host has failed to download the ignition file from https://api.x:22623/config/worker with the following error: connection refused. Please ensure the host can reach this URL',
    ],
  ])('%j', (reply, status, message) =>
    expect(outcome(day2(reply), 'ignition-downloadable')).toEqual([status, message]),
  );
  it('suppressed for day-1 and unbound hosts', () => {
    expect(outcome(bound(), 'ignition-downloadable')[0]).toBe('success-suppress-output');
    expect(outcome(unbound(), 'ignition-downloadable')[0]).toBe('success-suppress-output');
  });
});

describe('belongs-to-majority-group', () => {
  const groups = (g: unknown) => ({ connectivity_majority_groups: JSON.stringify(g) });
  const has = ['success', 'Host has connectivity to the majority of hosts in the cluster'];
  const no = ['failure', 'No connectivity to the majority of hosts in the cluster'];
  const l3 = { user_managed_networking: true, platform: { type: 'none' }, machine_networks: [] };
  it.each([
    ['L2 member', {}, has],
    [
      'L2 member, key written with host bits',
      groups({ majority_groups: { '192.168.10.7/24': ['host-0'] } }),
      has,
    ],
    ['L2 not a member', groups({ majority_groups: { '192.168.10.0/24': ['host-1', 'host-2'] } }), no],
    [
      'L2 other keys ignored',
      groups({ majority_groups: { IPv4: ['host-0'], '10.0.0.0/24': ['host-0'] } }),
      no,
    ],
    [
      'L2 without machine networks',
      { machine_networks: [] },
      ['pending', 'Not enough information to calculate host majority groups'],
    ],
    [
      'no data',
      { connectivity_majority_groups: undefined },
      ['pending', 'Machine Network CIDR or Connectivity Majority Groups missing'],
    ],
    [
      'bad JSON',
      { connectivity_majority_groups: '{' },
      ['error', 'Parse error for connectivity majority group'],
    ],
    [
      'L3 (UMN) reached with an IPv4 address',
      { ...l3, ...groups({ l3_connected_addresses: { 'host-0': ['192.168.10.10'] } }) },
      has,
    ],
    [
      'L3 (UMN) not reached',
      { ...l3, ...groups({ l3_connected_addresses: { 'host-1': ['192.168.10.11'] } }) },
      no,
    ],
    [
      'L3 dual-stack needs both families',
      {
        ...l3,
        service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
        ...groups({ l3_connected_addresses: { 'host-0': ['192.168.10.10'] } }),
      },
      no,
    ],
    [
      'L3 dual-stack with both families',
      {
        ...l3,
        service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
        ...groups({ l3_connected_addresses: { 'host-0': ['192.168.10.10', 'fd00::10'] } }),
      },
      has,
    ],
    [
      'L3 for user-managed load balancer',
      {
        load_balancer: { type: 'user-managed' },
        ...groups({ l3_connected_addresses: { 'host-0': ['192.168.10.10'] } }),
      },
      has,
    ],
    [
      'L3 without any configured CIDR fails',
      { ...l3, cluster_networks: [], service_networks: [], ...groups({}) },
      no,
    ],
    ['SNO', { control_plane_count: 1, connectivity_majority_groups: undefined }, has],
  ] as const)('%s', (_name, cl, want) => {
    expect(outcome(bound(host(), cl as Partial<Cluster>), 'belongs-to-majority-group')).toEqual(want);
  });

  it('a failure with fewer than 3 hosts is pending', () => {
    const h = host();
    const input = bound(h, { hosts: [h, peers()[0]!], ...groups({ majority_groups: {} }) });
    expect(outcome(input, 'belongs-to-majority-group')).toEqual([
      'pending',
      'Not enough hosts in cluster to calculate connectivity groups',
    ]);
  });

  it('two nodes with fencing: 2 hosts are enough to fail', () => {
    const a = host({ fencing_credentials: '{}' });
    const b = { ...peers()[0]!, fencing_credentials: '{}' };
    const input = bound(a, { control_plane_count: 2, hosts: [a, b], ...groups({ majority_groups: {} }) });
    expect(outcome(input, 'belongs-to-majority-group')).toEqual(no);
    const noFencing = bound(host(), {
      control_plane_count: 2,
      hosts: [host(), peers()[0]!],
      ...groups({ majority_groups: {} }),
    });
    expect(outcome(noFencing, 'belongs-to-majority-group')[0]).toBe('pending');
    const arbiter = host({
      id: 'host-a',
      role: 'arbiter',
      suggested_role: 'arbiter',
      fencing_credentials: '{}',
    });
    const withArbiter = bound(a, {
      control_plane_count: 2,
      hosts: [a, arbiter],
      ...groups({ majority_groups: {} }),
    });
    expect(outcome(withArbiter, 'belongs-to-majority-group')[0]).toBe('pending');
  });

  it('day-2 hosts pass; unbound hosts are suppressed', () => {
    const d2 = bound(host({ kind: 'AddToExistingClusterHost' }), { kind: 'AddHostsCluster' });
    expect(outcome(d2, 'belongs-to-majority-group')).toEqual([
      'success',
      'Day2 host is not required to be connected to other hosts in the cluster',
    ]);
    expect(outcome(unbound(), 'belongs-to-majority-group')[0]).toBe('success-suppress-output');
  });
});

describe('mtu-valid', () => {
  const report = (mtu: { outgoing_nic?: string; remote_ip_address?: string; mtu_successful?: boolean }[]) =>
    host({ connectivity: { remote_hosts: [{ host_id: 'host-1', mtu_report: mtu }] } });
  const broken = (nic: string, ip: string) => [
    'failure',
    `MTU is broken. Interface: ${nic}, remote IP address: ${ip}`,
  ];
  const ok = ['success', 'MTU is ok'];
  it.each([
    [
      'all fine',
      report([{ outgoing_nic: 'eth0', remote_ip_address: '192.168.10.11', mtu_successful: true }]),
      {},
      ok,
    ],
    [
      'broken in the machine network',
      report([{ outgoing_nic: 'eth0', remote_ip_address: '192.168.10.11', mtu_successful: false }]),
      {},
      broken('eth0', '192.168.10.11'),
    ],
    [
      'broken outside the machine network (CMN ignores it)',
      report([{ outgoing_nic: 'eth0', remote_ip_address: '10.9.9.9', mtu_successful: false }]),
      {},
      ok,
    ],
    [
      'broken from a NIC outside the machine network',
      report([{ outgoing_nic: 'eth9', remote_ip_address: '192.168.10.11', mtu_successful: false }]),
      {},
      ok,
    ],
    [
      'UMN counts every report',
      report([{ outgoing_nic: 'eth9', remote_ip_address: '10.9.9.9', mtu_successful: false }]),
      { user_managed_networking: true },
      broken('eth9', '10.9.9.9'),
    ],
    ['no report', host({ connectivity: undefined }), {}, ['pending', 'Missing MTU report information']],
    ['no inventory', host({ inventory: undefined }), {}, ['pending', 'Missing host inventory']],
    [
      'day-2',
      host({ kind: 'AddToExistingClusterHost' }),
      { kind: 'AddHostsCluster' },
      ['success', 'Day2 host is not required to be connected to other hosts in the cluster'],
    ],
    ['SNO', host(), { control_plane_count: 1 }, ['success-suppress-output', '']],
  ] as const)('%s', (_name, h, cl, want) => {
    expect(outcome(bound(h as Host, cl as Partial<Cluster>), 'mtu-valid')).toEqual(want);
  });
  it('suppressed for unbound hosts', () =>
    expect(outcome(unbound(), 'mtu-valid')[0]).toBe('success-suppress-output'));
});

describe('valid-platform-network-settings', () => {
  const product = (product_name?: string) =>
    host({
      inventory: inventory({ system_vendor: product_name === undefined ? undefined : { product_name } }),
    });
  it.each([
    [product('PowerEdge'), {}, ['success', 'Platform PowerEdge is allowed']],
    [
      product('OpenStack Compute'),
      {},
      [
        'failure',
        'Platform OpenStack Compute is allowed only for Single Node OpenShift or user-managed networking',
      ],
    ],
    [
      product('OpenStack Compute'),
      { user_managed_networking: true },
      ['success', 'Platform OpenStack Compute is allowed'],
    ],
    [product(undefined), {}, ['error', 'Validation error']],
    [host({ inventory: undefined }), {}, ['pending', 'Missing inventory']],
  ] as const)('%#', (h, cl, want) =>
    expect(outcome(bound(h, cl), 'valid-platform-network-settings')).toEqual(want),
  );
  it('unbound OpenStack host is suppressed, other unbound hosts reported', () => {
    expect(
      outcome(
        unbound({ inventory: product('OpenStack Compute').inventory! }),
        'valid-platform-network-settings',
      )[0],
    ).toBe('success-suppress-output');
    expect(outcome(unbound(), 'valid-platform-network-settings')[0]).toBe('success');
  });
});

describe('ntp-synced', () => {
  const fail = ['failure', "Host couldn't synchronize with any NTP server"];
  it.each([
    [
      [
        { source_name: 'a', source_state: 'unreachable' },
        { source_name: 'b', source_state: 'synced' },
      ],
      ['success', 'Host NTP is synced'],
    ],
    [[{ source_name: 'a', source_state: 'combined' }], fail],
    [[], fail],
    [undefined, fail],
  ] as const)('%j', (sources, want) => {
    expect(outcome(bound(host({ ntp_sources: sources as Host['ntp_sources'] })), 'ntp-synced')).toEqual(want);
  });
  it('unbound host without configured NTP sources is suppressed', () => {
    expect(outcome(unbound({ ntp_sources: [] }), 'ntp-synced')[0]).toBe('success-suppress-output');
    const withSources = unbound(
      { ntp_sources: [] },
      { infraEnv: { ...infraEnv, additional_ntp_sources: 'ntp.example.com' } },
    );
    expect(outcome(withSources, 'ntp-synced')).toEqual(fail);
    expect(outcome(unbound({ ntp_sources: [], status: 'binding' }), 'ntp-synced')).toEqual(fail);
  });
});

describe('time-synced-between-host-and-service (service ahead ≤ 20 min, host ahead ≤ 60 min)', () => {
  const at = (offsetSeconds: number) => bound(host({ timestamp: Math.floor(NOW / 1000) + offsetSeconds }));
  const serviceTime = '2025-03-06 14:40:00 +0000 UTC';
  it.each([
    [-20 * 60, 'success', 'Host clock is synchronized with service'],
    [
      -20 * 60 - 1,
      'failure',
      `Host clock is not synchronized, service time is ahead of host's at least for 20.0 minutes, please configure an NTP server via DHCP. Service time: ${serviceTime}`,
    ],
    [60 * 60, 'success', 'Host clock is synchronized with service'],
    [
      60 * 60 + 1,
      'failure',
      `Host clock is not synchronized, host time is ahead of service at least for 60.0 minutes, please configure an NTP server via DHCP. Service time: ${serviceTime}`,
    ],
    [0, 'success', 'Host clock is synchronized with service'],
  ])('host offset %d s', (offset, status, message) => {
    expect(outcome(at(offset), 'time-synced-between-host-and-service')).toEqual([status, message]);
  });
  it('missing host time is pending', () => {
    for (const timestamp of [0, undefined]) {
      expect(outcome(bound(host({ timestamp })), 'time-synced-between-host-and-service')).toEqual([
        'pending',
        "Missing host time, can't determine synchronization between host and service",
      ]);
    }
  });
  it('service time keeps milliseconds as Go prints them', () => {
    const input = { ...at(-3600), now: NOW + 250 };
    expect(outcome(input, 'time-synced-between-host-and-service')[1]).toMatch(
      /Service time: 2025-03-06 14:40:00\.25 \+0000 UTC$/,
    );
  });
});

describe('container-images-available', () => {
  const images = (s: Host['images_status']) => bound(host({ images_status: s }));
  const failure = (list: string) =>
    `Failed to fetch container images needed for installation from ${list}. This may be due to a network hiccup. Retry to install again. If this problem persists, check your network settings to make sure you’re not blocked.`;
  const success =
    'All required container images were either pulled successfully or no attempt was made to pull them';
  it.each([
    [undefined, ['success', success]],
    [{}, ['success', success]],
    [
      { a: { name: 'quay.io/a', result: 'success', size_bytes: 100, download_rate: 0.001 } },
      ['success', success],
    ],
    [
      { a: { name: 'quay.io/a', result: 'success', size_bytes: 100, download_rate: 0.0009 } },
      ['failure', failure('quay.io/a')],
    ],
    [{ a: { name: 'quay.io/a', result: 'success', size_bytes: 0, download_rate: 0 } }, ['success', success]],
    [
      {
        b: { name: 'quay.io/b', result: 'failure' },
        a: { name: 'quay.io/a', result: 'failure' },
        c: { name: 'quay.io/c', result: 'success' },
      },
      ['failure', failure('quay.io/a,quay.io/b')],
    ],
    [{ 'quay.io/k': { result: 'failure' } }, ['failure', failure('quay.io/k')]],
  ] as const)('%j', (s, want) =>
    expect(outcome(images(s as Host['images_status']), 'container-images-available')).toEqual(want),
  );
});

describe('has-default-route', () => {
  const routes = (r: unknown) => bound(host({ inventory: inventory({ routes: r as never }) }));
  const ok = ['success', 'Host has been configured with at least one default route.'];
  const no = ['failure', 'Host has not yet been configured with a default route.'];
  it.each([
    [[{ destination: '0.0.0.0', gateway: '10.0.0.1' }], ok],
    [[{ destination: '::', gateway: 'fe80::1', family: 10 }], ok],
    [[{ destination: '0.0.0.0', gateway: '0.0.0.0' }], no],
    [[{ destination: '10.0.0.0', gateway: '10.0.0.1' }], no],
    [[{ destination: '0.0.0.0' }], no],
    [[{ destination: 'default', gateway: '10.0.0.1' }], no],
    [[], no],
    [null, no],
  ])('%j', (r, want) => expect(outcome(routes(r), 'has-default-route')).toEqual(want));
  it('pending without inventory', () => {
    expect(outcome(bound(host({ inventory: undefined })), 'has-default-route')).toEqual([
      'pending',
      'Missing default routing information.',
    ]);
  });
});

it('stage type sanity', () => {
  const s: HostStage = 'Rebooting';
  expect(s).toBe('Rebooting');
});
