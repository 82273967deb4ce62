import { describe, expect, it } from 'vitest';
import { addressAt, cidrContains, formatIp, parseCidr, parseIp } from '../../../src/sim/netaddr.ts';

describe('netaddr', () => {
  it('parses and formats IPv4 and IPv6 (RFC 5952)', () => {
    expect(formatIp(4, parseIp('10.1.2.3')!.value)).toBe('10.1.2.3');
    expect(formatIp(6, parseIp('2001:db8:0:0:0:0:2:1')!.value)).toBe('2001:db8::2:1');
    expect(formatIp(6, parseIp('2001:db8::1:0:0:1')!.value)).toBe('2001:db8::1:0:0:1');
    expect(formatIp(6, parseIp('::')!.value)).toBe('::');
    expect(parseIp('1.2.3.256')).toBeUndefined();
    expect(parseIp('1::2::3')).toBeUndefined();
  });

  it('does CIDR arithmetic', () => {
    const c = parseCidr('192.168.111.77/24');
    expect(addressAt(c, 10)).toBe('192.168.111.10');
    expect(cidrContains(c, '192.168.111.200/24')).toBe(true);
    expect(cidrContains(c, '192.168.112.1')).toBe(false);
    expect(addressAt(parseCidr('fd00::/64'), 255)).toBe('fd00::ff');
    expect(() => parseCidr('10.0.0.0/33')).toThrow();
  });
});
