// Issue 13: "the admin's cross-namespace binding still installs". A host pool InfraEnv in namespace
// `a` (late binding, no clusterRef) registers a simulated host; a hub admin who edits both `a` and
// `c` binds its Agent, through the admission webhooks, to an SNO cluster in `c`, and the cluster
// installs to completion. The operator watches exactly those two namespaces (WATCH_NAMESPACE=a,c)
// and honours webhook-admitted references (CROSS_NAMESPACE_REFERENCES=webhook). The tenant of `a`
// alone still cannot reach `c`'s credentials, neither through the API nor with the pool's token.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../src/api/index.ts';
import { AGENT, INFRA_ENV, SECRET } from '../../src/records/resources.ts';
import { ApiError, type KubeObject } from '../../src/runtime/index.ts';
import { type Fleet, startFleet } from '../../src/sim/index.ts';
import { eventually, uniqueName } from '../harness/env.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import {
  clusterDeploymentObject,
  condition,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallyAci,
  snoAciObject,
} from '../integration/cluster/harness.ts';
import { call } from '../integration/hosts/helpers.ts';
import { admin, canMintUsers, grantEdit, mintTenant, type Tenant } from './tenants.ts';
import { startTestWebhooks, type TestWebhooks } from './webhooks.ts';

const suite = canMintUsers() ? describe : describe.skip;

let a: Tenant;
let c: Tenant;
let hubAdmin: Tenant;
let webhooks: TestWebhooks | undefined;
let op: TestOperator | undefined;
let fleet: Fleet | undefined;

beforeAll(async () => {
  if (!canMintUsers()) return;
  [a, c, hubAdmin] = await Promise.all([mintTenant('xi-a'), mintTenant('xi-c'), mintTenant('xi-admin')]);
  await grantEdit(a.namespace, hubAdmin.user);
  await grantEdit(c.namespace, hubAdmin.user);
  webhooks = await startTestWebhooks([a.namespace, c.namespace]);
  // Registration takes effect asynchronously: wait until the tenant's cross-namespace bind is refused.
  await eventually(
    async () => {
      try {
        await a.client.create(
          AGENT,
          {
            apiVersion: 'agent-install.openshift.io/v1beta1',
            kind: 'Agent',
            metadata: { name: uniqueName('probe'), namespace: a.namespace },
            spec: {
              role: 'auto-assign',
              approved: false,
              clusterDeploymentName: { name: 'x', namespace: c.namespace },
            },
          } as never,
          { dryRun: true },
        );
        return false;
      } catch (err) {
        return err instanceof ApiError && err.statusCode === 403;
      }
    },
    { timeoutMs: 30_000, intervalMs: 200, what: 'the webhooks to take effect' },
  );
  op = await startTestOperator({
    namespace: a.namespace,
    env: { WATCH_NAMESPACE: `${a.namespace},${c.namespace}`, CROSS_NAMESPACE_REFERENCES: 'webhook' },
  });
}, 120_000);

afterAll(async () => {
  await fleet?.stop();
  await op?.stop();
  await webhooks?.close();
  await Promise.all([a?.dispose(), c?.dispose(), hubAdmin?.dispose()]);
});

