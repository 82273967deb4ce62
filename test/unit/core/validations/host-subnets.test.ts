import { describe, expect, it } from 'vitest';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import { interfaceNetworks } from '../../../../src/core/validations/host-subnets.ts';
import { bound, host, inventory, unbound } from './host-fixtures.ts';
import { outcome } from './host-helpers.ts';

const nics = (interfaces: unknown) => host({ inventory: inventory({ interfaces: interfaces as never }) });

describe('non-overlapping-subnets', () => {
  const ID = 'non-overlapping-subnets';
  const dual: Partial<Cluster> = {
    cluster_networks: [
      { cidr: '10.128.0.0/14', host_prefix: 23 },
      { cidr: 'fd01::/48', host_prefix: 64 },
    ],
    service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
  };
  it.each([
    [
      'distinct networks',
      [
        { name: 'eth0', ipv4_addresses: ['10.0.0.1/24'] },
        { name: 'eth1', ipv4_addresses: ['10.0.1.1/24'] },
      ],
      {},
      ['success', 'Host subnets are not overlapping'],
    ],
    [
      'same network on two NICs',
      [
        { name: 'eth0', ipv4_addresses: ['10.0.0.1/24'] },
        { name: 'eth1', ipv4_addresses: ['10.0.0.2/24'] },
      ],
      {},
      [
        'failure',
        'Address networks are overlapping: Address network 10.0.0.0/24 appears on multiple interfaces [eth0, eth1]',
      ],
    ],
    [
      'same network twice on one NIC is de-duplicated',
      [{ name: 'eth0', ipv4_addresses: ['10.0.0.1/24', '10.0.0.2/24'] }],
      {},
      ['success', 'Host subnets are not overlapping'],
    ],
    [
      'containment',
      [
        { name: 'eth0', ipv4_addresses: ['10.0.0.1/16'] },
        { name: 'eth1', ipv4_addresses: ['10.0.5.1/24'] },
      ],
      {},
      [
        'failure',
        'Address networks are overlapping: Address networks 10.0.0.0/16 in interface eth0 and 10.0.5.0/24 in interface eth1 overlap',
      ],
    ],
    [
      'IPv6 overlap ignored on an IPv4-only cluster',
      [
        { name: 'eth0', ipv6_addresses: ['fd00::1/64'] },
        { name: 'eth1', ipv6_addresses: ['fd00::2/64'] },
      ],
      {},
      ['success', 'Host subnets are not overlapping'],
    ],
    [
      'IPv6 overlap on a dual-stack cluster',
      [
        { name: 'eth0', ipv6_addresses: ['fd00::1/64'] },
        { name: 'eth1', ipv6_addresses: ['fd00::2/64'] },
      ],
      dual,
      [
        'failure',
        'Address networks are overlapping: Address network fd00::/64 appears on multiple interfaces [eth0, eth1]',
      ],
    ],
    [
      'bad address',
      [{ name: 'eth0', ipv4_addresses: ['10.0.0.1'] }],
      {},
      ['error', 'Unexpected error: invalid CIDR address: 10.0.0.1'],
    ],
  ] as const)('%s', (_name, interfaces, cl, want) => {
    expect(outcome(bound(nics(interfaces), cl), ID)).toEqual(want);
  });
  it('pending without inventory (even unbound), suppressed for unbound hosts', () => {
    expect(outcome(bound(host({ inventory: undefined })), ID)).toEqual(['pending', 'Missing inventory']);
    expect(outcome(unbound({ inventory: undefined }), ID)).toEqual(['pending', 'Missing inventory']);
    expect(outcome(unbound(), ID)[0]).toBe('success-suppress-output');
  });
  it('interfaceNetworks', () => {
    expect(
      interfaceNetworks([{ name: 'a', ipv4_addresses: ['10.1.2.3/8', '10.9.9.9/8'] }, {}], 'ipv4'),
    ).toEqual([{ cidr: '10.0.0.0/8', nic: 'a' }]);
  });
});

describe('no-ip-collisions-in-network', () => {
  const ID = 'no-ip-collisions-in-network';
  const collisions = (c: unknown) => ({ ip_collisions: typeof c === 'string' ? c : JSON.stringify(c) });
  it.each([
    ['not evaluated yet', {}, ['success', 'IP collisions have not yet been evaluated']],
    [
      'no collision of this host',
      collisions({ '192.168.10.99': ['a', 'b'] }),
      ['success', 'No IP collisions were detected by host host-0'],
    ],
    [
      'collision',
      collisions({ '192.168.10.10': ['aa:aa', 'bb:bb'] }),
      [
        'failure',
        'Collisions detected for host ID host-0, IP address: 192.168.10.10 Mac addresses: aa:aa,bb:bb\n',
      ],
    ],
    [
      'two collisions, sorted by IP',
      collisions({ 'fd00::10': ['c'], '192.168.10.10': ['a', 'b'] }),
      [
        'failure',
        'Collisions detected for host ID host-0, IP address: 192.168.10.10 Mac addresses: a,b\nCollisions detected for host ID host-0, IP address: fd00::10 Mac addresses: c\n',
      ],
    ],
    [
      'unparsable IP key ignored',
      collisions({ bogus: ['a'] }),
      ['success', 'No IP collisions were detected by host host-0'],
    ],
    ['bad JSON', collisions('{'), ['error', 'Unable to unmarshall ip collision report for cluster']],
    ['day-2', { kind: 'AddHostsCluster' }, ['success', 'Skipping validation for day 2 host host-0']],
  ] as const)('%s', (_name, cl, want) => {
    const h = nics([{ name: 'eth0', ipv4_addresses: ['192.168.10.10/24'], ipv6_addresses: ['fd00::10/64'] }]);
    expect(outcome(bound(h, cl as Partial<Cluster>), ID)).toEqual(want);
  });
  it('bad interface address', () => {
    const h = nics([{ name: 'eth0', ipv4_addresses: ['192.168.10.10'] }]);
    expect(outcome(bound(h, collisions({ '192.168.10.10': ['a'] })), ID)).toEqual([
      'error',
      'inventory of host host-0 contains bad CIDR: invalid CIDR address: 192.168.10.10',
    ]);
  });
  it('no inventory / no cluster', () => {
    expect(outcome(bound(host({ inventory: undefined })), ID)).toEqual([
      'success',
      'Host inventory has not yet been defined, skipping validation.',
    ]);
    expect(outcome(unbound(), ID)).toEqual([
      'success',
      'Cluster has not yet been defined, skipping validation.',
    ]);
  });
});

