import { describe, expect, it } from 'vitest';
import type { ConnectivityRemoteHost, ConnectivityReport, Host } from '../../../../src/core/model.ts';
import {
  computeConnectivity,
  detectIpCollisions,
  formatConnectivity,
  formatIpCollisions,
  gatherL3ConnectedAddresses,
  hostOwnsIp,
  hostsWhoseGroupsChanged,
  l2MajorityGroup,
  l3MajorityGroup,
  parseConnectivity,
} from '../../../../src/core/network/connectivity.ts';
import { BitRows, largestFullMesh } from '../../../../src/core/network/full-mesh.ts';
import { seededUint32 as lcg } from '../../../../src/sim/prng.ts';
import { hostWithAddresses } from './fixtures.ts';

/** The report of a host these tests built: a parsed tree, edited in place by some of them. */
const treeOf = (h: Host | undefined) => h?.connectivity as ConnectivityReport | undefined;

/** Hosts h<i> with address 10.0.0.<i>/24 (and fd00::<i>/64); `links` lists directed reachability. */
function mesh(
  n: number,
  links: [number, number][],
  opts: { l2?: boolean; l3?: boolean; v6?: boolean } = {},
): Host[] {
  const { l2 = true, l3 = true, v6 = false } = opts;
  const ip4 = (i: number) => `10.0.0.${i + 1}`;
  const ip6 = (i: number) => `fd00::${i + 1}`;
  return Array.from({ length: n }, (_, i) => {
    const remote: ConnectivityRemoteHost[] = links
      .filter(([from]) => from === i)
      .map(([, to]) => ({
        host_id: `h${to}`,
        l2_connectivity: l2
          ? [{ remote_ip_address: ip4(to), successful: true, outgoing_nic: 'eth0', remote_mac: `m${to}` }]
          : [],
        l3_connectivity: l3
          ? [
              { remote_ip_address: ip4(to), successful: true },
              ...(v6 ? [{ remote_ip_address: ip6(to), successful: true }] : []),
            ]
          : [],
      }));
    const addrs = [`${ip4(i)}/24`, ...(v6 ? [`${ip6(i)}/64`] : [])];
    return hostWithAddresses(`h${i}`, addrs, { connectivity: { remote_hosts: remote } });
  });
}

function full(n: number, except: [number, number][] = []): [number, number][] {
  const out: [number, number][] = [];
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) if (a !== b && !except.some(([x, y]) => x === a && y === b)) out.push([a, b]);
  return out;
}

/** Reachability rows of n hosts from directed links. */
function reach(n: number, links: Iterable<readonly [number, number]>): BitRows {
  const r = new BitRows(n);
  for (const [a, b] of links) r.set(a, b);
  return r;
}

