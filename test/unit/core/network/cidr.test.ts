import { describe, expect, it } from 'vitest';
import {
  addressAt,
  bitsOf,
  broadcastAddress,
  CidrParseError,
  canonicalIp,
  cidrContains,
  cidrSize,
  cidrsOverlap,
  ipFamily,
  ipInCidr,
  isIPv4,
  isIPv6,
  isNetworkCidr,
  networkAddress,
  normalizeCidr,
  parseCidr,
  parseIp,
  tryParseCidr,
  tryParseIp,
} from '../../../../src/core/network/cidr.ts';
import { seededUint32 } from '../../../../src/sim/prng.ts';

describe('parseIp / tryParseIp', () => {
  it.each([
    ['192.168.1.1', 'ipv4', '192.168.1.1'],
    ['0.0.0.0', 'ipv4', '0.0.0.0'],
    ['255.255.255.255', 'ipv4', '255.255.255.255'],
    ['2001:DB8:0:0:0:0:0:1', 'ipv6', '2001:db8::1'],
    ['::', 'ipv6', '::'],
    ['fe80::1', 'ipv6', 'fe80::1'],
  ])('%s → %s %s', (text, family, canonical) => {
    const ip = parseIp(text);
    expect(ip.family).toBe(family);
    expect(ip.text).toBe(canonical);
    expect(ip.bits).toBe(family === 'ipv4' ? 32 : 128);
  });

  it.each([
    '',
    '1.2.3',
    '256.1.1.1',
    '01.2.3.4',
    ' 1.2.3.4',
    '1.2.3.4/24',
    'fe80::1%eth0',
    'not-an-ip',
    '2001:db8::g',
  ])('rejects %j', (text) => {
    expect(tryParseIp(text)).toBeUndefined();
    expect(() => parseIp(text)).toThrow(CidrParseError);
  });

  it('rejects non-strings', () => {
    expect(tryParseIp(undefined as unknown as string)).toBeUndefined();
  });
});

describe('parseCidr', () => {
  it.each([
    ['10.1.2.3/8', 'ipv4', 8, '10.0.0.0/8'],
    ['192.168.1.0/24', 'ipv4', 24, '192.168.1.0/24'],
    ['1.2.3.4/32', 'ipv4', 32, '1.2.3.4/32'],
    ['0.0.0.0/0', 'ipv4', 0, '0.0.0.0/0'],
    ['2001:db8::5/64', 'ipv6', 64, '2001:db8::/64'],
    ['2001:DB8::/128', 'ipv6', 128, '2001:db8::/128'],
    ['::/0', 'ipv6', 0, '::/0'],
  ])('%s', (text, family, prefix, normalized) => {
    const c = parseCidr(text);
    expect(c.family).toBe(family);
    expect(c.prefix).toBe(prefix);
    expect(normalizeCidr(c)).toBe(normalized);
    expect(normalizeCidr(text)).toBe(normalized);
  });

  it.each([
    '10.0.0.0',
    '10.0.0.0/',
    '10.0.0.0/33',
    '2001:db8::/129',
    '10.0.0.0/-1',
    '10.0.0.0/0x8',
    'x/8',
    '10.0.0.0/1234',
  ])('rejects %j', (text) => {
    expect(() => parseCidr(text)).toThrow('invalid CIDR address: ' + text);
    expect(tryParseCidr(text)).toBeUndefined();
  });

  it('passes parsed CIDRs through', () => {
    const c = parseCidr('10.0.0.0/8');
    expect(parseCidr(c)).toBe(c);
  });
});

describe('families', () => {
  it.each([
    ['1.2.3.4', true, false, 'ipv4'],
    ['1.2.3.0/24', true, false, 'ipv4'],
    ['2001:db8::1', false, true, 'ipv6'],
    ['2001:db8::/64', false, true, 'ipv6'],
    ['garbage', false, false, undefined],
    ['1.2.3.0/99', false, false, undefined],
  ])('%s', (text, v4, v6, family) => {
    expect(isIPv4(text)).toBe(v4);
    expect(isIPv6(text)).toBe(v6);
    expect(ipFamily(text)).toBe(family);
  });
  it('bitsOf', () => {
    expect(bitsOf('ipv4')).toBe(32);
    expect(bitsOf('ipv6')).toBe(128);
  });
});

describe('containment', () => {
  it.each([
    ['10.0.0.0/24', '10.0.0.0', true],
    ['10.0.0.0/24', '10.0.0.255', true],
    ['10.0.0.0/24', '10.0.1.0', false],
    ['10.0.0.0/24', '9.255.255.255', false],
    ['10.0.0.0/24', '2001:db8::1', false],
    ['2001:db8::/64', '2001:db8::ffff', true],
    ['2001:db8::/64', '2001:db8:0:1::', false],
    ['bad', '10.0.0.1', false],
    ['10.0.0.0/24', 'bad', false],
  ])('%s ∋ %s = %s', (cidr, ip, expected) => {
    expect(cidrContains(cidr, ip)).toBe(expected);
    expect(ipInCidr(ip, cidr)).toBe(expected);
  });
});

