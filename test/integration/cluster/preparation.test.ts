// Installation preparation on the real API server: a failed preparation is reported
// (LastInstallationPreparationFailed), the cluster returns to ready and the installation is
// retried; a multi-node start assigns roles and picks one bootstrap host among the masters.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../src/api/index.ts';
import {
  type ArtifactGenerator,
  type ArtifactGeneratorInput,
  BuiltinArtifactGenerator,
} from '../../../src/core/artifacts/index.ts';
import { AGENT } from '../../../src/records/resources.ts';
import { eventually, uniqueName } from '../../harness/env.ts';
import {
  type ClusterTestOperator,
  clusterDeploymentObject,
  condition,
  createAgent,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallyAci,
  hostInventory,
  snoAciObject,
  startClusterOperator,
} from './harness.ts';

/** Fails the first generation of each cluster, then behaves like the built-in generator. */
class FlakyGenerator implements ArtifactGenerator {
  private readonly failed = new Set<string>();
  private readonly real = new BuiltinArtifactGenerator();
  calls = 0;

  async generate(input: ArtifactGeneratorInput) {
    this.calls++;
    if (!this.failed.has(input.cluster.id) && input.cluster.name.startsWith('flaky')) {
      this.failed.add(input.cluster.id);
      throw new Error('openshift-install create manifests failed: level=fatal msg=boom');
    }
    return this.real.generate(input);
  }
}

const generator = new FlakyGenerator();
let op: ClusterTestOperator;

beforeAll(async () => {
  op = await startClusterOperator({ generator });
});
afterAll(async () => {
  await op?.stop();
});

describe('a failed preparation', () => {
  it('is reported, the cluster goes back to ready and the installation is retried', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('flaky');
    const { cd } = await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(ns, name, cis),
    );
    await createAgent(op.client, ns, cd, {
      id: crypto.randomUUID(),
      role: 'master',
      suggested_role: 'master',
      bootstrap: true,
      inventory: hostInventory('node', '192.168.111.40'),
    });
    const failed = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => condition(a, 'LastInstallationPreparationFailed')?.status === 'True',
      'preparation failure reported',
    );
    expect(condition(failed, 'LastInstallationPreparationFailed')).toMatchObject({
      reason: 'The last installation preparation failed',
      message: 'openshift-install create manifests failed: level=fatal msg=boom',
    });
    await eventuallyAci(
      op.client,
      ns,
      name,
      // CR9 says "Cluster failed to prepare for installation"; the next refresh (CR5) says ready.
      (a) =>
        a.status?.debugInfo?.state === 'ready' &&
        a.status.backend?.lastInstallationPreparation?.status === 'failed',
      'back to ready',
    );
    const retried = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.backend?.lastInstallationPreparation?.status === 'success',
      'retried and prepared',
      30_000,
    );
    expect(retried.status?.debugInfo?.state).toBe('preparing-for-installation');
    expect(
      op.events.some((e) =>
        e.message.includes('Failed to prepare the installation due to an unexpected error'),
      ),
    ).toBe(true);
    expect(condition(retried, 'LastInstallationPreparationFailed')).toMatchObject({
      status: 'False',
      reason: 'There is no failing prior preparation attempt',
    });
  }, 60_000);
});

describe('a multi-node installation start', () => {
  it('assigns roles to auto-assign hosts and picks one master as bootstrap', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('multi');
    // User-managed networking: no VIPs to verify (no host facts run in these tests).
    const { cd } = await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(ns, name, cis, {
        provisionRequirements: { controlPlaneAgents: 3, workerAgents: 2 },
        platformType: 'None',
      }),
    );
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const id = crypto.randomUUID();
      ids.push(id);
      await createAgent(op.client, ns, cd, {
        id,
        role: 'auto-assign',
        suggested_role: i < 3 ? 'master' : 'worker',
        inventory: hostInventory(`node-${i}`, `192.168.111.${50 + i}`),
        installation_disk_id: '/dev/disk/by-id/wwn-0x1',
      });
    }
    await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.debugInfo?.state === 'preparing-for-installation',
      'installation started',
    );
    const agents = await eventually(
      async () => {
        const list = await Promise.all(ids.map((id) => op.client.get<Agent>(AGENT, id, ns)));
        return list.every((a) => a.status?.backend?.role && a.status.backend.role !== 'auto-assign')
          ? list
          : undefined;
      },
      { what: 'roles assigned' },
    );
    const roles = agents.map((a) => a.status?.backend?.role).sort();
    expect(roles).toEqual(['master', 'master', 'master', 'worker', 'worker']);
    const bootstrap = agents.filter((a) => a.status?.bootstrap === true);
    expect(bootstrap).toHaveLength(1);
    expect(bootstrap[0]?.status?.backend?.role).toBe('master');
  });
});
