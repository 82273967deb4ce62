// Checks the backend applies to user-supplied fields when a cluster, infra-env or host is created
// or updated (the 400s of upstream's inventory API): SSH keys, NTP sources, proxy URLs and
// no-proxy lists, base domains, cluster names, requested hostnames and roles. Each returns the
// backend's error text, or undefined when the value is accepted. Pure: no I/O.

import { isIP } from 'node:net';
import { tryParseCidr } from '../network/cidr.ts';
import { FORBIDDEN_HOSTNAMES, HOSTNAME_PATTERN } from '../statemachine/hostutil.ts';

// --- SSH keys ------------------------------------------------------------------------------------

// Key type followed by the base64 prefix its blob must start with (the encoded type name).
const SSH_KEY_LINE =
  /^(ssh-rsa AAAAB3NzaC1yc2|ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNT|ecdsa-sha2-nistp384 AAAAE2VjZHNhLXNoYTItbmlzdHAzODQAAAAIbmlzdHAzOD|ecdsa-sha2-nistp521 AAAAE2VjZHNhLXNoYTItbmlzdHA1MjEAAAAIbmlzdHA1Mj|ssh-ed25519 AAAAC3NzaC1lZDI1NTE5|ssh-dss AAAAB3NzaC1kc3)[0-9A-Za-z+/]+[=]{0,3}( .*)?$/;

/** The wire-format blob of an authorized_keys line is a list of length-prefixed fields. */
function sshBlobFields(blob: Buffer): Buffer[] | undefined {
  const fields: Buffer[] = [];
  let at = 0;
  while (at < blob.length) {
    if (at + 4 > blob.length) return undefined;
    const len = blob.readUInt32BE(at);
    at += 4;
    if (at + len > blob.length) return undefined;
    fields.push(blob.subarray(at, at + len));
    at += len;
  }
  return fields;
}

/** Minimum field count after the type name, per key type (RSA: e, n; DSA: p, q, g, y; ...). */
const SSH_KEY_FIELDS: Record<string, number> = {
  'ssh-rsa': 2,
  'ssh-dss': 4,
  'ssh-ed25519': 1,
  'ecdsa-sha2-nistp256': 2,
  'ecdsa-sha2-nistp384': 2,
  'ecdsa-sha2-nistp521': 2,
};

/** Whether the key text decodes to a wire-format key of its declared type. */
function sshKeyParses(line: string): boolean {
  const [type = '', data = ''] = line.split(/\s+/);
  const blob = Buffer.from(data, 'base64');
  // Node's decoder skips junk; a blob that does not re-encode to the text is not base64.
  if (data.length % 4 !== 0 || blob.toString('base64') !== data) return false;
  const fields = sshBlobFields(blob);
  if (!fields || fields[0]?.toString('latin1') !== type) return false;
  if (fields.length - 1 < (SSH_KEY_FIELDS[type] ?? 1)) return false;
  return type !== 'ssh-ed25519' || fields[1]?.length === 32;
}

/**
 * Every non-blank line must be an authorized_keys entry of a supported type whose blob parses.
 * Blank lines (a trailing newline) are skipped.
 */
export function sshPublicKeyError(keys: string): string | undefined {
  for (const raw of keys.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (!SSH_KEY_LINE.test(line)) {
      return `SSH key: ${line} does not match any supported type: ssh-rsa, ssh-ed25519, ecdsa-[VARIANT]`;
    }
    // Whatever is wrong with the blob, the key parser reports that it found no key.
    if (!sshKeyParses(line)) return `Malformed SSH key: ${line}: ssh: no key found`;
  }
  return undefined;
}

// --- NTP sources ---------------------------------------------------------------------------------

const NTP_HOSTNAME = /^[a-z0-9][a-z0-9\-.]{0,61}[a-z0-9]$/;

/** An NTP source is an IP address or a lower-case host name of 2 to 63 characters. */
export function isValidNtpSource(source: string): boolean {
  return isIP(source) !== 0 || NTP_HOSTNAME.test(source);
}

/** The sources as the backend gets them (comma-joined); every item must be valid. */
export function ntpSourcesError(sources: readonly string[]): string | undefined {
  if (sources.length === 0) return undefined;
  const joined = sources.join(',');
  if (joined === '') return undefined;
  return joined.split(',').every(isValidNtpSource) ? undefined : `Invalid NTP source: ${joined}`;
}

// --- Proxy ---------------------------------------------------------------------------------------

const URL_SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** Roughly what the backend's URL check accepts: a host, with or without a scheme. */
function looksLikeUrl(value: string): boolean {
  if (value.length === 0 || value.length >= 2083 || /\s/.test(value) || value.startsWith('.')) return false;
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(value) ? value : `http://${value}`;
  try {
    return new URL(withScheme).hostname !== '';
  } catch {
    return false;
  }
}

function proxyUrlError(url: string): string | undefined {
  if (!looksLikeUrl(url)) return `Proxy URL format is not valid: '${url}'`;
  const scheme = URL_SCHEME.exec(url)?.[1]?.toLowerCase() ?? '';
  if (scheme === 'https') return `The URL scheme must be http; https is currently not supported: '${url}'`;
  if (scheme !== 'http') return `The URL scheme must be http and specified in the URL: '${url}'`;
  return undefined;
}

const DNS_NAME = /^([a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})(\.[a-zA-Z0-9_][a-zA-Z0-9_-]{0,62})*[._]?$/;

function isNoProxyEntry(entry: string): boolean {
  const s = entry.startsWith('.') ? entry.slice(1) : entry;
  if (isIP(s) !== 0 || (s.includes('/') && tryParseCidr(s))) return true;
  return s.length > 0 && s.length <= 255 && DNS_NAME.test(s);
}

