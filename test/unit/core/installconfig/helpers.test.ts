// Version thresholds, registries.conf parsing, host helpers.

import { describe, expect, it } from 'vitest';
import {
  bootstrapHost,
  effectiveRole,
  hostNetworks,
  mirrorSources,
  parseRegistriesConf,
  primaryFamily,
} from '../../../../src/core/installconfig/index.ts';
import { baseVersionAtLeast, baseVersionBelow, majorMinorEquals } from '../../../../src/core/version.ts';
import { makeCluster, makeHost, nic, singleNodeHost } from './fixtures.ts';

describe('versions', () => {
  const table: [string | undefined, string, boolean][] = [
    ['4.14.0', '4.14', true],
    ['4.14.0-rc.1', '4.14', true],
    ['4.13.99', '4.14', false],
    ['v5.0', '4.14', true],
    ['4.9', '4.10', false],
    ['4.10', '4.9', true],
    ['', '4.14', false],
    [undefined, '4.7', false],
    ['latest', '4.7', false],
  ];
  for (const [version, threshold, expected] of table) {
    it(`${String(version)} >= ${threshold} is ${expected}`, () => {
      expect(baseVersionAtLeast(version, threshold)).toBe(expected);
      expect(baseVersionBelow(version, threshold)).toBe(!expected);
    });
  }
  it('threshold typos count as not reached', () => expect(baseVersionAtLeast('4.14', 'x')).toBe(false));
  it('base version equality', () => {
    expect(majorMinorEquals('4.19.7', '4.19')).toBe(true);
    expect(majorMinorEquals('4.190.0', '4.19')).toBe(false);
    expect(majorMinorEquals('junk', '4.19')).toBe(false);
  });
});

describe('registries.conf', () => {
  it('reads tables, inline mirror arrays, prefixes and comments; drops registries without mirrors', () => {
    const conf = `
# comment
unqualified-search-registries = ["registry.access.redhat.com"]

[[registry]]
location = "quay.io/a#b" # the hash inside quotes is not a comment
mirror = [{ location = "m1.local/a" }, { location = 'm2.local/a', insecure = true }]

[[registry]]
prefix = "registry.redhat.io"
location = ""
  [[registry.mirror]]
  location = "m3.local/rh"
  insecure = false

[[registry]]
location = "docker.io/library"

[aliases]
location = "ignored"
`;
    expect(parseRegistriesConf(conf)).toEqual([
      { source: 'quay.io/a#b', mirrors: ['m1.local/a', 'm2.local/a'] },
      { source: 'registry.redhat.io', mirrors: ['m3.local/rh'] },
    ]);
  });
  it('ignores mirror tables before any registry and unparseable values', () => {
    expect(
      parseRegistriesConf(
        '[[registry.mirror]]\nlocation = "x"\n[[registry]]\nlocation = bare\n[[registry.mirror]]\nlocation = "m"\nlocation = nope\nnot-a-pair\n',
      ),
    ).toEqual([]);
  });
  it('unescapes double-quoted strings', () => {
    expect(
      parseRegistriesConf('[[registry]]\nlocation = "a\\"b"\n[[registry.mirror]]\nlocation = "m"'),
    ).toEqual([{ source: 'a"b', mirrors: ['m'] }]);
  });
  it('mirrorSources combines parsed and explicit sources', () => {
    expect(mirrorSources(undefined)).toEqual([]);
    expect(
      mirrorSources({
        registriesConf: '[[registry]]\nlocation="a"\n[[registry.mirror]]\nlocation="b"',
        sources: [{ source: 'c', mirrors: ['d'] }],
      }),
    ).toEqual([
      { source: 'a', mirrors: ['b'] },
      { source: 'c', mirrors: ['d'] },
    ]);
  });
});

describe('host helpers', () => {
  it('effective role', () => {
    const h = makeHost('h', 'h', 'auto-assign', []);
    expect(effectiveRole(h)).toBe('auto-assign');
    expect(effectiveRole({ ...h, suggested_role: 'worker' })).toBe('worker');
    expect(effectiveRole({ ...h, role: 'master', suggested_role: 'worker' })).toBe('master');
  });
  it('bootstrap host: the flagged one, else the only SNO host', () => {
    const a = makeHost('a', 'a', 'master', []);
    const b = makeHost('b', 'b', 'master', [], { bootstrap: true });
    expect(bootstrapHost(makeCluster({ hosts: [a, b] }))?.id).toBe('b');
    expect(bootstrapHost(makeCluster({ hosts: [a] }))).toBeUndefined();
    expect(bootstrapHost(makeCluster({ control_plane_count: 1, hosts: [a] }))?.id).toBe('a');
  });
  it('host networks skip IPv6 link-local and unparseable addresses, de-duplicated', () => {
    const h = makeHost('h', 'h', 'master', [
      nic('1', ['10.0.0.5/24', 'junk', '10.0.0.6/24'], ['fe80::5/64', 'fd00::5/64']),
      nic('2', ['10.1.0.5/16']),
    ]);
    expect(hostNetworks(h)).toEqual(['10.0.0.0/24', 'fd00::/64', '10.1.0.0/16']);
    expect(hostNetworks(h, 'ipv6')).toEqual(['fd00::/64']);
    expect(hostNetworks({ ...h, inventory: undefined })).toEqual([]);
  });
  it('primary family from the first list that has an entry', () => {
    const empty = {
      machine_networks: [],
      api_vips: [],
      ingress_vips: [],
      service_networks: [],
      cluster_networks: [],
    };
    expect(primaryFamily(makeCluster({ ...empty }))).toBe('ipv4');
    expect(primaryFamily(makeCluster({ ...empty, ingress_vips: [{ ip: 'fd00::1' }] }))).toBe('ipv6');
    expect(
      primaryFamily(makeCluster({ ...empty, cluster_networks: [{ cidr: 'fd01::/48', host_prefix: 64 }] })),
    ).toBe('ipv6');
    expect(primaryFamily(makeCluster({ hosts: [singleNodeHost()] }))).toBe('ipv4');
  });
});
