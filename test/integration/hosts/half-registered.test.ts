// A registration the previous leader left half done: it created the Agent and was killed before the
// status write. The host registers again with the new leader before that leader's Agent reconciler
// (busy resyncing every Agent) has got to it, and must come out bound to its InfraEnv's cluster, as
// a new host does. It came out unbound, was late-bound by the reconciler and sat in `binding` with
// its acknowledged inventory dropped (`make bench-failover`: 2-3 hosts in 1,000 when the kill cut
// registrations short). The reconciler's backlog is modelled by the mark a registration in flight
// sets (the reconciler leaves such an Agent alone until it has a status).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentClusterInstall, InfraEnv } from '../../../src/api/index.ts';
import { hostMemory } from '../../../src/records/hosts/memory.ts';
import { AGENT, AGENT_CLUSTER_INSTALL } from '../../../src/records/resources.ts';
import { agentSkeleton } from '../../../src/server/hosts/registration.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import {
  clusterDeploymentObject,
  createCluster,
  createImageSet,
  createPullSecret,
  snoAciObject,
} from '../cluster/harness.ts';
import { adminClient, call, createInfraEnv, inventory, waitForAgent } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;

beforeAll(async () => {
  ns = await newNamespace('halfreg');
  op = await startTestOperator({ namespace: ns });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

describe('a registration left half done by another leader', () => {
  it('registers the host again bound to its InfraEnv cluster, and keeps the inventory it sends', async () => {
    await createPullSecret(client, ns);
    const name = uniqueName('sno');
    const imageSet = await createImageSet(client);
    await createCluster(client, clusterDeploymentObject(ns, name), snoAciObject(ns, name, imageSet));
    const ie: InfraEnv = await createInfraEnv(client, ns, name, { clusterRef: { name, namespace: ns } });
    await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
    const aci = await eventually(
      async () => {
        const a = await client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, ns);
        return a.status?.backend?.clusterID ? a : undefined;
      },
      { what: 'cluster registered' },
    );
    const hostId = randomUUID();
    // The reconciler has not got to this Agent yet (its backlog after a take-over).
    hostMemory(op.ctx).registering.add(hostId);
    // What the old leader got to: the create, not the status write.
    await client.create(AGENT, agentSkeleton(ie, hostId, { name, namespace: ns }));
    await eventually(async () => op.ctx.informers.agents.get(ns, hostId), { what: 'Agent in cache' });

    const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
    const reg = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
      token,
      body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
    });
    expect(reg.status, reg.text).toBe(201);
    const registered = await client.get<Agent>(AGENT, hostId, ns);
    expect(registered.status?.backend?.clusterID).toBe(aci.status?.backend?.clusterID);

    const reply = await call(
      op.baseUrl,
      'POST',
      `/v2/infra-envs/${ie.metadata.uid}/hosts/${hostId}/instructions`,
      {
        token,
        body: {
          step_type: 'inventory',
          step_id: 'inventory-1',
          output: inventory('half', '52:54:00:aa:bb:01'),
        },
      },
    );
    expect(reply.status, reply.text).toBe(204);
    // A 204 means stored; and nothing later drops it (late binding would).
    const agent = await waitForAgent(client, ns, hostId, (a) => !!a.status?.validationsInfo, 'reconciled');
    expect(agent.status?.inventory?.hostname).toBe('half');
    expect(agent.status?.debugInfo?.state).not.toBe('binding');
  }, 120_000);
});