describe('largestFullMesh', () => {
  it('needs both directions', () => {
    expect(largestFullMesh(reach(3, full(3)), 3)).toEqual([0, 1, 2]);
    expect(largestFullMesh(reach(3, full(3, [[0, 1]])), 3)).toEqual([]);
    expect(largestFullMesh(reach(3, full(3, [[0, 1]])), 2)).toEqual([0, 2]);
  });
  it('ties go to the smallest indexes', () => {
    // Two disjoint triangles {0,1,2} and {3,4,5}.
    const links = [...full(3), ...full(3).map(([a, b]) => [a + 3, b + 3] as [number, number])];
    expect(largestFullMesh(reach(6, links), 3)).toEqual([0, 1, 2]);
  });
  it('empty input', () => {
    expect(largestFullMesh(new BitRows(0), 3)).toEqual([]);
  });
  it('property: the result is always a full mesh and no larger one exists (exhaustive check)', () => {
    const next = lcg(99);
    for (let round = 0; round < 60; round++) {
      const n = 3 + (next() % 6);
      const links: [number, number][] = [];
      for (let a = 0; a < n; a++)
        for (let b = 0; b < n; b++) if (a !== b && next() % 100 < 75) links.push([a, b]);
      const r = reach(n, links);
      const group = largestFullMesh(r, 1);
      for (const a of group)
        for (const b of group) if (a !== b) expect(r.has(a, b) && r.has(b, a)).toBe(true);
      let best = 0;
      for (let mask = 1; mask < 1 << n; mask++) {
        const members = [...Array(n).keys()].filter((i) => mask & (1 << i));
        const ok = members.every((a) => members.every((b) => a === b || (r.has(a, b) && r.has(b, a))));
        if (ok) best = Math.max(best, members.length);
      }
      expect(group.length).toBe(best);
    }
  });
  it('property: with a minimum size, the smallest-indexed largest mesh or none (exhaustive check)', () => {
    const seed = 20261127;
    const next = lcg(seed);
    for (let round = 0; round < 200; round++) {
      const n = next() % 10;
      const density = 10 + (next() % 85);
      const minSize = 1 + (next() % 4);
      const links: [number, number][] = [];
      for (let a = 0; a < n; a++)
        for (let b = 0; b < n; b++) if (a !== b && next() % 100 < density) links.push([a, b]);
      const r = reach(n, links);
      let want: number[] = [];
      for (let mask = 1; mask < 1 << n; mask++) {
        const members = [...Array(n).keys()].filter((i) => mask & (1 << i));
        const ok = members.every((a) => members.every((b) => a === b || (r.has(a, b) && r.has(b, a))));
        const first = members.findIndex((m, i) => m !== want[i]);
        const smaller = members.length === want.length && first >= 0 && members[first]! < want[first]!;
        if (ok && (members.length > want.length || smaller)) want = members;
      }
      if (want.length < minSize) want = [];
      expect(largestFullMesh(r, minSize), `seed ${seed} round ${round}: n ${n}, min ${minSize}`).toEqual(
        want,
      );
    }
  });
  it('property: across 32-host words, the same group as a plain search (seeded)', () => {
    // A plain Bron–Kerbosch on Sets, no pivot, no pruning: every maximal group is compared.
    const plainLargest = (r: BitRows, minSize: number): number[] => {
      const n = r.size;
      const nb = Array.from(
        { length: n },
        (_, a) => new Set([...Array(n).keys()].filter((b) => b !== a && r.has(a, b) && r.has(b, a))),
      );
      let best: number[] = [];
      const visit = (group: number[], p: number[], x: number[]) => {
        if (p.length === 0 && x.length === 0) {
          const g = [...group].sort((a, b) => a - b);
          const first = g.findIndex((m, i) => m !== best[i]);
          if (g.length > best.length || (g.length === best.length && first >= 0 && g[first]! < best[first]!))
            best = g;
        }
        for (const v of [...p]) {
          visit(
            [...group, v],
            p.filter((w) => nb[v]!.has(w)),
            x.filter((w) => nb[v]!.has(w)),
          );
          p = p.filter((w) => w !== v);
          x = [...x, v];
        }
      };
      visit([], [...Array(n).keys()], []);
      return best.length >= minSize ? best : [];
    };
    const seed = 20261128;
    const next = lcg(seed);
    for (let round = 0; round < 40; round++) {
      const n = 30 + (next() % 70);
      const links: [number, number][] = [];
      for (let a = 0; a < n; a++)
        for (let b = 0; b < n; b++) if (a !== b && next() % 100 < 30) links.push([a, b]);
      // One or two planted meshes whose members straddle word boundaries.
      for (let planted = 1 + (next() % 2); planted > 0; planted--) {
        const members = [...Array(n).keys()].filter(() => next() % 100 < 12);
        for (const a of members) for (const b of members) if (a !== b) links.push([a, b]);
      }
      const r = reach(n, links);
      const minSize = 2 + (next() % 6);
      expect(largestFullMesh(r, minSize), `seed ${seed} round ${round}: n ${n}, min ${minSize}`).toEqual(
        plainLargest(r, minSize),
      );
    }
  });
  it('a cluster whose hosts reach nobody yet has no mesh, whatever its size', () => {
    expect(largestFullMesh(reach(500, []), 3)).toEqual([]);
    // A triangle among 500 otherwise isolated hosts is still found.
    expect(
      largestFullMesh(
        reach(
          500,
          full(3).map(([a, b]) => [a + 400, b + 400]),
        ),
        3,
      ),
    ).toEqual([400, 401, 402]);
  });
});

