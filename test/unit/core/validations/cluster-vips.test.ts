import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../../../src/core/model.ts';
import { multiErrorText } from '../../../../src/core/network/vips.ts';
import { host, hostWithAddresses } from '../network/fixtures.ts';
import { NOW, outcome, readyCluster, readyHost } from './cluster-fixtures.ts';

const sno = (f: Partial<Cluster> = {}) =>
  readyCluster({
    control_plane_count: 1,
    user_managed_networking: true,
    platform: { type: 'none' },
    api_vips: [],
    ingress_vips: [],
    hosts: [readyHost(0)],
    ...f,
  });
const umn = (f: Partial<Cluster> = {}) =>
  readyCluster({
    user_managed_networking: true,
    platform: { type: 'none' },
    machine_networks: [],
    api_vips: [],
    ingress_vips: [],
    ...f,
  });
const noInventory = [host('h0', { role: 'master' })];

describe('machine-cidr-defined', () => {
  it.each([
    ['UMN multi-node', umn(), 'success', 'No Machine Network CIDR needed: User Managed Networking'],
    ['defined', readyCluster(), 'success', 'The Machine Network CIDR is defined.'],
    [
      'empty first entry',
      readyCluster({ machine_networks: [{ cidr: '' }], hosts: noInventory }),
      'pending',
      'Hosts have not been discovered yet',
    ],
    [
      'no inventory',
      readyCluster({ machine_networks: [], hosts: noInventory }),
      'pending',
      'Hosts have not been discovered yet',
    ],
    [
      'DHCP',
      readyCluster({ machine_networks: [], vip_dhcp_allocation: true }),
      'failure',
      'The Machine Network CIDR is undefined; setting the Machine Network CIDR initiates the VIPs DHCP lease allocation.',
    ],
    [
      'SNO',
      sno({ machine_networks: [] }),
      'failure',
      'The Machine Network CIDR is undefined; Setting Machine Network CIDR is required for single node cluster',
    ],
    [
      'multi-node',
      readyCluster({ machine_networks: [] }),
      'failure',
      'The Machine Network CIDR is undefined; the Machine Network CIDR can be defined by setting either the API or Ingress virtual IPs.',
    ],
  ])('%s', (_, c, status, message) => {
    expect(outcome(c, 'machine-cidr-defined')).toEqual([status, message]);
  });
});

describe('api-vips-defined / ingress-vips-defined', () => {
  const dhcp = (f: Partial<Cluster> = {}) =>
    readyCluster({ vip_dhcp_allocation: true, api_vips: [], ingress_vips: [], ...f });
  const minute = 60_000;
  it.each([
    ['UMN', umn(), 'success', '%s virtual IPs are not required: User Managed Networking'],
    ['SNO (UMN wins)', sno(), 'success', '%s virtual IPs are not required: User Managed Networking'],
    [
      'SNO without UMN',
      sno({ user_managed_networking: false }),
      'success',
      '%s virtual IPs are not required: SNO',
    ],
    ['defined', readyCluster(), 'success', '%s virtual IPs are defined.'],
    [
      'DHCP without machine CIDR',
      dhcp({ machine_networks: [] }),
      'pending',
      'The Machine Network CIDR is undefined',
    ],
    [
      'DHCP waiting (no timestamp)',
      dhcp(),
      'failure',
      '%s virtual IPs are undefined; after the Machine Network CIDR has been defined, %s virtual IPs are received from a DHCP lease allocation task which may take up to 2 minutes.',
    ],
    [
      'DHCP waiting (exactly 2 minutes)',
      dhcp({ machine_network_cidr_updated_at: new Date(NOW.getTime() - 2 * minute).toISOString() }),
      'failure',
      '%s virtual IPs are undefined; after the Machine Network CIDR has been defined, %s virtual IPs are received from a DHCP lease allocation task which may take up to 2 minutes.',
    ],
    [
      'DHCP timed out (2 minutes + 1 ms)',
      dhcp({ machine_network_cidr_updated_at: new Date(NOW.getTime() - 2 * minute - 1).toISOString() }),
      'failure',
      '%s virtual IPs are undefined; IP allocation from the DHCP server timed out.',
    ],
    [
      'DHCP bad timestamp',
      dhcp({ machine_network_cidr_updated_at: 'garbage' }),
      'failure',
      '%s virtual IPs are undefined; after the Machine Network CIDR has been defined, %s virtual IPs are received from a DHCP lease allocation task which may take up to 2 minutes.',
    ],
    [
      'missing',
      readyCluster({ api_vips: [], ingress_vips: [] }),
      'failure',
      '%s virtual IPs are undefined and must be provided.',
    ],
  ])('%s', (_, c, status, template) => {
    expect(outcome(c, 'api-vips-defined')).toEqual([status, template.replaceAll('%s', 'API')]);
    expect(outcome(c, 'ingress-vips-defined')).toEqual([status, template.replaceAll('%s', 'Ingress')]);
  });
  it('DHCP timeout is configurable', () => {
    const c = dhcp({ machine_network_cidr_updated_at: new Date(NOW.getTime() - 61_000).toISOString() });
    expect(outcome(c, 'api-vips-defined', { config: { dhcpLeaseTimeoutMs: 60_000 } })[1]).toBe(
      'API virtual IPs are undefined; IP allocation from the DHCP server timed out.',
    );
  });
});

