// An operator restart: the key pair comes back from its Secret (tokens baked into discovery images
// keep working) and the host records from the Agents; during the warm-up nothing flaps, so the
// Agents are not written at all.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../src/api/index.ts';
import { AGENT } from '../../../src/records/resources.ts';
import { reconcilesDone, settled } from '../../harness/barriers.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { patchIfUnchanged } from '../../harness/unchanged.ts';
import { adminClient, call, createInfraEnv, inventory, waitForAgent } from './helpers.ts';

const client = adminClient();
let op: TestOperator | undefined;

afterAll(async () => {
  await op?.stop();
  await client.close();
});

describe('restart', () => {
  it('keeps tokens valid and writes nothing while warming up', async () => {
    const opNamespace = await newNamespace('op');
    const ns = await newNamespace('restart');
    // The key Secret lives in the operator namespace, the InfraEnv and Agent in another one.
    op = await startTestOperator({ namespace: opNamespace, env: { WATCH_NAMESPACE: ns } });
    const ie = await createInfraEnv(client, ns, 'pool');
    await eventually(async () => op?.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
    const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
    const hostId = randomUUID();
    const base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
    const body = { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage };
    expect((await call(op.baseUrl, 'POST', base, { token, body })).status).toBe(201);
    const inv = inventory('steady', '52:54:00:00:05:01');
    await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
      token,
      body: { step_type: 'inventory', output: inv },
    });
    const now = () => Math.floor(Date.now() / 1000);
    await call(op.baseUrl, 'GET', `${base}/${hostId}/instructions?timestamp=${now()}`, { token });
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) =>
        a.status?.debugInfo?.state === 'known-unbound' &&
        !!a.status?.validationsInfo?.network?.some(
          (v) => v.id === 'time-synced-between-host-and-service' && v.status === 'success',
        ),
      'known-unbound, clock synced',
    );
    const first = op;
    const before = await settled(
      first.ctx.mgr,
      first.ctx.informers.agents,
      () => client.get<Agent>(AGENT, hostId, ns),
      'the Agent before the restart',
    );
    await op.stop();

    op = await startTestOperator({ namespace: opNamespace, env: { WATCH_NAMESPACE: ns } });
    const restarted = op;
    await eventually(async () => restarted.ctx.informers.agents.get(ns, hostId), {
      what: 'Agent in the new cache',
    });
    // The Agent is reconciled at start (initial list) without any write. The barrier: that pass is
    // over (nothing queued or running since the cache synced with the Agent in it). The empty
    // guarded patch writes nothing; it only fails if the Agent moved past `before`.
    await reconcilesDone(restarted.ctx.mgr, 'the initial pass');
    await patchIfUnchanged(client, AGENT, before, {});
    // The token minted by the first process still opens the API. The host's first poll to the new
    // process is refused once so that its runner, which skips results identical to those it
    // posted within the hour and forgets them when a poll fails, posts every result again: what
    // the first process held in memory is gone. A 500, as the agent's transport retries a 503
    // itself and the runner would never see it. The next poll is served.
    const pollPath = `${base}/${hostId}/instructions?timestamp=${now()}`;
    const refused = await call(restarted.baseUrl, 'GET', pollPath, { token });
    expect(refused.status, refused.text).toBe(500);
    expect(refused.text).toContain('poll again and send every result');
    const poll = await call(restarted.baseUrl, 'GET', pollPath, { token });
    expect(poll.status, poll.text).toBe(200);
    // Whatever the poll enqueued has been reconciled, and wrote nothing.
    await reconcilesDone(restarted.ctx.mgr, 'the pass after the poll');
    await patchIfUnchanged(client, AGENT, before, {});
  });
});
