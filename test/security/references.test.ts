// Issue 13 item 1: references across namespaces are authorised. A tenant who may edit only
// namespace `a` cannot point its InfraEnv (spec.clusterRef) or an Agent (spec.clusterDeploymentName,
// late binding) at a ClusterDeployment in namespace `c`; the admission webhooks ask the API server
// (SubjectAccessReview) whether the requesting user may `update` that ClusterDeployment. A hub admin
// who edits both namespaces (RHACM's pattern: pools in one namespace, clusters in others) still
// binds across them, and edits that leave an admitted reference unchanged stay open to the tenant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AGENT, INFRA_ENV } from '../../src/records/resources.ts';
import { ApiError, type KubeClient, type KubeObject } from '../../src/runtime/index.ts';
import { eventually, uniqueName } from '../harness/env.ts';
import { admin, canMintUsers, grantEdit, mintTenant, type Tenant } from './tenants.ts';
import { startTestWebhooks, type TestWebhooks } from './webhooks.ts';

const suite = canMintUsers() ? describe : describe.skip;

let a: Tenant;
let c: Tenant;
let hubAdmin: Tenant;
let webhooks: TestWebhooks | undefined;

// biome-ignore lint/suspicious/noExplicitAny: free-form test objects
type Obj = KubeObject & { spec?: any };
type Ref = { name: string; namespace: string };

function infraEnv(namespace: string, clusterRef?: Ref): Obj {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name: uniqueName('ie'), namespace },
    spec: { pullSecretRef: { name: 'pull-secret' }, ...(clusterRef ? { clusterRef } : {}) },
  } as Obj;
}

function agent(namespace: string, clusterDeploymentName?: Ref): Obj {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: { name: uniqueName('host'), namespace },
    spec: {
      role: 'auto-assign',
      approved: false,
      ...(clusterDeploymentName ? { clusterDeploymentName } : {}),
    },
  } as Obj;
}

/** The API server's refusal of `write` (fails the test if it was admitted). */
async function refusal(write: () => Promise<unknown>): Promise<ApiError> {
  try {
    await write();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the write to be refused');
}

async function bind(client: KubeClient, obj: Obj, ref: Ref | null): Promise<Obj> {
  return client.patch<Obj>(AGENT, obj.metadata.name ?? '', obj.metadata.namespace, 'merge', {
    spec: { clusterDeploymentName: ref },
  });
}

beforeAll(async () => {
  if (!canMintUsers()) return;
  [a, c, hubAdmin] = await Promise.all([
    mintTenant('refs-a'),
    mintTenant('refs-c'),
    mintTenant('refs-admin'),
  ]);
  await grantEdit(a.namespace, hubAdmin.user);
  await grantEdit(c.namespace, hubAdmin.user);
  webhooks = await startTestWebhooks([a.namespace, c.namespace, hubAdmin.namespace]);
  // Registration takes effect asynchronously: wait until a cross-namespace dry run is refused.
  const cd = { name: 'probe', namespace: c.namespace };
  await eventually(
    async () => {
      try {
        await a.client.create(INFRA_ENV, infraEnv(a.namespace, cd), { dryRun: true });
        return false;
      } catch (err) {
        return err instanceof ApiError && err.statusCode === 403;
      }
    },
    { timeoutMs: 30_000, intervalMs: 200, what: 'the webhooks to take effect' },
  );
}, 120_000);

afterAll(async () => {
  await webhooks?.close();
  await Promise.all([a?.dispose(), c?.dispose(), hubAdmin?.dispose()]);
});

suite('cross-namespace references (issue 13 item 1)', () => {
  it("refuses a tenant's InfraEnv whose clusterRef names another namespace's cluster", async () => {
    const cd = { name: 'victim', namespace: c.namespace };
    const err = await refusal(() => a.client.create(INFRA_ENV, infraEnv(a.namespace, cd)));
    expect(err.statusCode).toBe(403);
    expect(err.status?.message).toContain(
      `Spec.ClusterRef names ClusterDeployment ${c.namespace}/victim in another namespace: user "${a.user}" may not update clusterdeployments.hive.openshift.io "victim" in namespace "${c.namespace}"`,
    );
  });

  it("refuses late binding of a tenant's Agent to another namespace's cluster, on create and update", async () => {
    const cd = { name: 'victim', namespace: c.namespace };
    const created = await refusal(() => a.client.create(AGENT, agent(a.namespace, cd)));
    expect(created.statusCode).toBe(403);
    expect(created.status?.message).toContain('Spec.ClusterDeploymentName names ClusterDeployment');
    const host = await a.client.create<Obj>(AGENT, agent(a.namespace));
    const updated = await refusal(() => bind(a.client, host, cd));
    expect(updated.statusCode).toBe(403);
    expect(updated.status?.message).toContain(`user "${a.user}" may not update`);
    // Nothing changed.
    const now = await admin().get<Obj>(AGENT, host.metadata.name ?? '', a.namespace);
    expect(now.spec.clusterDeploymentName).toBeUndefined();
  });

  it('admits same-namespace references as before', async () => {
    const own = { name: 'mine', namespace: a.namespace };
    await a.client.create(INFRA_ENV, infraEnv(a.namespace, own));
    const host = await a.client.create<Obj>(AGENT, agent(a.namespace));
    expect((await bind(a.client, host, own)).spec.clusterDeploymentName).toEqual(own);
  });

  it('admits an admin with rights in both namespaces (hosts in a pool, cluster elsewhere)', async () => {
    const cd = { name: 'cluster', namespace: c.namespace };
    const ie = await hubAdmin.client.create<Obj>(INFRA_ENV, infraEnv(a.namespace, cd));
    expect(ie.spec.clusterRef).toEqual(cd);
    const host = await a.client.create<Obj>(AGENT, agent(a.namespace));
    const bound = await bind(hubAdmin.client, host, cd);
    expect(bound.spec.clusterDeploymentName).toEqual(cd);
    // The tenant still edits its Agent's own fields; the admitted reference is not re-judged...
    const renamed = await a.client.patch<Obj>(AGENT, host.metadata.name ?? '', a.namespace, 'merge', {
      spec: { hostname: 'worker-7' },
    });
    expect(renamed.spec.hostname).toBe('worker-7');
    // ...and may unbind its host, but not move it to another cluster of that namespace.
    await refusal(() => bind(a.client, host, { name: 'other', namespace: c.namespace }));
    expect((await bind(a.client, host, null)).spec.clusterDeploymentName).toBeUndefined();
  });

  it('does not let rights in the target namespace alone bind hosts of a namespace one cannot edit', async () => {
    // Tenant c may update its own cluster but cannot touch Agents in a at all (RBAC, not the webhook).
    const host = await a.client.create<Obj>(AGENT, agent(a.namespace));
    const err = await refusal(() => bind(c.client, host, { name: 'cluster', namespace: c.namespace }));
    expect(err.statusCode).toBe(403);
    expect(err.status?.message).not.toContain('denied the request');
  });
});