describe('api-vips-valid / ingress-vips-valid', () => {
  it.each([
    ['UMN', umn(), 'success', '%S virtual IPs are not required: User Managed Networking'],
    ['SNO (UMN wins)', sno(), 'success', '%S virtual IPs are not required: User Managed Networking'],
    [
      'SNO without UMN',
      sno({ user_managed_networking: false }),
      'success',
      '%S virtual IPs are not required: SNO',
    ],
    ['no VIPs', readyCluster({ api_vips: [], ingress_vips: [] }), 'pending', '%S virtual IPs are undefined.'],
    ['no inventory', readyCluster({ hosts: noInventory }), 'pending', 'Hosts have not been discovered yet'],
    [
      'no machine CIDR',
      readyCluster({ machine_networks: [] }),
      'pending',
      'Hosts have not been discovered yet',
    ],
  ])('%s', (_, c, status, template) => {
    expect(outcome(c, 'api-vips-valid')).toEqual([status, template.replaceAll('%S', 'API')]);
    expect(outcome(c, 'ingress-vips-valid')).toEqual([status, template.replaceAll('%S', 'Ingress')]);
  });

  it('success lists every VIP', () => {
    const c = readyCluster({
      machine_networks: [{ cidr: '192.168.127.0/24' }, { cidr: '2001:db8::/64' }],
      api_vips: [
        { ip: '192.168.127.100', verification: 'succeeded' },
        { ip: '2001:db8::100', verification: 'succeeded' },
      ],
    });
    expect(outcome(c, 'api-vips-valid')).toEqual([
      'success',
      'api vips 192.168.127.100, 2001:db8::100 belongs to the Machine CIDR and is not in use.',
    ]);
  });

  it('failures join the individual errors with ";"', () => {
    const c = readyCluster({
      api_vips: [{ ip: '192.168.128.5' }, { ip: '2001:db8::5' }],
      ingress_vips: [{ ip: '192.168.127.255', verification: 'succeeded' }],
    });
    expect(outcome(c, 'api-vips-valid')).toEqual([
      'failure',
      'api vips <192.168.128.5> does not belong to machine-network-cidr <192.168.127.0/24>;api vips <2001:db8::5> cannot be set if Machine Network CIDR is empty',
    ]);
    expect(outcome(c, 'ingress-vips-valid')).toEqual([
      'failure',
      'ingress vips <192.168.127.255> is the broadcast address of machine-network-cidr <192.168.127.0/24>',
    ]);
  });

  it('unverified and in-use VIPs fail', () => {
    const unverified = readyCluster({ api_vips: [{ ip: '192.168.127.100' }] });
    expect(outcome(unverified, 'api-vips-valid')).toEqual([
      'failure',
      'api vips <192.168.127.100> are not verified yet.',
    ]);
    const used = readyCluster({ api_vips: [{ ip: '192.168.127.100', verification: 'failed' }] });
    expect(outcome(used, 'api-vips-valid')).toEqual([
      'failure',
      'api vips <192.168.127.100> is already in use in cidr 192.168.127.0/24',
    ]);
    const free = readyCluster({
      api_vips: [{ ip: '192.168.127.100' }],
      hosts: [0, 1, 2].map((i) =>
        readyHost(i, {
          free_addresses: [{ network: '192.168.127.0/24', free_addresses: ['192.168.127.100'] }],
        }),
      ),
    });
    expect(outcome(free, 'api-vips-valid')[0]).toBe('success');
  });

  describe('user-managed load balancer', () => {
    const lb = (f: Partial<Cluster> = {}) => readyCluster({ load_balancer: { type: 'user-managed' }, ...f });
    it.each([
      [
        'first VIP in any machine network, no free check',
        lb({
          api_vips: [{ ip: '10.9.0.5' }],
          machine_networks: [{ cidr: '192.168.127.0/24' }, { cidr: '10.9.0.0/24' }],
        }),
        'success',
        'api vip 10.9.0.5 is valid',
      ],
      [
        'failed verification is not consulted',
        lb({ api_vips: [{ ip: '192.168.127.100', verification: 'failed' }] }),
        'success',
        'api vip 192.168.127.100 is valid',
      ],
      [
        'outside',
        lb({ api_vips: [{ ip: '10.9.0.5' }] }),
        'failure',
        'api vip <10.9.0.5> does not belong to machine-network-cidr <192.168.127.0/24>',
      ],
      [
        'broadcast',
        lb({ api_vips: [{ ip: '192.168.127.255' }] }),
        'failure',
        'api vip <192.168.127.255> is the broadcast address of machine-network-cidr <192.168.127.0/24>',
      ],
    ])('%s', (_, c, status, message) => {
      expect(outcome(c, 'api-vips-valid')).toEqual([status, message]);
    });
    it('ingress name', () => {
      expect(outcome(lb(), 'ingress-vips-valid')).toEqual([
        'success',
        'ingress vip 192.168.127.101 is valid',
      ]);
    });
  });
});

