// Every operation refuses missing, forged and out-of-scope credentials in the infra_error shape,
// emits an auth-failure event, and never reaches the backend.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signJwt } from '../../../../src/auth/index.ts';
import { generateKeyPairPem, importKeyPair } from '../../../../src/auth/keys.ts';
import {
  API,
  CLUSTER_1,
  CLUSTER_2,
  call,
  expectErrorShape,
  expectInfraErrorShape,
  HOST_A1,
  HOST_B1,
  IE_A,
  IE_B,
  startTestServer,
  type TestServer,
} from './helpers.ts';

interface Op {
  name: string;
  method: string;
  path: (ie: string, cluster: string) => string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
}

const multipart =
  '--b\r\nContent-Disposition: form-data; name="upfile"; filename="l.tgz"\r\n\r\nxx\r\n--b--\r\n';

/** Operations that accept the agent token, with a valid request each. */
const AGENT_OPS: Op[] = [
  {
    name: 'register',
    method: 'POST',
    path: (ie) => `${API}/infra-envs/${ie}/hosts`,
    body: { host_id: HOST_A1 },
  },
  {
    name: 'next steps',
    method: 'GET',
    path: (ie) => `${API}/infra-envs/${ie}/hosts/${HOST_A1}/instructions`,
  },
  {
    name: 'step reply',
    method: 'POST',
    path: (ie) => `${API}/infra-envs/${ie}/hosts/${HOST_A1}/instructions`,
    body: { step_type: 'stop-installation', exit_code: 0 },
  },
  {
    name: 'host logs progress',
    method: 'PUT',
    path: (ie) => `${API}/infra-envs/${ie}/hosts/${HOST_A1}/logs-progress`,
    body: { logs_state: 'requested' },
  },
  {
    name: 'install progress',
    method: 'PUT',
    path: (ie) => `${API}/infra-envs/${ie}/hosts/${HOST_A1}/progress`,
    body: { current_stage: 'Installing' },
  },
  {
    name: 'host ignition',
    method: 'GET',
    path: (ie) => `${API}/infra-env/${ie}/hosts/${HOST_A1}/downloads/ignition`,
  },
  { name: 'infra-env', method: 'GET', path: (ie) => `${API}/infra-envs/${ie}` },
  {
    name: 'infra-env files',
    method: 'GET',
    path: (ie) => `${API}/infra-envs/${ie}/downloads/files?file_name=discovery.ign`,
  },
  { name: 'cluster', method: 'GET', path: (_ie, c) => `${API}/clusters/${c}` },
  { name: 'cluster hosts', method: 'GET', path: (_ie, c) => `${API}/clusters/${c}/hosts` },
  {
    name: 'cluster files',
    method: 'GET',
    path: (_ie, c) => `${API}/clusters/${c}/downloads/files?file_name=master.ign`,
  },
  {
    name: 'credentials',
    method: 'GET',
    path: (_ie, c) => `${API}/clusters/${c}/downloads/credentials?file_name=kubeconfig`,
  },
  {
    name: 'cluster logs progress',
    method: 'PUT',
    path: (_ie, c) => `${API}/clusters/${c}/logs-progress`,
    body: { logs_state: 'requested' },
  },
  {
    name: 'finalizing progress',
    method: 'PUT',
    path: (_ie, c) => `${API}/clusters/${c}/progress`,
    body: { finalizing_stage: 'Done' },
  },
  { name: 'operators', method: 'GET', path: (_ie, c) => `${API}/clusters/${c}/monitored-operators` },
  {
    name: 'operator report',
    method: 'PUT',
    path: (_ie, c) => `${API}/clusters/${c}/monitored-operators`,
    body: { name: 'console', status: 'available' },
  },
  {
    name: 'ingress cert',
    method: 'POST',
    path: (_ie, c) => `${API}/clusters/${c}/uploads/ingress-cert`,
    body: 'PEM',
  },
  {
    name: 'complete',
    method: 'POST',
    path: (_ie, c) => `${API}/clusters/${c}/actions/complete-installation`,
    body: { is_success: true },
  },
  {
    name: 'upload logs',
    method: 'POST',
    path: (_ie, c) => `${API}/clusters/${c}/logs?logs_type=controller`,
    rawBody: multipart,
    headers: { 'content-type': 'multipart/form-data; boundary=b' },
  },
];

const INFRA_ENV_SCOPED = new Set([
  'register',
  'next steps',
  'step reply',
  'host logs progress',
  'install progress',
  'host ignition',
  'infra-env',
  'infra-env files',
]);

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(async () => {
  await t.close();
});
beforeEach(() => {
  t.calls.length = 0;
  t.authFailures.length = 0;
});

