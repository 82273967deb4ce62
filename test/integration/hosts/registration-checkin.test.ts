// A host registering with an operator that has been up longer than the disconnection window
// (3 minutes) must not be shown disconnected. Found by `make bench-scale --ztp` at 10,000 sites:
// 68-80 of 1,000 new Agents went `discovering` → `disconnected` during the registration wave (a
// status write, an annotation patch and an Event, and back when the host next polled), because
// the Agent's reconcile could run between the registration's status write and the moment the
// route recorded the host's check-in, and a host without a recorded check-in counts as checked in
// when the process started. Here a proxy holds the API server's answer to the registration's
// status write, so a reconcile always runs in that gap.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import { AGENT } from '../../../src/records/resources.ts';
import { cached, passOf } from '../../harness/barriers.ts';
import { adminKubeConfig, eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { FaultProxy } from '../runtime/fault-proxy.ts';
import { adminClient, call, createInfraEnv, type Reply } from './helpers.ts';

const client = adminClient();
let proxy: FaultProxy;
let dir: string;
let op: TestOperator;
let ns: string;
let ie: InfraEnv;
let token: string;

beforeAll(async () => {
  ns = await newNamespace('checkin');
  proxy = await FaultProxy.start(adminKubeConfig());
  dir = await mkdtemp(join(tmpdir(), 'aio-checkin-'));
  const kubeconfigPath = join(dir, 'kubeconfig');
  await writeFile(kubeconfigPath, proxy.kubeConfig().exportConfig());
  op = await startTestOperator({ namespace: ns, kubeconfigPath });
  ie = await createInfraEnv(client, ns, 'checkin');
  await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
  token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
}, 60_000);

afterAll(async () => {
  await op?.stop();
  await proxy?.close();
  await client.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function register(hostId: string): Promise<Reply> {
  return call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
    token,
    body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
  });
}

/**
 * Registers `hostId` with the answer to its status write held until a reconcile of the Agent that
 * started after the write was cached has ended; returns the answer and the Agent's state after
 * that reconcile.
 */
async function registerWithReconcileInTheGap(hostId: string): Promise<{ reply: Reply; inTheGap?: string }> {
  const held = proxy.holdNextResponse('PUT', `/agents/${hostId}/status`);
  const registration = register(hostId);
  const written = JSON.parse(await held.arrived) as Agent;
  await cached(op.ctx.informers.agents, written);
  await passOf(op.ctx.mgr, 'agent', `${ns}/${hostId}`);
  const inTheGap = (await client.get<Agent>(AGENT, hostId, ns)).status?.debugInfo?.state;
  held.release();
  return { reply: await registration, inTheGap };
}

describe('registration with an operator up longer than the disconnection window', () => {
  it('keeps a new host discovering when its Agent is reconciled before the registration answers', async () => {
    // The operator has been up for ten minutes by its own clock.
    const realNow = op.ctx.now;
    op.ctx.now = () => new Date(Date.now() + 10 * 60_000);
    try {
      const hostId = randomUUID();
      const { reply, inTheGap } = await registerWithReconcileInTheGap(hostId);
      expect(reply.status, reply.text).toBe(201);
      expect(inTheGap).toBe('discovering-unbound');
      await passOf(op.ctx.mgr, 'agent', `${ns}/${hostId}`);
      const agent = await client.get<Agent>(AGENT, hostId, ns);
      expect(agent.status?.debugInfo?.state).toBe('discovering-unbound');
      expect(agent.status?.conditions?.find((c) => c.type === 'Connected')?.status).toBe('True');
      // The registration's own status write, and no second one.
      expect(proxy.count({ method: 'PUT', pathIncludes: `/agents/${hostId}/status` })).toBe(1);
    } finally {
      op.ctx.now = realNow;
    }
  });

  it('keeps a re-registering host discovering when its Agent is reconciled before the answer', async () => {
    const realNow = op.ctx.now;
    try {
      const hostId = randomUUID();
      const first = await register(hostId);
      expect(first.status, first.text).toBe(201);
      // Ten minutes without a word: the host is disconnected, rightly.
      op.ctx.now = () => new Date(Date.now() + 10 * 60_000);
      await passOf(op.ctx.mgr, 'agent', `${ns}/${hostId}`);
      await eventually(
        async () =>
          op.ctx.informers.agents.get(ns, hostId)?.status?.debugInfo?.state === 'disconnected-unbound',
        { what: 'disconnected-unbound in the cache' },
      );
      // Its agent restarts and registers again: the answer and the Agent show it checked in.
      const { reply, inTheGap } = await registerWithReconcileInTheGap(hostId);
      expect(reply.status, reply.text).toBe(201);
      const body = reply.body as { checked_in_at?: string; registered_at?: string };
      expect(body.checked_in_at).toBe(body.registered_at);
      expect(inTheGap).toBe('discovering-unbound');
      await passOf(op.ctx.mgr, 'agent', `${ns}/${hostId}`);
      const agent = await client.get<Agent>(AGENT, hostId, ns);
      expect(agent.status?.debugInfo?.state).toBe('discovering-unbound');
    } finally {
      op.ctx.now = realNow;
    }
  });
});
