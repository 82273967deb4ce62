// Issue 13 item 1 without the admission webhooks: the controllers cannot tell who wrote a
// reference, so by default (no webhook server: CROSS_NAMESPACE_REFERENCES=refuse) they refuse every
// reference to a ClusterDeployment in another namespace and say so in a condition; a host of such
// an InfraEnv cannot register. Here the admin writes the references (nothing admits or refuses them
// at the API), as anyone could on a hub without webhooks.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../src/api/index.ts';
import { AGENT, INFRA_ENV } from '../../src/records/resources.ts';
import { eventually, newNamespace } from '../harness/env.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import {
  adminClient,
  call,
  condition,
  createInfraEnv,
  inventory,
  waitForAgent,
} from '../integration/hosts/helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let pool: InfraEnv;
const elsewhere = { name: 'victim', namespace: 'other-tenant' };
const refusal = (kind: string, field: string) =>
  `${kind} ${field} names ClusterDeployment other-tenant/victim in another namespace than ${ns}, which is not honoured: cross-namespace references are refused unless the admission webhooks authorise them (CROSS_NAMESPACE_REFERENCES=refuse; see docs/operations.md, Multi-tenancy)`;

beforeAll(async () => {
  ns = await newNamespace('xref');
  op = await startTestOperator({ namespace: ns });
  pool = await createInfraEnv(client, ns, 'pool');
  await eventually(async () => op.ctx.infraEnvById(pool.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

describe('cross-namespace references without webhooks (issue 13 item 1)', () => {
  it("refuses an InfraEnv's clusterRef: no image, and its hosts cannot register", async () => {
    const ie = await createInfraEnv(client, ns, 'stolen', { clusterRef: elsewhere });
    const refused = await eventually(
      async () => {
        const got = await client.get<InfraEnv>(INFRA_ENV, 'stolen', ns);
        const c = got.status?.conditions?.find((x) => x.type === 'ImageCreated');
        return c?.status === 'False' ? c : undefined;
      },
      { what: 'ImageCreated False' },
    );
    expect(refused).toMatchObject({
      reason: 'ImageCreationError',
      message: `Failed to create image: ${refusal('InfraEnv', 'spec.clusterRef')}`,
    });
    await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
    const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
    const reg = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
      token,
      body: { host_id: randomUUID(), discovery_agent_version: op.ctx.settings.agentImage },
    });
    expect(reg.status, reg.text).toBe(409);
    expect(reg.text).toContain(refusal('InfraEnv', 'spec.clusterRef'));
  });

  it("refuses an Agent's late binding to another namespace's cluster and leaves it unbound", async () => {
    const hostId = randomUUID();
    const base = `/v2/infra-envs/${pool.metadata.uid}/hosts`;
    const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: pool.metadata.uid ?? '' });
    const body = { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage };
    expect((await call(op.baseUrl, 'POST', base, { token, body })).status).toBe(201);
    await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
      token,
      body: { step_type: 'inventory', output: inventory('xref-0', '52:54:00:00:0d:01') },
    });
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'known-unbound',
      'known-unbound',
    );
    await client.patch(AGENT, hostId, ns, 'merge', { spec: { clusterDeploymentName: elsewhere } });
    const agent = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'SpecSynced')?.status === 'False',
      'SpecSynced False',
    );
    expect(condition(agent, 'SpecSynced')).toMatchObject({
      reason: 'InputError',
      message: `The Spec could not be synced due to an input error: ${refusal('Agent', 'spec.clusterDeploymentName')}`,
    });
    expect(agent.status?.debugInfo?.state).toBe('known-unbound');
    expect(agent.status?.backend?.clusterID).toBeUndefined();
  });
});
