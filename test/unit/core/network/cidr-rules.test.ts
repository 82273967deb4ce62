import { describe, expect, it } from 'vitest';
import {
  checkCidrsOverlapping,
  cidrParseErrorMessage,
  isMachineNetworkCidrBigEnough,
  verifyClusterCidrSize,
  verifyClusterCidrsNotOverlap,
  verifyClusterOrServiceCidr,
  verifyMachineCidr,
  verifyNetworkHostPrefix,
  verifyNetworksNotOverlap,
  verifySubnetCidr,
} from '../../../../src/core/network/cidr-rules.ts';

describe('verifyClusterOrServiceCidr (≥ 128 addresses)', () => {
  it.each([
    ['10.128.0.0/14', undefined],
    ['10.0.0.0/25', undefined],
    ['10.0.0.0/26', 'Address mask size must be between 1 to 25 and must include at least 128 addresses'],
    ['0.0.0.0/0', 'Address mask size must be between 1 to 25 and must include at least 128 addresses'],
    ['128.0.0.0/1', undefined],
    ['fd02::/121', undefined],
    ['fd02::/122', 'Address mask size must be between 1 to 121 and must include at least 128 addresses'],
    [
      '0.0.0.0/8',
      'The specified CIDR 0.0.0.0/8 is invalid because its resulting routing prefix matches the unspecified address',
    ],
    [
      '::/8',
      'The specified CIDR ::/8 is invalid because its resulting routing prefix matches the unspecified address',
    ],
    ['10.0.0.1/16', '10.0.0.1/16 is not a valid network CIDR'],
    ['fd02::1/112', 'fd02::1/112 is not a valid network CIDR'],
    ['bogus', "Failed to parse CIDR 'bogus': invalid CIDR address: bogus"],
  ])('%s', (cidr, expected) => {
    expect(verifyClusterOrServiceCidr(cidr)).toBe(expected);
  });
});

describe('verifyMachineCidr', () => {
  it.each([
    ['192.168.1.0/28', {}, undefined],
    [
      '192.168.1.0/29',
      {},
      'Address mask size must be between 1 to 28 and must include at least 16 addresses',
    ],
    ['192.168.1.0/31', { singleNode: true }, undefined],
    [
      '192.168.1.0/32',
      { singleNode: true },
      'Address mask size must be between 1 to 31 and must include at least 2 addresses',
    ],
    ['192.168.1.0/30', { userManagedLoadBalancer: true }, undefined],
    [
      '192.168.1.0/31',
      { userManagedLoadBalancer: true },
      'Address mask size must be between 1 to 30 and must include at least 4 addresses',
    ],
    ['2001:db8::/124', {}, undefined],
    [
      '2001:db8::/125',
      {},
      'Address mask size must be between 1 to 124 and must include at least 16 addresses',
    ],
  ])('%s %j', (cidr, opts, expected) => {
    expect(verifyMachineCidr(cidr, opts)).toBe(expected);
  });
  it('default options', () => {
    expect(verifyMachineCidr('192.168.1.0/24')).toBeUndefined();
    expect(verifySubnetCidr('10.0.0.0/8', 7)).toBeUndefined();
  });
});

describe('host prefix', () => {
  it.each([
    [1, undefined],
    [23, undefined],
    [0, 'Host prefix, now 0, must be a positive integer'],
    [-3, 'Host prefix, now -3, must be a positive integer'],
    [Number.NaN, 'Host prefix, now NaN, must be a positive integer'],
  ])('%s', (p, expected) => {
    expect(verifyNetworkHostPrefix(p)).toBe(expected);
  });
});

describe('verifyClusterCidrSize', () => {
  it.each([
    // host prefix ≤ bits − 7
    [25, '10.128.0.0/14', 3, undefined],
    [
      26,
      '10.128.0.0/14',
      3,
      'Host prefix, now 26, must be less than or equal to 25 to allow at least 128 addresses',
    ],
    [121, 'fd01::/48', 3, undefined],
    [
      122,
      'fd01::/48',
      3,
      'Host prefix, now 122, must be less than or equal to 121 to allow at least 128 addresses',
    ],
    // capacity: 2^(23−21) = 4 ≥ max(4, hosts)
    [23, '10.128.0.0/21', 4, undefined],
    [
      23,
      '10.128.0.0/21',
      5,
      'Cluster network CIDR prefix 21 does not contain enough addresses for 5 hosts each one with 23 prefix (512 addresses)',
    ],
    [
      23,
      '10.128.0.0/22',
      0,
      'Cluster network CIDR prefix 22 does not contain enough addresses for 0 hosts each one with 23 prefix (512 addresses)',
    ],
    [
      23,
      '10.128.0.0/22',
      2,
      'Cluster network CIDR prefix 22 does not contain enough addresses for 2 hosts each one with 23 prefix (512 addresses)',
    ],
    // one host needs one subnet only
    [23, '10.128.0.0/23', 1, undefined],
    [23, '10.128.0.0/22', 1, undefined],
    // host prefix shorter than the CIDR prefix → capacity 1
    [20, '10.128.0.0/23', 1, undefined],
    [
      20,
      '10.128.0.0/23',
      2,
      'Cluster network CIDR prefix 23 does not contain enough addresses for 2 hosts each one with 20 prefix (4096 addresses)',
    ],
    [
      64,
      'fd01::/48',
      70000,
      'Cluster network CIDR prefix 48 does not contain enough addresses for 70000 hosts each one with 64 prefix (9223372036854775808 addresses)',
    ],
    [23, 'bad', 3, "Failed to parse CIDR 'bad': invalid CIDR address: bad"],
  ])('hostPrefix %s in %s for %s hosts', (hp, cidr, hosts, expected) => {
    expect(verifyClusterCidrSize(hp, cidr, hosts)).toBe(expected);
  });
});

