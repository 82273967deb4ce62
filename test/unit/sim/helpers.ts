// Shared set-up for the simulator tests: a DiscoveryConfig pointing at the fake API, install step
// arguments for a machine, and a runner that drives one host until a condition holds.

import type { DiscoveryConfig } from '../../../src/sim/boot.ts';
import { SimHost, type SimHostOptions } from '../../../src/sim/host.ts';
import type { SimulatedMachine } from '../../../src/sim/profiles.ts';
import { Scheduler } from '../../../src/sim/scheduler.ts';
import type { SimEvent } from '../../../src/sim/stats.ts';
import { AGENT_IMAGE, type FakeAgentApi, type FakeHost } from './fake-agent-api.ts';

export const INFRA_ENV = '6c1f3d2a-9b8e-4c7d-a6f5-e4d3c2b1a098';
export const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJpbmZyYV9lbnZfaWQiOiJ4In0.sig';

export function configFor(api: FakeAgentApi, overrides: Partial<DiscoveryConfig> = {}): DiscoveryConfig {
  return {
    serviceUrl: api.url,
    infraEnvId: INFRA_ENV,
    agentVersion: AGENT_IMAGE,
    insecure: false,
    trustAnchors: [],
    token: TOKEN,
    proxy: {},
    agentFlags: {},
    ...overrides,
  };
}

export function installArgs(
  machine: SimulatedMachine,
  clusterId: string,
  role: string,
  controlPlaneCount = 3,
) {
  return {
    cluster_id: clusterId,
    infra_env_id: INFRA_ENV,
    host_id: machine.hostId,
    role,
    boot_device: machine.inventory.disks![0]!.path,
    controller_image: 'quay.io/edge-infrastructure/assisted-installer-controller:latest',
    installer_image: 'quay.io/edge-infrastructure/assisted-installer:latest',
    control_plane_count: controlPlaneCount,
    check_cvo: true,
    disks_to_format: [],
  };
}

/** Adds a host the simulator does not run (e.g. other masters) to the fake's state. */
export function addFakeHost(api: FakeAgentApi, id: string, role: string, stage: string): FakeHost {
  const host: FakeHost = {
    id,
    infraEnvId: INFRA_ENV,
    polls: 0,
    registrations: 1,
    role,
    bootstrap: false,
    stage,
    inventory: '{"hostname":"other"}',
    replies: [],
  };
  api.hosts.set(id, host);
  return host;
}

/**
 * Runs one host until `until` holds (checked after each event) or the scheduler goes idle, then
 * stops it. Rejects after `timeoutMs`.
 */
export async function drive(
  opts: Omit<SimHostOptions, 'signal' | 'onEvent'>,
  until: (events: SimEvent[], host: SimHost) => boolean,
  timeoutMs = 10_000,
): Promise<{ host: SimHost; events: SimEvent[] }> {
  const events: SimEvent[] = [];
  const abort = new AbortController();
  const scheduler = new Scheduler();
  let done!: () => void;
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const host = new SimHost({
    speed: 1000,
    ...opts,
    signal: abort.signal,
    onEvent: (ev) => {
      events.push(ev);
      if (until(events, host)) done();
    },
  });
  host.start(scheduler);
  const timer = setTimeout(() => done(), timeoutMs);
  // Some conditions change without an event (e.g. poll counts).
  const check = setInterval(() => {
    if (until(events, host)) done();
  }, 10);
  await Promise.race([finished, scheduler.idle()]);
  clearTimeout(timer);
  clearInterval(check);
  abort.abort();
  await scheduler.stop();
  await host.close();
  if (!until(events, host)) {
    throw new Error(`condition not met; events: ${JSON.stringify(events.slice(-20), null, 1)}`);
  }
  return { host, events };
}

/** Stages the host's own installer reported, or (with hostId) those reported for another host. */
export const stagesOf = (events: SimEvent[], hostId?: string) =>
  events.flatMap((e) =>
    e.type === 'stage' &&
    (hostId === undefined ? !e.forHostId && e.by === 'installer' : e.forHostId === hostId)
      ? [e.stage]
      : [],
  );

/** Stage names in order with consecutive repeats collapsed. */
export const distinct = (stages: string[]) => stages.filter((s, i) => s !== stages[i - 1]);