describe('majority groups', () => {
  it('L2 full mesh of three', () => {
    expect(l2MajorityGroup(mesh(3, full(3)), '10.0.0.0/24')).toEqual(['h0', 'h1', 'h2']);
  });
  it('L2 ignores addresses outside the CIDR and failed checks', () => {
    expect(l2MajorityGroup(mesh(3, full(3)), '10.1.0.0/24')).toEqual([]);
    const hosts = mesh(3, full(3));
    const rh = treeOf(hosts[0])?.remote_hosts?.[0];
    if (rh?.l2_connectivity?.[0]) rh.l2_connectivity[0].successful = false;
    expect(l2MajorityGroup(hosts, '10.0.0.0/24')).toEqual([]);
    expect(l2MajorityGroup(hosts, '10.0.0.0/24', 2)).toEqual(['h0', 'h2']);
  });
  it('IPv6 L2 falls back to successful pings', () => {
    const hosts = mesh(3, full(3), { l2: false, v6: true });
    expect(l2MajorityGroup(hosts, 'fd00::/64')).toEqual(['h0', 'h1', 'h2']);
    expect(l2MajorityGroup(hosts, '10.0.0.0/24')).toEqual([]);
  });
  it('L3 needs every address of the family', () => {
    expect(l3MajorityGroup(mesh(3, full(3), { l2: false }), 'ipv4')).toEqual(['h0', 'h1', 'h2']);
    expect(l3MajorityGroup(mesh(3, full(3), { l2: false }), 'ipv6')).toEqual([]);
    const hosts = mesh(3, full(3), { l2: false });
    // h2 has a second IPv4 address nobody pings → nobody reaches h2 fully.
    hosts[2]?.inventory?.interfaces?.[0]?.ipv4_addresses?.push('10.9.0.3/24');
    expect(l3MajorityGroup(hosts, 'ipv4')).toEqual([]);
    expect(l3MajorityGroup(hosts, 'ipv4', 2)).toEqual(['h0', 'h1']);
  });
  it('hosts are ordered by id; unknown remote ids are ignored', () => {
    const hosts = mesh(3, full(3)).reverse();
    treeOf(hosts[0])?.remote_hosts?.push({
      host_id: 'stranger',
      l2_connectivity: [{ remote_ip_address: '10.0.0.9', successful: true }],
    });
    expect(l2MajorityGroup(hosts, '10.0.0.0/24')).toEqual(['h0', 'h1', 'h2']);
  });
  it('computeConnectivity: one L2 group per network plus IPv4/IPv6', () => {
    const c = computeConnectivity(mesh(3, full(3)));
    expect(c.majority_groups).toEqual({
      '10.0.0.0/24': ['h0', 'h1', 'h2'],
      IPv4: ['h0', 'h1', 'h2'],
      IPv6: [],
    });
    expect(c.l3_connected_addresses).toEqual({ h0: ['10.0.0.1'], h1: ['10.0.0.2'], h2: ['10.0.0.3'] });
    expect(formatConnectivity(c)).toBe(
      '{"majority_groups":{"10.0.0.0/24":["h0","h1","h2"],"IPv4":["h0","h1","h2"],"IPv6":[]},"l3_connected_addresses":{"h0":["10.0.0.1"],"h1":["10.0.0.2"],"h2":["10.0.0.3"]}}',
    );
    expect(parseConnectivity(formatConnectivity(c))).toEqual(c);
  });
  it('two-node-with-fencing groups of two', () => {
    expect(computeConnectivity(mesh(2, full(2)), 2).majority_groups.IPv4).toEqual(['h0', 'h1']);
    expect(computeConnectivity(mesh(2, full(2))).majority_groups.IPv4).toEqual([]);
  });
});

