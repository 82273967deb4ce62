// Deletion paths on the real API server: deleting the ACI deletes the cluster's own Agents and
// releases late-bound ones (or deletes them with preserveOnDelete) and keeps the CD; deleting the
// CD deletes the ACI first; deleting during installation cancels it; a deletion that cannot finish
// says why.

import { access, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENTCLUSTERINSTALL_FINALIZER,
  type Agent,
  type AgentClusterInstall,
  type ClusterDeployment,
  INFRAENV_LABEL,
} from '../../../src/api/index.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  EVENT,
  INFRA_ENV,
} from '../../../src/records/resources.ts';
import { isConflict, type KubeObject, keyOf } from '../../../src/runtime/index.ts';
import { eventually, uniqueName } from '../../harness/env.ts';
import {
  type ClusterTestOperator,
  clusterDeploymentObject,
  createAgent,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallyAci,
  hostInventory,
  snoAciObject,
  startClusterOperator,
} from './harness.ts';

let op: ClusterTestOperator;

beforeAll(async () => {
  op = await startClusterOperator();
});
afterAll(async () => {
  await op?.stop();
});

async function infraEnv(ns: string, name: string, clusterRef?: { name: string; namespace: string }) {
  await op.client.create(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace: ns },
    spec: { pullSecretRef: { name: 'pull-secret' }, ...(clusterRef ? { clusterRef } : {}) },
  } as never);
}

async function gone(res: typeof AGENT, name: string, ns: string): Promise<boolean> {
  return (await op.client.getIfExists(res, name, ns)) === undefined;
}

async function setup(opts: { preserveOnDelete?: boolean } = {}) {
  const ns = op.namespace;
  await createPullSecret(op.client, ns);
  const cis = await createImageSet(op.client);
  const name = uniqueName('cl');
  const { cd } = await createCluster(
    op.client,
    clusterDeploymentObject(ns, name, opts.preserveOnDelete ? { preserveOnDelete: true } : {}),
    snoAciObject(ns, name, cis, { holdInstallation: true }),
  );
  await eventuallyAci(
    op.client,
    ns,
    name,
    (a) => (a.metadata.finalizers ?? []).includes(AGENTCLUSTERINSTALL_FINALIZER) && !!a.status?.backend,
    'managed',
  );
  const bound = uniqueName('bound');
  const pool = uniqueName('pool');
  await infraEnv(ns, bound, { name, namespace: ns });
  await infraEnv(ns, pool);
  const boundId = crypto.randomUUID();
  const poolId = crypto.randomUUID();
  await createAgent(
    op.client,
    ns,
    cd,
    { id: boundId, inventory: hostInventory('a', '192.168.111.21') },
    {
      // no spec change; labels set below
    },
  );
  await createAgent(op.client, ns, cd, { id: poolId, inventory: hostInventory('b', '192.168.111.22') });
  for (const [id, ie] of [
    [boundId, bound],
    [poolId, pool],
  ] as const) {
    await op.client.patch(AGENT, id, ns, 'merge', { metadata: { labels: { [INFRAENV_LABEL]: ie } } });
  }
  // The cluster's data directory, so deregistration has something to remove.
  const dir = join(op.dataDir, 'clusters', cd.metadata.uid ?? '');
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'install-config.yaml'), 'x');
  await eventually(
    async () =>
      op.ctx.agentsOfCluster(keyOf(ns, name)).length === 2 &&
      op.ctx.agentsOfCluster(keyOf(ns, name)).every((a) => a.metadata.labels?.[INFRAENV_LABEL]),
    { what: 'agents cached' },
  );
  return { ns, name, cd, boundId, poolId, dir };
}

