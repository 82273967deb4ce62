// Issue 13 item 6: /metrics is served over HTTPS to authenticated, authorised scrapers only, as
// controller-runtime's secure metrics serving: the bearer token must pass a TokenReview and its user
// must be allowed to `get` the non-resource URL /metrics (the shipped metrics-reader ClusterRole
// grants that). Real ServiceAccount tokens from the TokenRequest API against the real API server.
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { KubeObject } from '../../src/runtime/index.ts';
import { uniqueName } from '../harness/env.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import {
  admin,
  CLUSTER_ROLE,
  CLUSTER_ROLE_BINDING,
  canMintUsers,
  mintTenant,
  serviceAccountToken,
  type Tenant,
} from './tenants.ts';

const suite = canMintUsers() ? describe : describe.skip;

let op: TestOperator | undefined;
let tenant: Tenant;
let port = 0;
const cleanup: [typeof CLUSTER_ROLE, string][] = [];
// The server's certificate is self-signed (no METRICS_CERT_DIR): what is checked here is who may read.
const insecure = new Agent({ connect: { rejectUnauthorized: false } });

async function scrape(token?: string): Promise<{ status: number; body: string }> {
  const res = await request(`https://127.0.0.1:${port}/metrics`, {
    dispatcher: insecure,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  return { status: res.statusCode, body: await res.body.text() };
}

beforeAll(async () => {
  if (!canMintUsers()) return;
  tenant = await mintTenant('metrics');
  op = await startTestOperator({
    namespace: tenant.namespace,
    env: { METRICS_BIND_ADDRESS: '127.0.0.1:0', METRICS_SECURE: 'true' },
  });
  port = op.ctx.mgr.ports[0] ?? 0;
  // The shipped metrics-reader ClusterRole, renamed so parallel runs do not share it.
  const role = parse(await readFile('config/rbac/metrics_reader_role.yaml', 'utf8')) as KubeObject;
  const name = uniqueName('metrics-reader');
  await admin().create(CLUSTER_ROLE, { ...role, metadata: { ...role.metadata, name } });
  await admin().create(CLUSTER_ROLE_BINDING, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: tenant.namespace }],
  } as KubeObject);
  cleanup.push([CLUSTER_ROLE_BINDING, name], [CLUSTER_ROLE, name]);
}, 120_000);

afterAll(async () => {
  await op?.stop();
  await tenant?.dispose();
  for (const [res, name] of cleanup)
    await admin()
      .delete(res, name)
      .catch(() => {});
  await insecure.close();
});

suite('metrics behind authentication (issue 13 item 6)', () => {
  it('serves HTTPS only', async () => {
    expect(port).toBeGreaterThan(0);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it.each([
    ['no token', async () => undefined, 401],
    ['a forged token', async () => 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJwcm9tIn0.c2lnbmF0dXJl', 401],
    [
      'a real token issued for another audience',
      async () => serviceAccountToken(tenant.namespace, 'prometheus', { audiences: ['not-the-api-server'] }),
      401,
    ],
    [
      'a real token of a user without the metrics-reader role',
      async () => serviceAccountToken(tenant.namespace, 'nosy'),
      403,
    ],
  ])('refuses %s', async (_what, token, status) => {
    const res = await scrape(await token());
    expect(res.status).toBe(status);
    expect(res.body).not.toContain('controller_runtime_');
    if (status === 403) {
      expect(res.body).toBe(
        `Forbidden: user "system:serviceaccount:${tenant.namespace}:nosy" may not get /metrics`,
      );
    }
  });

  it('serves a real token whose user may get /metrics', async () => {
    const res = await scrape(await serviceAccountToken(tenant.namespace, 'prometheus'));
    expect(res.status).toBe(200);
    expect(res.body).toContain('controller_runtime_reconcile_total');
  });
});
