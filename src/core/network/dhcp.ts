// VIP DHCP helpers (core.md §6.8): deterministic VIP MACs, lease text, keepalived monitor file.

import { stringify } from 'yaml';

/** Qumranet OUI used as the prefix of generated VIP MACs. */
const MAC_PREFIX = [0x00, 0x1a, 0x4a];

// The 256-byte permutation from RFC 3074 (load-balancing hash), used for Pearson hashing.
const RFC3074_TABLE = [
  251, 175, 119, 215, 81, 14, 79, 191, 103, 49, 181, 143, 186, 157, 0, 232, 31, 32, 55, 60, 152, 58, 17, 237,
  174, 70, 160, 144, 220, 90, 57, 223, 59, 3, 18, 140, 111, 166, 203, 196, 134, 243, 124, 95, 222, 179, 197,
  65, 180, 48, 36, 15, 107, 46, 233, 130, 165, 30, 123, 161, 209, 23, 97, 16, 40, 91, 219, 61, 100, 10, 210,
  109, 250, 127, 22, 138, 29, 108, 244, 67, 207, 9, 178, 204, 74, 98, 126, 249, 167, 116, 34, 77, 193, 200,
  121, 5, 20, 113, 71, 35, 128, 13, 182, 94, 25, 226, 227, 199, 75, 27, 41, 245, 230, 224, 43, 225, 177, 26,
  155, 150, 212, 142, 218, 115, 241, 73, 88, 105, 39, 114, 62, 255, 192, 201, 145, 214, 168, 158, 221, 148,
  154, 122, 12, 84, 82, 163, 44, 139, 228, 236, 205, 242, 217, 11, 187, 146, 159, 64, 86, 239, 195, 42, 106,
  198, 118, 112, 184, 172, 87, 2, 173, 117, 176, 229, 247, 253, 137, 185, 99, 164, 102, 147, 45, 66, 231, 52,
  141, 211, 194, 206, 246, 238, 56, 110, 78, 248, 63, 240, 189, 93, 92, 51, 53, 183, 19, 171, 72, 50, 33, 104,
  101, 69, 8, 252, 83, 120, 76, 135, 85, 54, 202, 125, 188, 213, 96, 235, 136, 208, 162, 129, 190, 132, 156,
  38, 47, 1, 7, 254, 24, 4, 216, 131, 89, 21, 28, 133, 37, 153, 149, 80, 170, 68, 6, 169, 234, 151,
] as const;

/**
 * Pearson hash producing `length` bytes: byte i starts from T[(data[0] + i) mod 256] and then
 * folds every input byte (the first one included) through the table.
 */
export function pearsonHash(data: Uint8Array, length: number): number[] {
  const out: number[] = [];
  const first = data[0] ?? 0;
  for (let i = 0; i < length; i++) {
    let h: number = RFC3074_TABLE[(first + i) % 256] as number;
    for (const byte of data) h = RFC3074_TABLE[h ^ byte] as number;
    out.push(h);
  }
  return out;
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0');
}

function vipMac(clusterId: string, vipName: 'api' | 'ingress'): string {
  const key = new TextEncoder().encode(`${clusterId}-${vipName}`);
  return [...MAC_PREFIX, ...pearsonHash(key, 6 - MAC_PREFIX.length)].map(hex2).join(':');
}

/** MAC the agent uses to request the API VIP lease: "00:1a:4a" + 3 hash bytes of "<id>-api". */
export function apiVipMac(clusterId: string): string {
  return vipMac(clusterId, 'api');
}

/** MAC for the Ingress VIP lease ("<id>-ingress"). */
export function ingressVipMac(clusterId: string): string {
  return vipMac(clusterId, 'ingress');
}

/** Lease text as stored: renew / rebind / expire values replaced with "never". */
export function formatLease(lease: string): string {
  return lease.replace(/(\s)(renew|rebind|expire) [^;]*;/g, '$1$2 never;');
}

/** A lease must be empty or a dhclient `lease { ... }` block. */
export function isValidLease(lease: string): boolean {
  return /^(?:|\s*lease\s*[{](?:\s+[a-z-]+ [^;}]*;)*\s+[}]\s*)$/.test(lease);
}

/**
 * `/etc/keepalived/unsupported-monitor.conf` for master.ign (VIP DHCP mode, not UMN). Both VIPs must
 * be known; undefined when the file is not needed.
 */
export function keepalivedMonitorConf(cluster: {
  id: string;
  vip_dhcp_allocation?: boolean;
  user_managed_networking: boolean;
  api_vips: { ip: string }[];
  ingress_vips: { ip: string }[];
}): { content?: string; error?: string } | undefined {
  if (!cluster.vip_dhcp_allocation || cluster.user_managed_networking) return undefined;
  const api = cluster.api_vips[0]?.ip ?? '';
  const ingress = cluster.ingress_vips[0]?.ip ?? '';
  if (!api || !ingress) return { error: `Either API VIP <${api}> or Ingress VIP <${ingress}> are not set` };
  const doc = {
    'api-vip': { name: 'api', 'mac-address': apiVipMac(cluster.id), 'ip-address': api },
    'ingress-vip': { name: 'ingress', 'mac-address': ingressVipMac(cluster.id), 'ip-address': ingress },
  };
  return { content: stringify(doc) };
}

/** Go's url.PathEscape: unreserved characters and "$&+:=@" stay, everything else is %XX-escaped. */
export function goPathEscape(text: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(text)) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~$&+:=@]/.test(ch) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A data URL for an ignition file body, as upstream encodes lease files ("data:," + path-escaped). */
export function dataUrl(content: string): string {
  return content === '' ? '' : `data:,${goPathEscape(content)}`;
}
