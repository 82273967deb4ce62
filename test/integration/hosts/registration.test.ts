// The discovery path on the real control plane: a host registers over HTTP with its infra-env's
// agent token, the Agent appears, step replies fill in the inventory, approval makes it ready, and
// an idle host costs no writes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import { AGENT_FINALIZER, INFRAENV_LABEL } from '../../../src/api/index.ts';
import { AGENT } from '../../../src/records/resources.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { patchIfUnchanged } from '../../harness/unchanged.ts';
import { adminClient, call, condition, createInfraEnv, inventory, waitForAgent } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let ie: InfraEnv;
let token: string;

beforeAll(async () => {
  ns = await newNamespace('hosts');
  op = await startTestOperator({ namespace: ns });
  ie = await createInfraEnv(client, ns, 'pool', {
    agentLabels: { pool: 'blue' },
  });
  await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
  token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

const hostPath = (hostId: string) => `/v2/infra-envs/${ie.metadata.uid}/hosts/${hostId}`;

async function register(hostId: string) {
  return call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
    token,
    body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
  });
}

async function postInventory(hostId: string, inv: string) {
  return call(op.baseUrl, 'POST', `${hostPath(hostId)}/instructions`, {
    token,
    body: { step_type: 'inventory', step_id: 'inventory-00000001', output: inv },
  });
}

