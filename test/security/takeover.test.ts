// No take-over (issue 13, item 3): a host id that already has an Agent of another live InfraEnv
// cannot be registered through a second InfraEnv's token — 409 in upstream's error shape, the
// Agent unchanged (still approved, bound and owned by the first InfraEnv) and a Warning Event on
// it. An Agent whose InfraEnv is gone is still taken over, as upstream does, built on the Agent
// as stored: the cache's copy lacks kubectl's last-applied manifest and holds digests of the
// backup annotations, and a PUT of it would store those.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../src/api/index.ts';
import { AGENT_INVENTORY_ANNOTATION, AGENT_VALIDATIONS_INFO_ANNOTATION } from '../../src/api/index.ts';
import { isBackupDigest } from '../../src/records/agents/cache.ts';
import { AGENT, EVENT } from '../../src/records/resources.ts';
import { type KubeClient, type KubeObject, LAST_APPLIED_ANNOTATION } from '../../src/runtime/index.ts';
import { REGISTRATION_CONFLICT_REASON } from '../../src/server/hosts/registration.ts';
import { eventually, newNamespace } from '../harness/env.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import { call, createInfraEnv, waitForAgent } from '../integration/hosts/helpers.ts';

let op: TestOperator;
let ns: string;
let first: InfraEnv;
let second: InfraEnv;

beforeAll(async () => {
  ns = await newNamespace('sec-takeover');
  op = await startTestOperator({ namespace: ns, env: { WATCH_NAMESPACE: ns } });
  first = await createInfraEnv(op.ctx.client, ns, 'first');
  second = await createInfraEnv(op.ctx.client, ns, 'second');
  await eventually(
    async () =>
      op.ctx.infraEnvById(second.metadata.uid ?? '') && op.ctx.infraEnvById(first.metadata.uid ?? ''),
    {
      what: 'InfraEnvs in cache',
    },
  );
});

afterAll(async () => {
  await op?.stop();
});

function register(ie: InfraEnv, hostId: string) {
  return call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
    token: op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
    body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
  });
}

/** An approved Agent labelled with an InfraEnv that does not exist. */
function createOrphan(hostId: string, annotations: Record<string, string> = {}): Promise<Agent> {
  return op.ctx.client.create<Agent>(AGENT, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: {
      name: hostId,
      namespace: ns,
      labels: { 'infraenvs.agent-install.openshift.io': 'deleted-one' },
      annotations,
    },
    spec: { approved: true, role: '' },
  } as unknown as Agent);
}

/**
 * Registers the host through the second InfraEnv and waits for the Agent it took over. The real
 * agent retries a registration answered 503 (conflicting writes to the Agent while the controllers
 * react to it); only 201 ends the loop, any other answer fails the test at once.
 */
async function takenOverBySecond(hostId: string): Promise<Agent> {
  const reply = await eventually(
    async () => {
      const r = await register(second, hostId);
      return r.status === 503 ? undefined : r;
    },
    { what: 'registration past 503 answers' },
  );
  expect(reply.status, reply.text).toBe(201);
  return waitForAgent(
    op.ctx.client,
    ns,
    hostId,
    (a) => a.metadata.ownerReferences?.[0]?.uid === second.metadata.uid,
    'taken over by the second InfraEnv',
  );
}

