import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Cluster, Host, HostStatus, InfraEnv } from '../../../../src/core/model.ts';
import {
  nextStepsDetailed,
  type Step,
  type StepsOptions,
  type StepType,
} from '../../../../src/core/steps/index.ts';
import { expectGolden } from '../ignition/golden-file.ts';
import { ctx, day1, day2, makeHost, pool } from './fixtures.ts';

const GOLDEN = join(import.meta.dirname, 'golden');

type Fixture = { host: Host; cluster: Cluster | undefined; infraEnv: InfraEnv };

function stepsOf(
  fixture: {
    host: Host;
    cluster?: Parameters<typeof nextStepsDetailed>[1];
    infraEnv: Parameters<typeof nextStepsDetailed>[2];
  },
  options: Partial<StepsOptions> = {},
) {
  const result = nextStepsDetailed(fixture.host, fixture.cluster, fixture.infraEnv, ctx(options));
  return result;
}

function find(steps: Step[], type: StepType): Step | undefined {
  return steps.find((s) => s.step_type === type);
}

/** Arguments as sent, with JSON arguments decoded for readability. */
function readable(step: Step | undefined): unknown {
  if (!step) return null;
  return step.args.map((a) => (a.startsWith('{') || a.startsWith('[') ? (JSON.parse(a) as unknown) : a));
}

describe('payload goldens per step type', () => {
  it('all step types', () => {
    const sources: [string, Fixture, Partial<StepsOptions>?][] = [
      ['day1 known', day1('known')],
      ['day1 preparing', day1('preparing-for-installation')],
      ['day1 installing', day1('installing')],
      ['day1 error', day1('error')],
      ['day2 known', day2('known')],
      [
        'day2 installing',
        day2('installing', {
          inventory: { ...makeHost(1, 'known').inventory, boot: { device_type: 'persistent' } },
        }),
      ],
      ['pool known', pool('known-unbound'), { inventoryMaxSize: 1048576, inventoryDiskMinSize: 20 }],
      ['pool reclaiming', pool('reclaiming')],
      ['pool reclaiming-rebooting', pool('reclaiming-rebooting'), { hostFsMountDir: '/mnt/host' }],
      ['upgrade', day1('known', { discovery_agent_version: 'old' })],
    ];
    const out: Record<string, Record<string, unknown>> = {};
    for (const [name, fixture, options] of sources) {
      const result = stepsOf(fixture, options);
      expect(result.errors).toEqual([]);
      out[name] = Object.fromEntries(result.steps.instructions.map((s) => [s.step_type, readable(s)]));
    }
    expectGolden(join(GOLDEN, 'payloads.txt'), `${JSON.stringify(out, null, 2)}\n`);
  });
});