/** A comma-separated list of domains (optionally dot-prefixed), IPs and CIDRs, or anything with `*`. */
export function noProxyError(noProxy: string): string | undefined {
  // '*' bypasses the proxy for everything from OpenShift 4.8, older than any supported release.
  if (noProxy.includes('*')) return undefined;
  if (noProxy.split(',').every(isNoProxyEntry)) return undefined;
  return (
    `NO Proxy format is not valid: '${noProxy}'. NO Proxy is a comma-separated list of destination domain names, ` +
    "domains, IP addresses or other network CIDRs. A domain can be prefaced with '.' to include all subdomains " +
    "of that domain. Use '*' to bypass proxy for all destinations with OpenShift 4.8 or later."
  );
}

export interface ProxyInput {
  httpProxy?: string | undefined;
  httpsProxy?: string | undefined;
  noProxy?: string | undefined;
}

/** HTTP proxy, HTTPS proxy, then the no-proxy list; empty values are not checked. */
export function proxyError(proxy: ProxyInput | undefined): string | undefined {
  if (!proxy) return undefined;
  if (proxy.httpProxy) {
    const e = proxyUrlError(proxy.httpProxy);
    if (e) return `Failed to validate HTTP Proxy: ${e}`;
  }
  if (proxy.httpsProxy) {
    const e = proxyUrlError(proxy.httpsProxy);
    if (e) return `Failed to validate HTTPS Proxy: ${e}`;
  }
  return proxy.noProxy ? noProxyError(proxy.noProxy) : undefined;
}

// --- Base domain and cluster name ----------------------------------------------------------------

// Upstream's patterns (Go's linear-time engine) rewritten as equivalent ones that do not backtrack
// exponentially in JavaScript: `^[a-z\d]([-]*[a-z\d]+)+$` is an alphanumeric-edged run of
// alphanumerics and hyphens; the dotted pattern is such labels joined by dots (the last one at
// least 2 characters). Upstream's own text stays in the message.
const DNS_NAME_PATTERN = '^([a-z\\d]([\\-]*[a-z\\d]+)*\\.)+[a-z\\d]+([\\-]*[a-z\\d]+)+$';
const SINGLE_LABEL_DOMAIN = /^[a-z\d][-a-z\d]*[a-z\d]$/;
const MULTI_LABEL_DOMAIN = /^(?:[a-z\d](?:[-a-z\d]*[a-z\d])?\.)+[a-z\d][-a-z\d]*[a-z\d]$/;
const DOTTED_DECIMAL = /(\d+\.){3}\d+/;
const MAX_DOMAIN_LENGTH = 255;

/** A single label of 2–62 characters, or a dotted name of at most 255 that is not ##.##.##.##. */
export function baseDomainError(domain: string): string | undefined {
  if (domain.length <= MAX_DOMAIN_LENGTH) {
    if (SINGLE_LABEL_DOMAIN.test(domain) && domain.length < 63) return undefined;
    if (MULTI_LABEL_DOMAIN.test(domain) && !DOTTED_DECIMAL.test(domain)) return undefined;
  }
  return (
    `DNS format mismatch: ${domain} domain name is not valid. Must match regex [${DNS_NAME_PATTERN}], ` +
    'be no more than 255 characters, and not be in dotted decimal format (##.##.##.##)'
  );
}

// Upstream: `^([a-z0-9]([-a-z0-9]*[a-z0-9])?)*$` and, for platform none, the same with dotted
// sub-domains. Repeating a label adds nothing (two labels side by side form one), so each is one
// optional label (or dotted name), which cannot backtrack exponentially.
const CLUSTER_NAME = /^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)?$/;
const CLUSTER_NAME_NONE_PLATFORM =
  /^(?:[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*)?$/;

/** DNS-label cluster names; dotted ones only with platform none. */
export function clusterNameError(name: string, platform: string): string | undefined {
  const pattern = platform === 'none' ? CLUSTER_NAME_NONE_PLATFORM : CLUSTER_NAME;
  if (pattern.test(name)) return undefined;
  return (
    `Cluster name format is not valid: '${name}'. Name must start and end with either a letter or number ` +
    'and consist of lower-case letters, numbers, and hyphens. Subdomains in cluster names are only valid ' +
    'with none platform.'
  );
}

// --- Host updates --------------------------------------------------------------------------------

const MAX_HOSTNAME_LENGTH = 63;

/** A requested hostname, as the host update checks it. */
export function requestedHostnameError(hostname: string): string | undefined {
  if (hostname.length > MAX_HOSTNAME_LENGTH) {
    return `hostname is too long, must be 63 characters or less. Hostname: ${hostname} has ${hostname.length} characters`;
  }
  if (!new RegExp(HOSTNAME_PATTERN).test(hostname)) {
    return `Hostname does not pass required regex validation: ${HOSTNAME_PATTERN}. Hostname: ${hostname}`;
  }
  if (FORBIDDEN_HOSTNAMES.includes(hostname)) return `The host name ${hostname} is forbidden`;
  return undefined;
}

const DAY1_ROLES = ['auto-assign', 'bootstrap', 'master', 'arbiter', 'worker'];
const DAY2_ROLES = ['auto-assign', 'master', 'arbiter', 'worker'];

/** A requested role the host update refuses (checked only when it differs from the current one). */
export function requestedRoleError(
  role: string,
  host: { id: string; infraEnvId: string; day2: boolean },
): string | undefined {
  if ((host.day2 ? DAY2_ROLES : DAY1_ROLES).includes(role)) return undefined;
  return `Requested role (${role}) is invalid for host ${host.id} from infraEnv ${host.infraEnvId}`;
}
