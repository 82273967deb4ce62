// Per-host install ignition (core.md §8.5) and day-2 pointer ignition (§8.6): goldens and rules.

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  buildDay2PointerIgnition,
  buildHostInstallIgnition,
  type ClusterManifest,
  day2IgnitionEndpoint,
  day2Pool,
  IgnitionError,
  machineConfigServerUrl,
  nodeIpHint,
  pointerIgnition,
  type RoleIgnitions,
  serializeIgnition,
} from '../../../../src/core/artifacts/index.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import { expectGolden } from '../golden.ts';
import { makeCluster, makeHost, multiNodeHosts, nic, singleNodeHost } from '../installconfig/fixtures.ts';

// Pretty-printed JSON in `.ign` files, which formatters leave alone.
const golden = (name: string) => join(import.meta.dirname, 'golden', name);
const pretty = (json: string) => `${JSON.stringify(JSON.parse(json), null, 2)}\n`;

const ROOT_CA = '-----BEGIN CERTIFICATE-----\nUk9PVC1DQQ==\n-----END CERTIFICATE-----\n';
const roles = (cluster: Cluster): RoleIgnitions => {
  const pointer = (role: string) =>
    serializeIgnition(
      pointerIgnition(machineConfigServerUrl(cluster.name, cluster.base_dns_domain, role), ROOT_CA),
    );
  return { master: pointer('master'), worker: pointer('worker'), arbiter: pointer('arbiter') };
};

const hostOverride = JSON.stringify({
  ignition: { version: '3.1.0' },
  storage: { files: [{ path: '/etc/motd', contents: { source: 'data:,hello' }, mode: 420 }] },
  systemd: {
    units: [{ name: 'extra.service', enabled: true, contents: '[Service]\nExecStart=/bin/true\n' }],
  },
});

const mcpManifest: ClusterManifest = {
  folder: 'openshift',
  fileName: 'infra-pool.yaml',
  content:
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n---\napiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfigPool\nmetadata:\n  name: infra\n',
};

function hostById(cluster: Cluster, idPrefix: string): Host {
  return cluster.hosts.find((h) => h.id.startsWith(idPrefix)) as Host;
}

describe('per-host install ignition goldens', () => {
  it('master of a multi-node cluster (bootstrap host uses master.ign)', () => {
    const cluster = makeCluster({ hosts: multiNodeHosts() });
    const out = buildHostInstallIgnition({
      cluster,
      host: hostById(cluster, '00000003'),
      roleIgnitions: roles(cluster),
    });
    expect(out.fileName).toBe('master-00000003-0000-0000-0000-000000000000.ign');
    expectGolden(golden('host-master.ign'), pretty(out.content));
  });

  it('worker with an override and a custom machine config pool', () => {
    const cluster = makeCluster({ hosts: multiNodeHosts() });
    const host = {
      ...hostById(cluster, '00000004'),
      ignition_config_overrides: hostOverride,
      machine_config_pool_name: 'infra',
      requested_hostname: 'infra-0',
    };
    const out = buildHostInstallIgnition({
      cluster,
      host,
      roleIgnitions: roles(cluster),
      manifests: [mcpManifest],
    });
    expect(out.fileName).toBe('worker-00000004-0000-0000-0000-000000000000.ign');
    expectGolden(golden('host-worker-mcp-override.ign'), pretty(out.content));
  });

  it('SNO master with the node-IP hint and persistent-boot cleanup', () => {
    const cluster = makeCluster({
      control_plane_count: 1,
      platform: { type: 'none' },
      user_managed_networking: true,
      machine_networks: [{ cidr: '192.168.122.0/24' }],
      hosts: [],
    });
    const host = singleNodeHost();
    host.inventory = { ...host.inventory, boot: { current_boot_mode: 'uefi', device_type: 'persistent' } };
    cluster.hosts = [host];
    const empty = '{"ignition":{"version":"3.2.0"}}';
    const out = buildHostInstallIgnition({ cluster, host, roleIgnitions: { master: empty, worker: empty } });
    expectGolden(golden('host-sno-master.ign'), pretty(out.content));
  });

  it('day-2 worker with CA, token, headers and an override carrying another CA', () => {
    const ca = Buffer.from(ROOT_CA).toString('base64');
    const otherCa = '-----BEGIN CERTIFICATE-----\nT1RIRVI=\n-----END CERTIFICATE-----\n';
    const cluster = makeCluster({
      kind: 'AddHostsCluster',
      api_vip_dns_name: 'api.ostest.example.com',
      ignition_endpoint: { ca_certificate: ca },
      hosts: [],
    });
    const host = makeHost(
      'day2-host',
      'worker-9',
      'auto-assign',
      [nic('52:54:00:00:09:09', ['192.168.111.99/24'])],
      {
        kind: 'AddToExistingClusterHost',
        ignition_config_overrides: JSON.stringify({
          ignition: {
            version: '3.2.0',
            security: {
              tls: {
                certificateAuthorities: [
                  { source: `data:text/plain;charset=utf-8;base64,${ca}` },
                  {
                    source: `data:text/plain;charset=utf-8;base64,${Buffer.from(otherCa).toString('base64')}`,
                  },
                ],
              },
            },
          },
        }),
      },
    );
    cluster.hosts = [host];
    const out = buildDay2PointerIgnition({
      cluster,
      host,
      ignitionEndpointToken: 'tok',
      httpHeaders: { 'X-B': '2', 'X-A': '1' },
    });
    expect(out.fileName).toBe('auto-assign-day2-host.ign');
    expectGolden(golden('day2-worker.ign'), pretty(out.content));
  });
});

