// AgentClassifications label the Agents whose inventory matches their query, count them, and keep
// their finalizer while deleting until no Agent carries the label.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClassification, InfraEnv } from '../../../src/api/index.ts';
import { AGENT_CLASSIFICATION } from '../../../src/records/resources.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, call, createInfraEnv, inventory, waitForAgent } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let ie: InfraEnv;
let token: string;

beforeAll(async () => {
  ns = await newNamespace('class');
  op = await startTestOperator({ namespace: ns });
  ie = await createInfraEnv(client, ns, 'pool');
  await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
  token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

async function host(cores: number, mac: string): Promise<string> {
  const hostId = randomUUID();
  const base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
  expect((await call(op.baseUrl, 'POST', base, { token, body: { host_id: hostId } })).status).toBe(201);
  const inv = inventory(`c-${mac.slice(-2)}`, mac, {
    cpu: { architecture: 'x86_64', count: cores, flags: ['vmx'], frequency: 2400 },
  });
  await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
    token,
    body: { step_type: 'inventory', output: inv },
  });
  await waitForAgent(client, ns, hostId, (a) => a.status?.inventory?.cpu?.count === cores, 'inventory');
  return hostId;
}

function classification(name: string, labelValue: string, query: string): AgentClassification {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'AgentClassification',
    metadata: { name, namespace: ns },
    spec: { labelKey: name, labelValue, query },
  } as AgentClassification;
}

describe('AgentClassification', () => {
  it('labels matching Agents, marks query errors, and counts both', async () => {
    const big = await host(16, '52:54:00:00:03:01');
    const small = await host(4, '52:54:00:00:03:02');
    await client.create(
      AGENT_CLASSIFICATION,
      classification('size', 'large', '.cpu.count >= 8 and .memory.physicalBytes >= 34359738368'),
    );
    await client.create(AGENT_CLASSIFICATION, classification('broken', 'yes', '.cpu.count | test("x")'));
    // Admitted by the webhook and evaluated by the label controller alike (the old evaluator could
    // not run reduce, def, interpolation, |= or formats and labelled such Agents QUERYERROR).
    await client.create(
      AGENT_CLASSIFICATION,
      classification(
        'rich',
        'yes',
        'def cores: reduce .cpu.count as $c (0; . + $c); (.cpu.count |= . * 1) | "\\(cores)" | @base64 | @base64d | tonumber >= 8',
      ),
    );

    const key = 'agentclassification.agent-install.openshift.io/size';
    await waitForAgent(client, ns, big, (a) => a.metadata.labels?.[key] === 'large', 'large label');
    const smallAgent = await waitForAgent(
      client,
      ns,
      small,
      (a) =>
        a.metadata.labels?.['agentclassification.agent-install.openshift.io/broken'] === 'QUERYERROR-yes',
      'query error label',
    );
    expect(smallAgent.metadata.labels?.[key]).toBeUndefined();
    const rich = 'agentclassification.agent-install.openshift.io/rich';
    await waitForAgent(client, ns, big, (a) => a.metadata.labels?.[rich] === 'yes', 'rich query label');

    const size = await eventually(
      async () => {
        const c = await client.get<AgentClassification>(AGENT_CLASSIFICATION, 'size', ns);
        return c.status?.matchedCount === 1 ? c : undefined;
      },
      { what: 'matchedCount 1' },
    );
    expect(size.metadata.finalizers).toContain('agentclassification.agent-install.openshift.io');
    expect(size.status?.conditions?.find((c) => c.type === 'QueryErrors')).toMatchObject({
      status: 'False',
      reason: 'NoQueryErrors',
    });
    const broken = await eventually(
      async () => {
        const c = await client.get<AgentClassification>(AGENT_CLASSIFICATION, 'broken', ns);
        return c.status?.errorCount === 2 ? c : undefined;
      },
      { what: 'errorCount 2' },
    );
    expect(broken.status?.conditions?.find((c) => c.type === 'QueryErrors')).toMatchObject({
      status: 'True',
      reason: 'HasQueryErrors',
      message: '2 Agents failed to apply the classification',
    });

    // Deleting the classification removes its labels, then the object goes.
    await client.delete(AGENT_CLASSIFICATION, 'size', ns);
    await waitForAgent(client, ns, big, (a) => a.metadata.labels?.[key] === undefined, 'label removed');
    await eventually(async () => (await client.getIfExists(AGENT_CLASSIFICATION, 'size', ns)) === undefined, {
      what: 'classification deleted',
    });
  });
});
