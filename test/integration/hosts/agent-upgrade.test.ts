// Agent upgrade converges. The discovery image's agent registers with its own image ref, but the
// runner it starts is the image the service names in next_step_runner_command, and the service
// records the runner's `discovery_agent_version` header before choosing steps (core.md §9.1). So:
// a discovery image naming another agent image than the operator's setting needs no upgrade at all,
// and a runner left on an old image by an operator upgrade is upgraded exactly once — never the
// upgrade-agent → re-register → upgrade-agent loop of judging by the version stored at registration.

import { afterAll, expect, it } from 'vitest';
import { type Fleet, startFleet } from '../../../src/sim/index.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, createInfraEnv, waitForAgent } from './helpers.ts';

const ISO_AGENT = 'quay.io/example/assisted-installer-agent:from-the-iso';
const OPERATOR_AGENT = 'quay.io/example/assisted-installer-agent:operator-v1';
const UPGRADED_AGENT = 'quay.io/example/assisted-installer-agent:operator-v2';

const client = adminClient();
let op: TestOperator | undefined;
let fleet: Fleet | undefined;

afterAll(async () => {
  await fleet?.stop();
  await op?.stop();
  await client.close();
});

it('an agent image other than the operator setting converges after one upgrade', async () => {
  const opNamespace = await newNamespace('op');
  const ns = await newNamespace('upgrade');
  const env = { WATCH_NAMESPACE: ns };
  op = await startTestOperator({ namespace: opNamespace, env, settings: { agentImage: OPERATOR_AGENT } });
  const port = op.ctx.settings.apiPort;
  const ie = await createInfraEnv(client, ns, 'pool');
  const infraEnvId = ie.metadata.uid ?? '';
  await eventually(async () => op?.ctx.infraEnvById(infraEnvId), { what: 'InfraEnv in cache' });

  const upgrades: string[] = [];
  fleet = await startFleet({
    config: {
      serviceUrl: op.baseUrl,
      infraEnvId,
      agentVersion: ISO_AGENT,
      insecure: true,
      trustAnchors: [],
      token: op.server.auth.issueAgentToken({ kind: 'infra-env', id: infraEnvId }),
      proxy: {},
      agentFlags: {},
    },
    hosts: 1,
    // Slow enough that the runner keeps polling (15 simulated minutes = 30 s) across a restart.
    speed: 30,
    machine: { seed: 'upgrade' },
    onEvent: (ev) => {
      if (ev.type === 'step' && ev.stepType === 'upgrade-agent' && ev.posted) upgrades.push(ev.hostId);
    },
  });
  const hostId = fleet.hosts[0]!.hostId;
  const f = fleet;

  // 1. The ISO's agent registers with its own image; its runner runs the operator's: no upgrade.
  await waitForAgent(
    client,
    ns,
    hostId,
    (a) =>
      a.status?.debugInfo?.state === 'known-unbound' &&
      a.status?.backend?.discoveryAgentVersion === OPERATOR_AGENT,
    'known-unbound, runner version recorded',
    45_000,
  );
  let polls = f.stats.polls;
  await f.waitFor((x) => x.stats.polls >= polls + 5, { timeoutMs: 30_000 });
  expect(upgrades).toEqual([]);
  expect(f.hosts[0]!.registrations).toBe(1);

  // 2. The operator is upgraded to another agent image while the runner keeps polling with the old one.
  await op.stop();
  op = await startTestOperator({
    namespace: opNamespace,
    env,
    settings: { agentImage: UPGRADED_AGENT, apiPort: port },
  });
  await f.waitFor(() => upgrades.length === 1, { timeoutMs: 60_000 });
  await waitForAgent(
    client,
    ns,
    hostId,
    (a) =>
      a.status?.debugInfo?.state === 'known-unbound' &&
      a.status?.backend?.discoveryAgentVersion === UPGRADED_AGENT,
    'known-unbound on the upgraded runner',
    45_000,
  );
  polls = f.stats.polls;
  await f.waitFor((x) => x.stats.polls >= polls + 5, { timeoutMs: 30_000 });
  expect(upgrades).toEqual([hostId]);
  // One re-registration after the upgrade, none after it.
  expect(f.hosts[0]!.registrations).toBe(2);
}, 240_000);
