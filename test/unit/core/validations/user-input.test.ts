import { describe, expect, it } from 'vitest';
import {
  baseDomainError,
  clusterNameError,
  isValidNtpSource,
  noProxyError,
  ntpSourcesError,
  proxyError,
  requestedHostnameError,
  requestedRoleError,
  sshPublicKeyError,
} from '../../../../src/core/validations/user-input.ts';

// A syntactically valid ed25519 authorized_keys entry (the 32 key bytes are arbitrary).
const ED25519 =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoDemoDemoDemoDemoDemoDemoDemoDemoDemoDem demo@example.com';

describe('sshPublicKeyError', () => {
  it.each([
    ['one key', ED25519],
    ['two keys and blank lines', `${ED25519}\n\n  ${ED25519}  \n`],
  ])('accepts %s', (_, key) => expect(sshPublicKeyError(key)).toBeUndefined());

  it.each([
    [
      'not a key',
      'hello',
      'SSH key: hello does not match any supported type: ssh-rsa, ssh-ed25519, ecdsa-[VARIANT]',
    ],
    [
      'an unsupported type',
      'ssh-foo AAAA',
      'SSH key: ssh-foo AAAA does not match any supported type: ssh-rsa, ssh-ed25519, ecdsa-[VARIANT]',
    ],
    [
      'a blob that is not a key',
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake x',
      'Malformed SSH key: ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFake x: ssh: no key found',
    ],
  ])('rejects %s', (_, key, message) => expect(sshPublicKeyError(key)).toBe(message));

  it('rejects a 1 MB value quickly', () => {
    const started = performance.now();
    expect(sshPublicKeyError(`ssh-rsa AAAAB3NzaC1yc2${'A'.repeat(1 << 20)}`)).toMatch(/^Malformed SSH key/);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('NTP sources', () => {
  it.each([
    ['1.1.1.1', true],
    ['fd00::1', true],
    ['clock.redhat.com', true],
    ['alias', true],
    ['a', false],
    ['!jkfd.com', false],
    ['Clock.example.com', false],
    ['', false],
  ])('%j valid: %s', (source, valid) => expect(isValidNtpSource(source)).toBe(valid));

  it('joins the list with commas, as the backend receives it', () => {
    expect(ntpSourcesError(['pool.ntp.org', '10.0.0.1'])).toBeUndefined();
    expect(ntpSourcesError([])).toBeUndefined();
    expect(ntpSourcesError(['pool.ntp.org', 'not a host'])).toBe(
      'Invalid NTP source: pool.ntp.org,not a host',
    );
  });
});

describe('proxyError', () => {
  it.each([
    [{ httpProxy: 'http://proxy.example.com:3128' }, undefined],
    [
      { httpProxy: 'http://user:p%40ss@proxy:3128', noProxy: '.example.com,10.0.0.0/8,::1,localhost' },
      undefined,
    ],
    [{ noProxy: '*' }, undefined],
    [{ httpProxy: 'not a url' }, "Failed to validate HTTP Proxy: Proxy URL format is not valid: 'not a url'"],
    [
      { httpsProxy: 'https://proxy:3128' },
      "Failed to validate HTTPS Proxy: The URL scheme must be http; https is currently not supported: 'https://proxy:3128'",
    ],
    [
      { httpProxy: 'socks5://proxy:1080' },
      "Failed to validate HTTP Proxy: The URL scheme must be http and specified in the URL: 'socks5://proxy:1080'",
    ],
  ])('%j → %s', (proxy, message) => expect(proxyError(proxy)).toBe(message));

  it('names the whole no-proxy list', () => {
    expect(noProxyError('example.com,bad domain')).toMatch(
      /^NO Proxy format is not valid: 'example.com,bad domain'\. NO Proxy is a comma-separated list/,
    );
  });
});

describe('baseDomainError', () => {
  it.each(['example.com', 'redhat', 'a-b.example.co', 'a--b.c-d.example'])('accepts %s', (d) =>
    expect(baseDomainError(d)).toBeUndefined(),
  );
  it.each(['-bad_domain..com', 'a', '1.2.3.4', 'Example.com', `${'a'.repeat(252)}.com`])('rejects %s', (d) =>
    expect(baseDomainError(d)).toMatch(`DNS format mismatch: ${d} domain name is not valid.`),
  );
});

describe('clusterNameError', () => {
  it('allows dotted names only with platform none', () => {
    expect(clusterNameError('sno', 'baremetal')).toBeUndefined();
    expect(clusterNameError('a.b', 'none')).toBeUndefined();
    expect(clusterNameError('a.b', 'baremetal')).toBe(
      "Cluster name format is not valid: 'a.b'. Name must start and end with either a letter or number and consist of lower-case letters, numbers, and hyphens. Subdomains in cluster names are only valid with none platform.",
    );
    expect(clusterNameError('Bad_Name', 'none')).toMatch(/^Cluster name format is not valid: 'Bad_Name'/);
  });
});

describe('host updates', () => {
  it('checks requested hostnames', () => {
    expect(requestedHostnameError('worker-0.example.com')).toBeUndefined();
    expect(requestedHostnameError('localhost')).toBe('The host name localhost is forbidden');
    expect(requestedHostnameError('Bad_Host')).toMatch(
      /^Hostname does not pass required regex validation: .*\. Hostname: Bad_Host$/,
    );
    expect(requestedHostnameError('a'.repeat(64))).toBe(
      `hostname is too long, must be 63 characters or less. Hostname: ${'a'.repeat(64)} has 64 characters`,
    );
  });

  it('checks requested roles', () => {
    const host = { id: 'h1', infraEnvId: 'ie1', day2: false };
    expect(requestedRoleError('master', host)).toBeUndefined();
    expect(requestedRoleError('superuser', host)).toBe(
      'Requested role (superuser) is invalid for host h1 from infraEnv ie1',
    );
    expect(requestedRoleError('bootstrap', { ...host, day2: true })).toMatch(/^Requested role \(bootstrap\)/);
  });
});