describe('L3 connected addresses', () => {
  it('only addresses every other host reached', () => {
    const hosts = mesh(3, full(3, [[0, 2]]), { l2: false });
    expect(gatherL3ConnectedAddresses(hosts)).toEqual({ h0: ['10.0.0.1'], h1: ['10.0.0.2'] });
  });
  it('ignores self-reports and failures', () => {
    const hosts = mesh(2, full(2));
    treeOf(hosts[0])?.remote_hosts?.push({
      host_id: 'h0',
      l3_connectivity: [{ remote_ip_address: '10.0.0.1', successful: true }],
    });
    treeOf(hosts[1])?.remote_hosts?.push({
      host_id: 'h0',
      l3_connectivity: [{ remote_ip_address: '10.0.0.77', successful: false }],
    });
    expect(gatherL3ConnectedAddresses(hosts)).toEqual({ h0: ['10.0.0.1'], h1: ['10.0.0.2'] });
  });
});

describe('parseConnectivity', () => {
  it.each([[undefined], [''], ['not json'], ['null'], ['42']])('%j → undefined', (text) => {
    expect(parseConnectivity(text)).toBeUndefined();
  });
  it('fills missing maps', () => {
    expect(parseConnectivity('{}')).toEqual({ majority_groups: {}, l3_connected_addresses: {} });
  });
});

describe('IP collisions', () => {
  const report = (entries: { nic: string; ip: string; mac: string }[]): Host =>
    hostWithAddresses('x', [], {
      connectivity: {
        remote_hosts: [
          {
            host_id: 'r',
            l2_connectivity: entries.map((e) => ({
              outgoing_nic: e.nic,
              remote_ip_address: e.ip,
              remote_mac: e.mac,
            })),
          },
        ],
      },
    });
  it('same IP, same NIC, two MACs (sorted)', () => {
    const h = report([
      { nic: 'eth0', ip: '10.0.0.5', mac: 'bb' },
      { nic: 'eth0', ip: '10.0.0.5', mac: 'aa' },
      { nic: 'eth1', ip: '10.0.0.6', mac: 'cc' },
      { nic: 'eth0', ip: '10.0.0.6', mac: 'dd' },
    ]);
    expect(detectIpCollisions([h])).toEqual({ '10.0.0.5': ['aa', 'bb'] });
    expect(formatIpCollisions(detectIpCollisions([h]))).toBe('{"10.0.0.5":["aa","bb"]}');
  });
  it('only the last host with a report counts (upstream quirk)', () => {
    const colliding = report([
      { nic: 'eth0', ip: '10.0.0.5', mac: 'bb' },
      { nic: 'eth0', ip: '10.0.0.5', mac: 'aa' },
    ]);
    const clean = report([{ nic: 'eth0', ip: '10.0.0.5', mac: 'aa' }]);
    expect(detectIpCollisions([colliding, clean])).toEqual({});
    expect(detectIpCollisions([clean, colliding, hostWithAddresses('n', [])])).toEqual({
      '10.0.0.5': ['aa', 'bb'],
    });
    expect(detectIpCollisions([])).toBeUndefined();
    expect(formatIpCollisions(undefined)).toBe('null');
  });
  it('hostOwnsIp', () => {
    const h = hostWithAddresses('a', ['10.0.0.5/24', '2001:db8::5/64']);
    expect(hostOwnsIp(h, '10.0.0.5')).toBe(true);
    expect(hostOwnsIp(h, '2001:DB8::5')).toBe(true);
    expect(hostOwnsIp(h, '10.0.0.6')).toBe(false);
    expect(hostOwnsIp(h, 'bad')).toBe(false);
  });
});

