// Every step type's answer: argument validation, exit codes, and outputs that the service's own
// reply decoder (src/core/steps/replies.ts) accepts — the simulator and the server must agree.

import { describe, expect, it } from 'vitest';
import { parseStepReply } from '../../../src/core/steps/replies.ts';
import { SimNetwork } from '../../../src/sim/network.ts';
import { simulatedMachine } from '../../../src/sim/profiles.ts';
import {
  type InstallRequest,
  runStep,
  type Step,
  type StepBehaviour,
  type StepHost,
} from '../../../src/sim/steps.ts';

const CLUSTER = '11111111-2222-4333-8444-555555555555';
const IE = '66666666-7777-4888-8999-aaaaaaaaaaaa';

function makeHost(behaviour: StepBehaviour = {}) {
  const network = new SimNetwork({ unknownReachable: false });
  const me = simulatedMachine('master', 0);
  const peer = simulatedMachine('master', 1);
  network.attach(me.hostId, me.addresses);
  network.attach(peer.hostId, peer.addresses);
  const calls: string[] = [];
  const host: StepHost = {
    machine: me,
    network,
    behaviour,
    learnedVips: {},
    startInstall: (req: InstallRequest) => {
      calls.push(`install:${req.role}`);
      return calls.filter((c) => c.startsWith('install')).length > 1 ? 'already-running' : 'started';
    },
    stopInstall: () => calls.push('stop'),
    gatherLogs: async (req) => {
      calls.push(`logs:${req.cluster_id}`);
    },
  };
  return { host, me, peer, network, calls };
}

const s = (step_type: string, args: unknown[] = []): Step => ({
  step_type,
  step_id: `${step_type}-0001`,
  args: args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))),
});

