// Issue 13 item 1, BareMetalHost path: the cluster-reference annotation is copied into the Agent by
// the operator itself, so the admission webhooks never see who asked for it. A reference to a
// ClusterDeployment in another namespace is therefore not copied (by default, with or without the
// webhook server) and a Warning event on the BareMetalHost says why; the other annotations still
// apply. Stand-in metal3 CRDs from config/crd/external, as test/integration/bmac.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, BareMetalHost, InfraEnv } from '../../src/api/index.ts';
import { AGENT, BARE_METAL_HOST, EVENT, INFRA_ENV, SECRET } from '../../src/records/resources.ts';
import type { KubeClient, KubeObject } from '../../src/runtime/index.ts';
import { eventually, newNamespace } from '../harness/env.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import { call, inventory } from '../integration/hosts/helpers.ts';
import { infraEnv, PULL_SECRET_JSON, setTestOsImage } from '../integration/infraenv/fixtures.ts';

// An architecture/version no other suite uses, so the shared AgentServiceConfig entry is ours.
const OS_IMAGE = { cpuArchitecture: 's390x', openshiftVersion: '4.13', version: '413.92.202301010000-0' };
const OS_URL = 'http://127.0.0.1:9/rhcos-s390x.iso';
const MAC = '52:54:00:13:13:01';

let op: TestOperator;
let client: KubeClient;
let ns: string;

beforeAll(async () => {
  ns = await newNamespace('bmhref');
  op = await startTestOperator({
    namespace: ns,
    settings: { allowConvergedFlow: false },
    // The Deployment's default: the webhook setting still refuses BareMetalHost references.
    env: { BMAC_IMAGE_COOLDOWN_MS: '1000', CROSS_NAMESPACE_REFERENCES: 'webhook' },
  });
  client = op.ctx.client;
  await setTestOsImage(client, OS_URL, true, OS_IMAGE);
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(PULL_SECRET_JSON).toString('base64') },
  } as never);
  await client.create(INFRA_ENV, infraEnv(ns, 'ie', { cpuArchitecture: 's390x', osImageVersion: '4.13' }));
}, 120_000);

afterAll(async () => {
  if (client) await setTestOsImage(client, OS_URL, false, OS_IMAGE).catch(() => {});
  await op?.stop();
});

describe('BareMetalHost cluster reference across namespaces (issue 13 item 1)', () => {
  it('is not copied into the Agent, and an event says why', async () => {
    await client.create(BARE_METAL_HOST, {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'BareMetalHost',
      metadata: {
        name: 'host-1',
        namespace: ns,
        labels: { 'infraenvs.agent-install.openshift.io': 'ie' },
        annotations: {
          'bmac.agent-install.openshift.io/hostname': 'node-1',
          'bmac.agent-install.openshift.io/cluster-reference': 'other-tenant/victim',
        },
      },
      spec: { online: false, bootMACAddress: MAC },
    } as BareMetalHost);
    await client.patch(
      BARE_METAL_HOST,
      'host-1',
      ns,
      'merge',
      { status: { provisioning: { state: 'available' } } },
      { subresource: 'status' },
    );
    await eventually(
      async () => (await client.get<InfraEnv>(INFRA_ENV, 'ie', ns)).status?.isoDownloadURL || undefined,
      { timeoutMs: 30_000, what: 'InfraEnv ISO URL' },
    );
    const ie = await client.get<InfraEnv>(INFRA_ENV, 'ie', ns);
    const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
    const hostId = randomUUID();
    const base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
    expect((await call(op.baseUrl, 'POST', base, { token, body: { host_id: hostId } })).status).toBe(201);
    await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
      token,
      body: { step_type: 'inventory', output: inventory('inv', MAC) },
    });
    // The rest of the annotations apply; the reference does not.
    const agent = await eventually(
      async () => {
        const a = await client.get<Agent>(AGENT, hostId, ns);
        return a.spec.hostname === 'node-1' ? a : undefined;
      },
      { timeoutMs: 30_000, what: 'Agent configured from the BMH' },
    );
    expect(agent.spec.clusterDeploymentName).toBeUndefined();
    const event = await eventually(
      async () => {
        const list = await client.list<KubeObject & { reason?: string; message?: string }>(EVENT, {
          namespace: ns,
          fieldSelector: 'involvedObject.name=host-1',
        });
        return list.items.find((e) => e.reason === 'ClusterReferenceError');
      },
      { timeoutMs: 30_000, what: 'ClusterReferenceError event' },
    );
    expect(event.message).toBe(
      `failed to reconcile cluster reference: BareMetalHost annotation bmac.agent-install.openshift.io/cluster-reference names ClusterDeployment other-tenant/victim in another namespace than ${ns}, which is not honoured: the admission webhooks cannot check who set a BareMetalHost annotation (CROSS_NAMESPACE_REFERENCES=webhook; see docs/operations.md, Multi-tenancy)`,
    );
  });
});
