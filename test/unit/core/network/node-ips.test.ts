import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../../../src/core/model.ts';
import { formatConnectivity } from '../../../../src/core/network/connectivity.ts';
import { allocateNodeIps } from '../../../../src/core/network/node-ips.ts';
import { cluster, host, iface, inventory, route } from './fixtures.ts';

/** Three hosts; each has net1 (10.1.0.0/24) on eth0 with a default route; `extra` adds NICs. */
function build(
  opts: { metrics?: number[]; secondNet?: boolean[]; connected?: Record<string, string[]> } = {},
): Cluster {
  const hosts = [0, 1, 2].map((i) => {
    const nics = [iface('eth0', [`10.1.0.${i + 10}/24`])];
    const routes = [route('eth0', '10.1.0.1', opts.metrics?.[i] ?? 100)];
    if (opts.secondNet?.[i]) {
      nics.push(iface('eth1', [`10.2.0.${i + 10}/24`]));
      routes.push(route('eth1', '10.2.0.1', 50));
    }
    return host(`h${i}`, { inventory: inventory(nics, { routes }) });
  });
  const connected = opts.connected ?? {
    h0: ['10.1.0.10', '10.2.0.10'],
    h1: ['10.1.0.11', '10.2.0.11'],
    h2: ['10.1.0.12', '10.2.0.12'],
  };
  return cluster({
    user_managed_networking: true,
    platform: { type: 'none' },
    hosts,
    connectivity_majority_groups: formatConnectivity({
      majority_groups: {},
      l3_connected_addresses: connected,
    }),
  });
}

describe('allocateNodeIps', () => {
  it('single network', () => {
    expect(allocateNodeIps(build())).toEqual({
      value: {
        h0: { node_ip: '10.1.0.10', hint_ip: '10.1.0.0', cidr: '10.1.0.0/24' },
        h1: { node_ip: '10.1.0.11', hint_ip: '10.1.0.0', cidr: '10.1.0.0/24' },
        h2: { node_ip: '10.1.0.12', hint_ip: '10.1.0.0', cidr: '10.1.0.0/24' },
      },
    });
  });

  it('avoids IPs that fall into another host’s other networks', () => {
    // Only h1 has net2 (lower metric). Choosing 10.2.0.11 would make net1 one of h1's prohibited
    // networks, and the other hosts' only IPs are in net1 → collision. So h1 keeps its net1 address.
    const result = allocateNodeIps(build({ secondNet: [false, true, false] }));
    expect(result.value?.h1).toEqual({ node_ip: '10.1.0.11', hint_ip: '10.1.0.0', cidr: '10.1.0.0/24' });
  });

  it('picks the lowest-metric network when every host has both', () => {
    const result = allocateNodeIps(build({ secondNet: [true, true, true] }));
    expect(result.value).toEqual({
      h0: { node_ip: '10.2.0.10', hint_ip: '10.2.0.0', cidr: '10.2.0.0/24' },
      h1: { node_ip: '10.2.0.11', hint_ip: '10.2.0.0', cidr: '10.2.0.0/24' },
      h2: { node_ip: '10.2.0.12', hint_ip: '10.2.0.0', cidr: '10.2.0.0/24' },
    });
  });

  it('reports why allocation is impossible', () => {
    const c = build();
    expect(allocateNodeIps({ ...c, cluster_networks: [], service_networks: [] })).toEqual({
      error: 'No address family found for cluster c-1',
    });
    expect(allocateNodeIps({ ...c, connectivity_majority_groups: undefined })).toEqual({
      error: 'connectivity majority groups are missing for cluster c-1',
    });
    expect(allocateNodeIps({ ...c, connectivity_majority_groups: '{' })).toEqual({
      error: 'failed to unmarshal majority groups for cluster c-1',
    });
    expect(allocateNodeIps(build({ connected: { h0: ['10.1.0.10'], h1: ['10.1.0.11'] } }))).toEqual({
      error: 'not all the hosts are connected.  Skipping address allocation for cluster c-1',
    });
    expect(allocateNodeIps(build({ connected: { h0: ['10.1.0.10'], h1: ['10.1.0.11'], h2: [] } }))).toEqual({
      error: 'failed to create hosts candidates for cluster c-1: no address found for host h2',
    });
    expect(
      allocateNodeIps(build({ connected: { h0: ['10.1.0.10'], h1: ['10.1.0.11'], h2: ['10.9.9.9'] } })),
    ).toEqual({
      error: 'failed to create hosts candidates for cluster c-1: failed to create candidates for host h2',
    });
  });

  it('reports collisions when no assignment works', () => {
    // h0 only has net2 (and its net1 address is not connected): every choice collides with h1's other network.
    const c = build({
      secondNet: [true, true, false],
      connected: { h0: ['10.2.0.10'], h1: ['10.1.0.11'], h2: ['10.1.0.12'] },
    });
    const result = allocateNodeIps(c);
    expect(result.error).toContain('failed to perform node ips allocation for cluster c-1: ');
    expect(result.error).toContain(
      'IP assignment 10.1.0.11 in host h1 collides with prohibited network 10.1.0.0/24 in host h0',
    );
  });

  it('unparseable addresses abort', () => {
    const c = build();
    const h0 = c.hosts[0];
    if (h0?.inventory?.interfaces?.[0]) h0.inventory.interfaces[0].ipv4_addresses = ['nope'];
    expect(allocateNodeIps(c).error).toBe(
      'failed to create hosts candidates for cluster c-1: failed to parse address nope for host h0',
    );
  });

  it('IPv6 clusters use IPv6 addresses', () => {
    const c = cluster({
      cluster_networks: [{ cidr: 'fd01::/48', host_prefix: 64 }],
      service_networks: [{ cidr: 'fd02::/112' }],
      hosts: [
        host('a', {
          inventory: inventory([iface('eth0', [], ['fd00::a/64'])], { routes: [route('eth0', 'fd00::1')] }),
        }),
      ],
      connectivity_majority_groups: formatConnectivity({
        majority_groups: {},
        l3_connected_addresses: { a: ['fd00::a'] },
      }),
    });
    expect(allocateNodeIps(c)).toEqual({
      value: { a: { node_ip: 'fd00::a', hint_ip: 'fd00::', cidr: 'fd00::/64' } },
    });
  });
});