describe('per-host rules', () => {
  const cluster = () => makeCluster({ hosts: multiNodeHosts() });

  it('workers without a pool keep config/worker', () => {
    const c = cluster();
    const out = JSON.parse(
      buildHostInstallIgnition({ cluster: c, host: hostById(c, '00000004'), roleIgnitions: roles(c) })
        .content,
    );
    expect(out.ignition.config.merge[0].source).toBe(
      'https://api-int.ostest.example.com:22623/config/worker',
    );
    expect(out.storage.files).toEqual([
      {
        overwrite: true,
        path: '/etc/hostname',
        user: { name: 'root' },
        contents: { source: 'data:,worker-4' },
        mode: 420,
      },
    ]);
  });

  it('a missing pool is an error', () => {
    const c = cluster();
    const host = { ...hostById(c, '00000004'), machine_config_pool_name: 'gpu' };
    expect(() =>
      buildHostInstallIgnition({ cluster: c, host, roleIgnitions: roles(c), manifests: [mcpManifest] }),
    ).toThrow(new IgnitionError('machine config pool gpu was not found'));
  });

  it('pools are found in JSON manifests, other files are skipped, masters ignore the pool', () => {
    const c = cluster();
    const manifests: ClusterManifest[] = [
      { folder: 'manifests', fileName: 'notes.txt', content: 'kind: MachineConfigPool' },
      {
        folder: 'manifests',
        fileName: 'pool.json',
        content: '{"kind":"MachineConfigPool","metadata":{"name":"edge"}}',
      },
    ];
    const worker = { ...hostById(c, '00000004'), machine_config_pool_name: 'edge' };
    const w = JSON.parse(
      buildHostInstallIgnition({ cluster: c, host: worker, roleIgnitions: roles(c), manifests }).content,
    );
    expect(w.ignition.config.merge[0].source).toBe('https://api-int.ostest.example.com:22623/config/edge');
    const master = { ...hostById(c, '00000001'), machine_config_pool_name: 'nope' };
    const m = JSON.parse(
      buildHostInstallIgnition({ cluster: c, host: master, roleIgnitions: roles(c) }).content,
    );
    expect(m.ignition.config.merge[0].source).toBe('https://api-int.ostest.example.com:22623/config/master');
  });

  it('arbiters use arbiter.ign and fail without one', () => {
    const c = cluster();
    const host = { ...hostById(c, '00000001'), role: 'arbiter' as const };
    const out = buildHostInstallIgnition({ cluster: c, host, roleIgnitions: roles(c) });
    expect(out.fileName).toBe('arbiter-00000001-0000-0000-0000-000000000000.ign');
    expect(JSON.parse(out.content).ignition.config.merge[0].source).toMatch(/config\/arbiter$/);
    const { arbiter: _, ...noArbiter } = roles(c);
    expect(() => buildHostInstallIgnition({ cluster: c, host, roleIgnitions: noArbiter })).toThrow(
      'no arbiter ignition is available for host 00000001-0000-0000-0000-000000000000',
    );
  });

  it('auto-assign hosts use their suggested role', () => {
    const c = cluster();
    const host = {
      ...hostById(c, '00000004'),
      role: 'auto-assign' as const,
      suggested_role: 'master' as const,
    };
    expect(buildHostInstallIgnition({ cluster: c, host, roleIgnitions: roles(c) }).fileName).toBe(
      'master-00000004-0000-0000-0000-000000000000.ign',
    );
  });

  it('rejects overrides of other ignition versions and invalid JSON', () => {
    const c = cluster();
    const bad = { ...hostById(c, '00000004'), ignition_config_overrides: '{"ignition":{"version":"3.4.0"}}' };
    expect(() => buildHostInstallIgnition({ cluster: c, host: bad, roleIgnitions: roles(c) })).toThrow(
      'ignition config override of host 00000004-0000-0000-0000-000000000000 uses ignition version "3.4.0"; only 3.1.0 and 3.2.0 are accepted',
    );
    const invalid = { ...bad, ignition_config_overrides: '{' };
    expect(() => buildHostInstallIgnition({ cluster: c, host: invalid, roleIgnitions: roles(c) })).toThrow(
      /^ignition config override of host 00000004-0000-0000-0000-000000000000 is not valid JSON/,
    );
  });
});

