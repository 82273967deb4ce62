import { describe, expect, it } from 'vitest';
import {
  defaultRouteMetricForInterface,
  findHostAddressInCidr,
  hostAddresses,
  hostBelongsToNetwork,
  hostIps,
  inventoryNetworks,
  inventoryNetworksByFamily,
  isDefaultRoute,
  lowestMetricDefaultRoute,
} from '../../../../src/core/network/host-networks.ts';
import {
  autoAssignMachineNetworks,
  bootstrapHost,
  calculateMachineNetworkCidr,
  hostInAllMachineNetworks,
  hostsInPrimaryMachineNetwork,
  ipForSingleNodeInstallation,
  machineNetworksForUserManagedNetworking,
  primaryMachineCidrForUserManagedNetworking,
  primaryMachineCidrInterface,
} from '../../../../src/core/network/machine-network.ts';
import { cluster, host, hostWithAddresses, iface, inventory, route } from './fixtures.ts';

const now = new Date('2026-01-01T00:00:00Z');

describe('host networks', () => {
  const h = host('h1', {
    inventory: inventory([
      iface('eth0', ['192.168.1.10/24', 'bad'], ['2001:db8::10/64']),
      iface('eth1', ['10.0.0.5/16']),
      { name: 'eth2' },
    ]),
  });
  it('lists addresses and networks deterministically', () => {
    expect(hostAddresses(h)).toEqual(['192.168.1.10/24', 'bad', '2001:db8::10/64', '10.0.0.5/16']);
    expect(inventoryNetworks([h, hostWithAddresses('h2', ['192.168.1.11/24', '172.16.0.1/12'])])).toEqual([
      '192.168.1.0/24',
      '2001:db8::/64',
      '10.0.0.0/16',
      '172.16.0.0/12',
    ]);
    expect(inventoryNetworksByFamily([h])).toEqual({
      ipv4: ['192.168.1.0/24', '10.0.0.0/16'],
      ipv6: ['2001:db8::/64'],
    });
    expect(inventoryNetworks([host('no-inv')])).toEqual([]);
    expect(hostIps(h, 'ipv4')).toEqual(['192.168.1.10', '10.0.0.5']);
    expect(hostIps(h, 'ipv6')).toEqual(['2001:db8::10']);
  });
  it('finds addresses inside a CIDR', () => {
    expect(findHostAddressInCidr(h, '10.0.0.0/16')?.interface.name).toBe('eth1');
    expect(findHostAddressInCidr(h, '10.0.0.0/16')?.ip).toBe('10.0.0.5');
    expect(findHostAddressInCidr(h, '2001:db8::/64')?.address).toBe('2001:db8::10/64');
    expect(hostBelongsToNetwork(h, '172.16.0.0/12')).toBe(false);
    expect(hostBelongsToNetwork(h, 'bad')).toBe(false);
  });
  it('default routes', () => {
    expect(isDefaultRoute(route('eth0', '192.168.1.1'))).toBe(true);
    expect(isDefaultRoute(route('eth0', 'fe80::1'))).toBe(true);
    expect(isDefaultRoute({ destination: '10.0.0.0', gateway: '192.168.1.1' })).toBe(false);
    expect(isDefaultRoute({ gateway: '192.168.1.1' })).toBe(false);
    const routes = [
      route('eth0', '192.168.1.1', 200),
      route('eth1', '10.0.0.1', 100),
      route('eth1', '10.0.0.2', 100),
      route('eth0', 'fe80::1', 50),
      { interface: 'eth3', destination: '0.0.0.0', family: 2, metric: 1 },
    ];
    expect(lowestMetricDefaultRoute(routes, 'ipv4')?.gateway).toBe('10.0.0.1');
    expect(lowestMetricDefaultRoute(routes, 'ipv6')?.gateway).toBe('fe80::1');
    expect(lowestMetricDefaultRoute(null, 'ipv6')).toBeUndefined();
    expect(defaultRouteMetricForInterface(routes, 'eth0', 'ipv4')).toBe(200);
    expect(defaultRouteMetricForInterface(routes, 'eth0', 'ipv6')).toBe(50);
    expect(defaultRouteMetricForInterface(routes, 'eth9', 'ipv4')).toBeUndefined();
    expect(
      defaultRouteMetricForInterface([{ interface: 'eth0', destination: '0.0.0.0' }], 'eth0', 'ipv4'),
    ).toBeUndefined();
    expect(
      defaultRouteMetricForInterface(
        [{ interface: 'eth0', destination: '::', gateway: 'fe80::1' }],
        'eth0',
        'ipv6',
      ),
    ).toBe(0);
  });
});

