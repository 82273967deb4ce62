// Simulated agents (src/sim) against the real operator: a small fleet registers with its
// infra-env token, answers its periodic steps, and every host becomes a known, unbound Agent with
// its inventory; none of them is refused. (Booting from the served ISO and installing a cluster is
// the end-to-end test's job.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import { AGENT } from '../../../src/records/resources.ts';
import { type Fleet, startFleet } from '../../../src/sim/index.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, createInfraEnv } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let ie: InfraEnv;
let fleet: Fleet | undefined;

beforeAll(async () => {
  ns = await newNamespace('fleet');
  op = await startTestOperator({ namespace: ns });
  ie = await createInfraEnv(client, ns, 'pool');
  await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
});

afterAll(async () => {
  await fleet?.stop();
  await op?.stop();
  await client.close();
});

describe('simulated fleet', () => {
  it('registers, reports inventory and becomes known-unbound', async () => {
    const hosts = 4;
    fleet = await startFleet({
      config: {
        serviceUrl: op.baseUrl,
        infraEnvId: ie.metadata.uid ?? '',
        agentVersion: op.ctx.settings.agentImage,
        insecure: true,
        trustAnchors: [],
        token: op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
        proxy: {},
        agentFlags: {},
      },
      hosts,
      speed: 20,
      seed: 7,
    });
    await fleet.waitFor((f) => f.stats.registered === hosts, { timeoutMs: 30_000 });
    const agents = await eventually(
      async () => {
        const list = (await client.list<Agent>(AGENT, { namespace: ns })).items;
        return list.length === hosts && list.every((a) => a.status?.debugInfo?.state === 'known-unbound')
          ? list
          : undefined;
      },
      { timeoutMs: 60_000, what: 'every Agent known-unbound' },
    );
    for (const a of agents) {
      expect(a.status?.inventory?.hostname).toBeTruthy();
      expect(a.status?.conditions?.find((c) => c.type === 'Validated')?.reason).toBe('ValidationsPassing');
    }
    expect(fleet.stats.gaveUp).toBe(0);
    expect(Object.keys(fleet.stats.errorsByStatus).filter((s) => s !== '503')).toEqual([]);
  });
});
