import { describe, expect, it } from 'vitest';
import { parseStepReply, type StepReply } from '../../../../src/core/steps/index.ts';
import { dropNulls } from '../../../../src/core/steps/replies.ts';

const reply = (step_type: string, output: unknown, extra: Partial<StepReply> = {}): StepReply => ({
  step_type,
  step_id: `${step_type}-00000000`,
  output: typeof output === 'string' ? output : JSON.stringify(output),
  ...extra,
});
const value = (r: StepReply) => {
  const parsed = parseStepReply(r);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};
const error = (r: StepReply) => {
  const parsed = parseStepReply(r);
  return parsed.ok ? undefined : parsed.error;
};

describe('inventory', () => {
  it('accepts a real agent inventory with null arrays (dropped)', () => {
    const v = value(
      reply('inventory', {
        hostname: 'h',
        interfaces: [
          {
            name: 'eth0',
            ipv4_addresses: ['10.0.0.5/24'],
            ipv6_addresses: null,
            flags: null,
            speed_mbps: -1,
          },
        ],
        disks: null,
        gpus: null,
        routes: [{ destination: '0.0.0.0', family: 2 }],
        cpu: { count: 4, flags: null, architecture: 'x86_64' },
        boot: { current_boot_mode: 'bios', device_type: 'ephemeral' },
        disk_extra_future_field: 1,
        truncation: { type: 'partial', reasons: null },
      }),
    );
    expect(v).toEqual({
      kind: 'inventory',
      inventory: {
        hostname: 'h',
        interfaces: [{ name: 'eth0', ipv4_addresses: ['10.0.0.5/24'], speed_mbps: -1 }],
        routes: [{ destination: '0.0.0.0', family: 2 }],
        cpu: { count: 4, architecture: 'x86_64' },
        boot: { current_boot_mode: 'bios', device_type: 'ephemeral' },
        disk_extra_future_field: 1,
        truncation: { type: 'partial' },
      },
    });
  });
  it.each([
    ['empty output', '', 'inventory reply has no output'],
    ['not JSON', '{"hostname":', expect.stringMatching(/^failed to parse inventory reply: /)],
    ['wrong type', { interfaces: 'eth0' }, expect.stringMatching(/^invalid inventory reply: interfaces: /)],
    [
      'nested wrong type',
      { disks: [{ size_bytes: 'big' }] },
      expect.stringMatching(/^invalid inventory reply: disks\.0\.size_bytes: /),
    ],
    ['array', [], expect.stringMatching(/^invalid inventory reply: \(root\): /)],
    [
      'bad truncation',
      { truncation: { type: 'half' } },
      expect.stringMatching(/^invalid inventory reply: truncation\.type: /),
    ],
  ])('%s', (_n, output, expected) => {
    expect(error(reply('inventory', output))).toEqual(expected);
  });
});

