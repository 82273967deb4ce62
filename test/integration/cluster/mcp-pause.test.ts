import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { MachineConfigPool } from '../../../src/api/index.ts';
import { MACHINE_CONFIG_POOL, MCP_PAUSE_EVENT_REASON } from '../../../src/controllers/cluster/mcp-pause.ts';
import { AGENT } from '../../../src/records/resources.ts';
import { updateStatus } from '../../../src/runtime/index.ts';
import { passOf } from '../../harness/barriers.ts';
import { eventually, kubeconfigPath, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { patchIfUnchanged } from '../../harness/unchanged.ts';
import { adminClient, call, waitForAgent } from '../hosts/helpers.ts';
import { eventFor, type ImportedCluster, importedCluster, registerDay2Host } from './imported.ts';

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
  const { id, agent: registered } = await registerDay2Host({ client, op, ns, cluster });
  const base = `/v2/infra-envs/${cluster.ie.metadata.uid}/hosts`;
  const token = cluster.token;
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

function aciWarning(aci: string, reason: string) {
  return eventFor(client, ns, aci, reason);
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

    // Another reconcile with nothing new: the pool is read, not written. The barrier: a cluster
    // pass that started after the pool was seen is over (not 'nothing queued or running': Agents
    // here are requeued every 300 ms); then the pool must still be as seen. (An annotation on the
    // Agent no longer wakes the cluster, which reads none: cluster/watches.ts.)
    const seen = await pool();
    await passOf(op.ctx.mgr, 'clusterdeployment', `${ns}/${cluster.name}`);
    await patchIfUnchanged(client, MACHINE_CONFIG_POOL, seen, { metadata: { labels: { checked: 'yes' } } });
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
