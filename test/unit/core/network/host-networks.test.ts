// A host's parsed addresses are kept per inventory object: same answers on every call, and what a
// caller does with an answer does not reach the next one.
import { describe, expect, it } from 'vitest';
import { hostIps, inventoryNetworks } from '../../../../src/core/network/host-networks.ts';
import { hostWithAddresses } from './fixtures.ts';

describe('parsed host addresses', () => {
  it('networks in host, interface and family order, without repeats', () => {
    const a = hostWithAddresses('a', ['10.0.0.5/24', 'fd00::5/64']);
    const b = hostWithAddresses('b', ['10.0.1.7/24', '10.0.0.6/24']);
    expect(inventoryNetworks([a, b])).toEqual(['10.0.0.0/24', 'fd00::/64', '10.0.1.0/24']);
    expect(inventoryNetworks([b, a])).toEqual(['10.0.1.0/24', '10.0.0.0/24', 'fd00::/64']);
  });

  it('an answer changed by its caller leaves the next one as it was', () => {
    const h = hostWithAddresses('a', ['10.0.0.5/24', '10.0.0.9/24', 'fd00::5/64']);
    const first = hostIps(h, 'ipv4');
    expect(first).toEqual(['10.0.0.5', '10.0.0.9']);
    first.push('192.0.2.1');
    expect(hostIps(h, 'ipv4')).toEqual(['10.0.0.5', '10.0.0.9']);
    expect(hostIps(h, 'ipv6')).toEqual(['fd00::5']);
  });

  it('a new inventory is parsed anew', () => {
    const h = hostWithAddresses('a', ['10.0.0.5/24']);
    expect(hostIps(h, 'ipv4')).toEqual(['10.0.0.5']);
    const moved = hostWithAddresses('a', ['10.0.2.5/24']);
    expect(hostIps(moved, 'ipv4')).toEqual(['10.0.2.5']);
    expect(inventoryNetworks([moved])).toEqual(['10.0.2.0/24']);
  });
});