describe('structured replies', () => {
  it('connectivity report', () => {
    const report = {
      remote_hosts: [
        {
          host_id: 'h2',
          l2_connectivity: null,
          l3_connectivity: [{ remote_ip_address: '10.0.0.2', successful: true, average_rtt_ms: 0.4 }],
          mtu_report: null,
        },
      ],
    };
    expect(value(reply('connectivity-check', report))).toEqual({
      kind: 'connectivity',
      report: {
        remote_hosts: [
          {
            host_id: 'h2',
            l3_connectivity: [{ remote_ip_address: '10.0.0.2', successful: true, average_rtt_ms: 0.4 }],
          },
        ],
      },
    });
    expect(value(reply('connectivity-check', { remote_hosts: null }))).toEqual({
      kind: 'connectivity',
      report: {},
    });
    expect(error(reply('connectivity-check', { remote_hosts: [{ l2_connectivity: [] }] }))).toMatch(
      /^invalid connectivity-check reply: remote_hosts\.0\.host_id: /,
    );
  });

  it('free addresses: non-empty list required', () => {
    expect(
      value(reply('free-network-addresses', [{ network: '10.0.0.0/24', free_addresses: null }])),
    ).toEqual({
      kind: 'free-addresses',
      networks: [{ network: '10.0.0.0/24' }],
    });
    expect(error(reply('free-network-addresses', []))).toBe('free-network-addresses reply is an empty list');
    expect(error(reply('free-network-addresses', ''))).toBe('free-network-addresses reply has no output');
    expect(error(reply('free-network-addresses', {}))).toMatch(
      /^invalid free-network-addresses reply: \(root\)/,
    );
  });

  it('ntp sources and their states', () => {
    expect(
      value(reply('ntp-synchronizer', { ntp_sources: [{ source_name: '1.2.3.4', source_state: 'synced' }] })),
    ).toEqual({
      kind: 'ntp',
      sources: [{ source_name: '1.2.3.4', source_state: 'synced' }],
    });
    expect(value(reply('ntp-synchronizer', { ntp_sources: null }))).toEqual({ kind: 'ntp', sources: [] });
    expect(error(reply('ntp-synchronizer', { ntp_sources: [{ source_state: 'great' }] }))).toMatch(
      /^invalid ntp-synchronizer reply: ntp_sources\.0\.source_state: /,
    );
  });

  it('domain resolution', () => {
    const resolutions = [
      { domain_name: 'api.c.b', ipv4_addresses: ['1.1.1.1'], ipv6_addresses: null, cnames: null },
    ];
    expect(value(reply('domain-resolution', { resolutions }))).toEqual({
      kind: 'domain-resolution',
      response: { resolutions: [{ domain_name: 'api.c.b', ipv4_addresses: ['1.1.1.1'] }] },
    });
    expect(error(reply('domain-resolution', { resolutions: [{ ipv4_addresses: [] }] }))).toMatch(
      /domain_name/,
    );
  });

  it('image availability: exit 2 still parsed; empty output ignored', () => {
    const images = [
      { name: 'a', result: 'success', size_bytes: 10, time: 1.5, download_rate: 6.6 },
      { name: 'b', result: 'failure' },
    ];
    expect(value(reply('container-image-availability', { images }, { exit_code: 2 }))).toEqual({
      kind: 'image-availability',
      images,
    });
    expect(value(reply('container-image-availability', ''))).toEqual({
      kind: 'ignored',
      reason: 'image availability check still running',
    });
    expect(value(reply('container-image-availability', { images: null }))).toEqual({
      kind: 'image-availability',
      images: [],
    });
    expect(
      error(reply('container-image-availability', { images: [{ name: 'a', result: 'maybe' }] })),
    ).toMatch(/images\.0\.result/);
  });

  it('disk speed: success, failure exit code recorded, empty output ignored', () => {
    expect(value(reply('installation-disk-speed-check', { io_sync_duration: 12, path: '/dev/sda' }))).toEqual(
      {
        kind: 'disk-speed',
        path: '/dev/sda',
        info: { path: '/dev/sda', disk_speed: { tested: true, exit_code: 0, speed_ms: 12 } },
      },
    );
    expect(
      value(
        reply('installation-disk-speed-check', { io_sync_duration: 0, path: '/dev/sda' }, { exit_code: -1 }),
      ),
    ).toEqual({
      kind: 'disk-speed',
      path: '/dev/sda',
      info: { path: '/dev/sda', disk_speed: { tested: true, exit_code: -1, speed_ms: 0 } },
    });
    expect(value(reply('installation-disk-speed-check', { path: '/dev/sdb' })).kind).toBe('disk-speed');
    expect(value(reply('installation-disk-speed-check', ' '))).toEqual({
      kind: 'ignored',
      reason: 'disk speed check still running',
    });
    expect(error(reply('installation-disk-speed-check', { io_sync_duration: 3 }))).toMatch(
      /^invalid installation-disk-speed-check reply: path: /,
    );
  });

  it('api-vip, tang, dhcp, verify-vips, upgrade-agent', () => {
    expect(
      value(
        reply('api-vip-connectivity-check', {
          is_success: true,
          url: 'http://x',
          ignition: '{}',
          download_error: null,
        }),
      ),
    ).toEqual({
      kind: 'api-vip-connectivity',
      result: { is_success: true, url: 'http://x', ignition: '{}' },
    });
    const tang = { is_success: true, tang_server_response: [{ tang_url: 'http://t' }] };
    expect(value(reply('tang-connectivity-check', tang))).toEqual({
      kind: 'tang',
      success: true,
      raw: JSON.stringify(tang),
    });
    expect(
      value(
        reply('tang-connectivity-check', '', {
          exit_code: -1,
          error: 'failed to find action for step type tang',
        }),
      ),
    ).toEqual({
      kind: 'tang',
      success: false,
      raw: 'failed to find action for step type tang',
    });
    expect(
      value(reply('dhcp-lease-allocate', { api_vip_address: '10.0.0.5', ingress_vip_address: '10.0.0.6' })),
    ).toEqual({
      kind: 'dhcp-lease',
      api_vip_address: '10.0.0.5',
      ingress_vip_address: '10.0.0.6',
    });
    expect(
      value(reply('verify-vips', [{ vip: '10.0.0.5', vip_type: 'api', verification: 'succeeded' }])),
    ).toEqual({
      kind: 'verify-vips',
      vips: [{ vip: '10.0.0.5', vip_type: 'api', verification: 'succeeded' }],
    });
    expect(error(reply('verify-vips', [{ vip: '10.0.0.5', vip_type: 'other' }]))).toMatch(/vip_type/);
    expect(value(reply('upgrade-agent', { agent_image: 'img', result: 'success' }))).toEqual({
      kind: 'upgrade-agent',
      agent_image: 'img',
      result: 'success',
    });
    expect(value(reply('upgrade-agent', { result: 'failure' }))).toEqual({
      kind: 'upgrade-agent',
      result: 'failure',
    });
  });
});