// The reach builders were rewritten to decide CIDR membership once per address and to count
// without allocating (issue 16 item 4: 1.1 s → 0.8 s for a 1,000-host full mesh). Differential
// check against the straightforward reading of core.md §6.6 on seeded random clusters.
describe('computeConnectivity against a plain reading of §6.6', () => {
  const seed = 20261127;
  const next = lcg(seed);
  const inCidr = (cidr: string, ip: string | undefined) => {
    if (!ip) return false;
    const [net, bits] = cidr.split('/');
    if (net?.includes(':') !== ip.includes(':')) return false;
    if (ip.includes(':')) return ip.startsWith(net!.replace(/::$/, ':'));
    const n = Number(bits);
    const num = (a: string) => a.split('.').reduce((v, o) => v * 256 + Number(o), 0);
    return Math.floor(num(ip) / 2 ** (32 - n)) === Math.floor(num(net!) / 2 ** (32 - n));
  };
  const addressesOf = (h: Host, v6: boolean) =>
    (h.inventory?.interfaces ?? []).flatMap((i) =>
      (v6 ? (i.ipv6_addresses ?? []) : (i.ipv4_addresses ?? [])).map((a) => a.split('/')[0]!),
    );
  function plain(hosts: Host[], min: number): Record<string, string[]> {
    const sorted = [...hosts].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const idx = new Map(sorted.map((h, i) => [h.id, i]));
    const group = (reaches: (from: Host, to: Host, rh: ConnectivityRemoteHost) => boolean) =>
      largestFullMesh(
        reach(
          sorted.length,
          sorted.flatMap((h, from) =>
            (treeOf(h)?.remote_hosts ?? []).flatMap((rh) => {
              const to = idx.get(rh.host_id);
              return to !== undefined && reaches(h, sorted[to]!, rh) ? [[from, to] as const] : [];
            }),
          ),
        ),
        min,
      ).map((i) => sorted[i]!.id);
    const out: Record<string, string[]> = {};
    for (const cidr of ['10.0.0.0/24', '10.0.1.0/24', 'fd00::/64']) {
      const v6 = cidr.includes(':');
      if (!hosts.some((h) => addressesOf(h, v6).some((a) => inCidr(cidr, a)))) continue;
      out[cidr] = group(
        (_f, _t, rh) =>
          (rh.l2_connectivity ?? []).some((c) => c.successful && inCidr(cidr, c.remote_ip_address)) ||
          (v6 && (rh.l3_connectivity ?? []).some((c) => c.successful && inCidr(cidr, c.remote_ip_address))),
      );
    }
    for (const [fam, v6] of [
      ['IPv4', false],
      ['IPv6', true],
    ] as const) {
      out[fam] = group((_f, to, rh) => {
        const wanted = new Set(addressesOf(to, v6));
        if (wanted.size === 0) return false;
        const got = new Set(
          (rh.l3_connectivity ?? [])
            .filter((c) => c.successful && wanted.has(c.remote_ip_address ?? ''))
            .map((c) => c.remote_ip_address),
        );
        return got.size === wanted.size;
      });
    }
    return out;
  }

  /** Per host, the addresses every other host reached with a successful ping (each reporter once). */
  function plainConnectedAddresses(hosts: Host[]): Record<string, string[]> {
    const out: Record<string, string[]> = {};
    for (const t of hosts.map((h) => h.id).sort()) {
      const counts = new Map<string, number>();
      for (const h of hosts) {
        for (const rh of treeOf(h)?.remote_hosts ?? []) {
          if (rh.host_id !== t || h.id === t) continue;
          const ok = (rh.l3_connectivity ?? []).filter((c) => c.successful && c.remote_ip_address);
          for (const a of new Set(ok.map((c) => c.remote_ip_address as string)))
            counts.set(a, (counts.get(a) ?? 0) + 1);
        }
      }
      const full = [...counts].filter(([, c]) => c === hosts.length - 1).map(([a]) => a);
      if (full.length > 0) out[t] = full.sort();
    }
    return out;
  }

  it(`seed ${seed}: 300 random clusters give the same groups and connected addresses`, () => {
    for (let round = 0; round < 300; round++) {
      const n = next() % 9;
      const hosts: Host[] = [];
      for (let i = 0; i < n; i++) {
        const two = next() % 3 === 0;
        const v4 = [`10.0.0.${i + 1}/24`, ...(two ? [`10.0.1.${i + 1}/24`] : [])];
        const v6 = next() % 2 === 0 ? [`fd00::${i + 1}/64`] : [];
        hosts.push({
          id: `h${(next() % 100).toString().padStart(2, '0')}-${i}`,
          inventory: {
            interfaces: [
              { name: 'eth0', mac_address: `52:54:00:00:00:${i}`, ipv4_addresses: v4, ipv6_addresses: v6 },
            ],
          },
        } as unknown as Host);
      }
      for (const h of hosts) {
        if (next() % 5 === 0) continue;
        const remote_hosts = hosts
          .filter((o) => o !== h && next() % 10 < 8)
          .map((o) => {
            const ips = [...addressesOf(o, false), ...addressesOf(o, true), '10.9.9.9'];
            const checks = () =>
              ips
                .filter(() => next() % 10 < 7)
                .flatMap((ip) =>
                  Array.from({ length: 1 + (next() % 2) }, () => ({
                    remote_ip_address: ip,
                    successful: next() % 10 < 8,
                  })),
                );
            return { host_id: o.id, l2_connectivity: checks(), l3_connectivity: checks() };
          });
        (h as { connectivity?: unknown }).connectivity = { remote_hosts };
      }
      const min = 2 + (next() % 2);
      const got = computeConnectivity(hosts, min);
      expect(got.majority_groups, `round ${round}`).toEqual(plain(hosts, min));
      expect(got.l3_connected_addresses, `round ${round}`).toEqual(plainConnectedAddresses(hosts));
    }
  });
});