describe('host registration and discovery', () => {
  it('creates the Agent with labels, owner, finalizer and an initial status', async () => {
    const hostId = randomUUID();
    const reply = await register(hostId);
    expect(reply.status, reply.text).toBe(201);
    const body = reply.body as Record<string, unknown>;
    expect(body.id).toBe(hostId);
    expect(body.status).toBe('discovering-unbound');
    const runner = body.next_step_runner_command as { args: string[] };
    expect(JSON.parse(runner.args[0]!)).toEqual({
      agent_version: op.ctx.settings.agentImage,
      host_id: hostId,
      infra_env_id: ie.metadata.uid,
    });

    const agent = await waitForAgent(client, ns, hostId, (a) => !!a.status?.conditions, 'Agent status');
    expect(agent.metadata.labels).toMatchObject({ [INFRAENV_LABEL]: 'pool', pool: 'blue' });
    expect(agent.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'InfraEnv', name: 'pool', uid: ie.metadata.uid }),
    ]);
    expect(agent.metadata.finalizers).toContain(AGENT_FINALIZER);
    expect(agent.spec).toMatchObject({ approved: false, role: '' });
    expect(agent.status?.debugInfo?.state).toBe('discovering-unbound');
    expect(condition(agent, 'Bound')?.reason).toBe('Unbound');
    expect(condition(agent, 'SpecSynced')?.reason).toBe('SyncOK');
  });

  it('registers a new host without a live read that could only answer 404', async () => {
    const notFoundGets = async () =>
      (await op.ctx.mgr.metrics.restRequests.get()).values.find(
        (v) => v.labels.method === 'GET' && v.labels.code === '404',
      )?.value ?? 0;
    const before = await notFoundGets();
    const hostId = randomUUID();
    const reply = await register(hostId);
    expect(reply.status, reply.text).toBe(201);
    expect(await notFoundGets()).toBe(before);
    await waitForAgent(client, ns, hostId, (a) => a.status?.debugInfo?.state !== undefined, 'a status');
  });

  it('re-registers a host whose Agent the cache has not seen yet (create answers AlreadyExists)', async () => {
    const hostId = randomUUID();
    expect((await register(hostId)).status).toBe(201);
    const agent = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'discovering-unbound',
      'discovering-unbound',
    );
    await eventually(async () => op.ctx.informers.agents.get(ns, hostId)?.status?.debugInfo?.state, {
      what: 'Agent status in cache',
    });
    // A cache behind the API server: drop the Agent from it (its next watch event brings it back).
    op.ctx.informers.agents.store.delete(`${ns}/${hostId}`);
    const reply = await register(hostId);
    expect(reply.status, reply.text).toBe(201);
    expect((reply.body as Record<string, unknown>).id).toBe(hostId);
    // The same Agent, registered again: not replaced, still the host of this infra env.
    const after = await client.get<Agent>(AGENT, hostId, ns);
    expect(after.metadata.uid).toBe(agent.metadata.uid);
    expect(after.status?.backend?.infraEnvID).toBe(ie.metadata.uid);
  });

  it('stores the inventory from a step reply, validates, and becomes ready once approved', async () => {
    const hostId = randomUUID();
    expect((await register(hostId)).status).toBe(201);
    const poll = await call(
      op.baseUrl,
      'GET',
      `${hostPath(hostId)}/instructions?timestamp=${Math.floor(Date.now() / 1000)}`,
      {
        token,
      },
    );
    expect(poll.status, poll.text).toBe(200);
    const steps = poll.body as { instructions: { step_type: string; args: string[] }[] };
    expect(steps.instructions.map((s) => s.step_type)).toContain('inventory');

    const reply = await postInventory(hostId, inventory('host-a', '52:54:00:00:00:0a'));
    expect(reply.status, reply.text).toBe(204);
    const agent = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'known-unbound',
      'host known-unbound',
    );
    expect(agent.status?.inventory?.hostname).toBe('host-a');
    expect(agent.status?.inventory?.cpu?.count).toBe(8);
    expect(agent.status?.validationsInfo?.hardware?.length).toBeGreaterThan(0);
    expect(condition(agent, 'Validated')?.reason).toBe('ValidationsPassing');
    expect(condition(agent, 'RequirementsMet')?.reason).toBe('AgentIsNotApproved');
    expect(condition(agent, 'Connected')?.reason).toBe('AgentIsConnected');
    expect(agent.metadata.labels).toMatchObject({
      'inventory.agent-install.openshift.io/cpu-architecture': 'x86_64',
      'inventory.agent-install.openshift.io/cpu-virtenabled': 'true',
      'inventory.agent-install.openshift.io/storage-hasnonrotationaldisk': 'true',
      'inventory.agent-install.openshift.io/host-isvirtual': 'true',
      'inventory.agent-install.openshift.io/host-manufacturer': 'RedHat',
      'agent-install.openshift.io/clusterdeployment-namespace': '',
    });
    expect(agent.metadata.annotations?.['agent.agent-install.openshift.io/state']).toBe('known-unbound');

    await client.patch(AGENT, hostId, ns, 'merge', { spec: { approved: true } });
    const approved = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'RequirementsMet')?.reason === 'AgentIsReady',
      'RequirementsMet AgentIsReady',
    );
    expect(condition(approved, 'RequirementsMet')?.status).toBe('True');
  });

  it('answers bad bodies with 400 and writes nothing', async () => {
    const hostId = randomUUID();
    expect((await register(hostId)).status).toBe(201);
    // Settled: the reconciler has validated the host and written its backup annotations.
    const before = await waitForAgent(
      client,
      ns,
      hostId,
      (a) =>
        !!a.status?.validationsInfo && !!a.metadata.annotations?.['agent.agent-install.openshift.io/state'],
      'reconciled Agent',
    );
    const settled = await client.get<Agent>(AGENT, hostId, ns);

    const badRegister = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
      token,
      body: { host_id: 'not-a-uuid' },
    });
    expect(badRegister.status).toBe(400);
    expect(badRegister.body).toMatchObject({ kind: 'Error', code: '400' });
    const badJson = await call(op.baseUrl, 'POST', `${hostPath(hostId)}/instructions`, {
      token,
      rawBody: '{"step_type": "inventory", ',
    });
    expect(badJson.status).toBe(400);
    const badInventory = await postInventory(hostId, '{"cpu": "many"}');
    expect(badInventory.status).toBe(400);
    const badStage = await call(op.baseUrl, 'PUT', `${hostPath(hostId)}/progress`, {
      token,
      body: { current_stage: 'Flying' },
    });
    expect(badStage.status).toBe(400);

    // The handlers answered, so their work is done: nothing may have written the Agent since
    // `settled` (the approval is applied only then, 409 otherwise). Then a valid inventory the
    // operator must react to (approved + inventory = ready) shows it was processing all along.
    const after = await patchIfUnchanged(client, AGENT, settled, { spec: { approved: true } });
    expect(before.metadata.uid).toBe(after.metadata.uid);
    expect((await postInventory(hostId, inventory('host-bad-bodies', '52:54:00:00:00:0d'))).status).toBe(204);
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'RequirementsMet')?.reason === 'AgentIsReady',
      'RequirementsMet AgentIsReady after a valid inventory',
    );
  });

  it('refuses forged, foreign, download and unknown tokens', async () => {
    const hostId = randomUUID();
    expect((await register(hostId)).status).toBe(201);
    const path = `${hostPath(hostId)}/instructions`;
    expect((await call(op.baseUrl, 'GET', path)).status).toBe(401);
    const forged = `${token.slice(0, token.lastIndexOf('.'))}.${Buffer.alloc(64).toString('base64url')}`;
    const forgedReply = await call(op.baseUrl, 'GET', path, { token: forged });
    expect(forgedReply.status).toBe(401);
    expect(forgedReply.body).toMatchObject({ code: 401 });
    const download = op.server.auth.issueUrlToken('events', {
      kind: 'infra-env',
      id: ie.metadata.uid ?? '',
    }).token;
    expect((await call(op.baseUrl, 'GET', path, { token: download })).status).toBe(401);
    const unknown = op.server.auth.issueAgentToken({ kind: 'infra-env', id: randomUUID() });
    expect((await call(op.baseUrl, 'GET', path, { token: unknown })).status).toBe(401);

    const other = await createInfraEnv(client, ns, 'other');
    await eventually(async () => op.ctx.infraEnvById(other.metadata.uid ?? ''), { what: 'other InfraEnv' });
    const foreign = op.server.auth.issueAgentToken({ kind: 'infra-env', id: other.metadata.uid ?? '' });
    expect((await call(op.baseUrl, 'GET', path, { token: foreign })).status).toBe(403);

    // An expired events URL token no longer lists events.
    const past = new Date(Date.now() - 30 * 24 * 3600 * 1000);
    const expired = op.server.auth.issueUrlToken(
      'events',
      { kind: 'infra-env', id: ie.metadata.uid ?? '' },
      past,
    );
    const listed = await call(
      op.baseUrl,
      'GET',
      `/v2/events?infra_env_id=${ie.metadata.uid}&api_key=${encodeURIComponent(expired.token)}`,
    );
    expect(listed.status).toBe(401);
  });

  it('lists the events of a host through a signed events URL', async () => {
    const hostId = randomUUID();
    expect((await register(hostId)).status).toBe(201);
    const url = op.server.auth.issueDownloadUrl(
      `${op.baseUrl}/api/assisted-install/v2/events?host_id=${hostId}&infra_env_id=${ie.metadata.uid}`,
      'events',
      { kind: 'infra-env', id: ie.metadata.uid ?? '' },
    ).url;
    const list = await eventually(
      async () => {
        const res = await fetch(url);
        const events = (await res.json()) as { host_id?: string; message: string }[];
        return res.status === 200 && events.length > 0 ? events : undefined;
      },
      { what: 'host events' },
    );
    expect(list[0]?.host_id).toBe(hostId);
    expect(list.map((e) => e.message).join('\n')).toMatch(/Successfully registered/);
  });

  it('an idle, polling host causes no writes', async () => {
    const hostId = randomUUID();
    expect((await register(hostId)).status).toBe(201);
    expect((await postInventory(hostId, inventory('host-idle', '52:54:00:00:00:0b'))).status).toBe(204);
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'known-unbound',
      'known-unbound',
    );
    // The first poll brings the host clock (time-sync validation); then let the writes settle.
    const timestamp = () => Math.floor(Date.now() / 1000);
    await call(op.baseUrl, 'GET', `${hostPath(hostId)}/instructions?timestamp=${timestamp()}`, { token });
    // Settled: the clock from that poll is judged (the write it causes is done).
    const before = await waitForAgent(
      client,
      ns,
      hostId,
      (a) =>
        a.status?.validationsInfo?.network?.some(
          (v) => v.id === 'time-synced-between-host-and-service' && v.status !== 'pending',
        ) ?? false,
      'time-sync validation settled by the host clock',
    );
    for (let i = 0; i < 5; i++) {
      const poll = await call(
        op.baseUrl,
        'GET',
        `${hostPath(hostId)}/instructions?timestamp=${timestamp()}`,
        {
          token,
          headers: { discovery_agent_version: op.ctx.settings.agentImage },
        },
      );
      expect(poll.status).toBe(200);
      // The runner resends an unchanged inventory only after a failed poll; even then nothing changes.
      expect((await postInventory(hostId, inventory('host-idle', '52:54:00:00:00:0b'))).status).toBe(204);
    }
    // Barrier: approval, applied only if nothing wrote the Agent during the polls (409 otherwise);
    // the operator must react to it (AgentIsReady), which shows it was processing all along.
    await patchIfUnchanged(client, AGENT, before, { spec: { approved: true } });
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'RequirementsMet')?.reason === 'AgentIsReady',
      'RequirementsMet AgentIsReady after approval',
    );
  });

  it('turns Connected False when the host stops polling, and back when it returns', async () => {
    const hostId = randomUUID();
    expect((await register(hostId)).status).toBe(201);
    expect((await postInventory(hostId, inventory('host-gone', '52:54:00:00:00:0c'))).status).toBe(204);
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'known-unbound',
      'known-unbound',
    );

    const realNow = op.ctx.now;
    op.ctx.now = () => new Date(Date.now() + 4 * 60_000);
    try {
      op.ctx.bus.enqueue('agent', `${ns}/${hostId}`);
      const gone = await waitForAgent(
        client,
        ns,
        hostId,
        (a) => condition(a, 'Connected')?.status === 'False',
        'Connected False',
      );
      expect(condition(gone, 'Connected')?.reason).toBe('AgentIsDisconnected');
      expect(gone.status?.debugInfo?.state).toBe('disconnected-unbound');

      const poll = await call(op.baseUrl, 'GET', `${hostPath(hostId)}/instructions`, { token });
      expect(poll.status).toBe(200);
      const back = await waitForAgent(
        client,
        ns,
        hostId,
        (a) => condition(a, 'Connected')?.status === 'True',
        'Connected True again',
      );
      expect(back.status?.debugInfo?.state).not.toBe('disconnected-unbound');
    } finally {
      op.ctx.now = realNow;
    }
  });
});
