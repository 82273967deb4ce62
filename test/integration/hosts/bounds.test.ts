// Oversized input on the real control plane: a host posting an inventory too large to store gets a
// clear 413 and a Warning Event on its Agent, nothing oversized reaches the API server, and the
// operator carries on (other hosts register, normal inventories are stored).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import { AGENT, EVENT } from '../../../src/records/resources.ts';
import { type KubeObject, MAX_OBJECT_WRITE_BYTES } from '../../../src/runtime/index.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, call, createInfraEnv, inventory, waitForAgent } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let ie: InfraEnv;
let token: string;

beforeAll(async () => {
  ns = await newNamespace('bounds');
  op = await startTestOperator({ namespace: ns });
  ie = await createInfraEnv(client, ns, 'pool');
  await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
  token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

const hostPath = (hostId: string) => `/v2/infra-envs/${ie.metadata.uid}/hosts/${hostId}`;

async function register(hostId: string) {
  const reply = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
    token,
    body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
  });
  expect(reply.status, reply.text).toBe(201);
}

function postInventory(hostId: string, output: string) {
  return call(op.baseUrl, 'POST', `${hostPath(hostId)}/instructions`, {
    token,
    body: { step_type: 'inventory', step_id: 'inventory-00000001', output },
  });
}

/** `count` disks, each a few hundred bytes: an inventory of any size with a valid shape. */
function manyDisks(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    by_path: `/dev/disk/by-path/pci-0000:00:${i}.0`,
    drive_type: 'HDD',
    id: `/dev/disk/by-path/pci-0000:00:${i}.0`,
    installation_eligibility: { eligible: false, not_eligible_reasons: ['Disk is too small'] },
    name: `sd${i}`,
    path: `/dev/sd${i}`,
    size_bytes: 1_000_000,
    serial: `serial-${i}-${'s'.repeat(40)}`,
    model: 'm'.repeat(40),
  }));
}

async function warningEvent(hostId: string, reason: string) {
  return eventually(
    async () => {
      const list = await client.list<KubeObject & { reason?: string; message?: string; type?: string }>(
        EVENT,
        {
          namespace: ns,
          fieldSelector: `involvedObject.name=${hostId}`,
        },
      );
      return list.items.find((e) => e.reason === reason);
    },
    { what: `${reason} event on Agent ${hostId}`, timeoutMs: 20_000 },
  );
}

describe('oversized inventories', () => {
  it('a 6 MiB inventory: 413 naming the limit, a Warning Event, and the operator carries on', async () => {
    const hostId = randomUUID();
    await register(hostId);
    const huge = inventory('huge', '52:54:00:00:00:01', { disks: manyDisks(16_000) });
    expect(huge.length).toBeGreaterThan(5 * 1024 * 1024);
    const reply = await postInventory(hostId, huge);
    expect(reply.status, reply.text).toBe(413);
    expect((reply.body as { reason: string }).reason).toMatch(/larger than the limit of \d+ bytes/);
    const event = await warningEvent(hostId, 'HostStepReplyRefused');
    expect(event.type).toBe('Warning');
    expect(event.message).toContain('larger than the limit of');

    // Nothing is wedged: a new host registers and its normal inventory is stored.
    const other = randomUUID();
    await register(other);
    expect((await postInventory(other, inventory('normal', '52:54:00:00:00:02'))).status).toBe(204);
    await waitForAgent(
      client,
      ns,
      other,
      (a) => a.status?.inventory?.hostname === 'normal',
      'inventory stored',
    );
  });

  it('an inventory that would make the Agent too large to store is not sent; the Agent says why', async () => {
    const hostId = randomUUID();
    await register(hostId);
    await waitForAgent(client, ns, hostId, (a) => a.status?.backend !== undefined, 'registered');
    // Large (valid) spec fields take much of the object's room: node labels, and an ignition
    // override (also kept in the host record in status.backend)...
    const data = 'A'.repeat(240 * 1024);
    const override = JSON.stringify({
      ignition: { version: '3.1.0' },
      storage: { files: [{ path: '/etc/big', contents: { source: `data:,${data}` } }] },
    });
    const nodeLabels = Object.fromEntries(
      Array.from({ length: 8 }, (_, i) => [`example.com/label-${i}`, 'v'.repeat(60 * 1024)]),
    );
    await client.patch<Agent>(AGENT, hostId, ns, 'merge', {
      spec: { ignitionConfigOverrides: override, nodeLabels },
    });
    // ...so an inventory under the REST limit no longer fits.
    const big = inventory('big', '52:54:00:00:00:03', { disks: manyDisks(520) });
    expect(big.length).toBeLessThan(192 * 1024);
    expect(big.length).toBeGreaterThan(170 * 1024);
    expect((await postInventory(hostId, big)).status).toBe(204);
    const event = await warningEvent(hostId, 'HostInventoryNotStored');
    expect(event.message).toMatch(/over the limit of \d+ bytes; the write was not sent/);

    // The stored inventory stays as it was.
    const stored = await client.get<Agent>(AGENT, hostId, ns);
    expect(stored.status?.inventory?.hostname).not.toBe('big');
  });
});

