import { describe, expect, it } from 'vitest';
import {
  addressFamiliesOf,
  canonizeFamilies,
  computePrimaryIpStack,
  isDualStack,
  orderByPrimaryStack,
  sameFamilies,
  supportsIpv6PrimaryDualStack,
  validateDualStackNetworks,
  validateDualStackOrder,
  validatePrimaryStackPartialUpdate,
  validateSingleStackMachineNetworks,
} from '../../../../src/core/network/dual-stack.ts';

const v4 = '10.0.0.0/16';
const v6 = '2001:db8::/64';
const n = (...cidrs: string[]) => cidrs.map((cidr) => ({ cidr }));

describe('isDualStack', () => {
  it.each([
    [{ machine_networks: n(v4, v6) }, true],
    [{ service_networks: n(v4, v6) }, true],
    [{ cluster_networks: n(v6, v4) }, true],
    [{ machine_networks: n(v4), service_networks: n(v6) }, false],
    [{ machine_networks: n(v4, v4) }, false],
    [{}, false],
    [{ machine_networks: null }, false],
  ])('%j → %s', (lists, expected) => {
    expect(isDualStack(lists)).toBe(expected);
  });
});

describe('validateDualStackOrder', () => {
  it.each([
    [[v4, v6], '4.12.0', undefined],
    [[v6, v4], '4.12.0', undefined],
    [[v6, v4], '4.12.0-rc.1', undefined],
    [[v4], '4.12.0', 'Expected 2 machine networks, found 1'],
    [[v4, v4, v6], '4.14', 'Expected 2 machine networks, found 3'],
    [[v6, v6], '4.12.0', 'dual-stack machine networks must include exactly one IPv4 subnet'],
    [[v4, v4], '4.12.0', 'dual-stack machine networks must include exactly one IPv6 subnet'],
    [[v4, v6], '4.11.9', undefined],
    [
      [v6, v4],
      '4.11.9',
      `First machine networks has to be IPv4 subnet (IPv6-primary dual-stack requires OpenShift 4.12+), got ${v6}`,
    ],
    [[v4, v4], '4.11', `Second machine networks has to be IPv6 subnet, got ${v4}`],
    [
      [v6, v4],
      '',
      `First machine networks has to be IPv4 subnet (IPv6-primary dual-stack requires OpenShift 4.12+), got ${v6}`,
    ],
  ])('%j on %s', (items, version, expected) => {
    expect(validateDualStackOrder(items, 'machine networks', 'subnet', version)).toBe(expected);
  });
  it('version boundary', () => {
    expect(supportsIpv6PrimaryDualStack('4.11.99')).toBe(false);
    expect(supportsIpv6PrimaryDualStack('4.12')).toBe(true);
    expect(supportsIpv6PrimaryDualStack(undefined)).toBe(false);
  });
});

describe('validateDualStackNetworks', () => {
  it('checks machine, service, cluster in order and skips empty lists', () => {
    expect(
      validateDualStackNetworks({ machine_networks: n(v4), service_networks: n(v4) }, '4.14'),
    ).toBeUndefined();
    expect(validateDualStackNetworks({ machine_networks: n(v4, v6), service_networks: n(v4) }, '4.14')).toBe(
      'Expected 2 service networks, found 1',
    );
    expect(
      validateDualStackNetworks(
        { machine_networks: n(v4, v6), service_networks: n(v4, v6), cluster_networks: n(v6, v6) },
        '4.14',
      ),
    ).toBe('dual-stack cluster networks must include exactly one IPv4 subnet');
    expect(
      validateDualStackNetworks({ service_networks: n(v4, v6), cluster_networks: n(v4, v6) }, '4.14'),
    ).toBeUndefined();
    expect(validateDualStackNetworks({ machine_networks: n(v4, v6, v6) }, '4.14')).toBe(
      'Expected 2 machine networks, found 3',
    );
  });
});

describe('validateSingleStackMachineNetworks', () => {
  it.each([
    [n(v4, '10.1.0.0/16'), false, 'Single-stack cluster cannot contain multiple Machine Networks'],
    [n(v4, '10.1.0.0/16'), true, undefined],
    [n(v4), false, undefined],
    [n(v4, v6), false, undefined],
  ])('%j user-managed LB %s', (machine, umlb, expected) => {
    expect(validateSingleStackMachineNetworks({ machine_networks: machine }, umlb)).toBe(expected);
  });
});

describe('primary IP stack', () => {
  it('undefined without entries; the first valid entry decides', () => {
    expect(computePrimaryIpStack({})).toEqual({ stack: undefined });
    expect(computePrimaryIpStack({ machine_networks: n('bad', v6), service_networks: n(v6) })).toEqual({
      stack: 6,
    });
    expect(computePrimaryIpStack({ api_vips: [{ ip: '1.2.3.4' }], cluster_networks: n(v4) })).toEqual({
      stack: 4,
    });
  });
  it('reports the first disagreement', () => {
    expect(
      computePrimaryIpStack({
        machine_networks: n(v4, v6),
        api_vips: [{ ip: '2001:db8::5' }],
        ingress_vips: [{ ip: '10.0.0.6' }],
      }),
    ).toEqual({
      error:
        'Inconsistent IP family order: machine_networks first IP is 10.0.0.0/16 but api_vips first IP is 2001:db8::5. All networks must have the same IP family first',
    });
    expect(computePrimaryIpStack({ ingress_vips: [{ ip: '10.0.0.6' }], service_networks: n(v6) }).error).toBe(
      'Inconsistent IP family order: ingress_vips first IP is 10.0.0.6 but service_networks first IP is 2001:db8::/64. All networks must have the same IP family first',
    );
  });
  it('partial updates must match the stored stack', () => {
    expect(validatePrimaryStackPartialUpdate({ cluster_networks: n(v6, v4) }, 6)).toBeUndefined();
    expect(validatePrimaryStackPartialUpdate({ cluster_networks: n('bad') }, 6)).toBeUndefined();
    expect(validatePrimaryStackPartialUpdate({ service_networks: n(v4) }, 6)).toBe(
      'Inconsistent IP family order: service_networks first IP is 10.0.0.0/16 but existing primary IP stack is IPv6. All networks must have the same IP family first',
    );
  });
  it('orders lists by primary stack (IPv4 first by default), stably', () => {
    const items = [v6, v4, '2001:db8:1::/64', '10.1.0.0/16'];
    expect(orderByPrimaryStack(items, (s) => s)).toEqual([v4, '10.1.0.0/16', v6, '2001:db8:1::/64']);
    expect(orderByPrimaryStack(items, (s) => s, 6)).toEqual([v6, '2001:db8:1::/64', v4, '10.1.0.0/16']);
  });
});

describe('address families', () => {
  it('sorts IPv4 first, canonizes, compares', () => {
    expect(addressFamiliesOf([v6, v4, v4])).toEqual(['ipv4', 'ipv4', 'ipv6']);
    expect(canonizeFamilies(['ipv4', 'ipv4', 'ipv6'])).toEqual(['ipv4', 'ipv6']);
    expect(sameFamilies(['ipv4'], ['ipv4'])).toBe(true);
    expect(sameFamilies(['ipv4'], ['ipv4', 'ipv4'])).toBe(false);
    expect(sameFamilies(['ipv4'], ['ipv6'])).toBe(false);
    expect(() => addressFamiliesOf(['nope'])).toThrow();
  });
});