describe('overlap', () => {
  it.each([
    ['10.0.0.0/8', '10.2.0.0/16', true],
    ['10.2.0.0/16', '10.0.0.0/8', true],
    ['10.0.0.0/16', '10.1.0.0/16', false],
    ['10.0.0.0/24', '10.0.0.0/24', true],
    ['10.0.0.0/24', '2001:db8::/64', false],
    ['2001:db8::/32', '2001:db8:1::/48', true],
  ])('%s vs %s', (a, b, expected) => {
    expect(cidrsOverlap(a, b)).toBe(expected);
  });
  it('throws on unparseable input', () => {
    expect(() => cidrsOverlap('10.0.0.0/8', 'bad')).toThrow(CidrParseError);
  });
});

describe('addresses', () => {
  it.each([
    ['10.1.2.3/24', '10.1.2.0', '10.1.2.255', 256n],
    ['10.1.2.3/32', '10.1.2.3', '10.1.2.3', 1n],
    ['10.1.2.3/31', '10.1.2.2', '10.1.2.3', 2n],
    ['2001:db8::5/120', '2001:db8::', '2001:db8::ff', 256n],
  ])('%s', (cidr, net, bcast, size) => {
    expect(networkAddress(cidr)).toBe(net);
    expect(broadcastAddress(cidr)).toBe(bcast);
    expect(cidrSize(cidr)).toBe(size);
  });
  it('prints IPv6 the RFC 5952 way, as the agent does (the simulator relies on it)', () => {
    expect(canonicalIp('2001:db8:0:0:0:0:2:1')).toBe('2001:db8::2:1');
    expect(canonicalIp('2001:db8:0:0:1:0:0:1')).toBe('2001:db8::1:0:0:1');
    expect(canonicalIp('0:0:0:0:0:0:0:0')).toBe('::');
    expect(addressAt('192.168.111.77/24', 10)).toBe('192.168.111.10');
    expect(addressAt('fd00::/64', 255)).toBe('fd00::ff');
  });

  it('addressAt / isNetworkCidr / canonicalIp', () => {
    expect(addressAt('10.0.0.0/24', 5)).toBe('10.0.0.5');
    expect(addressAt('2001:db8::/64', 16n)).toBe('2001:db8::10');
    expect(isNetworkCidr('10.0.0.0/24')).toBe(true);
    expect(isNetworkCidr('10.0.0.1/24')).toBe(false);
    expect(canonicalIp('2001:DB8:0::1')).toBe('2001:db8::1');
    expect(canonicalIp('junk')).toBe('junk');
  });
});

function randomCidr(next: () => number, v6: boolean): string {
  if (!v6) {
    const a = [next() % 256, next() % 256, next() % 256, next() % 256].join('.');
    return `${a}/${next() % 33}`;
  }
  const groups = Array.from({ length: 8 }, () => (next() % 0x10000).toString(16));
  return `${groups.join(':')}/${next() % 129}`;
}

describe('properties', () => {
  const next = seededUint32(42);
  const samples = Array.from({ length: 400 }, (_, i) => randomCidr(next, i % 2 === 1));

  it('overlap is symmetric and every CIDR overlaps itself', () => {
    for (let i = 0; i < samples.length; i++) {
      const a = samples[i] as string;
      const b = samples[(i * 7 + 3) % samples.length] as string;
      expect(cidrsOverlap(a, b)).toBe(cidrsOverlap(b, a));
      expect(cidrsOverlap(a, a)).toBe(true);
    }
  });

  it('network and broadcast addresses lie inside; one past either end does not', () => {
    for (const text of samples) {
      const c = parseCidr(text);
      expect(cidrContains(c, networkAddress(c))).toBe(true);
      expect(cidrContains(c, broadcastAddress(c))).toBe(true);
      const max = (1n << BigInt(c.bits)) - 1n;
      if (c.network > 0n) expect(cidrContains(c, addressAt(c, -1))).toBe(false);
      if (c.last < max) expect(cidrContains(c, addressAt(c, cidrSize(c)))).toBe(false);
    }
  });

  it('a network overlaps every sub-network of itself and normalisation is idempotent', () => {
    for (const text of samples) {
      const c = parseCidr(text);
      const n = normalizeCidr(c);
      expect(normalizeCidr(n)).toBe(n);
      if (c.prefix < c.bits) {
        const child = `${networkAddress(c)}/${c.prefix + 1}`;
        expect(cidrsOverlap(c, child)).toBe(true);
      }
    }
  });
});
