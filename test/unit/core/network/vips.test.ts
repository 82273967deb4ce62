import { describe, expect, it } from 'vitest';
import {
  addressAt,
  broadcastAddress,
  cidrSize,
  networkAddress,
  parseCidr,
} from '../../../../src/core/network/cidr.ts';
import { calculateMachineNetworkCidr } from '../../../../src/core/network/machine-network.ts';
import {
  freeAddressesSet,
  ipInFreeList,
  isBroadcastAddress,
  multiErrorText,
  normalizeVips,
  type VipInputContext,
  validateNoVipDuplicates,
  validateVipsInput,
  verifyVip,
  verifyVipFree,
  verifyVipUserManagedLoadBalancer,
  vipIps,
} from '../../../../src/core/network/vips.ts';
import { host, hostWithAddresses } from './fixtures.ts';

const net = '192.168.127.0/24';
const withFree = (id: string, network: string, free: string[]) =>
  host(id, { free_addresses: [{ network, free_addresses: free }] });

describe('free addresses', () => {
  it('intersects the reports for exactly the network, skipping hosts without one', () => {
    const hosts = [
      withFree('a', net, ['192.168.127.2', '192.168.127.3']),
      withFree('b', net, ['192.168.127.3', '192.168.127.4']),
      withFree('c', '10.0.0.0/24', ['10.0.0.9']),
      host('d'),
      host('e', { free_addresses: [{ network: net }] }),
    ];
    expect([...freeAddressesSet(hosts.slice(0, 4), net)]).toEqual(['192.168.127.3']);
    expect(freeAddressesSet(hosts, net).size).toBe(0);
    expect(ipInFreeList(hosts.slice(0, 4), '192.168.127.3', net)).toBe('succeeded');
    expect(ipInFreeList(hosts.slice(0, 4), '192.168.127.2', net)).toBe('failed');
    expect(ipInFreeList([host('x')], '192.168.127.2', net)).toBe('unverified');
  });
  it('stored verification wins unless unverified', () => {
    const hosts = [withFree('a', net, ['192.168.127.2'])];
    expect(verifyVipFree(hosts, '192.168.127.5', net, 'succeeded')).toBe('succeeded');
    expect(verifyVipFree(hosts, '192.168.127.2', net, 'failed')).toBe('failed');
    expect(verifyVipFree(hosts, '192.168.127.2', net, 'unverified')).toBe('succeeded');
    expect(verifyVipFree(hosts, '192.168.127.2', net, undefined)).toBe('succeeded');
  });
});

