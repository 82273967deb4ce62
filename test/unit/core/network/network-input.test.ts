import { describe, expect, it } from 'vitest';
import {
  type NetworksInput,
  type NetworksInputContext,
  validateIpv6Only,
  validateNetworksInput,
} from '../../../../src/core/network/network-input.ts';

const ctx: NetworksInputContext = {
  userManagedNetworking: false,
  singleNode: false,
  userManagedLoadBalancer: false,
  vipDhcpAllocation: false,
  hostCount: 3,
  openshiftVersion: '4.14',
  ipv6Supported: true,
};
const cn = (cidr: string, host_prefix = 23) => ({ cidr, host_prefix });
const e = (cidr: string) => ({ cidr });

describe('validateNetworksInput', () => {
  it.each([
    [{}, {}, undefined],
    [
      {
        cluster_networks: [cn('10.128.0.0/14')],
        service_networks: [e('172.30.0.0/16')],
        machine_networks: [e('192.168.1.0/24')],
      },
      {},
      undefined,
    ],
    [{ cluster_networks: [cn('')] }, {}, 'Cluster Network CIDR cannot be empty (index 0)'],
    [{ service_networks: [e('172.30.0.0/16'), e('')] }, {}, 'Service Network CIDR cannot be empty (index 1)'],
    [
      { machine_networks: [e('1.2.3.0/33')] },
      {},
      'Could not parse Machine Network CIDR 1.2.3.0/33 (index 0): invalid CIDR address: 1.2.3.0/33',
    ],
    [
      { cluster_networks: [cn('10.128.0.0/26')] },
      {},
      'Address mask size must be between 1 to 25 and must include at least 128 addresses',
    ],
    [{ cluster_networks: [cn('10.128.0.0/14', 0)] }, {}, 'Host prefix, now 0, must be a positive integer'],
    [
      { cluster_networks: [cn('10.128.0.0/14', 26)] },
      {},
      'Host prefix, now 26, must be less than or equal to 25 to allow at least 128 addresses',
    ],
    [
      { cluster_networks: [cn('10.128.0.0/22')] },
      { hostCount: 3 },
      'Cluster network CIDR prefix 22 does not contain enough addresses for 3 hosts each one with 23 prefix (512 addresses)',
    ],
    [{ service_networks: [e('172.30.0.1/16')] }, {}, '172.30.0.1/16 is not a valid network CIDR'],
    [
      { machine_networks: [e('192.168.1.0/29')] },
      {},
      'Address mask size must be between 1 to 28 and must include at least 16 addresses',
    ],
    [{ machine_networks: [e('192.168.1.0/30')] }, { userManagedLoadBalancer: true }, undefined],
    [{ machine_networks: [e('192.168.1.0/31')] }, { singleNode: true }, undefined],
    // Overlap: machine-vs-others only checked for UMN at API time (upstream quirk).
    [
      {
        cluster_networks: [cn('10.128.0.0/14')],
        service_networks: [e('172.30.0.0/16')],
        machine_networks: [e('10.128.0.0/24')],
      },
      {},
      undefined,
    ],
    [
      {
        cluster_networks: [cn('10.128.0.0/14')],
        service_networks: [e('172.30.0.0/16')],
        machine_networks: [e('10.128.0.0/24')],
      },
      { userManagedNetworking: true },
      'MachineNetworkCIDR and ClusterNetworkCidr: CIDRS 10.128.0.0/24 and 10.128.0.0/14 overlap',
    ],
    [
      { cluster_networks: [cn('10.128.0.0/14')], service_networks: [e('10.128.0.0/16')] },
      {},
      'ServiceNetworkCidr and ClusterNetworkCidr: CIDRS 10.128.0.0/16 and 10.128.0.0/14 overlap',
    ],
    [
      { machine_networks: [e('2001:db8::/64')] },
      { vipDhcpAllocation: true },
      'VIP DHCP allocation is unsupported with IPv6 network 2001:db8::/64',
    ],
    [{ machine_networks: [e('192.168.1.0/24')] }, { vipDhcpAllocation: true }, undefined],
    [
      { machine_networks: [e('2001:db8::/64')] },
      { ipv6Supported: false },
      'Single stack IPv6 is not supported in this setup. Please verify your network configuration',
    ],
    [
      { machine_networks: [e('2001:db8::/64')] },
      { ipv6Supported: false, primaryStackKnown: true },
      undefined,
    ],
    [
      { machine_networks: [e('192.168.1.0/24'), e('2001:db8::/64')], service_networks: [e('172.30.0.0/16')] },
      { ipv6Supported: false },
      'Expected 2 service networks, found 1',
    ],
    [
      { machine_networks: [e('2001:db8::/64'), e('192.168.1.0/24')] },
      { openshiftVersion: '4.11' },
      'First machine networks has to be IPv4 subnet (IPv6-primary dual-stack requires OpenShift 4.12+), got 2001:db8::/64',
    ],
  ] as [NetworksInput, Partial<NetworksInputContext>, string | undefined][])(
    '%j %j',
    (input, over, expected) => {
      expect(validateNetworksInput(input, { ...ctx, ...over })).toBe(expected);
    },
  );

  it('IPv6-only check covers every list', () => {
    expect(
      validateIpv6Only({ cluster_networks: [cn('fd01::/48', 64)] }, { ipv6Supported: false }, 'infra-env'),
    ).toBe('Single stack IPv6 is not supported in this setup. Please verify your infra-env configuration');
    expect(
      validateIpv6Only({ service_networks: [e('172.30.0.0/16')] }, { ipv6Supported: false }, 'x'),
    ).toBeUndefined();
    expect(validateIpv6Only({}, { ipv6Supported: false }, 'x')).toBeUndefined();
  });
});