describe('registering a host id that another InfraEnv holds', () => {
  it('gets 409 and leaves the approved, named Agent alone, with an Event on it', async () => {
    const hostId = randomUUID();
    expect((await register(first, hostId)).status).toBe(201);
    await waitForAgent(op.ctx.client, ns, hostId, (a) => !!a.status?.backend, 'Agent registered');
    await op.ctx.client.patch(AGENT, hostId, ns, 'merge', {
      spec: { approved: true, hostname: 'kept-name', role: 'worker' },
    });
    const before = await waitForAgent(op.ctx.client, ns, hostId, (a) => a.spec.approved === true, 'approved');

    const reply = await register(second, hostId);
    expect(reply.status, reply.text).toBe(409);
    expect(reply.body).toMatchObject({
      kind: 'Error',
      id: 409,
      code: '409',
      reason: expect.stringContaining('already registered through infra env first'),
    });

    const event = await eventually(
      async () => {
        const list = await op.ctx.client.list<
          KubeObject & { reason?: string; type?: string; message?: string }
        >(EVENT, { namespace: ns, fieldSelector: `involvedObject.name=${hostId}` });
        return list.items.find((e) => e.reason === REGISTRATION_CONFLICT_REASON);
      },
      { what: 'RegistrationConflict Event on the Agent' },
    );
    expect(event.type).toBe('Warning');
    expect(event.message).toContain('second');

    const after = await op.ctx.client.get<Agent>(AGENT, hostId, ns);
    // Not re-registered (its registration time stays) and its metadata not replaced.
    expect(after.status?.backend?.registeredAt).toBe(before.status?.backend?.registeredAt);
    expect(after.status?.backend?.infraEnvID).toBe(first.metadata.uid);
    expect(after.metadata.labels).toEqual(before.metadata.labels);
    expect(after.spec).toMatchObject({ approved: true, hostname: 'kept-name', role: 'worker' });
    expect(after.metadata.ownerReferences?.[0]?.uid).toBe(first.metadata.uid);
  });

  it('an Agent whose InfraEnv is gone is still taken over (upstream behaviour)', async () => {
    const hostId = randomUUID();
    await createOrphan(hostId);
    await eventually(async () => op.ctx.informers.agents.get(ns, hostId), { what: 'orphan Agent in cache' });
    const agent = await takenOverBySecond(hostId);
    expect(agent.spec.approved).toBe(false);
  });

  it("an orphan taken over keeps its annotations as stored, not the cache's copies of them", async () => {
    const hostId = randomUUID();
    const manifest = JSON.stringify({ kind: 'Agent', metadata: { name: hostId }, spec: { approved: true } });
    await createOrphan(hostId, {
      [LAST_APPLIED_ANNOTATION]: manifest,
      [AGENT_INVENTORY_ANNOTATION]: '{"hostname":"orphan"}',
      [AGENT_VALIDATIONS_INFO_ANNOTATION]: '{"hardware":[]}',
    });
    // A state, as an Agent that was registered has (the operator may write one first: retried).
    await eventually(
      async () => {
        const live = await op.ctx.client.get<Agent>(AGENT, hostId, ns);
        if (live.status?.debugInfo?.state) return true;
        const status = { debugInfo: { state: 'known-unbound' } };
        return op.ctx.client.replaceStatus<Agent>(AGENT, { ...live, status } as Agent).then(
          () => true,
          () => undefined,
        );
      },
      { what: 'orphan Agent with a state' },
    );
    const cached = await eventually(
      async () => {
        const a = op.ctx.informers.agents.get(ns, hostId);
        return a?.status?.debugInfo?.state ? a : undefined;
      },
      { what: 'orphan Agent with its state in cache' },
    );
    expect(isBackupDigest(cached.metadata.annotations?.[AGENT_VALIDATIONS_INFO_ANNOTATION])).toBe(true);

    const sent = recordAgentWrites(op.ctx.client);
    const agent = await takenOverBySecond(hostId);
    expect(agent.metadata.annotations?.[LAST_APPLIED_ANNOTATION]).toBe(manifest);
    const put = sent.find((w) => w.method === 'PUT' && !w.path.includes('/status'));
    expect(put?.body, "the takeover's PUT").toContain(AGENT_VALIDATIONS_INFO_ANNOTATION);
    // Status writes carry the cached metadata, which the API server ignores on that subresource.
    const metadataWrites = sent.filter((w) => !w.path.includes('/status'));
    expect(metadataWrites.filter((w) => w.body.includes('cached-sha256:'))).toEqual([]);
  });
});

/** The bodies of the operator's writes to Agents from now on. */
function recordAgentWrites(kube: KubeClient): { method: string; path: string; body: string }[] {
  const out: { method: string; path: string; body: string }[] = [];
  const target = kube as unknown as {
    send: (m: string, p: string, o: { body?: unknown; bodyText?: string }) => Promise<unknown>;
  };
  const send = target.send.bind(kube);
  target.send = (method, path, opts) => {
    if (method !== 'GET' && path.includes('/agents/')) {
      out.push({ method, path, body: opts.bodyText ?? JSON.stringify(opts.body ?? null) });
    }
    return send(method, path, opts);
  };
  return out;
}