describe('calculateMachineNetworkCidr', () => {
  const hosts = [
    host('no-inv'),
    hostWithAddresses('h1', ['10.0.0.5/24', '2001:db8::5/64']),
    hostWithAddresses('h2', ['192.168.1.5/24']),
  ];
  it.each([
    ['10.0.0.100', undefined, false, { cidr: '10.0.0.0/24' }],
    [undefined, '192.168.1.200', false, { cidr: '192.168.1.0/24' }],
    ['', '192.168.1.200', false, { cidr: '192.168.1.0/24' }],
    ['2001:db8::100', undefined, false, { cidr: '2001:db8::/64' }],
    [undefined, undefined, true, { cidr: '' }],
    ['172.16.0.1', undefined, false, { cidr: '' }],
    ['172.16.0.1', undefined, true, { error: 'No suitable matching CIDR found for VIP 172.16.0.1' }],
    ['nope', undefined, true, { error: 'Could not parse VIP ip nope' }],
  ])('api %s ingress %s', (api, ingress, required, expected) => {
    expect(calculateMachineNetworkCidr(api, ingress, hosts, required)).toEqual(expected);
  });
});

describe('autoAssignMachineNetworks', () => {
  const hosts = [
    hostWithAddresses('h1', ['10.0.0.5/24', '2001:db8::5/64']),
    hostWithAddresses('h2', ['10.0.0.6/24']),
  ];

  it('only while pending-for-input or insufficient', () => {
    const c = cluster({ status: 'ready', hosts, api_vips: [{ ip: '10.0.0.100' }] });
    expect(autoAssignMachineNetworks(c, now)).toEqual({ changed: false });
  });

  it('cluster-managed: network containing API VIP[0] (else Ingress VIP[0])', () => {
    const c = cluster({ hosts, api_vips: [{ ip: '10.0.0.100' }], ingress_vips: [{ ip: '10.0.0.101' }] });
    expect(autoAssignMachineNetworks(c, now)).toEqual({
      changed: true,
      machine_networks: [{ cidr: '10.0.0.0/24' }],
      machine_network_cidr_updated_at: '2026-01-01T00:00:00.000Z',
    });
    expect(autoAssignMachineNetworks({ ...c, machine_networks: [{ cidr: '10.0.0.0/24' }] }, now)).toEqual({
      changed: false,
    });
    expect(
      autoAssignMachineNetworks(
        cluster({ hosts, status: 'pending-for-input', ingress_vips: [{ ip: '10.0.0.9' }] }),
        now,
      ).changed,
    ).toBe(true);
  });

  it('dual-stack: both indexes; primary missing on dual-stack → no change', () => {
    const dual = {
      hosts,
      api_vips: [{ ip: '10.0.0.100' }, { ip: '2001:db8::100' }],
      ingress_vips: [{ ip: '10.0.0.101' }, { ip: '2001:db8::101' }],
      service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
    };
    expect(autoAssignMachineNetworks(cluster(dual), now)).toMatchObject({
      changed: true,
      machine_networks: [{ cidr: '10.0.0.0/24' }, { cidr: '2001:db8::/64' }],
    });
    expect(
      autoAssignMachineNetworks(
        cluster({ ...dual, machine_networks: [{ cidr: '10.0.0.0/24' }, { cidr: '2001:db8::/64' }] }),
        now,
      ),
    ).toEqual({ changed: false });
    expect(
      autoAssignMachineNetworks(
        cluster({ ...dual, api_vips: [{ ip: '172.16.0.1' }], ingress_vips: [{ ip: '172.16.0.2' }] }),
        now,
      ),
    ).toEqual({ changed: false });
  });

  it('single-stack: a VIP outside every host network clears the machine networks (upstream behaviour)', () => {
    const c = cluster({
      hosts,
      api_vips: [{ ip: '172.16.0.1' }],
      machine_networks: [{ cidr: '10.0.0.0/24' }],
    });
    expect(autoAssignMachineNetworks(c, now)).toMatchObject({ changed: true, machine_networks: [] });
    expect(autoAssignMachineNetworks(cluster({ hosts }), now)).toEqual({ changed: false });
  });

  it('never for multi-node UMN or user-managed load balancer', () => {
    const vips = { hosts, api_vips: [{ ip: '10.0.0.100' }] };
    expect(autoAssignMachineNetworks(cluster({ ...vips, user_managed_networking: true }), now)).toEqual({
      changed: false,
    });
    expect(
      autoAssignMachineNetworks(cluster({ ...vips, load_balancer: { type: 'user-managed' } }), now),
    ).toEqual({ changed: false });
  });

  it('DHCP mode: the single distinct host network', () => {
    const v4only = [hostWithAddresses('h1', ['10.0.0.5/24']), hostWithAddresses('h2', ['10.0.0.6/24'])];
    const c = cluster({ hosts: v4only, vip_dhcp_allocation: true });
    expect(autoAssignMachineNetworks(c, now)).toMatchObject({
      changed: true,
      machine_networks: [{ cidr: '10.0.0.0/24' }],
    });
    expect(autoAssignMachineNetworks({ ...c, machine_networks: [{ cidr: '10.0.0.0/24' }] }, now)).toEqual({
      changed: false,
    });
    expect(autoAssignMachineNetworks(cluster({ hosts, vip_dhcp_allocation: true }), now)).toEqual({
      changed: false,
    });
  });

  describe('SNO', () => {
    const sno = (fields = {}) =>
      cluster({
        control_plane_count: 1,
        user_managed_networking: true,
        platform: { type: 'none' },
        ...fields,
      });

    it('one network per family', () => {
      const h = hostWithAddresses('h1', ['10.0.0.5/24']);
      expect(autoAssignMachineNetworks(sno({ hosts: [h] }), now)).toMatchObject({
        changed: true,
        machine_networks: [{ cidr: '10.0.0.0/24' }],
      });
      expect(
        autoAssignMachineNetworks(sno({ hosts: [h], machine_networks: [{ cidr: '10.0.0.0/24' }] }), now),
      ).toEqual({
        changed: false,
      });
    });

    it('several candidates: the network of the default gateway', () => {
      const h = host('h1', {
        inventory: inventory([iface('eth0', ['10.0.0.5/24']), iface('eth1', ['192.168.7.5/24'])], {
          routes: [route('eth0', '10.0.0.1', 300), route('eth1', '192.168.7.1', 100)],
        }),
      });
      expect(autoAssignMachineNetworks(sno({ hosts: [h] }), now)).toMatchObject({
        changed: true,
        machine_networks: [{ cidr: '192.168.7.0/24' }],
      });
      const noRoute = host('h1', {
        inventory: inventory([iface('eth0', ['10.0.0.5/24']), iface('eth1', ['192.168.7.5/24'])]),
      });
      expect(autoAssignMachineNetworks(sno({ hosts: [noRoute] }), now)).toEqual({
        changed: false,
        error: 'missing default cidr for IPv4',
      });
    });

    it('families of cluster and service networks must agree, and each family needs a candidate', () => {
      const h = hostWithAddresses('h1', ['10.0.0.5/24']);
      expect(
        autoAssignMachineNetworks(sno({ hosts: [h], service_networks: [{ cidr: 'fd02::/112' }] }), now),
      ).toEqual({
        changed: false,
      });
      expect(
        autoAssignMachineNetworks(
          sno({
            hosts: [h],
            service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }],
            cluster_networks: [
              { cidr: '10.128.0.0/14', host_prefix: 23 },
              { cidr: 'fd01::/48', host_prefix: 64 },
            ],
          }),
          now,
        ),
      ).toEqual({ changed: false });
      expect(
        autoAssignMachineNetworks(sno({ hosts: [h], service_networks: [{ cidr: 'bad' }] }), now),
      ).toEqual({ changed: false });
      expect(
        autoAssignMachineNetworks(sno({ hosts: [h], service_networks: [], cluster_networks: [] }), now),
      ).toEqual({ changed: false });
    });
  });
});