describe('exit codes', () => {
  it('install: success, failure, and the benign "already in use"', () => {
    expect(value(reply('install', ''))).toEqual({ kind: 'install', success: true });
    expect(value(reply('install', '', { exit_code: 1, error: 'pull failed' }))).toEqual({
      kind: 'install-failed',
      error: 'pull failed',
    });
    expect(value(reply('install', '', { exit_code: 3 }))).toEqual({
      kind: 'install-failed',
      error: 'install failed with exit code 3',
    });
    expect(
      value(
        reply('install', '', {
          exit_code: 125,
          error:
            'Error: creating container storage: the container name "assisted-installer" is already in use by abc',
        }),
      ),
    ).toEqual({ kind: 'ignored', reason: 'installer already running' });
    expect(value(reply('install', '', { exit_code: 125, error: 'other' })).kind).toBe('install-failed');
  });

  it('download-boot-artifacts failure → reclaim failed', () => {
    expect(value(reply('download-boot-artifacts', 'Successfully downloaded boot artifacts'))).toEqual({
      kind: 'download-boot-artifacts',
      success: true,
    });
    expect(value(reply('download-boot-artifacts', '', { exit_code: 1, error: 'no space' }))).toEqual({
      kind: 'reclaim-failed',
      error: 'no space',
    });
    expect(value(reply('download-boot-artifacts', '', { exit_code: 1 }))).toEqual({
      kind: 'reclaim-failed',
      error: 'download-boot-artifacts failed with exit code 1',
    });
  });

  it('exit 256 = media disconnected; other non-zero exits are errors', () => {
    const media = parseStepReply(reply('inventory', '', { exit_code: 256, error: 'media' }));
    expect(media).toEqual({
      ok: false,
      step_type: 'inventory',
      media_disconnected: true,
      error: 'inventory failed with exit code 256: media',
    });
    expect(parseStepReply(reply('install', '', { exit_code: 256 }))).toMatchObject({
      ok: true,
      media_disconnected: true,
    });
    expect(
      error(
        reply('ntp-synchronizer', '', {
          exit_code: -1,
          error: 'failed to find action for step type ntp-synchronizer',
        }),
      ),
    ).toBe('ntp-synchronizer failed with exit code -1: failed to find action for step type ntp-synchronizer');
    expect(parseStepReply(reply('inventory', { hostname: 'h' }))).toMatchObject({
      ok: true,
      media_disconnected: false,
    });
  });

  it('outputs the service ignores; unknown and never-sent types', () => {
    for (const t of ['logs-gather', 'stop-installation', 'reboot-for-reclaim']) {
      expect(value(reply(t, 'whatever'))).toEqual({ kind: 'ignored', reason: `${t} output is not used` });
    }
    expect(error(reply('execute', ''))).toBe('step type execute is never sent as an instruction');
    expect(error(reply('frobnicate', ''))).toBe('unknown step type "frobnicate"');
    expect(parseStepReply({ step_type: 'inventory' })).toMatchObject({
      ok: false,
      error: 'inventory reply has no output',
    });
  });

  it('dropNulls', () => {
    expect(dropNulls({ a: null, b: [1, null, { c: null, d: 2 }] })).toEqual({ b: [1, { d: 2 }] });
  });
});