describe('verifyVip', () => {
  const free = [withFree('a', net, ['192.168.127.2']), withFree('b', net, ['192.168.127.2'])];
  it.each([
    [
      '',
      '192.168.127.2',
      undefined,
      'unverified',
      'api vips <192.168.127.2> cannot be set if Machine Network CIDR is empty',
    ],
    [
      net,
      '192.168.128.2',
      undefined,
      'failed',
      'api vips <192.168.128.2> does not belong to machine-network-cidr <192.168.127.0/24>',
    ],
    [
      net,
      '192.168.127.255',
      'succeeded',
      'failed',
      'api vips <192.168.127.255> is the broadcast address of machine-network-cidr <192.168.127.0/24>',
    ],
    [net, '192.168.127.0', 'succeeded', 'succeeded', undefined],
    [net, '192.168.127.2', undefined, 'succeeded', undefined],
    [
      net,
      '192.168.127.9',
      undefined,
      'failed',
      'api vips <192.168.127.9> is already in use in cidr 192.168.127.0/24',
    ],
    [
      net,
      '192.168.127.9',
      'failed',
      'failed',
      'api vips <192.168.127.9> is already in use in cidr 192.168.127.0/24',
    ],
    [
      '2001:db8::/64',
      '2001:db8::ffff:ffff:ffff:ffff',
      undefined,
      'unverified',
      'api vips <2001:db8::ffff:ffff:ffff:ffff> are not verified yet.',
    ],
  ] as const)('%s %s (%s)', (cidr, vip, verification, expectedVerification, error) => {
    expect(verifyVip(free, cidr, vip, 'api vips', verification)).toEqual(
      error === undefined
        ? { verification: expectedVerification }
        : { verification: expectedVerification, error },
    );
  });

  it('adds the "too small" hint when the range cannot hold hosts and VIPs', () => {
    const small = '10.0.0.0/29';
    const hosts = Array.from({ length: 5 }, (_, i) => withFree(`h${i}`, small, ['10.0.0.6']));
    expect(verifyVip(hosts, small, '10.0.0.2', 'ingress vips').error).toBe(
      'ingress vips <10.0.0.2> is already in use in cidr 10.0.0.0/29. The machine network range is too small for the cluster. Please redefine the network.',
    );
    expect(verifyVip(hosts.slice(0, 4), small, '10.0.0.2', 'ingress vips').error).toBe(
      'ingress vips <10.0.0.2> is already in use in cidr 10.0.0.0/29',
    );
  });

  it('broadcast is IPv4 only', () => {
    expect(isBroadcastAddress('10.0.0.255', '10.0.0.0/24')).toBe(true);
    expect(isBroadcastAddress('10.0.0.254', '10.0.0.0/24')).toBe(false);
    expect(isBroadcastAddress('2001:db8::ff', '2001:db8::/120')).toBe(false);
    expect(isBroadcastAddress('bad', '10.0.0.0/24')).toBe(false);
  });
});

describe('user-managed load balancer VIPs', () => {
  it.each([
    [['10.0.0.0/24', '10.1.0.0/24'], '10.1.0.5', undefined],
    [['10.0.0.0/24'], '10.1.0.5', 'api vip <10.1.0.5> does not belong to machine-network-cidr <10.0.0.0/24>'],
    [
      ['10.0.0.0/24', '10.2.0.0/24'],
      '10.1.0.5',
      'api vip <10.1.0.5> does not belong to machine-network-cidr <10.0.0.0/24, 10.2.0.0/24>',
    ],
    [
      ['10.1.0.0/24'],
      '10.1.0.255',
      'api vip <10.1.0.255> is the broadcast address of machine-network-cidr <10.1.0.0/24>',
    ],
    [[], '10.1.0.5', 'api vip <10.1.0.5> does not belong to machine-network-cidr <>'],
  ])('%j %s', (cidrs, vip, expected) => {
    expect(verifyVipUserManagedLoadBalancer(cidrs, vip, 'api vip')).toBe(expected);
  });
});

describe('duplicates', () => {
  it('formats like go-multierror', () => {
    expect(multiErrorText(['a'])).toBe('1 error occurred:\n\t* a\n\n');
    expect(multiErrorText(['a', 'b'])).toBe('2 errors occurred:\n\t* a\n\t* b\n\n');
  });
  it('finds repeats within and across lists', () => {
    expect(validateNoVipDuplicates(['1.1.1.1', '', ''], ['2.2.2.2'])).toBeUndefined();
    expect(validateNoVipDuplicates(['1.1.1.1', '1.1.1.1'], ['1.1.1.1', '1.1.1.1'])).toBe(
      multiErrorText([
        'The IP address "1.1.1.1" appears multiple times in apiVIPs',
        'The IP address "1.1.1.1" appears both in apiVIPs and ingressVIPs',
        'The IP address "1.1.1.1" appears multiple times in ingressVIPs',
        'The IP address "1.1.1.1" appears both in apiVIPs and ingressVIPs',
      ]),
    );
    expect(validateNoVipDuplicates(['1.1.1.1'], ['1.1.1.1'], true)).toBeUndefined();
  });
});