describe('an Agent too large for its own status', () => {
  it('keeps the stored status and says so in SpecSynced and a Warning Event', async () => {
    const hostId = randomUUID();
    await register(hostId);
    expect((await postInventory(hostId, inventory('roomy', '52:54:00:00:00:04'))).status).toBe(204);
    const before = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.inventory?.hostname === 'roomy',
      'inventory stored',
    );
    // Valid node labels are copied into the status (status.backend.nodeLabels): 60 % of the limit in
    // the spec fits the object, the same again in its status does not.
    const label = (i: number) => [`example.com/${'k'.repeat(48)}-${i}`, 'v'.repeat(63)] as const;
    const perLabel = JSON.stringify(Object.fromEntries([label(10_000)])).length;
    const count = Math.ceil((0.6 * MAX_OBJECT_WRITE_BYTES) / perLabel);
    const nodeLabels = Object.fromEntries(Array.from({ length: count }, (_, i) => label(10_000 + i)));
    await client.patch<Agent>(AGENT, hostId, ns, 'merge', { spec: { nodeLabels } });

    const agent = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.conditions?.find((c) => c.type === 'SpecSynced')?.status === 'False',
      'SpecSynced False',
    );
    expect(agent.status?.conditions?.find((c) => c.type === 'SpecSynced')).toMatchObject({
      reason: 'InputError',
      message: expect.stringMatching(/leave no room for its status \(objects are limited to \d+ bytes\)/),
    });
    // What was stored stays: the status is not replaced by a smaller one.
    expect(agent.status?.inventory?.hostname).toBe('roomy');
    expect(agent.status?.backend).toEqual(before.status?.backend);
    const event = await warningEvent(hostId, 'HostStatusNotStored');
    expect(event.type).toBe('Warning');
    expect(event.message).toMatch(/over the limit of \d+ bytes; the write was not sent/);

    // Smaller again: the labels are applied and SpecSynced recovers.
    const few = Object.fromEntries([label(1)]);
    await client.patch<Agent>(AGENT, hostId, ns, 'json', [
      { op: 'replace', path: '/spec/nodeLabels', value: few },
    ]);
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) =>
        a.status?.conditions?.find((c) => c.type === 'SpecSynced')?.status === 'True' &&
        Object.keys(a.status?.backend?.nodeLabels ?? {}).length === 1,
      'SpecSynced True with the one label applied',
    );
  });
});

describe('registration under concurrent writes', () => {
  it('a re-registration that keeps losing the race on its Agent is retried, not answered 500', async () => {
    const hostId = randomUUID();
    await register(hostId);
    await waitForAgent(client, ns, hostId, (a) => a.status?.backend !== undefined, 'registered');
    // A real concurrent writer: before each of the next 5 status writes of this Agent, someone
    // else changes it, so the API server answers 409 to each (updateStatus gives up after 5).
    const kube = op.ctx.client;
    const original = kube.replaceStatus.bind(kube);
    let raced = 0;
    kube.replaceStatus = (async (res: { kind: string }, obj: Agent, ...rest: unknown[]) => {
      if (res.kind === 'Agent' && obj.metadata.name === hostId && raced < 5) {
        raced++;
        await client.patch(AGENT, hostId, ns, 'merge', { metadata: { labels: { race: String(raced) } } });
      }
      return original(res as never, obj as never, ...(rest as []));
    }) as typeof kube.replaceStatus;
    try {
      const reply = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
        token,
        body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
      });
      expect(raced).toBe(5);
      expect(reply.status, reply.text).toBe(201);
    } finally {
      kube.replaceStatus = original;
    }
  });
});
