// Just enough IPv4/IPv6 arithmetic for the simulator: parse a CIDR, take the n-th address of a
// network, test membership, print addresses the way the agent does (RFC 5952 for IPv6).

export type IpFamily = 4 | 6;

export interface Cidr {
  family: IpFamily;
  /** Network address (host bits cleared). */
  network: bigint;
  prefix: number;
}

const BITS: Record<IpFamily, number> = { 4: 32, 6: 128 };

export function parseIp(text: string): { family: IpFamily; value: bigint } | undefined {
  if (text.includes(':')) {
    const value = parseIpv6(text);
    return value === undefined ? undefined : { family: 6, value };
  }
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part) || Number(part) > 255) return undefined;
    value = (value << 8n) | BigInt(part);
  }
  return { family: 4, value };
}

function parseIpv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  const missing = 8 - head.length - tail.length;
  if ((halves.length === 1 && missing !== 0) || missing < 0) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  let value = 0n;
  for (const g of all) {
    if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return undefined;
    value = (value << 16n) | BigInt(Number.parseInt(g, 16));
  }
  return value;
}

export function formatIp(family: IpFamily, value: bigint): string {
  if (family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
  }
  const groups: number[] = [];
  for (let i = 7; i >= 0; i--) groups.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  // RFC 5952: compress the longest run (≥ 2) of zero groups, the first one on ties.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

export function parseCidr(text: string): Cidr {
  const [addr, prefixText] = text.trim().split('/');
  const ip = parseIp(addr ?? '');
  const prefix = Number(prefixText);
  if (
    !ip ||
    prefixText === undefined ||
    !Number.isInteger(prefix) ||
    prefix < 0 ||
    prefix > BITS[ip.family]
  ) {
    throw new Error(`invalid CIDR ${JSON.stringify(text)}`);
  }
  const hostBits = BigInt(BITS[ip.family] - prefix);
  return { family: ip.family, prefix, network: (ip.value >> hostBits) << hostBits };
}

export function formatCidr(cidr: Cidr): string {
  return `${formatIp(cidr.family, cidr.network)}/${cidr.prefix}`;
}

/** Number of addresses in the network (including network and broadcast). */
export function cidrSize(cidr: Cidr): bigint {
  return 1n << BigInt(BITS[cidr.family] - cidr.prefix);
}

/** The address `offset` positions after the network address. */
export function addressAt(cidr: Cidr, offset: number | bigint): string {
  const off = BigInt(offset);
  if (off < 0n || off >= cidrSize(cidr)) throw new Error(`offset ${off} outside ${formatCidr(cidr)}`);
  return formatIp(cidr.family, cidr.network + off);
}

export function cidrContains(cidr: Cidr, address: string): boolean {
  const ip = parseIp(stripPrefix(address));
  if (!ip || ip.family !== cidr.family) return false;
  const hostBits = BigInt(BITS[cidr.family] - cidr.prefix);
  return ip.value >> hostBits === cidr.network >> hostBits;
}

/** "192.168.1.10/24" → "192.168.1.10". */
export function stripPrefix(address: string): string {
  const slash = address.indexOf('/');
  return slash < 0 ? address : address.slice(0, slash);
}