function send(op: Op, token: string | null, ie = IE_A, cluster = CLUSTER_1) {
  return call(t, op.method, op.path(ie, cluster), {
    token,
    ...(op.body !== undefined ? { body: op.body } : {}),
    ...(op.rawBody !== undefined ? { rawBody: op.rawBody } : {}),
    ...(op.headers ? { headers: op.headers } : {}),
  });
}

describe.each(AGENT_OPS)('$name ($method)', (op) => {
  it('succeeds with the infra-env’s own token', async () => {
    const reply = await send(op, t.token(IE_A));
    expect(reply.status, reply.text).toBeLessThan(300);
    expect(t.calls).toHaveLength(1);
  });

  it('missing X-Secret-Key → 401 unauthenticated (an empty header counts as missing)', async () => {
    for (const token of [null, '']) {
      const reply = await send(op, token);
      expect(expectInfraErrorShape(reply, 401).message).toBe('unauthenticated for invalid credentials');
    }
    expect(t.calls).toEqual([]);
    expect(t.authFailures.map((e) => [e.status, e.scheme])).toEqual([
      [401, 'none'],
      [401, 'none'],
    ]);
  });

  it('forged token → 401 Failed to parse token', async () => {
    const forged = signJwt({ infra_env_id: IE_A }, importKeyPair(generateKeyPairPem()).privateKey);
    const reply = await send(op, forged);
    expect(expectInfraErrorShape(reply, 401).message).toMatch(/^Failed to parse token: .*\n$/);
    expect(t.calls).toEqual([]);
    expect(t.authFailures).toHaveLength(1);
  });

  it('token of another infra-env → 403, or a cluster outside its scope → 403', async () => {
    const reply = INFRA_ENV_SCOPED.has(op.name)
      ? await send(op, t.token(IE_A), IE_B)
      : await send(op, t.token(IE_A), IE_A, CLUSTER_2);
    expect(expectInfraErrorShape(reply, 403).message).toMatch(/^token of infraEnv .* is not authorized for /);
    expect(t.calls).toEqual([]);
    expect(t.authFailures[0]).toMatchObject({ status: 403, scheme: 'agent', subject: { id: IE_A } });
  });

  it('a download URL token in X-Secret-Key → 401', async () => {
    const { token } = t.auth.issueUrlToken('infra-env-files', { kind: 'infra-env', id: IE_A });
    expect((await send(op, token)).status).toBe(401);
    expect(t.calls).toEqual([]);
  });
});

describe('scope across infra-envs of one cluster', () => {
  it('infra-env B’s token reports progress of infra-env A’s host in the shared cluster', async () => {
    const reply = await call(t, 'PUT', `${API}/infra-envs/${IE_A}/hosts/${HOST_A1}/progress`, {
      token: t.token(IE_B),
      body: { current_stage: 'Done' },
    });
    expect(reply.status).toBe(200);
  });

  it('but cannot register hosts into infra-env A', async () => {
    const reply = await call(t, 'POST', `${API}/infra-envs/${IE_A}/hosts`, {
      token: t.token(IE_B),
      body: { host_id: HOST_B1 },
    });
    expect(reply.status).toBe(403);
  });

  it('records that cannot be checked yet → 503 in the error shape (retried by agents)', async () => {
    t.resolver.failing = true;
    try {
      const reply = await call(t, 'GET', `${API}/infra-envs/${IE_A}/hosts/${HOST_A1}/instructions`);
      expectErrorShape(reply, 503);
      expect(t.calls).toEqual([]);
    } finally {
      t.resolver.failing = false;
    }
  });

  it('a deleted infra-env → 401 infraEnv <id> does not exist', async () => {
    t.resolver.infraEnvs.delete(IE_B);
    try {
      const reply = await call(t, 'GET', `${API}/infra-envs/${IE_B}/hosts/${HOST_B1}/instructions`, {
        token: t.token(IE_B),
      });
      expect(expectInfraErrorShape(reply, 401).message).toBe(`infraEnv ${IE_B} does not exist`);
    } finally {
      t.resolver.infraEnvs.add(IE_B);
    }
  });
});

describe('URL-only operations refuse the agent token', () => {
  it.each([
    `${API}/events?infra_env_id=${IE_A}`,
    `${API}/clusters/${CLUSTER_1}/logs?logs_type=host`,
    `${API}/infra-envs/${IE_A}/downloads/minimal-initrd`,
  ])('GET %s with X-Secret-Key only → 401', async (path) => {
    const reply = await call(t, 'GET', path);
    expect(expectInfraErrorShape(reply, 401).message).toBe('unauthenticated for invalid credentials');
    expect(t.calls).toEqual([]);
  });
});
