// The disconnection window with upstream's HOST_MAX_DISCONNECTION_TIME shortened: a host that stops
// polling turns Connected False on its own (the reconciler requeues for the deadline; nothing else
// enqueues it), and polling again brings it back.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../../src/api/index.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, call, condition, createInfraEnv, inventory, waitForAgent } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let ie: InfraEnv;
let token: string;

beforeAll(async () => {
  ns = await newNamespace('disc');
  op = await startTestOperator({ namespace: ns, env: { HOST_MAX_DISCONNECTION_TIME: '3s' } });
  ie = await createInfraEnv(client, ns, 'pool');
  await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
  token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

describe('disconnection', () => {
  it('flips Connected False after the window without any other trigger, and back on a poll', async () => {
    const hostId = randomUUID();
    const base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
    const body = { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage };
    expect((await call(op.baseUrl, 'POST', base, { token, body })).status).toBe(201);
    const inv = inventory('quiet', '52:54:00:00:04:01');
    await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
      token,
      body: { step_type: 'inventory', output: inv },
    });
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'known-unbound',
      'known-unbound',
    );
    const gone = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'Connected')?.status === 'False',
      'Connected False',
      15_000,
    );
    expect(gone.status?.debugInfo?.state).toBe('disconnected-unbound');
    expect(condition(gone, 'RequirementsMet')?.reason).toBe('AgentNotReady');

    expect((await call(op.baseUrl, 'GET', `${base}/${hostId}/instructions`, { token })).status).toBe(200);
    const back = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'Connected')?.status === 'True',
      'back',
    );
    expect(back.status?.debugInfo?.state).toBe('known-unbound');
  });
});