describe('deleting the AgentClusterInstall', () => {
  it("deletes the cluster's Agents, releases late-bound ones and keeps the ClusterDeployment", async () => {
    const { ns, name, boundId, poolId, dir } = await setup();
    await op.client.delete(AGENT_CLUSTER_INSTALL, name, ns);
    await eventually(() => gone(AGENT_CLUSTER_INSTALL, name, ns), { what: 'ACI gone' });
    expect(await gone(AGENT, boundId, ns)).toBe(true);
    const pool = await op.client.get<Agent>(AGENT, poolId, ns);
    expect(pool.spec.clusterDeploymentName).toBeUndefined();
    expect(await op.client.getIfExists(CLUSTER_DEPLOYMENT, name, ns)).toBeDefined();
    expect(
      await access(dir).then(
        () => true,
        () => false,
      ),
    ).toBe(false);
  });

  it('deletes late-bound Agents too when the ClusterDeployment has preserveOnDelete', async () => {
    const { ns, name, boundId, poolId } = await setup({ preserveOnDelete: true });
    await op.client.delete(AGENT_CLUSTER_INSTALL, name, ns);
    await eventually(() => gone(AGENT_CLUSTER_INSTALL, name, ns), { what: 'ACI gone' });
    expect(await gone(AGENT, boundId, ns)).toBe(true);
    expect(await gone(AGENT, poolId, ns)).toBe(true);
  });

  it('cancels an installation in progress first', async () => {
    const { ns, name, cd } = await setup();
    // Pretend the cluster is installing (what the reconciler would have written). The operator may
    // still be writing the ACI's status after setup: on a conflict, read it again and retry.
    await eventually(
      async () => {
        const aci = await op.client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, ns);
        try {
          await op.client.replaceStatus(AGENT_CLUSTER_INSTALL, {
            ...aci,
            status: {
              ...aci.status,
              backend: { ...aci.status?.backend, state: 'installing', stateInfo: 'Installation in progress' },
            },
          } as AgentClusterInstall);
          return true;
        } catch (err) {
          if (isConflict(err)) return undefined;
          throw err;
        }
      },
      { what: 'the ACI status set to installing' },
    );
    await op.client.patch(AGENT_CLUSTER_INSTALL, name, ns, 'merge', {
      metadata: { finalizers: [AGENTCLUSTERINSTALL_FINALIZER, 'test.example.com/hold'] },
    });
    await op.client.delete(AGENT_CLUSTER_INSTALL, name, ns);
    const cancelled = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.debugInfo?.state === 'cancelled',
      'cancelled',
    );
    expect(cancelled.status?.conditions?.find((c) => c.type === 'Stopped')).toMatchObject({
      status: 'True',
      reason: 'InstallationCancelled',
    });
    // The event is recorded right after the status write the test just observed: wait for it.
    await eventually(
      async () => op.events.some((e) => e.cluster_id === cd.metadata.uid && e.message.includes('cancelled')),
      { what: 'cancellation event recorded' },
    );
    await eventually(
      async () =>
        !(
          (await op.client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, ns)).metadata.finalizers ??
          []
        ).includes(AGENTCLUSTERINSTALL_FINALIZER),
      { what: 'our finalizer removed' },
    );
    await op.client.patch(AGENT_CLUSTER_INSTALL, name, ns, 'merge', { metadata: { finalizers: null } });
  });
});

describe('deleting the ClusterDeployment', () => {
  it('deletes the ACI first, reports while it waits, then lets the CD go', async () => {
    const { ns, name, boundId, poolId } = await setup();
    // A foreign finalizer keeps the ACI around: the CD must wait and say why.
    await op.client.patch(AGENT_CLUSTER_INSTALL, name, ns, 'merge', {
      metadata: { finalizers: [AGENTCLUSTERINSTALL_FINALIZER, 'test.example.com/hold'] },
    });
    await op.client.delete(CLUSTER_DEPLOYMENT, name, ns);
    await eventually(
      async () => {
        const events = await op.client.list<
          KubeObject & {
            reason?: string;
            message?: string;
            involvedObject?: { kind?: string; name?: string };
          }
        >(EVENT, { namespace: ns });
        return events.items.some(
          (e) =>
            e.involvedObject?.kind === 'ClusterDeployment' &&
            e.involvedObject.name === name &&
            e.message === `could not confirm clusterInstall ${name} deletion was successfuly completed`,
        );
      },
      { what: 'waiting event on the CD' },
    );
    const cdWaiting = await op.client.get<ClusterDeployment>(CLUSTER_DEPLOYMENT, name, ns);
    expect(cdWaiting.metadata.deletionTimestamp).toBeDefined();
    expect(await gone(AGENT, boundId, ns)).toBe(true);
    expect((await op.client.get<Agent>(AGENT, poolId, ns)).spec.clusterDeploymentName).toBeUndefined();
    await op.client.patch(AGENT_CLUSTER_INSTALL, name, ns, 'merge', { metadata: { finalizers: null } });
    await eventually(() => gone(CLUSTER_DEPLOYMENT, name, ns), { what: 'CD gone', timeoutMs: 30_000 });
  }, 60_000);
});
