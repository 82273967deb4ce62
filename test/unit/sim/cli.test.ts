// The CLI: argument parsing, and a real process run against the fake API that is stopped with
// SIGTERM and exits 0.

import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { formatEvent, parseSimArgs } from '../../../src/cmd/sim.ts';
import { FakeAgentApi } from './fake-agent-api.ts';
import { MediaServer } from './media-server.ts';

describe('parseSimArgs', () => {
  it('parses the documented flags', () => {
    const o = parseSimArgs([
      '--iso-url',
      'http://img/x.iso',
      '--hosts',
      '5',
      '--profile',
      'master,master,master,worker,worker',
      '--speed',
      '10',
      '--machine-network',
      '192.168.111.0/24',
      '--fail-at-stage',
      '3:writing image to disk',
      '--fail-at-stage',
      'Rebooting',
    ]);
    if (o === 'help') throw new Error('help');
    expect(o.media).toEqual({ isoUrl: 'http://img/x.iso' });
    expect(o.fleet).toMatchObject({
      hosts: 5,
      profiles: ['master', 'master', 'master', 'worker', 'worker'],
      speed: 10,
      machine: { machineNetworks: ['192.168.111.0/24'] },
      failAtStage: [{ stage: 'Writing image to disk', hostIndex: 3 }, { stage: 'Rebooting' }],
    });
  });

  it('rejects bad input with a reason', () => {
    expect(() => parseSimArgs([])).toThrow(/exactly one/);
    expect(() => parseSimArgs(['--ignition-url', 'u', '--profile', 'huge'])).toThrow(/unknown profile/);
    expect(() => parseSimArgs(['--ignition-url', 'u', '--hosts', '500'])).toThrow(/room for 245/);
    expect(() => parseSimArgs(['--ignition-url', 'u', '--fail-at-stage', 'Done'])).toThrow(
      /not an installer stage/,
    );
    expect(() => parseSimArgs(['--ignition-url', 'u', '--speed', '0'])).toThrow(/positive/);
    expect(parseSimArgs(['--help'])).toBe('help');
  });

  it('formats progress lines', () => {
    expect(
      formatEvent(
        {
          type: 'stage',
          host: 'sim-master-0',
          hostId: 'x',
          stage: 'Installing',
          info: 'master',
          by: 'installer',
        },
        false,
      ),
    ).toBe('sim-master-0 stage "Installing" (master)');
    expect(
      formatEvent(
        { type: 'step', host: 'h', hostId: 'x', stepType: 'inventory', exitCode: 0, posted: true },
        false,
      ),
    ).toBeUndefined();
  });
});

describe('sim CLI process', () => {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
  });

  it('boots from an ignition URL, prints progress, stops cleanly on SIGTERM', async () => {
    const api = await new FakeAgentApi({ lifetimeMs: 30_000 }).start();
    closers.push(() => api.close());
    const unit = `[Service]\nEnvironment=PULL_SECRET_TOKEN=cli-token\nExecStart=/usr/local/bin/agent --url ${api.url} --infra-env-id 6c1f3d2a-9b8e-4c7d-a6f5-e4d3c2b1a098 --agent-version quay.io/edge-infrastructure/assisted-installer-agent:latest --insecure=false\n`;
    const ign = JSON.stringify({
      ignition: { version: '3.1.0' },
      systemd: { units: [{ name: 'agent.service', contents: unit }] },
    });
    const media = await new MediaServer({ '/discovery.ign': Buffer.from(ign) }).start();
    closers.push(() => media.close());

    const child = spawn(
      process.execPath,
      [
        'src/cmd/sim.ts',
        '--ignition-url',
        `${media.url}/discovery.ign`,
        '--hosts',
        '3',
        '--speed',
        '100',
        '--stats-interval',
        '0',
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const deadline = Date.now() + 20_000;
    while ((out.match(/ registered /g) ?? []).length < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    while ([...api.hosts.values()].filter((h) => h.replies.length > 0).length < 3 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('booted from ignition');
    expect(out).toMatch(/sim-master-0 registered/);
    expect(out).toContain('SIGTERM: stopping');
    expect(out).toMatch(/registered 3\/3/);
    expect(api.find('POST', /\/hosts$/)[0]!.headers['x-secret-key']).toBe('cli-token');
  }, 30_000);
});