describe('UMN / SNO helpers', () => {
  const bootstrap = host('b', {
    bootstrap: true,
    inventory: inventory([iface('eth0', ['10.0.0.5/24', '10.1.0.5/24'], ['2001:db8::5/64'])]),
  });
  const other = hostWithAddresses('o', ['10.0.0.6/24']);

  it('machine networks from the bootstrap host', () => {
    const c = cluster({ user_managed_networking: true, hosts: [other, bootstrap] });
    expect(bootstrapHost(c)).toBe(bootstrap);
    expect(machineNetworksForUserManagedNetworking(c)).toEqual([
      { cidr: '10.0.0.0/24' },
      { cidr: '2001:db8::/64' },
    ]);
    expect(machineNetworksForUserManagedNetworking({ ...c, primary_ip_stack: 6 })).toEqual([
      { cidr: '2001:db8::/64' },
      { cidr: '10.0.0.0/24' },
    ]);
    expect(primaryMachineCidrForUserManagedNetworking(c)).toBe('10.0.0.0/24');
    expect(
      machineNetworksForUserManagedNetworking({ ...c, machine_networks: [{ cidr: '10.1.0.0/24' }] }),
    ).toEqual([{ cidr: '10.1.0.0/24' }]);
    expect(machineNetworksForUserManagedNetworking(cluster({ hosts: [other] }))).toEqual([]);
    expect(primaryMachineCidrForUserManagedNetworking(cluster({ hosts: [other] }))).toBe('');
  });

  it('SNO install IP', () => {
    expect(ipForSingleNodeInstallation(cluster({ hosts: [bootstrap] }))).toEqual({ ip: '10.0.0.5' });
    expect(
      ipForSingleNodeInstallation(
        cluster({ hosts: [bootstrap], machine_networks: [{ cidr: '10.1.0.0/24' }] }),
      ),
    ).toEqual({
      ip: '10.1.0.5',
    });
    expect(
      ipForSingleNodeInstallation(
        cluster({ hosts: [bootstrap], machine_networks: [{ cidr: '10.9.0.0/24' }] }),
      ),
    ).toEqual({
      error: 'failed to get ip for single node installation',
    });
    expect(ipForSingleNodeInstallation(cluster({ hosts: [other] }))).toEqual({
      error: 'no bootstrap host were found in cluster',
    });
    expect(ipForSingleNodeInstallation(cluster({ hosts: [host('b', { bootstrap: true })] }))).toEqual({
      error: 'failed to get ip for single node installation',
    });
  });

  it('primary machine network membership', () => {
    const c = cluster({
      hosts: [bootstrap, other, host('none')],
      machine_networks: [{ cidr: '10.0.0.0/24' }, { cidr: '2001:db8::/64' }],
    });
    expect(hostsInPrimaryMachineNetwork(c).map((h) => h.id)).toEqual(['b', 'o']);
    expect(hostsInPrimaryMachineNetwork(cluster({ hosts: [bootstrap] }))).toEqual([]);
    expect(primaryMachineCidrInterface(bootstrap, c)).toBe('eth0');
    expect(primaryMachineCidrInterface(bootstrap, cluster())).toBeUndefined();
    expect(hostInAllMachineNetworks(bootstrap, c)).toBe(true);
    expect(hostInAllMachineNetworks(other, c)).toBe(false);
    expect(hostInAllMachineNetworks(other, cluster())).toBe(false);
  });
});
