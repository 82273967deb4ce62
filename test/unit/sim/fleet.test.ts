// Fleets: a thousand hosts from one process against the fake API (counts, not timings), and a
// whole 3-master/2-worker cluster driven from discovery to complete-installation.

import { afterEach, describe, expect, it } from 'vitest';
import { Fleet, profileFor } from '../../../src/sim/fleet.ts';
import { simulatedMachine } from '../../../src/sim/profiles.ts';
import { FakeAgentApi as Fake, type FakeAgentApi, type FakeApiOptions, step } from './fake-agent-api.ts';
import { configFor, installArgs } from './helpers.ts';

const apis: FakeAgentApi[] = [];
const fleets: Fleet[] = [];
async function fake(opts: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await new Fake({ lifetimeMs: 60_000, ...opts }).start();
  apis.push(api);
  return api;
}
afterEach(async () => {
  await Promise.all(fleets.splice(0).map((f) => f.stop()));
  await Promise.all(apis.splice(0).map((a) => a.close()));
});

describe('Fleet', () => {
  it('picks default profiles', () => {
    expect(profileFor(0, 1)).toBe('sno');
    expect([0, 1, 2, 3, 4].map((i) => profileFor(i, 5))).toEqual([
      'master',
      'master',
      'master',
      'worker',
      'worker',
    ]);
    expect([0, 1, 2].map((i) => profileFor(i, 3, ['worker', 'multi-disk']))).toEqual([
      'worker',
      'multi-disk',
      'worker',
    ]);
  });

  it('1000 hosts register and answer inventory, within the concurrency bound', async () => {
    const api = await fake({ record: false, nextInstructionSeconds: 60, latencyMs: 2 });
    const fleet = new Fleet(configFor(api), {
      hosts: 1000,
      profiles: ['master', 'worker', 'multi-nic', 'multi-disk'],
      machine: { machineNetworks: ['10.20.0.0/16'] },
      speed: 100,
      concurrency: 32,
      startJitterMs: 500,
    });
    fleets.push(fleet);
    fleet.start();
    await fleet.waitFor((f) => f.stats.registered === 1000 && f.stats.stepsByType.inventory === 1000, {
      timeoutMs: 60_000,
    });
    expect(api.hosts.size).toBe(1000);
    for (const h of api.hosts.values()) {
      expect(h.registrations).toBe(1);
      expect(h.replies.filter((r) => r.step_type === 'inventory')).toHaveLength(1);
      expect(JSON.parse(h.inventory!).hostname).toMatch(/^sim-/);
    }
    expect(fleet.stats.errorsByStatus).toEqual({});
    expect(api.maxInFlight).toBeLessThanOrEqual(32);
    expect(api.maxInFlight).toBeGreaterThan(1);
    await fleet.stop();
    const after = api.requestCount;
    await new Promise((r) => setTimeout(r, 100));
    expect(api.requestCount).toBe(after);
  }, 90_000);

  it('installs a 3-master / 2-worker cluster to completion', async () => {
    const cid = 'c1c1c1c1-0000-4000-8000-00000000c1c1';
    const machines = [0, 1, 2, 3, 4].map((i) => simulatedMachine(profileFor(i, 5), i));
    const roleOf = (id: string) => {
      const i = machines.findIndex((m) => m.hostId === id);
      return i === 0 ? 'bootstrap' : i < 3 ? 'master' : 'worker';
    };
    const installed = new Set<string>();
    const api: FakeAgentApi = await fake({
      steps: (h) => {
        const everyone = [...api.hosts.values()];
        if (!h.inventory) return { next_instruction_seconds: 60, instructions: [step('inventory', [h.id])] };
        if (everyone.length === 5 && everyone.every((x) => x.inventory) && !installed.has(h.id)) {
          installed.add(h.id);
          const role = roleOf(h.id);
          h.role = role === 'worker' ? 'worker' : 'master';
          h.bootstrap = role === 'bootstrap';
          const m = machines.find((x) => x.hostId === h.id)!;
          return {
            next_instruction_seconds: 60,
            instructions: [step('install', [installArgs(m, cid, role)])],
          };
        }
        return { next_instruction_seconds: 60, instructions: [] };
      },
    });
    const fleet = new Fleet(configFor(api), { hosts: 5, speed: 2000, startJitterMs: 50 });
    fleets.push(fleet);
    fleet.start();
    await fleet.waitFor((f) => f.stats.clustersCompleted === 1, { timeoutMs: 30_000 });

    expect([...api.hosts.values()].map((h) => h.stage)).toEqual(['Done', 'Done', 'Done', 'Done', 'Done']);
    expect(api.completions).toEqual([{ is_success: true, data: {} }]);
    expect(fleet.stats.rebooted).toBe(5);
    expect(fleet.stats.errorsByStatus).toEqual({});
    // Every host's stages, whoever reported them, follow its role's order (agent-api.md §6.1).
    const order: Record<string, string[]> = {
      bootstrap: [
        'Starting installation',
        'Installing',
        'Writing image to disk',
        'Waiting for control plane',
        'Waiting for bootkube',
        'Waiting for controller',
        'Rebooting',
        'Configuring',
        'Joined',
        'Done',
      ],
      master: [
        'Starting installation',
        'Installing',
        'Writing image to disk',
        'Rebooting',
        'Configuring',
        'Joined',
        'Done',
      ],
      worker: [
        'Starting installation',
        'Installing',
        'Writing image to disk',
        'Waiting for control plane',
        'Rebooting',
        'Waiting for ignition',
        'Configuring',
        'Joined',
        'Done',
      ],
    };
    for (const m of machines) {
      const seen = api
        .find('PUT', new RegExp(`/hosts/${m.hostId}/progress$`))
        .map((r) => (r.json as { current_stage: string }).current_stage)
        .filter((s, i, a) => s !== a[i - 1]);
      const list = order[roleOf(m.hostId)]!;
      const idx = seen.map((s) => list.indexOf(s));
      expect(
        idx.every((v, i) => v >= 0 && (i === 0 || v > idx[i - 1]!)),
        `${roleOf(m.hostId)}: ${seen.join(' → ')}`,
      ).toBe(true);
      expect(seen.at(-1)).toBe('Done');
      if (process.env.SIM_DEBUG) console.log(roleOf(m.hostId), seen.join(' → '));
    }
    // Workers rebooted only after two masters were Done.
    const puts = api
      .find('PUT', /\/progress$/)
      .map((r) => ({ path: r.path, stage: (r.json as { current_stage: string }).current_stage }));
    const firstWorkerReboot = puts.findIndex(
      (p) => p.stage === 'Rebooting' && machines.slice(3).some((m) => p.path.includes(m.hostId)),
    );
    const mastersDoneBefore = puts
      .slice(0, firstWorkerReboot)
      .filter((p) => p.stage === 'Done' && machines.slice(0, 3).some((m) => p.path.includes(m.hostId)));
    expect(mastersDoneBefore.length).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