describe('node-IP hint', () => {
  const allocations = { h1: { nodeIp: '10.0.0.7', hintIp: '10.0.0.0', cidr: '10.0.0.0/24' } };
  const host = makeHost('h1', 'h1', 'master', [nic('aa', ['10.0.0.7/24'])], { bootstrap: true });
  const table: [string, Partial<Cluster>, string | undefined][] = [
    [
      'SNO: network address of machine network 0',
      { control_plane_count: 1, machine_networks: [{ cidr: '192.168.122.77/24' }] },
      '192.168.122.0',
    ],
    [
      'SNO without machine networks: the bootstrap host network',
      { control_plane_count: 1, machine_networks: [] },
      '10.0.0.0',
    ],
    ['SNO without any network: none', { control_plane_count: 1, machine_networks: [], hosts: [] }, undefined],
    ['multi-node UMN: the allocation hint', { user_managed_networking: true }, '10.0.0.0'],
    [
      'user-managed load balancer: the allocation hint',
      { load_balancer: { type: 'user-managed' } },
      '10.0.0.0',
    ],
    ['cluster-managed multi-node: none', {}, undefined],
  ];
  for (const [name, extra, expected] of table) {
    it(name, () => {
      const c = makeCluster({ hosts: [host], ...extra });
      expect(nodeIpHint(c, host, allocations)).toBe(expected);
    });
  }
  it('multi-node UMN without an allocation for the host: none', () => {
    expect(nodeIpHint(makeCluster({ user_managed_networking: true }), host, {})).toBeUndefined();
  });
});

describe('day-2 endpoint', () => {
  const host = makeHost('d', 'd', 'worker', []);
  const ca = Buffer.from(ROOT_CA).toString('base64');
  const table: [string, Partial<Cluster>, Partial<Host>, string][] = [
    [
      'no CA: plain HTTP on 22624 to the API name',
      { api_vip_dns_name: 'api.c.example.com' },
      {},
      'http://api.c.example.com:22624/config/worker',
    ],
    [
      'CA: HTTPS on 22623 to api-int',
      { api_vip_dns_name: 'api.c.example.com', ignition_endpoint: { ca_certificate: ca } },
      {},
      'https://api-int.c.example.com:22623/config/worker',
    ],
    [
      'CA with a non-api name keeps it',
      { api_vip_dns_name: 'lb.c.example.com', ignition_endpoint: { ca_certificate: ca } },
      {},
      'https://lb.c.example.com:22623/config/worker',
    ],
    ['no DNS name: api.<name>.<base>', {}, {}, 'http://api.ostest.example.com:22624/config/worker'],
    [
      'IPv6 literal is bracketed',
      { api_vip_dns_name: 'fd00::5' },
      {},
      'http://[fd00::5]:22624/config/worker',
    ],
    [
      'custom URL + pool',
      { ignition_endpoint: { url: 'https://lb.example.com/ignition' } },
      { machine_config_pool_name: 'infra' },
      'https://lb.example.com/ignition/infra',
    ],
    ['master role pool', {}, { role: 'master' }, 'http://api.ostest.example.com:22624/config/master'],
    [
      'auto-assign without suggestion → worker',
      {},
      { role: 'auto-assign' },
      'http://api.ostest.example.com:22624/config/worker',
    ],
  ];
  for (const [name, extraCluster, extraHost, url] of table) {
    it(name, () => {
      expect(
        day2IgnitionEndpoint({ cluster: makeCluster(extraCluster), host: { ...host, ...extraHost } }).url,
      ).toBe(url);
    });
  }
  it('an invalid override contributes no CA', () => {
    const ep = day2IgnitionEndpoint({
      cluster: makeCluster(),
      host: { ...host, ignition_config_overrides: '{' },
    });
    expect([ep.caCertificates, ep.headers]).toEqual([[], []]);
  });
  it('day2Pool prefers the machine config pool', () => {
    expect(day2Pool({ ...host, machine_config_pool_name: 'x' })).toBe('x');
  });
  it('a day-2 pointer without CA or headers has only the merge source', () => {
    const out = JSON.parse(buildDay2PointerIgnition({ cluster: makeCluster(), host }).content);
    expect(out.ignition).toEqual({
      version: '3.2.0',
      config: { merge: [{ source: 'http://api.ostest.example.com:22624/config/worker' }] },
    });
  });
});