describe('payloads and skip rules', () => {
  it('inventory: the host id, plus size flags only when configured', () => {
    expect(readable(find(stepsOf(day1('discovering')).steps.instructions, 'inventory'))).toEqual([
      'a0000000-0000-4000-8000-000000000001',
    ]);
    expect(
      find(
        stepsOf(day1('discovering'), { inventoryMaxSize: 5, inventoryDiskMinSize: 0 }).steps.instructions,
        'inventory',
      )?.args,
    ).toEqual(['a0000000-0000-4000-8000-000000000001', '--output-max-size=5']);
  });

  it('connectivity-check: other hosts not discovering/disconnected, IPs without prefix', () => {
    const f = day1('known');
    const args = readable(find(stepsOf(f).steps.instructions, 'connectivity-check')) as unknown[];
    expect(args[0]).toEqual([
      {
        host_id: 'a0000000-0000-4000-8000-000000000002',
        nics: [
          { name: 'eth0', mac: '52:54:00:00:00:02', ip_addresses: ['192.168.111.12', 'fd00::12'] },
          { name: 'eth1', mac: '52:54:00:00:01:02', ip_addresses: ['10.0.0.12'] },
        ],
      },
      expect.objectContaining({ host_id: 'a0000000-0000-4000-8000-000000000003' }),
    ]);
    f.cluster.hosts[1]!.status = 'discovering';
    f.cluster.hosts[2]!.status = 'disconnected';
    expect(find(stepsOf(f).steps.instructions, 'connectivity-check')).toBeUndefined();
    f.cluster.hosts[1]!.status = 'known';
    f.cluster.hosts[1]!.inventory = undefined;
    expect(find(stepsOf(f).steps.instructions, 'connectivity-check')).toBeUndefined();
  });

  it('connectivity-check: a host that reports a new inventory is probed at its new addresses', () => {
    // Each host's entry is kept per inventory object, which is replaced when the host reports.
    const f = day1('known');
    const argOf = () => JSON.parse(find(stepsOf(f).steps.instructions, 'connectivity-check')!.args[0]!);
    const before = argOf();
    expect(argOf()).toEqual(before);
    const peer = f.cluster.hosts[1]!;
    const eth0 = peer.inventory!.interfaces![0]!;
    peer.inventory = { ...peer.inventory, interfaces: [{ ...eth0, ipv4_addresses: ['192.168.111.99/24'] }] };
    expect(argOf()[0]).toEqual({
      host_id: peer.id,
      nics: [{ name: 'eth0', mac: '52:54:00:00:00:02', ip_addresses: ['192.168.111.99', 'fd00::12'] }],
    });
    expect(argOf()[1]).toEqual(before[1]);
  });

  it('connectivity-check: throttled only above 150 hosts', () => {
    const f = day1('known');
    const deny = { admitConnectivityCheck: () => false };
    expect(find(stepsOf(f, deny).steps.instructions, 'connectivity-check')).toBeDefined();
    for (let i = 4; i <= 151; i++) f.cluster.hosts.push(makeHost(i, 'known'));
    expect(f.cluster.hosts).toHaveLength(151);
    expect(find(stepsOf(f, deny).steps.instructions, 'connectivity-check')).toBeUndefined();
    expect(
      find(stepsOf(f, { admitConnectivityCheck: () => true }).steps.instructions, 'connectivity-check'),
    ).toBeDefined();
    expect(find(stepsOf(f).steps.instructions, 'connectivity-check')).toBeDefined();
  });

  it('tang: mode tang and the role covered (bootstrap counts as master)', () => {
    const has = (f: ReturnType<typeof day1>) =>
      find(stepsOf(f).steps.instructions, 'tang-connectivity-check') !== undefined;
    expect(has(day1('known'))).toBe(true);
    expect(has(day1('known', { role: 'worker', bootstrap: false }))).toBe(true);
    expect(has(day1('known', { role: 'arbiter', bootstrap: false }))).toBe(false);
    expect(has(day1('known', { role: 'auto-assign', suggested_role: '' }))).toBe(false);
    expect(has(day1('known', { role: 'auto-assign', suggested_role: 'master' }))).toBe(true);
    const onArbiters = { disk_encryption: { enable_on: 'arbiters', mode: 'tang', tang_servers: '[]' } };
    expect(has(day1('known', { role: 'arbiter' }, onArbiters))).toBe(true);
    expect(has(day1('known', {}, { disk_encryption: { enable_on: 'all', mode: 'tang' } }))).toBe(true);
    expect(has(day1('known', {}, { disk_encryption: { enable_on: 'all', mode: 'tpmv2' } }))).toBe(false);
    expect(has(day1('known', {}, { disk_encryption: undefined }))).toBe(false);
    expect(
      has(day2('known', { api_vip_connectivity: { ignition: '{"ignition":{"version":"3.2.0"}}' } })),
    ).toBe(false);
    expect(has(day2('known', { api_vip_connectivity: { ignition: 'not json' } }))).toBe(false);
    expect(has(day2('known', { api_vip_connectivity: undefined }))).toBe(false);
  });

  it('free-network-addresses: IPv4 networks of prefix ≥ 22, never in kube-API mode', () => {
    const f = day1('known');
    expect(readable(find(stepsOf(f).steps.instructions, 'free-network-addresses'))).toEqual([
      ['192.168.111.0/24'],
    ]);
    expect(
      find(stepsOf(f, { kubeApiMode: true }).steps.instructions, 'free-network-addresses'),
    ).toBeUndefined();
    f.host.inventory!.interfaces![0]!.ipv4_addresses = ['192.168.0.5/22', '192.168.8.5/21'];
    expect(readable(find(stepsOf(f).steps.instructions, 'free-network-addresses'))).toEqual([
      ['192.168.0.0/22'],
    ]);
    f.host.inventory!.interfaces![0]!.ipv4_addresses = ['192.168.8.5/21'];
    expect(find(stepsOf(f).steps.instructions, 'free-network-addresses')).toBeUndefined();
  });

  it('dhcp-lease-allocate: needs VIP DHCP, a machine network, an inventory and a NIC in it', () => {
    const has = (f: ReturnType<typeof day1>) => nextStepsDetailed(f.host, f.cluster, f.infraEnv, ctx());
    expect(
      find(
        has(day1('installing', {}, { vip_dhcp_allocation: false })).steps.instructions,
        'dhcp-lease-allocate',
      ),
    ).toBeUndefined();
    expect(
      find(has(day1('installing', {}, { machine_networks: [] })).steps.instructions, 'dhcp-lease-allocate'),
    ).toBeUndefined();
    expect(
      find(
        has(day1('installing-in-progress', { inventory: undefined })).steps.instructions,
        'dhcp-lease-allocate',
      ),
    ).toBeUndefined();
    const noNic = has(day1('installing-in-progress', {}, { machine_networks: [{ cidr: '172.16.0.0/24' }] }));
    expect(noNic.steps.instructions).toEqual([]);
    expect(noNic.errors[0]?.error).toBe(
      'host a0000000-0000-4000-8000-000000000001 has no interface in machine network 172.16.0.0/24',
    );
  });

  it('ntp-synchronizer sources: bound and unbound precedence', () => {
    const ntp = (
      f: {
        host: Host;
        cluster?: never | ReturnType<typeof day1>['cluster'];
        infraEnv: ReturnType<typeof day1>['infraEnv'];
      },
      options: Partial<StepsOptions> = {},
    ) =>
      readable(
        find(
          nextStepsDetailed(f.host, f.cluster, f.infraEnv, ctx(options)).steps.instructions,
          'ntp-synchronizer',
        ),
      );
    expect(ntp(day1('known', {}, { ntp_sources: 'a,b' }))).toEqual([{ ntp_source: 'a,b' }]);
    expect(ntp(day1('known'))).toEqual([{ ntp_source: 'clock.example.com' }]);
    const union = day1('known', {}, { additional_ntp_source: '' });
    expect(ntp(union)).toEqual([{ ntp_source: 'ie.ntp.example.com' }]);
    expect(
      ntp(union, {
        clusterInfraEnvs: [
          { id: '1', name: 'a', additional_ntp_sources: 'x, y' },
          { id: '2', name: 'b', additional_ntp_sources: 'y,z' },
          { id: '3', name: 'c' },
        ],
      }),
    ).toEqual([{ ntp_source: 'x,y,z' }]);
    const unbound = pool('known-unbound');
    expect(ntp(unbound)).toEqual([{ ntp_source: 'ie.ntp.example.com' }]);
    unbound.infraEnv.ntp_sources = 'only.example.com';
    expect(ntp(unbound)).toEqual([{ ntp_source: 'only.example.com' }]);
    unbound.infraEnv.ntp_sources = undefined;
    unbound.infraEnv.additional_ntp_sources = undefined;
    expect(ntp(unbound)).toEqual([{ ntp_source: '' }]);
  });

  it('domain-resolution: names, release registry (not for IPs, not day-2), skipped without name/domain', () => {
    const domains = (f: ReturnType<typeof day1>, options: Partial<StepsOptions> = {}) =>
      (
        readable(find(stepsOf(f, options).steps.instructions, 'domain-resolution')) as
          | { domains: { domain_name: string }[] }[]
          | null
      )?.[0]?.domains.map((d) => d.domain_name);
    expect(domains(day1('known'))).toEqual([
      'api.ostest.example.com',
      'api-int.ostest.example.com',
      'console-openshift-console.apps.ostest.example.com',
      'validateNoWildcardDNS.ostest.example.com.',
      'validateNoWildcardDNS.ostest.example.com',
      'quay.io',
    ]);
    expect(
      domains(day1('known'), { release: { releaseImage: 'registry.local:5000/ocp/release:4.18' } })?.at(-1),
    ).toBe('registry.local');
    expect(
      domains(day1('known'), { release: { releaseImage: '10.0.0.1:5000/ocp/release:4.18' } }),
    ).toHaveLength(5);
    expect(
      domains(day1('known'), { release: { releaseImage: '[fd00::1]:5000/ocp/release:4.18' } }),
    ).toHaveLength(5);
    expect(domains(day1('known'), { release: { releaseImage: 'ocp/release:4.18' } })?.at(-1)).toBe(
      'docker.io',
    );
    expect(
      domains(day1('known', {}, { ocp_release_image: 'localhost/ocp:1' }), { release: {} })?.at(-1),
    ).toBe('localhost');
    expect(domains(day1('known', {}, { ocp_release_image: '' }), { release: {} })).toHaveLength(5);
    expect(domains(day2('known'))).toHaveLength(5);
    expect(domains(day1('known', {}, { base_dns_domain: '' }))).toBeUndefined();
    expect(domains(day1('known', {}, { name: '' }))).toBeUndefined();
  });

  it('verify-vips: api then ingress; skipped without VIPs', () => {
    expect(readable(find(stepsOf(day1('known')).steps.instructions, 'verify-vips'))).toEqual([
      [
        { vip: '192.168.111.5', vip_type: 'api' },
        { vip: '192.168.111.4', vip_type: 'ingress' },
      ],
    ]);
    expect(
      find(stepsOf(day1('known', {}, { api_vips: [], ingress_vips: [] })).steps.instructions, 'verify-vips'),
    ).toBeUndefined();
  });

  it('installation-disk-speed-check skip rules', () => {
    const has = (f: ReturnType<typeof day1>, o = {}) =>
      find(stepsOf(f, o).steps.instructions, 'installation-disk-speed-check');
    expect(has(day1('preparing-for-installation'), { diskCheckTimeoutSeconds: 90.5 })?.args).toEqual([
      '{"path":"/dev/disk/by-id/wwn-0x1"}',
      '90.50',
    ]);
    const persistent = day1('preparing-for-installation');
    persistent.host.inventory!.boot = { device_type: 'persistent' };
    expect(has(persistent)).toBeUndefined();
    expect(
      has(day1('preparing-for-installation', { installation_disk_id: '', installation_disk_path: '' })),
    ).toBeUndefined();
    expect(
      has(
        day1('preparing-for-installation', {
          disks_info: { '/dev/disk/by-id/wwn-0x1': { disk_speed: { tested: true } } },
        }),
      ),
    ).toBeUndefined();
    expect(
      has(
        day1('preparing-for-installation', {
          disks_info: { '/dev/disk/by-id/wwn-0x1': { disk_speed: { tested: false } } },
        }),
      ),
    ).toBeDefined();
    expect(
      has(day1('preparing-for-installation', { installer_args: '["--save-partlabel","data"]' })),
    ).toBeUndefined();
  });

  it('container-image-availability: only images without a stored status', () => {
    const step = (hostExtra: Partial<Host>, options: Partial<StepsOptions> = {}) =>
      readable(
        find(
          stepsOf(day1('preparing-for-installation', hostExtra), options).steps.instructions,
          'container-image-availability',
        ),
      );
    expect(step({}, { imageAvailabilityTimeoutSeconds: 30 })).toEqual([
      {
        images: [
          'quay.io/openshift-release-dev/ocp-release:4.18.3-x86_64',
          'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mco',
          'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mg',
          'quay.io/edge-infrastructure/assisted-installer:v2.40',
        ],
        timeout: 30,
      },
    ]);
    expect(
      step({
        images_status: {
          'quay.io/openshift-release-dev/ocp-release:4.18.3-x86_64': { result: 'success' },
          'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mco': { result: 'failure' },
        },
      }),
    ).toEqual([
      {
        images: [
          'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mg',
          'quay.io/edge-infrastructure/assisted-installer:v2.40',
        ],
        timeout: 960,
      },
    ]);
    const all = Object.fromEntries(
      [
        'quay.io/openshift-release-dev/ocp-release:4.18.3-x86_64',
        'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mco',
        'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mg',
        'quay.io/edge-infrastructure/assisted-installer:v2.40',
      ].map((i) => [i, { result: 'success' as const }]),
    );
    expect(step({ images_status: all })).toBeNull();
  });

  it('logs-gather: only if never collected; master IPs for the bootstrap', () => {
    const logs = (f: ReturnType<typeof day1>) => readable(find(stepsOf(f).steps.instructions, 'logs-gather'));
    expect(logs(day1('error'))).toEqual([
      {
        cluster_id: 'c1c1c1c1-0000-4000-8000-000000000001',
        host_id: 'a0000000-0000-4000-8000-000000000001',
        infra_env_id: 'e1e1e1e1-0000-4000-8000-000000000001',
        bootstrap: true,
        installer_gather: true,
        master_ips: ['192.168.111.12'],
      },
    ]);
    expect(logs(day1('error', {}, { user_managed_networking: true }))).toEqual([
      expect.objectContaining({ master_ips: ['192.168.111.12', 'fd00::12', '10.0.0.12'] }),
    ]);
    expect(logs(day1('cancelled', { bootstrap: false }))).toEqual([
      expect.not.objectContaining({ master_ips: expect.anything() }),
    ]);
    expect(logs(day1('error', { logs_collected_at: '0001-01-01T00:00:00.000Z' }))).not.toBeNull();
    expect(logs(day1('error', { logs_collected_at: '2026-01-01T00:00:00Z' }))).toBeNull();
    expect(find(stepsOf(day1('error')).steps.instructions, 'stop-installation')?.args).toEqual([]);
  });

  it('download-boot-artifacts needs the URLs', () => {
    const f = pool('reclaiming');
    const result = nextStepsDetailed(f.host, undefined, f.infraEnv, ctx({ bootArtifacts: undefined }));
    expect(result.steps.instructions).toEqual([]);
    expect(result.errors).toEqual([
      { step_type: 'download-boot-artifacts', error: 'boot artifact URLs are not available' },
    ]);
  });

  it('api-vip-connectivity-check (day-2): CA → https 22623 via api-int, none → http 22624, custom URL', () => {
    const api = (f: ReturnType<typeof day2>, o: Partial<StepsOptions> = {}) =>
      readable(find(stepsOf(f, o).steps.instructions, 'api-vip-connectivity-check'));
    expect(api(day2('known'))).toEqual([{ url: 'http://api.ostest.example.com:22624/config/worker' }]);
    const ca = Buffer.from('CA-PEM').toString('base64');
    expect(
      api(
        day2('known', { machine_config_pool_name: 'infra' }, { ignition_endpoint: { ca_certificate: ca } }),
      ),
    ).toEqual([{ url: 'https://api-int.ostest.example.com:22623/config/infra', ca_certificate: ca }]);
    const override = JSON.stringify({
      ignition: {
        version: '3.2.0',
        security: {
          tls: {
            certificateAuthorities: [{ source: `data:text/plain;base64,${ca}` }, { source: 'data:,OTHER' }],
          },
        },
      },
    });
    expect(
      api(
        day2(
          'known',
          { ignition_config_overrides: override, role: 'auto-assign' },
          { ignition_endpoint: { ca_certificate: ca }, api_vip_dns_name: '' },
        ),
        {
          hostIgnitionEndpoint: (id) =>
            id.endsWith('1') ? { token: 'tok', headers: { 'X-B': '2', 'X-A': '1' } } : undefined,
        },
      ),
    ).toEqual([
      {
        url: 'https://api-int.ostest.example.com:22623/config/worker',
        ca_certificate: Buffer.from('CA-PEMOTHER').toString('base64'),
        ignition_endpoint_token: 'tok',
        request_headers: [
          { key: 'X-A', value: '1' },
          { key: 'X-B', value: '2' },
        ],
      },
    ]);
    expect(
      api(
        day2(
          'known',
          { ignition_config_overrides: '{bad' },
          { ignition_endpoint: { url: 'https://mcs.example.com/config' } },
        ),
      ),
    ).toEqual([{ url: 'https://mcs.example.com/config/worker' }]);
    const noCluster = day2('known');
    const result = nextStepsDetailed(noCluster.host, undefined, noCluster.infraEnv, ctx());
    expect(result.errors.map((e) => e.error)).toContain('api-vip-connectivity-check needs the host cluster');
  });

  it('every table row builds without errors for states that need no cluster data', () => {
    const statuses: HostStatus[] = ['discovering', 'disconnected'];
    for (const s of statuses) expect(stepsOf(day1(s)).errors).toEqual([]);
  });
});
