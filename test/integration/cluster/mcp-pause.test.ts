// The spoke worker MachineConfigPool pause of a day-2 cluster (kubeapi.md §3.1.10) on the real API
// server, which also plays the spoke (the imported cluster's admin kubeconfig is the harness's own):
// a day-2 host with node labels and a custom pool pauses the spoke's `worker` pool while it
// installs and unpauses it once Done; a reconcile with nothing new writes nothing to the pool; an
// unreachable spoke or a missing pool is a Warning Event on the AgentClusterInstall.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { MachineConfigPool } from '../../../src/api/index.ts';
import { MACHINE_CONFIG_POOL, MCP_PAUSE_EVENT_REASON } from '../../../src/controllers/cluster/mcp-pause.ts';
import { AGENT, EVENT } from '../../../src/operator/resources.ts';
import { type KubeObject, updateStatus } from '../../../src/runtime/index.ts';
import { metricValue } from '../../../src/runtime/metrics.ts';
import { eventually, kubeconfigPath, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, call, inventory, waitForAgent } from '../hosts/helpers.ts';
import { type ImportedCluster, importedCluster } from './imported.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let kubeconfig: string;
const POOL = 'worker';

/**
 * A day-2 host of a custom pool registered over REST, then started installing: the install start
 * written into its record (what the cluster reconciler does for an approved known host).
 */
async function installingHost(
  cluster: ImportedCluster,
): Promise<{ id: string; progress: (stage: string) => Promise<void> }> {
  const id = randomUUID();
  const hostname = uniqueName('worker');
  const base = `/v2/infra-envs/${cluster.ie.metadata.uid}/hosts`;
  const token = cluster.token;
  expect((await call(op.baseUrl, 'POST', base, { token, body: { host_id: id } })).status).toBe(201);
  const mac = `52:54:00:${id.slice(0, 2)}:${id.slice(2, 4)}:${id.slice(4, 6)}`;
  await call(op.baseUrl, 'POST', `${base}/${id}/instructions`, {
    token,
    body: { step_type: 'inventory', output: inventory(hostname, mac) },
  });
  const registered = await waitForAgent(
    client,
    ns,
    id,
    (a) => a.status?.kind === 'AddToExistingClusterHost' && a.status?.inventory?.hostname === hostname,
    'day-2 host with inventory',
  );
  await client.patch(AGENT, id, ns, 'merge', {
    spec: { nodeLabels: { 'node-role.kubernetes.io/infra': '' }, machineConfigPool: 'infra' },
  });
  await updateStatus(client, AGENT, registered, (cur) => ({
    ...cur.status,
    role: 'worker',
    debugInfo: { ...cur.status?.debugInfo, state: 'installing', stateInfo: 'Installation is in progress' },
    backend: { ...cur.status?.backend, role: 'worker' },
  }));
  await eventually(
    async () => op.ctx.informers.agents.get(ns, id)?.status?.debugInfo?.state === 'installing',
    { what: 'installing in cache' },
  );
  return {
    id,
    async progress(stage) {
      const r = await call(op.baseUrl, 'PUT', `${base}/${id}/progress`, {
        token,
        body: { current_stage: stage },
      });
      expect(r.status, r.text).toBe(200);
    },
  };
}

const pool = () => client.get<MachineConfigPool>(MACHINE_CONFIG_POOL, POOL);

async function aciWarning(
  aci: string,
  reason: string,
): Promise<KubeObject & { message?: string; type?: string }> {
  return eventually(
    async () => {
      const list = await client.list<KubeObject & { reason?: string; message?: string; type?: string }>(
        EVENT,
        {
          namespace: ns,
          fieldSelector: `involvedObject.name=${aci}`,
        },
      );
      return list.items.find((e) => e.reason === reason);
    },
    { what: `${reason} event` },
  );
}

beforeAll(async () => {
  ns = await newNamespace('mcp-pause');
  kubeconfig = await readFile(kubeconfigPath(), 'utf8');
  await client.delete(MACHINE_CONFIG_POOL, POOL).catch(() => {});
  await client.create<MachineConfigPool>(MACHINE_CONFIG_POOL, {
    apiVersion: 'machineconfiguration.openshift.io/v1',
    kind: 'MachineConfigPool',
    metadata: { name: POOL },
    spec: { paused: false, maxUnavailable: 1 },
  });
  op = await startTestOperator({ namespace: ns, settings: { approveCsrsRequeueMs: 300 } });
}, 60_000);

afterAll(async () => {
  await op?.stop();
  await client.delete(MACHINE_CONFIG_POOL, POOL).catch(() => {});
  await client.close();
});

describe('spoke worker MachineConfigPool pause', () => {
  it('pauses while a custom-pool day-2 host installs, unpauses once it is Done, and rewrites nothing', async () => {
    const cluster = await importedCluster({ client, op, ns, kubeconfig, prefix: 'mcp' });
    const host = await installingHost(cluster);
    await host.progress('Rebooting');
    await eventually(async () => (await pool()).spec?.paused === true, { what: 'worker pool paused' });
    // Fields the stand-in does not describe are kept.
    expect((await pool()).spec).toMatchObject({ paused: true, maxUnavailable: 1 });

    await host.progress('Done');
    const done = await waitForAgent(
      client,
      ns,
      host.id,
      (a) => a.status?.progress?.currentStage === 'Done',
      'Done',
    );
    expect(done.status?.debugInfo?.state).toBe('added-to-existing-cluster');
    await eventually(async () => (await pool()).spec?.paused === false, { what: 'worker pool unpaused' });

    // Another reconcile with nothing new: the pool is read, not written.
    const rv = (await pool()).metadata.resourceVersion;
    const reconciles = () =>
      metricValue(op.ctx.mgr.metrics.reconcileTotal, { controller: 'clusterdeployment' });
    const before = await reconciles();
    await client.patch(AGENT, host.id, ns, 'merge', { metadata: { annotations: { poke: '1' } } });
    await eventually(async () => (await reconciles()) > before, { what: 'cluster reconciled again' });
    await new Promise((r) => setTimeout(r, 500));
    expect((await pool()).metadata.resourceVersion).toBe(rv);
  }, 90_000);

  it('reports an unreachable spoke on the AgentClusterInstall', async () => {
    const doc = parse(kubeconfig) as { clusters: { cluster: { server: string } }[] };
    for (const c of doc.clusters) c.cluster.server = 'https://127.0.0.1:1';
    const cluster = await importedCluster({ client, op, ns, kubeconfig: stringify(doc), prefix: 'mcp-down' });
    await installingHost(cluster);
    const event = await aciWarning(cluster.name, MCP_PAUSE_EVENT_REASON.failed);
    expect(event.type).toBe('Warning');
    expect(event.message).toBeTruthy();
  }, 60_000);

  it('reports a spoke without the worker pool on the AgentClusterInstall', async () => {
    await client.delete(MACHINE_CONFIG_POOL, POOL);
    const cluster = await importedCluster({ client, op, ns, kubeconfig, prefix: 'mcp-none' });
    await installingHost(cluster);
    const event = await aciWarning(cluster.name, MCP_PAUSE_EVENT_REASON.missing);
    expect(event.type).toBe('Warning');
    expect(event.message).toContain(`MachineConfigPool ${POOL} not found`);
  }, 60_000);
});