/** Decodes the reply the way the service does; fails the test with the decoder's message. */
function decoded(type: string, out: { exitCode: number; output: string; error: string }) {
  const r = parseStepReply({
    step_type: type,
    exit_code: out.exitCode,
    output: out.output,
    error: out.error,
  });
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('step answers', () => {
  it('inventory: the machine inventory, exactly one uuid argument', async () => {
    const { host, me } = makeHost();
    const out = await runStep(s('inventory', [me.hostId]), host);
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.output)).toEqual(me.inventory);
    expect(decoded('inventory', out)).toMatchObject({ kind: 'inventory' });
    const bad = await runStep(s('inventory', [me.hostId, '--output-max-size=10']), host);
    expect(bad.exitCode).toBe(-1);
    expect(bad.error).toMatch(/exactly one/);
  });

  it('connectivity-check: L2/L3/MTU against the peers on the simulated network', async () => {
    const { host, peer, network } = makeHost();
    const peerIp = peer.addresses[0]!.ip;
    const args = [
      [
        {
          host_id: peer.hostId,
          nics: [{ name: 'enp1s0', mac: 'ff:ff:ff:ff:ff:ff', ip_addresses: [peerIp] }],
        },
        {
          host_id: '99999999-9999-4999-8999-999999999999',
          nics: [{ name: 'x', mac: '', ip_addresses: ['192.168.111.250'] }],
        },
      ],
    ];
    const out = await runStep(s('connectivity-check', args), host);
    const report = JSON.parse(out.output);
    const [reached, unknown] = report.remote_hosts;
    expect(reached.l2_connectivity).toEqual([
      {
        outgoing_ip_address: '192.168.111.10',
        outgoing_nic: 'enp1s0',
        remote_ip_address: peerIp,
        // The MAC that really owns the address, not the one the service claimed.
        remote_mac: peer.addresses[0]!.mac,
        successful: true,
      },
    ]);
    expect(reached.l3_connectivity[0]).toMatchObject({
      outgoing_nic: 'enp1s0',
      remote_ip_address: peerIp,
      successful: true,
    });
    expect(reached.mtu_report).toEqual([
      { outgoing_nic: 'enp1s0', remote_ip_address: peerIp, mtu_successful: true },
    ]);
    expect(unknown.l2_connectivity[0].successful).toBeUndefined();
    expect(unknown.l3_connectivity[0]).toMatchObject({ packet_loss_percentage: 100 });
    expect(decoded('connectivity-check', out)).toMatchObject({ kind: 'connectivity' });
    network.setHostUp(peer.hostId, false);
    const down = JSON.parse((await runStep(s('connectivity-check', args), host)).output);
    expect(down.remote_hosts[0].l2_connectivity[0].successful).toBeUndefined();
  });

  it('free-network-addresses: everything not answering ARP', async () => {
    const { host } = makeHost();
    const out = await runStep(s('free-network-addresses', [['192.168.111.0/24']]), host);
    const [net] = JSON.parse(out.output);
    expect(net.network).toBe('192.168.111.0/24');
    expect(net.free_addresses).not.toContain('192.168.111.1');
    expect(net.free_addresses).not.toContain('192.168.111.10');
    expect(net.free_addresses).not.toContain('192.168.111.11');
    expect(net.free_addresses).toContain('192.168.111.12');
    expect(net.free_addresses).toHaveLength(254 - 3);
    expect(decoded('free-network-addresses', out)).toMatchObject({ kind: 'free-addresses' });
  });

  it('ntp-synchronizer: requested sources plus the DHCP one, one synced', async () => {
    const { host } = makeHost();
    const out = await runStep(s('ntp-synchronizer', [{ ntp_source: 'clock.example.com, 10.0.0.1' }]), host);
    expect(JSON.parse(out.output)).toEqual({
      ntp_sources: [
        { source_name: 'clock.example.com', source_state: 'synced' },
        { source_name: '10.0.0.1', source_state: 'combined' },
        { source_name: '192.168.111.1', source_state: 'combined' },
      ],
    });
    expect(decoded('ntp-synchronizer', out)).toMatchObject({ kind: 'ntp' });
    const missing = await runStep(s('ntp-synchronizer', [{}]), host);
    expect(missing.exitCode).toBe(-1);
  });

  it('domain-resolution: VIPs for api/apps, nothing for the wildcard probe', async () => {
    const { host } = makeHost({ apiVip: '192.168.111.5', ingressVip: '192.168.111.4' });
    const domains = [
      'api.c1.example.com',
      'api-int.c1.example.com',
      'console-openshift-console.apps.c1.example.com',
    ]
      .concat(['validateNoWildcardDNS.c1.example.com.', 'validateNoWildcardDNS.c1.example.com', 'quay.io'])
      .map((domain_name) => ({ domain_name }));
    const out = await runStep(s('domain-resolution', [{ domains }]), host);
    const res = JSON.parse(out.output).resolutions;
    expect(res.map((r: { ipv4_addresses: string[] }) => r.ipv4_addresses)).toEqual([
      ['192.168.111.5'],
      ['192.168.111.5'],
      ['192.168.111.4'],
      [],
      [],
      [expect.stringMatching(/^203\.0\.113\./)],
    ]);
    expect(decoded('domain-resolution', out)).toMatchObject({ kind: 'domain-resolution' });
  });

  it('container-image-availability: exit 2 when a pull fails, still decodable', async () => {
    const { host } = makeHost({ failImages: ['broken'] });
    const out = await runStep(
      s('container-image-availability', [{ images: ['quay.io/a:1', 'quay.io/broken:1'], timeout: 960 }]),
      host,
    );
    expect(out.exitCode).toBe(2);
    const images = JSON.parse(out.output).images;
    expect(images[0]).toMatchObject({ name: 'quay.io/a:1', result: 'success' });
    expect(images[0].size_bytes).toBeGreaterThan(0);
    expect(images[1]).toEqual({ name: 'quay.io/broken:1', result: 'failure' });
    expect(decoded('container-image-availability', out)).toMatchObject({ kind: 'image-availability' });
  });

  it('installation-disk-speed-check: the profile latency for a known disk, -1 otherwise', async () => {
    const { host, me } = makeHost();
    const disk = me.inventory.disks![0]!;
    const out = await runStep(s('installation-disk-speed-check', [{ path: disk.path }, '480.00']), host);
    expect(JSON.parse(out.output)).toEqual({ io_sync_duration: me.diskSyncMs, path: disk.path });
    expect(decoded('installation-disk-speed-check', out)).toMatchObject({ kind: 'disk-speed' });
    const missing = await runStep(s('installation-disk-speed-check', [{ path: '/dev/sdz' }, '480.00']), host);
    expect(missing).toMatchObject({ exitCode: -1, output: '{"io_sync_duration":0,"path":"/dev/sdz"}' });
  });

  it('dhcp-lease-allocate, verify-vips, tang, api-vip connectivity decode', async () => {
    const { host, peer } = makeHost();
    const dhcp = await runStep(
      s('dhcp-lease-allocate', [
        { interface: 'enp1s0', api_vip_mac: '00:1a:4a:00:00:01', ingress_vip_mac: '00:1a:4a:00:00:02' },
      ]),
      host,
    );
    expect(JSON.parse(dhcp.output)).toMatchObject({
      api_vip_address: '192.168.111.250',
      ingress_vip_address: '192.168.111.249',
    });
    expect(decoded('dhcp-lease-allocate', dhcp)).toMatchObject({ kind: 'dhcp-lease' });

    const vips = await runStep(
      s('verify-vips', [
        [
          { vip: '192.168.111.5', vip_type: 'api' },
          { vip: peer.addresses[0]!.ip, vip_type: 'ingress' },
        ],
      ]),
      host,
    );
    expect(JSON.parse(vips.output).map((v: { verification: string }) => v.verification)).toEqual([
      'succeeded',
      'failed',
    ]);
    expect(decoded('verify-vips', vips)).toMatchObject({ kind: 'verify-vips' });

    const tangServers = JSON.stringify([{ url: 'http://tang.example.com:7500', thumbprint: 'abc' }]);
    const tang = await runStep(s('tang-connectivity-check', [{ tang_servers: tangServers }]), host);
    expect(JSON.parse(tang.output).tang_server_response[0].tang_url).toBe('http://tang.example.com:7500');
    expect(decoded('tang-connectivity-check', tang)).toMatchObject({ kind: 'tang', success: true });

    const api = await runStep(
      s('api-vip-connectivity-check', [{ url: 'http://api.c1.example.com:22624/config/worker' }]),
      host,
    );
    expect(JSON.parse(api.output)).toMatchObject({
      is_success: true,
      url: 'http://api.c1.example.com:22624/config/worker',
    });
    expect(decoded('api-vip-connectivity-check', api)).toMatchObject({ kind: 'api-vip-connectivity' });
  });

  it('install: validates the request, defers the reply, refuses a second installer', async () => {
    const { host, me, calls } = makeHost();
    const req = {
      cluster_id: CLUSTER,
      infra_env_id: IE,
      host_id: me.hostId,
      role: 'master',
      boot_device: me.inventory.disks![0]!.path,
      controller_image: 'quay.io/edge-infrastructure/assisted-installer-controller:latest',
      installer_image: 'quay.io/edge-infrastructure/assisted-installer:latest',
    };
    expect(await runStep(s('install', [req]), host)).toMatchObject({ exitCode: 0, deferred: true });
    expect(calls).toEqual(['install:master']);
    const again = await runStep(s('install', [req]), host);
    expect(again.exitCode).toBe(125);
    expect(decoded('install', again)).toMatchObject({ kind: 'ignored' });
    const badDisk = await runStep(s('install', [{ ...req, boot_device: '/dev/sdq' }]), host);
    expect(badDisk).toMatchObject({ exitCode: -1, error: expect.stringMatching(/not found/) });
    const missing = await runStep(s('install', [{ ...req, installer_image: undefined }]), host);
    expect(missing.error).toMatch(/installer_image/);
  });

  it('logs-gather, stop-installation, upgrade-agent, reclaim steps', async () => {
    const { host, calls } = makeHost();
    const logs = await runStep(
      s('logs-gather', [
        { cluster_id: CLUSTER, infra_env_id: IE, host_id: IE, bootstrap: false, installer_gather: true },
      ]),
      host,
    );
    expect(logs).toMatchObject({ exitCode: 0, output: '' });
    expect(await runStep(s('stop-installation'), host)).toMatchObject({ exitCode: 0 });
    expect(calls).toEqual([`logs:${CLUSTER}`, 'stop']);
    expect((await runStep(s('stop-installation', ['x']), host)).exitCode).toBe(-1);

    const upgrade = await runStep(s('upgrade-agent', [{ agent_image: 'quay.io/x/agent:v2' }]), host);
    expect(upgrade.runnerExit).toMatch(/v2/);
    expect(decoded('upgrade-agent', upgrade)).toEqual({
      kind: 'upgrade-agent',
      result: 'success',
      agent_image: 'quay.io/x/agent:v2',
    });
    const failing = makeHost({ upgradeResult: 'failure' });
    expect(
      (await runStep(s('upgrade-agent', [{ agent_image: 'quay.io/x/agent:v2' }]), failing.host)).runnerExit,
    ).toBeUndefined();

    const urls = {
      kernel_url: 'http://k',
      rootfs_url: 'http://r',
      initrd_url: 'http://i',
      host_fs_mount_dir: '/host',
    };
    const dl = await runStep(s('download-boot-artifacts', [urls]), host);
    expect(dl).toMatchObject({ exitCode: 0, output: 'Successfully downloaded boot artifacts' });
    expect(decoded('download-boot-artifacts', dl)).toMatchObject({ kind: 'download-boot-artifacts' });
    expect(await runStep(s('reboot-for-reclaim', [{ host_fs_mount_dir: '/host' }]), host)).toMatchObject({
      exitCode: 0,
      reboot: true,
    });
  });

  it('next-step-runner, execute and unknown types: exit -1 "failed to find action"', async () => {
    const { host } = makeHost();
    for (const type of ['next-step-runner', 'execute', 'no-such-step']) {
      expect(await runStep(s(type), host)).toEqual({
        exitCode: -1,
        output: '',
        error: `failed to find action for step type ${type}`,
      });
    }
  });
});
