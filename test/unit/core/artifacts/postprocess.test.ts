// Post-processing of openshift-install output (core.md §8.4 steps 5, 7, 8).

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  decodeDataUrl,
  type IgnitionConfig,
  patchInfrastructureTopology,
  postProcessBootstrapIgnition,
  postProcessRoleIgnition,
} from '../../../../src/core/artifacts/index.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import { makeCluster, makeHost, multiNodeHosts, nic, singleNodeHost } from '../installconfig/fixtures.ts';

const files = (json: string) =>
  Object.fromEntries(
    ((JSON.parse(json) as IgnitionConfig).storage?.files ?? []).map((f) => [
      f.path,
      f.contents?.source ? decodeDataUrl(f.contents.source)?.toString() : undefined,
    ]),
  );

describe('infrastructure topology patch', () => {
  const manifest =
    'apiVersion: config.openshift.io/v1\nkind: Infrastructure\nstatus:\n  infrastructureTopology: SingleReplica\n';
  const withWorkers = (n: number): Cluster => {
    const hosts = multiNodeHosts().filter((h) => h.role === 'master');
    for (let i = 0; i < n; i++) hosts.push(makeHost(`w${i}`, `w${i}`, 'worker', []));
    return makeCluster({ hosts });
  };
  it('exactly one worker → HighlyAvailable', () => {
    expect(parse(patchInfrastructureTopology(manifest, withWorkers(1))).status.infrastructureTopology).toBe(
      'HighlyAvailable',
    );
  });
  for (const n of [0, 2]) {
    it(`${n} workers → unchanged`, () =>
      expect(patchInfrastructureTopology(manifest, withWorkers(n))).toBe(manifest));
  }
  it('counts raw roles only', () => {
    const c = withWorkers(0);
    c.hosts.push(makeHost('a', 'a', 'auto-assign', [], { suggested_role: 'worker' }));
    expect(patchInfrastructureTopology(manifest, c)).toBe(manifest);
  });
});

describe('bootstrap.ign', () => {
  const bootstrap = JSON.stringify({
    ignition: { version: '3.2.0' },
    storage: {
      files: [
        { path: '/etc/NetworkManager/system-connections/nmconnection', contents: { source: 'data:,x' } },
        {
          path: '/opt/openshift/openshift/99_baremetal-provisioning-config.yaml',
          contents: { source: 'data:,y' },
        },
        { path: '/etc/motd', append: [{ source: 'data:,motd' }] },
      ],
    },
  });
  it('multi-node: drops the nm connection, moves the motd append, adds markers', () => {
    const out = JSON.parse(
      postProcessBootstrapIgnition(bootstrap, makeCluster({ hosts: multiNodeHosts() })),
    ) as IgnitionConfig;
    expect(out.storage?.files?.map((f) => f.path)).toEqual([
      '/opt/openshift/openshift/99_baremetal-provisioning-config.yaml',
      '/etc/motd',
      '/opt/openshift/assisted-install-bootstrap',
      '/etc/NetworkManager/conf.d/99-kni.conf',
    ]);
    expect(out.storage?.files?.[1]).toEqual({ path: '/etc/motd', contents: { source: 'data:,motd' } });
    expect(files(JSON.stringify(out))['/etc/NetworkManager/conf.d/99-kni.conf']).toBe(
      '[main]\nrc-manager=unmanaged\n',
    );
  });
  it('before 4.7 drops the provisioning config; SNO adds no markers', () => {
    const out = JSON.parse(
      postProcessBootstrapIgnition(
        bootstrap,
        makeCluster({ control_plane_count: 1, openshift_version: '4.6.1', hosts: [singleNodeHost()] }),
      ),
    ) as IgnitionConfig;
    expect(out.storage?.files?.map((f) => f.path)).toEqual(['/etc/motd']);
  });
  it('a config without storage gets the markers only', () => {
    const out = JSON.parse(
      postProcessBootstrapIgnition('{"ignition":{"version":"3.2.0"}}', makeCluster()),
    ) as IgnitionConfig;
    expect(out.storage?.files).toHaveLength(2);
  });
});

describe('role ignitions', () => {
  const pointer = '{"ignition":{"version":"3.2.0"}}';
  const ipv6Host = (id: string): Host => makeHost(id, id, 'master', [nic(id, [], ['fd00::1/64'])]);

  it('adds the service CA to every role', () => {
    for (const role of ['master', 'worker', 'arbiter'] as const) {
      expect(files(postProcessRoleIgnition(role, pointer, makeCluster(), { serviceCaCert: 'CA' }))).toEqual({
        '/etc/assisted-service/service-ca-cert.crt': 'CA',
      });
    }
  });

  it('adds the keepalived DHCP files to master only, in DHCP mode without UMN', () => {
    const dhcpVips = {
      api: { ip: '192.168.111.5', mac: '00:1a:4a:01:02:03', lease: 'lease { renew never; }' },
      ingress: { ip: '192.168.111.4', mac: '00:1a:4a:04:05:06' },
    };
    const cluster = makeCluster({ vip_dhcp_allocation: true });
    expect(files(postProcessRoleIgnition('master', pointer, cluster, { dhcpVips }))).toEqual({
      '/etc/keepalived/unsupported-monitor.conf':
        'api-vip:\n  name: api\n  mac-address: 00:1a:4a:01:02:03\n  ip-address: 192.168.111.5\ningress-vip:\n  name: ingress\n  mac-address: 00:1a:4a:04:05:06\n  ip-address: 192.168.111.4\n',
      '/etc/keepalived/lease-api': 'lease { renew never; }',
    });
    expect(
      files(
        postProcessRoleIgnition('master', pointer, cluster, {
          dhcpVips: { ...dhcpVips, ingress: { ...dhcpVips.ingress, lease: 'L' } },
        }),
      )['/etc/keepalived/lease-ingress'],
    ).toBe('L');
    expect(files(postProcessRoleIgnition('worker', pointer, cluster, { dhcpVips }))).toEqual({});
    expect(
      files(
        postProcessRoleIgnition(
          'master',
          pointer,
          makeCluster({ vip_dhcp_allocation: true, user_managed_networking: true }),
          { dhcpVips },
        ),
      ),
    ).toEqual({});
    expect(files(postProcessRoleIgnition('master', pointer, makeCluster(), { dhcpVips }))).toEqual({});
  });

  it('adds the IPv6 NetworkManager drop-in only when every host has IPv6', () => {
    const all = makeCluster({ hosts: [ipv6Host('a'), ipv6Host('b')] });
    expect(files(postProcessRoleIgnition('worker', pointer, all))).toEqual({
      '/etc/NetworkManager/conf.d/01-ipv6.conf': '[connection]\nipv6.dhcp-iaid=mac\nipv6.dhcp-duid=ll\n',
    });
    const old = makeCluster({ hosts: [ipv6Host('a')], openshift_version: '4.9.0' });
    expect(
      files(postProcessRoleIgnition('master', pointer, old))['/etc/NetworkManager/conf.d/01-ipv6.conf'],
    ).toBe(
      '[connection]\nipv6.dhcp-iaid=mac\nipv6.dhcp-duid=ll\n[keyfile]\npath=/etc/NetworkManager/system-connections-merged\n',
    );
    const mixed = makeCluster({
      hosts: [ipv6Host('a'), makeHost('b', 'b', 'master', [nic('b', ['10.0.0.1/24'])])],
    });
    expect(files(postProcessRoleIgnition('worker', pointer, mixed))).toEqual({});
    expect(files(postProcessRoleIgnition('worker', pointer, makeCluster({ hosts: [] })))).toEqual({});
  });
});