describe('overlaps', () => {
  it('verifyNetworksNotOverlap', () => {
    expect(verifyNetworksNotOverlap('10.0.0.0/8', '10.1.0.0/16')).toBe(
      'CIDRS 10.0.0.0/8 and 10.1.0.0/16 overlap',
    );
    expect(verifyNetworksNotOverlap('10.0.0.0/16', '10.1.0.0/16')).toBeUndefined();
    expect(verifyNetworksNotOverlap('', '10.1.0.0/16')).toBeUndefined();
    expect(verifyNetworksNotOverlap('10.1.0.0/16', '')).toBeUndefined();
    expect(verifyNetworksNotOverlap('x', '10.1.0.0/16')).toBe(cidrParseErrorMessage('x'));
    expect(verifyNetworksNotOverlap('10.1.0.0/16', 'y')).toBe(cidrParseErrorMessage('y'));
  });

  it.each([
    [
      '192.168.0.0/16',
      '10.128.0.0/14',
      '192.168.1.0/24',
      true,
      'MachineNetworkCIDR and ServiceNetworkCIDR: CIDRS 192.168.0.0/16 and 192.168.1.0/24 overlap',
    ],
    [
      '10.0.0.0/8',
      '10.128.0.0/14',
      '172.30.0.0/16',
      true,
      'MachineNetworkCIDR and ClusterNetworkCidr: CIDRS 10.0.0.0/8 and 10.128.0.0/14 overlap',
    ],
    ['10.0.0.0/8', '10.128.0.0/14', '172.30.0.0/16', false, undefined],
    [
      '192.168.1.0/24',
      '10.128.0.0/14',
      '10.128.0.0/16',
      true,
      'ServiceNetworkCidr and ClusterNetworkCidr: CIDRS 10.128.0.0/16 and 10.128.0.0/14 overlap',
    ],
    ['192.168.1.0/24', '10.128.0.0/14', '172.30.0.0/16', true, undefined],
  ])('%s / %s / %s (machine required %s)', (m, c, s, required, expected) => {
    expect(verifyClusterCidrsNotOverlap(m, c, s, required)).toBe(expected);
  });

  it('checkCidrsOverlapping reuses the previous machine CIDR when there are fewer machine networks', () => {
    const lists = {
      machine_networks: [{ cidr: '192.168.0.0/16' }],
      cluster_networks: [
        { cidr: '10.128.0.0/14', host_prefix: 23 },
        { cidr: 'fd01::/48', host_prefix: 64 },
      ],
      service_networks: [{ cidr: '172.30.0.0/16' }, { cidr: '192.168.5.0/24' }],
    };
    expect(checkCidrsOverlapping(lists, true)).toBe(
      'MachineNetworkCIDR and ServiceNetworkCIDR: CIDRS 192.168.0.0/16 and 192.168.5.0/24 overlap',
    );
    expect(checkCidrsOverlapping(lists, false)).toBeUndefined();
    expect(checkCidrsOverlapping({ ...lists, machine_networks: [] }, true)).toBeUndefined();
  });
});

describe('isMachineNetworkCidrBigEnough', () => {
  it.each([
    // 2^(32−29) = 8 addresses − hosts − 4 ≥ 0
    ['10.0.0.0/29', 4, true],
    ['10.0.0.0/29', 5, false],
    ['10.0.0.0/29', 0, true],
    // single host: prefix ≤ bits − 1
    ['10.0.0.0/31', 1, true],
    ['10.0.0.0/32', 1, false],
    ['bad', 3, true],
  ])('%s with %s hosts', (cidr, hosts, expected) => {
    expect(isMachineNetworkCidrBigEnough(cidr, hosts)).toBe(expected);
  });
});