suite("the admin's cross-namespace binding (issue 13)", () => {
  it('installs an SNO cluster in c from a host pool in a, and a alone cannot fetch c’s credentials', async () => {
    const operator = op!;
    const name = uniqueName('xsno');
    // The admin creates the pool in a and the cluster in c with its own (non-admin) credentials.
    await createPullSecret(hubAdmin.client, a.namespace);
    await createPullSecret(hubAdmin.client, c.namespace);
    const cis = await createImageSet(admin());
    const aci = snoAciObject(c.namespace, name, cis);
    delete aci.spec.networking.machineNetwork; // SNO: calculated from the host
    await createCluster(hubAdmin.client, clusterDeploymentObject(c.namespace, name), aci);
    const pool = await hubAdmin.client.create<InfraEnv>(INFRA_ENV, {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name: 'pool', namespace: a.namespace },
      spec: { pullSecretRef: { name: 'pull-secret' } },
    } as InfraEnv);
    const aciDone = await eventuallyAci(
      hubAdmin.client,
      c.namespace,
      name,
      (x) => !!x.status?.backend?.clusterID,
      'cluster registered',
    );
    const clusterId = aciDone.status?.backend?.clusterID ?? '';
    const poolToken = operator.server.auth.issueAgentToken({
      kind: 'infra-env',
      id: pool.metadata.uid ?? '',
    });

    fleet = await startFleet({
      config: {
        serviceUrl: operator.baseUrl,
        infraEnvId: pool.metadata.uid ?? '',
        agentVersion: operator.ctx.settings.agentImage,
        insecure: true,
        trustAnchors: [],
        token: poolToken,
        proxy: {},
        agentFlags: {},
      },
      hosts: 1,
      speed: 200,
      machine: { seed: name },
    });

    // The host registers into the pool, unbound.
    const unbound = await eventually(
      async () => {
        const [agent] = (await hubAdmin.client.list<Agent>(AGENT, { namespace: a.namespace })).items;
        return agent?.status?.debugInfo?.state === 'known-unbound' ? agent : undefined;
      },
      { timeoutMs: 150_000, what: 'pool host known-unbound' },
    );
    // The tenant of a may not bind its own host to c's cluster; the admin may.
    const target = { name, namespace: c.namespace };
    const refused = await a.client
      .patch(AGENT, unbound.metadata.name ?? '', a.namespace, 'merge', {
        spec: { clusterDeploymentName: target },
      })
      .then(
        () => undefined,
        (err: unknown) => err,
      );
    expect(refused).toBeInstanceOf(ApiError);
    expect((refused as ApiError).statusCode).toBe(403);
    await hubAdmin.client.patch(AGENT, unbound.metadata.name ?? '', a.namespace, 'merge', {
      spec: { clusterDeploymentName: target, approved: true },
    });

    const done = await eventuallyAci(
      hubAdmin.client,
      c.namespace,
      name,
      (x) => x.status?.debugInfo?.state === 'adding-hosts',
      'installed and day 2',
      150_000,
    );
    expect(condition(done, 'Completed')).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
    const kubeconfigSecret = done.spec.clusterMetadata?.adminKubeconfigSecretRef?.name ?? '';
    expect(kubeconfigSecret).not.toBe('');
    const secret = await hubAdmin.client.get<KubeObject & { data?: Record<string, string> }>(
      SECRET,
      kubeconfigSecret,
      c.namespace,
    );
    expect(Object.keys(secret.data ?? {})).toContain('kubeconfig');
    const agent = await hubAdmin.client.get<Agent>(AGENT, unbound.metadata.name ?? '', a.namespace);
    expect(agent.status?.progress?.currentStage).toBe('Done');

    // The tenant of a alone: no read of c's kubeconfig Secret, and the pool token is no key to it.
    const read = await a.client.get(SECRET, kubeconfigSecret, c.namespace).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect((read as ApiError).statusCode).toBe(403);
    const download = (file: string) =>
      call(operator.baseUrl, 'GET', `/v2/clusters/${clusterId}/downloads/credentials?file_name=${file}`, {
        token: poolToken,
      });
    for (const file of ['kubeconfig', 'kubeadmin-password']) {
      const reply = await download(file);
      expect(reply.status, `${file}: ${reply.text}`).toBe(403);
      expect(reply.body).toMatchObject({ message: expect.stringContaining('not served to agent tokens') });
    }
    // The host's own kubeconfig-noingress (upstream serves it to agents while installing) is closed
    // once the cluster is installed.
    expect((await download('kubeconfig-noingress')).status).toBe(409);
  }, 360_000);
});