describe('validateVipsInput', () => {
  const ctx: VipInputContext = {
    openshiftVersion: '4.14',
    userManagedNetworking: false,
    vipDhcpAllocation: false,
    userManagedLoadBalancer: false,
    machineNetworks: ['10.0.0.0/24', '2001:db8::/64'],
    dualStack: true,
    hosts: [],
  };
  it.each([
    [{}, {}, undefined],
    [{ api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.6'] }, {}, undefined],
    [{ api_vips: ['10.0.0.5', '2001:db8::5'], ingress_vips: ['10.0.0.6', '2001:db8::6'] }, {}, undefined],
    [
      { api_vips: ['2001:db8::5', '10.0.0.5'], ingress_vips: ['2001:db8::6', '10.0.0.6'] },
      { machineNetworks: ['2001:db8::/64', '10.0.0.0/24'] },
      undefined,
    ],
    [
      { api_vips: ['2001:db8::5', '10.0.0.5'], ingress_vips: ['2001:db8::6', '10.0.0.6'] },
      {},
      'api-vip <2001:db8::5> does not belong to machine-network-cidr <10.0.0.0/24>',
    ],
    [
      { api_vips: ['10.0.0.5'] },
      { userManagedNetworking: true },
      'API VIPs cannot be set with User Managed Networking',
    ],
    [
      { ingress_vips: ['10.0.0.5'] },
      { userManagedNetworking: true },
      'Ingress VIPs cannot be set with User Managed Networking',
    ],
    [
      {},
      { userManagedNetworking: true, vipDhcpAllocation: true },
      'VIP DHCP Allocation cannot be set with User Managed Networking',
    ],
    [
      { api_vips: ['10.0.0.5'] },
      { vipDhcpAllocation: true },
      'Setting API VIPs is forbidden when cluster is in vip-dhcp-allocation mode',
    ],
    [
      { ingress_vips: ['10.0.0.5'] },
      { vipDhcpAllocation: true },
      'Setting Ingress VIPs is forbidden when cluster is in vip-dhcp-allocation mode',
    ],
    [{ api_vips: ['10.0.0.5', '10.0.0.6', '10.0.0.7'] }, {}, 'apiVIPs supports 2 vips. got: 3'],
    [{ api_vips: ['10.0.0.5'], ingress_vips: ['1', '2', '3'] }, {}, 'ingressVIPs supports 2 vips. got: 3'],
    [{ api_vips: [''] }, {}, 'API VIP IP at index 0 cannot be empty'],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.6', ''] },
      {},
      'Ingress VIP IP at index 1 cannot be empty',
    ],
    [{ api_vips: ['10.0.0.x'] }, {}, 'Could not parse VIP ip 10.0.0.x'],
    [
      { api_vips: ['10.0.0.5', '2001:db8::5'] },
      { openshiftVersion: '4.11' },
      'dual-stack VIPs are not supported in OpenShift 4.11',
    ],
    [
      { api_vips: ['10.0.0.5', '2001:db8::5'] },
      { externalPlatformName: 'OCI' },
      'dual-stack VIPs are not supported in OpenShift 4.14',
    ],
    [{ api_vips: ['10.0.0.5', '10.0.0.7'] }, {}, 'dual-stack API VIPs must include exactly one IPv6 address'],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: [] },
      {},
      'configuration must include the same number of apiVIPs (got 1) and ingressVIPs (got 0)',
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.6'], api_vip: '10.0.0.9' },
      {},
      'apiVIP must be the same as the first element of apiVIPs',
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.6'], ingress_vip: '10.0.0.9' },
      {},
      'ingressVIP must be the same as the first element of ingressVIPs',
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.6'], api_vip: '10.0.0.5', ingress_vip: '' },
      {},
      undefined,
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.5'] },
      {},
      multiErrorText(['The IP address "10.0.0.5" appears both in apiVIPs and ingressVIPs']),
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.6'] },
      { machineNetworks: [], dualStack: true },
      'Dual-stack cluster cannot be created with empty Machine Networks',
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.6'] },
      { machineNetworks: [], dualStack: false },
      undefined,
    ],
    [
      { api_vips: ['10.1.0.5'], ingress_vips: ['10.0.0.6'] },
      {},
      'api-vip <10.1.0.5> does not belong to machine-network-cidr <10.0.0.0/24>',
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.255'] },
      {},
      'ingress-vip <10.0.0.255> is the broadcast address of machine-network-cidr <10.0.0.0/24>',
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.6'] },
      { verifications: { '10.0.0.6': 'failed' } },
      'ingress-vip <10.0.0.6> is already in use in cidr 10.0.0.0/24',
    ],
    [{ api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.5'] }, { userManagedLoadBalancer: true }, undefined],
    [
      { api_vips: ['10.9.0.5'], ingress_vips: ['10.0.0.5'] },
      { userManagedLoadBalancer: true },
      'api vip <10.9.0.5> does not belong to machine-network-cidr <10.0.0.0/24, 2001:db8::/64>',
    ],
    [
      { api_vips: ['10.0.0.5'], ingress_vips: ['10.0.0.255'] },
      { userManagedLoadBalancer: true },
      'ingress vip <10.0.0.255> is the broadcast address of machine-network-cidr <10.0.0.0/24>',
    ],
  ] as [Parameters<typeof validateVipsInput>[0], Partial<VipInputContext>, string | undefined][])(
    '%j %j',
    (input, over, expected) => {
      expect(validateVipsInput(input, { ...ctx, ...over })).toBe(expected);
    },
  );

  it('normalises', () => {
    expect(normalizeVips(['2001:DB8:0::5', '10.0.0.5'])).toEqual(['2001:db8::5', '10.0.0.5']);
    expect(vipIps([{ ip: '1.1.1.1' }])).toEqual(['1.1.1.1']);
    expect(vipIps(undefined)).toEqual([]);
  });
});

// Property tests over generated networks: a VIP picked inside a machine network computed from the
// hosts validates; the network's broadcast address never does (IPv4); IPv6 has no broadcast.
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return s;
  };
}

