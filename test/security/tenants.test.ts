// The ground the multi-tenancy suite stands on: a minted tenant edits its own namespace and nothing
// else, an admin granted two namespaces edits both, and a ServiceAccount token from the TokenRequest
// API is one the API server authenticates. If these do not hold, the refusals the other files of
// test/security/ assert would prove nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INFRA_ENV, SECRET } from '../../src/records/resources.ts';
import { ApiError, type KubeObject } from '../../src/runtime/index.ts';
import { uniqueName } from '../harness/env.ts';
import { admin, canMintUsers, grantEdit, mintTenant, serviceAccountToken, type Tenant } from './tenants.ts';

const suite = canMintUsers() ? describe : describe.skip;

let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  if (!canMintUsers()) return;
  [a, b] = await Promise.all([mintTenant('ten-a'), mintTenant('ten-b')]);
});

afterAll(async () => {
  await a?.dispose();
  await b?.dispose();
});

function infraEnv(namespace: string): KubeObject {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name: uniqueName('ie'), namespace },
    spec: { pullSecretRef: { name: 'pull-secret' } },
  } as KubeObject;
}

async function statusOf(call: () => Promise<unknown>): Promise<number> {
  try {
    await call();
    return 200;
  } catch (err) {
    if (err instanceof ApiError) return err.statusCode;
    throw err;
  }
}

suite('tenants minted by the harness', () => {
  it('edit their own namespace and are forbidden in any other', async () => {
    expect(await statusOf(() => a.client.create(INFRA_ENV, infraEnv(a.namespace)))).toBe(200);
    expect(await statusOf(() => a.client.create(INFRA_ENV, infraEnv(b.namespace)))).toBe(403);
    expect(await statusOf(() => a.client.list(SECRET, { namespace: b.namespace }))).toBe(403);
    expect(await statusOf(() => a.client.list(INFRA_ENV))).toBe(403);
  });

  it('become editors of a second namespace once granted it (the admin pattern)', async () => {
    const adminTenant = await mintTenant('ten-admin');
    try {
      await grantEdit(b.namespace, adminTenant.user);
      expect(await statusOf(() => adminTenant.client.create(INFRA_ENV, infraEnv(b.namespace)))).toBe(200);
      expect(await statusOf(() => adminTenant.client.create(INFRA_ENV, infraEnv(a.namespace)))).toBe(403);
    } finally {
      await adminTenant.dispose();
    }
  });

  it('get ServiceAccount tokens the API server authenticates (TokenReview)', async () => {
    const token = await serviceAccountToken(a.namespace, 'probe');
    const review = await admin().request<{
      status?: { authenticated?: boolean; user?: { username?: string } };
    }>('POST', '/apis/authentication.k8s.io/v1/tokenreviews', {
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } },
    });
    expect(review.status?.authenticated).toBe(true);
    expect(review.status?.user?.username).toBe(`system:serviceaccount:${a.namespace}:probe`);
  });
});