describe('hostsWhoseGroupsChanged (which Agents a new result concerns)', () => {
  const groups = (g: Record<string, string[]>, l3: Record<string, string[]> = {}) =>
    formatConnectivity({ majority_groups: g, l3_connected_addresses: l3 });
  const net = '192.168.111.0/24';
  const rows: [string, string | undefined, string | undefined, string[] | 'all'][] = [
    ['unchanged', groups({ [net]: ['a', 'b'] }), groups({ [net]: ['a', 'b'] }), []],
    ['a host joins', groups({ [net]: ['a', 'b'] }), groups({ [net]: ['a', 'b', 'c'] }), ['c']],
    ['one leaves, one joins', groups({ [net]: ['a', 'b'] }), groups({ [net]: ['a', 'c'] }), ['b', 'c']],
    ['order alone', groups({ [net]: ['a', 'b'] }), groups({ [net]: ['b', 'a'] }), []],
    [
      'L3 addresses of one host',
      groups({ [net]: ['a'] }, { a: ['10.0.0.1'], b: ['10.0.0.2'] }),
      groups({ [net]: ['a'] }, { a: ['10.0.0.1'], b: ['10.0.0.3'] }),
      ['b'],
    ],
    ['L3 entry gone', groups({}, { a: ['10.0.0.1'], b: [] }), groups({}, { a: ['10.0.0.1'] }), ['b']],
    ['a network added', groups({ [net]: ['a'] }), groups({ [net]: ['a'], 'fd00::/64': ['a'] }), 'all'],
    ['a network renamed', groups({ [net]: ['a'] }), groups({ '10.0.0.0/24': ['a'] }), 'all'],
    ['first result', undefined, groups({ [net]: ['a'] }), 'all'],
    ['result cleared', groups({ [net]: ['a'] }), undefined, 'all'],
    ['malformed', '{', groups({ [net]: ['a'] }), 'all'],
    ['not a list', '{"majority_groups":{"n":"a"}}', '{"majority_groups":{"n":["a"]}}', 'all'],
  ];
  it.each(rows)('%s', (_what, prev, next, expected) => {
    const got = hostsWhoseGroupsChanged(prev, next);
    expect(got === 'all' ? got : [...got].sort()).toEqual(expected);
  });
});