describe('machine-cidr-equals-to-calculated-cidr', () => {
  it.each([
    ['UMN', umn(), 'success', 'The Cluster Machine CIDR is not required: User Managed Networking'],
    [
      'user-managed LB',
      readyCluster({ load_balancer: { type: 'user-managed' } }),
      'success',
      'Calculating machine network CIDR is not enabled: User Managed Load Balancer',
    ],
    [
      'no VIPs',
      readyCluster({ api_vips: [], ingress_vips: [] }),
      'pending',
      'The Machine Network CIDR, API virtual IPs, or Ingress virtual IPs are undefined.',
    ],
    ['no inventory', readyCluster({ hosts: noInventory }), 'pending', 'Hosts have not been discovered yet'],
    ['equal', readyCluster(), 'success', 'The Cluster Machine CIDR is equivalent to the calculated CIDR.'],
    [
      'no machine network yet',
      readyCluster({ machine_networks: [] }),
      'success',
      'The Cluster Machine CIDR is equivalent to the calculated CIDR.',
    ],
    [
      'different',
      readyCluster({ machine_networks: [{ cidr: '192.168.0.0/16' }] }),
      'failure',
      multiErrorText([
        'The Cluster Machine CIDR 192.168.0.0/16 is different than the calculated CIDR 192.168.127.0/24.',
      ]),
    ],
    [
      'no host network holds the VIP',
      readyCluster({ api_vips: [{ ip: '10.0.0.1' }], ingress_vips: [{ ip: '10.0.0.2' }] }),
      'failure',
      multiErrorText(['No suitable matching CIDR found for VIP 10.0.0.1']),
    ],
    [
      'only ingress VIPs → nothing to compare',
      readyCluster({ api_vips: [] }),
      'success',
      'The Cluster Machine CIDR is equivalent to the calculated CIDR.',
    ],
  ])('%s', (_, c, status, message) => {
    expect(outcome(c, 'machine-cidr-equals-to-calculated-cidr')).toEqual([status, message]);
  });

  it('dual-stack: each index against its machine network', () => {
    const hosts = [0, 1, 2].map((i) =>
      hostWithAddresses(`h${i}`, [`192.168.127.${10 + i}/24`, `2001:db8::${10 + i}/64`], { role: 'master' }),
    );
    const c = readyCluster({
      hosts,
      machine_networks: [{ cidr: '192.168.127.0/24' }],
      api_vips: [{ ip: '192.168.127.100' }, { ip: '2001:db8::100' }],
      ingress_vips: [{ ip: '192.168.127.101' }, { ip: '2001:db8::101' }],
    });
    expect(outcome(c, 'machine-cidr-equals-to-calculated-cidr')).toEqual([
      'failure',
      multiErrorText(['The Cluster Machine CIDR  is different than the calculated CIDR 2001:db8::/64.']),
    ]);
    c.machine_networks.push({ cidr: '2001:db8::/64' });
    expect(outcome(c, 'machine-cidr-equals-to-calculated-cidr')[0]).toBe('success');
  });
});
