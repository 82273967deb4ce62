// IP and CIDR arithmetic. Parsing is delegated to `ip-address`; the math is done on bigints so
// IPv4 and IPv6 share one code path. Semantics follow Go's `net` package, which upstream uses:
// a CIDR needs an explicit "/prefix", addresses carry no zone, IPv4 has no leading zeros.

import { Address4, Address6 } from 'ip-address';

export type IpFamily = 'ipv4' | 'ipv6';

/** A parsed address (no prefix). */
export interface ParsedIp {
  family: IpFamily;
  /** 32 for IPv4, 128 for IPv6. */
  bits: number;
  value: bigint;
  /** Canonical text: dotted quad, or RFC 5952 compressed lower-case IPv6. */
  text: string;
}

/** A parsed CIDR. `ip` keeps the (possibly host-part) address as written, canonicalised. */
export interface Cidr {
  family: IpFamily;
  bits: number;
  prefix: number;
  ip: ParsedIp;
  /** First address of the network (host bits cleared). */
  network: bigint;
  /** Last address of the network (host bits set). */
  last: bigint;
}

export class CidrParseError extends Error {
  override name = 'CidrParseError';
}

function familyBits(family: IpFamily): number {
  return family === 'ipv4' ? 32 : 128;
}

function formatIp(family: IpFamily, value: bigint): string {
  return family === 'ipv4'
    ? Address4.fromBigInt(value).correctForm()
    : Address6.fromBigInt(value).correctForm();
}

/**
 * Parsed addresses by text (frozen: shared). Cluster and host validations parse the same few
 * networks on every reconcile; the address library's parser was ~1.5 % of a registration wave.
 */
const parsedIps = new Map<string, ParsedIp | undefined>();
const PARSED_IPS_MAX = 4096;

/** Parses a bare address; undefined when it is not one (a "/prefix" or "%zone" is not accepted). */
export function tryParseIp(text: string): ParsedIp | undefined {
  if (typeof text !== 'string') return undefined;
  if (parsedIps.has(text)) return parsedIps.get(text);
  const ip = parseIpUncached(text);
  if (parsedIps.size >= PARSED_IPS_MAX) parsedIps.clear();
  parsedIps.set(text, ip && Object.freeze(ip));
  return ip;
}

function parseIpUncached(text: string): ParsedIp | undefined {
  if (text.includes('/') || text.includes('%')) return undefined;
  try {
    if (text.includes(':')) {
      const a = new Address6(text);
      return { family: 'ipv6', bits: 128, value: a.bigInt(), text: a.correctForm() };
    }
    const a = new Address4(text);
    return { family: 'ipv4', bits: 32, value: a.bigInt(), text: a.correctForm() };
  } catch {
    return undefined;
  }
}

/** Parses a bare address or throws CidrParseError. */
export function parseIp(text: string): ParsedIp {
  const ip = tryParseIp(text);
  if (!ip) throw new CidrParseError(`invalid IP address: ${text}`);
  return ip;
}

/** Parses "addr/prefix" (the address may have host bits set) or throws CidrParseError. */
export function parseCidr(text: string | Cidr): Cidr {
  if (typeof text !== 'string') return text;
  const slash = text.indexOf('/');
  const prefixText = slash < 0 ? '' : text.slice(slash + 1);
  if (slash < 0 || !/^[0-9]{1,3}$/.test(prefixText))
    throw new CidrParseError(`invalid CIDR address: ${text}`);
  const ip = tryParseIp(text.slice(0, slash));
  const prefix = Number(prefixText);
  if (!ip || prefix > ip.bits) throw new CidrParseError(`invalid CIDR address: ${text}`);
  const hostBits = BigInt(ip.bits - prefix);
  const hostMask = (1n << hostBits) - 1n;
  const network = ip.value & ~hostMask;
  return { family: ip.family, bits: ip.bits, prefix, ip, network, last: network | hostMask };
}

/** parseCidr without throwing. */
export function tryParseCidr(text: string): Cidr | undefined {
  try {
    return parseCidr(text);
  } catch {
    return undefined;
  }
}

/** True when `text` is an IPv4 address or IPv4 CIDR. */
export function isIPv4(text: string): boolean {
  return (text.includes('/') ? tryParseCidr(text)?.family : tryParseIp(text)?.family) === 'ipv4';
}

/** True when `text` is an IPv6 address or IPv6 CIDR. */
export function isIPv6(text: string): boolean {
  return (text.includes('/') ? tryParseCidr(text)?.family : tryParseIp(text)?.family) === 'ipv6';
}

/** Family of an address or CIDR, undefined when unparseable. */
export function ipFamily(text: string): IpFamily | undefined {
  return (text.includes('/') ? tryParseCidr(text) : tryParseIp(text))?.family;
}

/** Whether `ip` lies inside `cidr` (same family, within the prefix). Unparseable input → false. */
export function cidrContains(cidr: string | Cidr, ip: string): boolean {
  const net = typeof cidr === 'string' ? tryParseCidr(cidr) : cidr;
  const addr = tryParseIp(ip);
  if (!net || !addr || net.family !== addr.family) return false;
  return addr.value >= net.network && addr.value <= net.last;
}

/** cidrContains with the arguments the other way round. */
export function ipInCidr(ip: string, cidr: string | Cidr): boolean {
  return cidrContains(cidr, ip);
}

/** Upstream's definition: two CIDRs overlap iff either contains the other's network address. */
export function cidrsOverlap(a: string | Cidr, b: string | Cidr): boolean {
  const x = parseCidr(a);
  const y = parseCidr(b);
  if (x.family !== y.family) return false;
  return (y.network >= x.network && y.network <= x.last) || (x.network >= y.network && x.network <= y.last);
}

/** First address of the network, as text ("10.0.0.5/24" → "10.0.0.0"). */
export function networkAddress(cidr: string | Cidr): string {
  const c = parseCidr(cidr);
  return formatIp(c.family, c.network);
}

/** Last address of the network ("10.0.0.5/24" → "10.0.0.255"); for IPv6 the all-ones host part. */
export function broadcastAddress(cidr: string | Cidr): string {
  const c = parseCidr(cidr);
  return formatIp(c.family, c.last);
}

/** Network form of a CIDR, as Go's IPNet.String(): "10.0.0.5/24" → "10.0.0.0/24". */
export function normalizeCidr(cidr: string | Cidr): string {
  const c = parseCidr(cidr);
  return `${formatIp(c.family, c.network)}/${c.prefix}`;
}

/** Canonical text form of an address ("2001:DB8:0::1" → "2001:db8::1"); unparseable → unchanged. */
export function canonicalIp(ip: string): string {
  return tryParseIp(ip)?.text ?? ip;
}

/** Whether the CIDR is written as its network address (no host bits set). */
export function isNetworkCidr(cidr: string | Cidr): boolean {
  const c = parseCidr(cidr);
  return c.ip.value === c.network;
}

/** Number of addresses in the CIDR (2^(bits − prefix)). */
export function cidrSize(cidr: string | Cidr): bigint {
  const c = parseCidr(cidr);
  return 1n << BigInt(c.bits - c.prefix);
}

/** The address at `offset` from the network address, as text. */
export function addressAt(cidr: string | Cidr, offset: bigint | number): string {
  const c = parseCidr(cidr);
  return formatIp(c.family, c.network + BigInt(offset));
}

export function bitsOf(family: IpFamily): number {
  return familyBits(family);
}