describe('no-iscsi-nic-belongs-to-machine-cidr', () => {
  const ID = 'no-iscsi-nic-belongs-to-machine-cidr';
  const ifaces = [
    { name: 'eth0', ipv4_addresses: ['192.168.10.10/24'] },
    { name: 'eth1', ipv4_addresses: ['10.50.0.10/24'] },
  ];
  const iscsiHost = (hostIp: string | undefined, o: Partial<Host> = {}) =>
    host({
      installation_disk_id: '/dev/sdb',
      inventory: inventory({
        interfaces: ifaces,
        disks: [
          { name: 'sdb', drive_type: 'iSCSI', ...(hostIp ? { iscsi: { host_ip_address: hostIp } } : {}) },
        ],
      }),
      ...o,
    });
  const ok = [
    'success',
    'Network interface connected to iSCSI disk does not belong to machine network CIDRs',
  ];
  it.each([
    ['NIC outside the machine network', iscsiHost('10.50.0.10'), {}, ok],
    [
      'NIC inside the machine network',
      iscsiHost('192.168.10.10'),
      {},
      ['failure', 'Network interface connected to iSCSI disk cannot belong to machine network CIDRs'],
    ],
    ['no host IP', iscsiHost(undefined), {}, ['error', 'iSCSI disk is missing host IP address']],
    [
      'NIC not found',
      iscsiHost('10.99.0.1'),
      {},
      ['error', 'Cannot find network interface associated to iSCSI host IP address'],
    ],
    [
      'no machine network',
      iscsiHost('10.50.0.10'),
      { machine_networks: [] },
      ['pending', 'Missing inventory or machine network CIDR'],
    ],
    [
      'no inventory',
      host({ inventory: undefined }),
      {},
      ['pending', 'Missing inventory or machine network CIDR'],
    ],
    [
      'UMN multi-node',
      iscsiHost('192.168.10.10'),
      { user_managed_networking: true },
      ['success-suppress-output', ''],
    ],
    [
      'UMN SNO is checked',
      iscsiHost('192.168.10.10'),
      { user_managed_networking: true, control_plane_count: 1 },
      ['failure', 'Network interface connected to iSCSI disk cannot belong to machine network CIDRs'],
    ],
    ['imported', iscsiHost('192.168.10.10'), { imported: true }, ['success-suppress-output', '']],
    ['day-2', iscsiHost('192.168.10.10'), { kind: 'AddHostsCluster' }, ['success-suppress-output', '']],
    [
      'installation disk not found',
      iscsiHost('192.168.10.10', { installation_disk_id: '/dev/nope' }),
      {},
      ['success-suppress-output', ''],
    ],
    ['local installation disk', host(), {}, ['success-suppress-output', '']],
  ] as const)('%s', (_name, h, cl, want) => {
    expect(outcome(bound(h as Host, cl as Partial<Cluster>), ID)).toEqual(want);
  });

  const mpathHost = (paths: { name: string; ip?: string; type?: string }[]) =>
    host({
      installation_disk_id: '/dev/dm-0',
      inventory: inventory({
        interfaces: ifaces,
        disks: [
          { name: 'dm-0', drive_type: 'Multipath' },
          ...paths.map((p) => ({
            name: p.name,
            drive_type: p.type ?? 'iSCSI',
            holders: 'dm-0',
            ...(p.ip ? { iscsi: { host_ip_address: p.ip } } : {}),
          })),
        ],
      }),
    });
  it.each([
    [
      'all paths fine',
      [
        { name: 'sdb', ip: '10.50.0.10' },
        { name: 'sdc', ip: '10.50.0.10' },
      ],
      ok,
    ],
    [
      'two paths in the machine network',
      [
        { name: 'sdb', ip: '192.168.10.10' },
        { name: 'sdc', ip: '192.168.10.10' },
      ],
      [
        'failure',
        'Installation on multipath device is not possible due to errors on at least one iSCSI disk: Network interface connected to iSCSI disk (sdb, sdc) cannot belong to machine network CIDRs',
      ],
    ],
    ['a path without IP', [{ name: 'sdb' }], ['error', 'iSCSI disk is missing host IP address']],
    ['FC paths only', [{ name: 'sdb', type: 'FC' }], ['success-suppress-output', '']],
  ] as const)('multipath: %s', (_name, paths, want) => {
    expect(outcome(bound(mpathHost(paths as never)), ID)).toEqual(want);
  });

  it('unbound hosts are suppressed', () => expect(outcome(unbound(), ID)[0]).toBe('success-suppress-output'));
});