describe('properties', () => {
  const next = rng(7);
  for (let round = 0; round < 150; round++) {
    const v6 = round % 3 === 0;
    const prefix = v6 ? 64 + (next() % 57) : 8 + (next() % 21); // v4 /8../28, v6 /64../120
    const base = v6
      ? `fd${(next() % 256).toString(16).padStart(2, '0')}:${(next() % 65536).toString(16)}::`
      : `${10 + (next() % 200)}.${next() % 256}.${next() % 256}.${next() % 256}`;
    const machine = parseCidr(`${base}/${prefix}`);
    const size = cidrSize(machine);
    const hostIp = addressAt(machine, 1n + (BigInt(next()) % (size - 2n)));
    const vip = addressAt(machine, 1n + (BigInt(next()) % (size - 2n)));
    const hosts = [hostWithAddresses('h1', [`${hostIp}/${prefix}`])];

    it(`round ${round}: ${vip} in ${networkAddress(machine)}/${prefix}`, () => {
      const calculated = calculateMachineNetworkCidr(vip, undefined, hosts, true);
      expect(calculated.cidr).toBe(`${networkAddress(machine)}/${prefix}`);
      const cidr = calculated.cidr as string;
      expect(verifyVip(hosts, cidr, vip, 'api vips', 'succeeded')).toEqual({ verification: 'succeeded' });
      const bcast = verifyVip(hosts, cidr, broadcastAddress(machine), 'api vips', 'succeeded');
      if (v6) expect(bcast.verification).toBe('succeeded');
      else
        expect(bcast).toEqual({
          verification: 'failed',
          error: `api vips <${broadcastAddress(machine)}> is the broadcast address of machine-network-cidr <${cidr}>`,
        });
      // One past the end is outside the network.
      if (!v6 || machine.last < (1n << 128n) - 1n) {
        const outside = addressAt(machine, size);
        expect(verifyVip(hosts, cidr, outside, 'api vips', 'succeeded').verification).toBe('failed');
      }
    });
  }
});
