// Spoke clients from a ClusterDeployment's admin kubeconfig Secret, on the real API server (which
// plays the spoke here): a working client, a client per kubeconfig version, and errors as values
// for a missing Secret, a missing key and an unusable kubeconfig.
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClusterDeployment } from '../../../src/api/index.ts';
import { SECRET } from '../../../src/records/resources.ts';
import { spokeClient } from '../../../src/records/spoke.ts';
import type { KubeClient } from '../../../src/runtime/index.ts';
import { eventually, kubeconfigPath, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';

let op: TestOperator;
let client: KubeClient;
let ns: string;
let kubeconfig: string;

beforeAll(async () => {
  ns = await newNamespace('spoke');
  op = await startTestOperator({ namespace: ns });
  client = op.ctx.client;
  kubeconfig = await readFile(kubeconfigPath(), 'utf8');
});
afterAll(async () => {
  await op?.stop();
});

function cd(name: string, secret?: string): ClusterDeployment {
  return {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name, namespace: ns },
    spec: {
      clusterName: name,
      baseDomain: 'example.com',
      installed: true,
      ...(secret ? { clusterMetadata: { adminKubeconfigSecretRef: { name: secret } } } : {}),
    },
  } as ClusterDeployment;
}

async function putSecret(name: string, data: Record<string, string>): Promise<void> {
  const body = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
  const existing = await client.getIfExists(SECRET, name, ns);
  if (existing) await client.patch(SECRET, name, ns, 'merge', { data: body.data });
  else await client.create(SECRET, body as never);
}

describe('spokeClient', () => {
  it('talks to the spoke named by the default admin kubeconfig Secret, one client per version', async () => {
    await putSecret('c1-admin-kubeconfig', { kubeconfig });
    const first = await spokeClient(op.ctx, cd('c1'));
    if (!first.ok) throw new Error(first.message);
    const list = await first.client.list(SECRET, { namespace: ns });
    expect(list.items.map((s) => s.metadata.name)).toContain('c1-admin-kubeconfig');
    // Read through the cache (the Secret got the watch label), the same client comes back.
    const again = await eventually(async () => {
      const r = await spokeClient(op.ctx, cd('c1'));
      return r.ok && r.client === first.client ? r : undefined;
    });
    expect(again.secret).toBe(`${ns}/c1-admin-kubeconfig`);
    // A rotated kubeconfig gets a new client.
    await putSecret('c1-admin-kubeconfig', { kubeconfig: `${kubeconfig}\n# rotated\n` });
    const rotated = await eventually(async () => {
      const r = await spokeClient(op.ctx, cd('c1'));
      return r.ok && r.client !== first.client ? r : undefined;
    });
    expect((await rotated.client.list(SECRET, { namespace: ns })).items.length).toBeGreaterThan(0);
  });

  it('uses clusterMetadata.adminKubeconfigSecretRef', async () => {
    await putSecret('imported-kubeconfig', { kubeconfig });
    const r = await spokeClient(op.ctx, cd('c2', 'imported-kubeconfig'));
    expect(r).toMatchObject({ ok: true, secret: `${ns}/imported-kubeconfig` });
  });

  it('leaves a spoke that did not answer alone for the hold time; any answer clears it', async () => {
    const closedPort = await new Promise<number>((resolve) => {
      const srv = createServer();
      srv.listen(0, '127.0.0.1', () => {
        const { port } = srv.address() as AddressInfo;
        srv.close(() => resolve(port));
      });
    });
    const dead = kubeconfig.replace(/server: \S+/, `server: https://127.0.0.1:${closedPort}`);
    await putSecret('c6-admin-kubeconfig', { kubeconfig: dead });
    const first = await spokeClient(op.ctx, cd('c6'));
    if (!first.ok) throw new Error(first.message);
    await expect(first.client.list(SECRET, { namespace: ns })).rejects.toThrow();
    const held = await spokeClient(op.ctx, cd('c6'));
    expect(held).toMatchObject({ ok: false, reason: 'unreachable' });
    expect(held.ok ? '' : held.message).toContain(`spoke of ${ns}/c6-admin-kubeconfig unreachable:`);
    // Once the hold is over the client is handed out again (a real answer would clear it).
    expect((await spokeClient(op.ctx, cd('c6'), { unreachableHoldMs: 0 })).ok).toBe(true);
    // An error status is an answer: a reachable spoke refusing a request is not held.
    const live = await spokeClient(op.ctx, cd('c1'));
    if (!live.ok) throw new Error(live.message);
    await expect(live.client.get(SECRET, 'does-not-exist', ns)).rejects.toThrow();
    expect((await spokeClient(op.ctx, cd('c1'))).ok).toBe(true);
  });

  it('reports a missing Secret, a missing key and an unusable kubeconfig', async () => {
    expect(await spokeClient(op.ctx, cd('c3'))).toEqual({
      ok: false,
      reason: 'secret-not-found',
      message: `Secret ${ns}/c3-admin-kubeconfig with the spoke kubeconfig was not found`,
    });
    await putSecret('c4-admin-kubeconfig', { other: 'x' });
    expect(await spokeClient(op.ctx, cd('c4'))).toEqual({
      ok: false,
      reason: 'secret-not-found',
      message: `Secret ${ns}/c4-admin-kubeconfig has no kubeconfig key`,
    });
    await putSecret('c5-admin-kubeconfig', { kubeconfig: 'apiVersion: v1\nkind: Config\nclusters: []\n' });
    const bad = await spokeClient(op.ctx, cd('c5'));
    expect(bad).toMatchObject({ ok: false, reason: 'invalid-kubeconfig' });
    expect(bad.ok ? '' : bad.message).toContain(`Secret ${ns}/c5-admin-kubeconfig: invalid kubeconfig:`);
  });
});
