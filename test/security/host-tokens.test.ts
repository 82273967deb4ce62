// Host-facing credentials (issue 13, items 2 and 4), one row per route and token kind: forged
// (another key), expired, another infra-env's, revoked (token-generation annotation), and — for
// cluster routes — the token of an InfraEnv whose clusterRef names the cluster but that has no
// host in it (the credential-theft path of the issue). Each is refused as upstream would answer
// (401 bad or revoked token, 403 agent token outside its scope, 404 "Object Not Found" for a
// download token of another record), and the legitimate token of each row still gets through.
// Then the cluster files an agent token may never have, whatever the state.
import { createPrivateKey } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../src/api/index.ts';
import { INFRAENV_TOKEN_GENERATION_ANNOTATION } from '../../src/api/index.ts';
import {
  generateKeyPairPem,
  importKeyPair,
  signJwt,
  type TokenSubject,
  tokenGenerationClaim,
  type UrlKind,
} from '../../src/auth/index.ts';
import { imageServicesOf } from '../../src/records/infraenvs/services.ts';
import { AGENT, INFRA_ENV } from '../../src/records/resources.ts';
import { eventually, newNamespace, uniqueName } from '../harness/env.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import {
  clusterDeploymentObject,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallyAci,
  snoAciObject,
} from '../integration/cluster/harness.ts';
import { call, inventory } from '../integration/hosts/helpers.ts';

const EIGHT_DAYS_MS = 8 * 24 * 3600 * 1000;
const GENERATION = 'rotated-1';

let op: TestOperator;
let ns: string;
let own: InfraEnv;
let foreign: InfraEnv;
let refOnly: InfraEnv;
let clusterId: string;
const hostId = '5a6b7c8d-0000-4000-8000-000000000001';
/** Tokens by kind, filled in beforeAll. */
const agentTokens: Record<string, string> = {};
const urlTokens: Record<string, Partial<Record<UrlKind, string>>> = {};

const uid = (ie: InfraEnv) => ie.metadata.uid ?? '';
const ieSubject = (ie: InfraEnv): TokenSubject => ({ kind: 'infra-env', id: uid(ie) });

function createInfraEnv(name: string, clusterName?: string): Promise<InfraEnv> {
  return op.ctx.client.create<InfraEnv>(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace: ns },
    spec: {
      pullSecretRef: { name: 'pull-secret' },
      ...(clusterName ? { clusterRef: { name: clusterName, namespace: ns } } : {}),
    },
  } as InfraEnv);
}

function forgedToken(claims: Record<string, unknown>): string {
  return signJwt(claims, importKeyPair(generateKeyPairPem()).privateKey);
}

beforeAll(async () => {
  ns = await newNamespace('sec-tokens');
  op = await startTestOperator({ namespace: ns, env: { WATCH_NAMESPACE: ns } });
  const client = op.ctx.client;
  await createPullSecret(client, ns);
  const cis = await createImageSet(client);
  const cluster = uniqueName('c');
  await createCluster(client, clusterDeploymentObject(ns, cluster), snoAciObject(ns, cluster, cis));
  own = await createInfraEnv('own', cluster);
  foreign = await createInfraEnv('foreign');
  refOnly = await createInfraEnv('ref-only', cluster);
  const aci = await eventuallyAci(
    client,
    ns,
    cluster,
    (a) => !!a.status?.backend?.clusterID,
    'cluster registered',
  );
  clusterId = aci.status?.backend?.clusterID ?? '';
  await eventually(async () => [own, foreign, refOnly].every((ie) => op.ctx.infraEnvById(uid(ie))), {
    what: 'InfraEnvs in cache',
  });

  // The host registers with the token its image carried: the one that gets revoked.
  const auth = op.server.auth;
  const before = auth.issueAgentToken(ieSubject(own));
  const registered = await call(op.baseUrl, 'POST', `/v2/infra-envs/${uid(own)}/hosts`, {
    token: before,
    body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
  });
  expect(registered.status, registered.text).toBe(201);
  await eventually(
    async () => op.ctx.informers.agents.get(ns, hostId)?.status?.backend?.clusterID === clusterId,
    { what: 'host bound in the cache' },
  );
  const urlKinds: UrlKind[] = ['iso', 'pxe-initrd', 'infra-env-files', 'events'];
  urlTokens.revoked = Object.fromEntries(
    urlKinds.map((k) => [k, auth.issueUrlToken(k, ieSubject(own)).token]),
  );
  agentTokens.revoked = before;

  await client.patch(INFRA_ENV, 'own', ns, 'merge', {
    metadata: { annotations: { [INFRAENV_TOKEN_GENERATION_ANNOTATION]: GENERATION } },
  });
  await eventually(
    async () =>
      op.ctx.infraEnvById(uid(own))?.metadata.annotations?.[INFRAENV_TOKEN_GENERATION_ANNOTATION] ===
      GENERATION,
    { what: 'revocation in the cache' },
  );

  const cluster1: TokenSubject = { kind: 'cluster', id: clusterId };
  const past = new Date(Date.now() - EIGHT_DAYS_MS);
  const signingKey = createPrivateKey(auth.keyPairPem.privateKeyPem);
  agentTokens.legit = auth.issueAgentToken(ieSubject(own));
  agentTokens.forged = forgedToken({ infra_env_id: uid(own) });
  agentTokens.expired = signJwt(
    {
      infra_env_id: uid(own),
      token_generation: tokenGenerationClaim(GENERATION),
      exp: Math.floor(past.getTime() / 1000),
    },
    signingKey,
  );
  agentTokens.foreign = auth.issueAgentToken(ieSubject(foreign));
  agentTokens['clusterRef only'] = auth.issueAgentToken(ieSubject(refOnly));
  const urlOf = (subject: TokenSubject, at?: Date) =>
    Object.fromEntries(
      [...urlKinds, 'cluster-logs' as const].map((k) => [k, auth.issueUrlToken(k, subject, at).token]),
    );
  urlTokens.legit = {
    ...urlOf(ieSubject(own)),
    'cluster-logs': auth.issueUrlToken('cluster-logs', cluster1).token,
  };
  urlTokens.expired = {
    ...urlOf(ieSubject(own), past),
    'cluster-logs': auth.issueUrlToken('cluster-logs', cluster1, past).token,
  };
  urlTokens.foreign = urlOf(ieSubject(foreign));
  urlTokens.forged = Object.fromEntries(
    [...urlKinds, 'cluster-logs'].map((k) => [
      k,
      forgedToken({ infra_env_id: uid(own), url_kind: k, exp: Math.floor(Date.now() / 1000) + 3600 }),
    ]),
  );
}, 90_000);

afterAll(async () => {
  await op?.stop();
});

interface Route {
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  path: () => string;
  body?: () => unknown;
  /** Agent-token route, or the download-token kind it takes. */
  scheme: 'agent' | UrlKind;
  /** Names a cluster (the clusterRef-only token is tried on it). */
  cluster?: boolean;
  /** Where the download token goes: query (default) or the image service path. */
  tokenIn?: 'query' | 'path';
}

const hostPath = () => `/v2/infra-envs/${uid(own)}/hosts/${hostId}`;
const clusterPath = () => `/v2/clusters/${clusterId}`;

const ROUTES: Route[] = [
  {
    name: 'register host',
    method: 'POST',
    path: () => `/v2/infra-envs/${uid(own)}/hosts`,
    body: () => ({ host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage }),
    scheme: 'agent',
  },
  { name: 'get next steps', method: 'GET', path: () => `${hostPath()}/instructions`, scheme: 'agent' },
  {
    name: 'post step reply',
    method: 'POST',
    path: () => `${hostPath()}/instructions`,
    body: () => ({
      step_type: 'inventory',
      step_id: 'inventory-1',
      exit_code: 0,
      output: inventory('h', '52:54:00:00:01:01'),
    }),
    scheme: 'agent',
  },
  {
    name: 'host logs progress',
    method: 'PUT',
    path: () => `${hostPath()}/logs-progress`,
    body: () => ({ logs_state: 'requested' }),
    scheme: 'agent',
  },
  {
    name: 'host install progress',
    method: 'PUT',
    path: () => `${hostPath()}/progress`,
    body: () => ({ current_stage: 'Installing' }),
    scheme: 'agent',
  },
  {
    name: 'host ignition',
    method: 'GET',
    path: () => `/v2/infra-env/${uid(own)}/hosts/${hostId}/downloads/ignition`,
    scheme: 'agent',
  },
  { name: 'get infra-env', method: 'GET', path: () => `/v2/infra-envs/${uid(own)}`, scheme: 'agent' },
  {
    name: 'infra-env files (agent)',
    method: 'GET',
    path: () => `/v2/infra-envs/${uid(own)}/downloads/files?file_name=discovery.ign`,
    scheme: 'agent',
  },
  {
    name: 'post event',
    method: 'POST',
    path: () => '/v2/events',
    body: () => ({
      severity: 'info',
      message: 'x',
      event_time: new Date().toISOString(),
      infra_env_id: uid(own),
    }),
    scheme: 'agent',
  },
  { name: 'get cluster', method: 'GET', path: clusterPath, scheme: 'agent', cluster: true },
  {
    name: 'list cluster hosts',
    method: 'GET',
    path: () => `${clusterPath()}/hosts`,
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'cluster files (bootstrap.ign)',
    method: 'GET',
    path: () => `${clusterPath()}/downloads/files?file_name=bootstrap.ign`,
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'cluster credentials (kubeconfig-noingress)',
    method: 'GET',
    path: () => `${clusterPath()}/downloads/credentials?file_name=kubeconfig-noingress`,
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'cluster logs progress',
    method: 'PUT',
    path: () => `${clusterPath()}/logs-progress`,
    body: () => ({ logs_state: 'requested' }),
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'cluster finalizing progress',
    method: 'PUT',
    path: () => `${clusterPath()}/progress`,
    body: () => ({ finalizing_stage: 'Done' }),
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'list monitored operators',
    method: 'GET',
    path: () => `${clusterPath()}/monitored-operators`,
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'report monitored operator',
    method: 'PUT',
    path: () => `${clusterPath()}/monitored-operators`,
    body: () => ({ name: 'console', status: 'available' }),
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'upload ingress cert',
    method: 'POST',
    path: () => `${clusterPath()}/uploads/ingress-cert`,
    body: () => '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'complete installation',
    method: 'POST',
    path: () => `${clusterPath()}/actions/complete-installation`,
    body: () => ({ is_success: false, error_info: 'probe' }),
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'upload logs',
    method: 'POST',
    path: () => `${clusterPath()}/logs?logs_type=host&infra_env_id=${uid(own)}&host_id=${hostId}`,
    scheme: 'agent',
    cluster: true,
  },
  {
    name: 'infra-env files (api_key)',
    method: 'GET',
    path: () => `/v2/infra-envs/${uid(own)}/downloads/files?file_name=discovery.ign`,
    scheme: 'infra-env-files',
  },
  {
    name: 'get infra-env (api_key)',
    method: 'GET',
    path: () => `/v2/infra-envs/${uid(own)}`,
    scheme: 'infra-env-files',
  },
  {
    name: 'minimal initrd (api_key)',
    method: 'GET',
    path: () => `/v2/infra-envs/${uid(own)}/downloads/minimal-initrd`,
    scheme: 'pxe-initrd',
  },
  {
    name: 'list events (api_key)',
    method: 'GET',
    path: () => `/v2/events?infra_env_id=${uid(own)}`,
    scheme: 'events',
  },
  {
    name: 'download cluster logs (api_key)',
    method: 'GET',
    path: () => `${clusterPath()}/logs`,
    scheme: 'cluster-logs',
  },
  {
    name: 'image service ISO (path token)',
    method: 'GET',
    path: () => '/byapikey/{token}/4.18/x86_64/full.iso',
    scheme: 'iso',
    tokenIn: 'path',
  },
  {
    name: 'image service ISO long form (api_key)',
    method: 'GET',
    path: () => `/images/${uid(own)}?type=full-iso&version=4.18&arch=x86_64`,
    scheme: 'iso',
  },
  {
    name: 'image service PXE initrd (api_key)',
    method: 'GET',
    path: () => `/images/${uid(own)}/pxe-initrd?version=4.18&arch=x86_64`,
    scheme: 'pxe-initrd',
  },
];

type Expected = 401 | 403 | 404;
function expectedFor(route: Route, kind: string): Expected | undefined {
  const agent = route.scheme === 'agent';
  switch (kind) {
    case 'forged':
    case 'expired':
      return 401;
    case 'revoked':
      // Cluster-logs tokens are the cluster's, not the infra-env's: not revoked with it.
      return route.scheme === 'cluster-logs' ? undefined : 401;
    case 'foreign':
      // A path token opens its own infra-env's image: nothing to compare against.
      if (route.tokenIn === 'path') return undefined;
      return agent ? 403 : 404;
    case 'clusterRef only':
      return agent && route.cluster ? 403 : undefined;
    default:
      return undefined;
  }
}

async function send(route: Route, token: string) {
  if (route.scheme === 'agent') {
    const body = route.body?.();
    return call(op.baseUrl, route.method, route.path(), {
      token,
      ...(body === undefined ? {} : { body }),
    });
  }
  let path = route.path();
  let url: string;
  if (route.tokenIn === 'path') {
    url = `${op.ctx.urls.imageServiceBaseUrl}${path.replace('{token}', token)}`;
  } else {
    path += `${path.includes('?') ? '&' : '?'}api_key=${encodeURIComponent(token)}`;
    url = path.startsWith('/images/') ? `${op.baseUrl}${path}` : `${op.baseUrl}/api/assisted-install${path}`;
  }
  const res = await request(url, { method: route.method });
  const text = await res.body.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, body, text };
}

function tokenFor(route: Route, kind: string): string | undefined {
  return route.scheme === 'agent' ? agentTokens[kind] : urlTokens[kind]?.[route.scheme];
}

const KINDS = ['forged', 'expired', 'foreign', 'revoked', 'clusterRef only'];
const refusals = ROUTES.flatMap((route) =>
  KINDS.flatMap((kind) => {
    const expected = expectedFor(route, kind);
    return expected === undefined ? [] : [{ route: route.name, kind, expected }];
  }),
);

describe('host-facing routes refuse tokens that do not open them', () => {
  it.each(refusals)('$route, $kind token → $expected', async ({ route: name, kind, expected }) => {
    const route = ROUTES.find((r) => r.name === name)!;
    const token = tokenFor(route, kind);
    expect(token, `${kind} token for ${route.scheme}`).toBeDefined();
    const reply = await send(route, token!);
    expect(reply.status, reply.text).toBe(expected);
    // Upstream's middleware shape for every refusal: {"code": <status>, "message": …}.
    expect(reply.body).toMatchObject({ code: expected, message: expect.any(String) });
    if (expected === 404) expect(reply.body).toMatchObject({ message: 'Object Not Found' });
    if (kind === 'revoked') expect((reply.body as { message: string }).message).toContain('revoked');
  });

  it.each(ROUTES.map((r) => ({ route: r.name })))(
    '$route, legitimate token → through',
    async ({ route: name }) => {
      const route = ROUTES.find((r) => r.name === name)!;
      const reply = await send(route, tokenFor(route, 'legit')!);
      expect([401, 403], `${reply.status} ${reply.text}`).not.toContain(reply.status);
      expect(reply.body ?? {}, reply.text).not.toMatchObject({ message: 'Object Not Found' });
      expect(reply.status, reply.text).toBeLessThan(500);
    },
  );
});

describe('cluster files an agent token never gets', () => {
  const never = [
    'credentials?file_name=kubeadmin-password',
    'credentials?file_name=kubeconfig',
    'files?file_name=install-config.yaml',
    'files?file_name=metadata.json',
    'files?file_name=master.ign',
    'files?file_name=worker.ign',
    'files?file_name=custom_manifests.yaml',
  ];
  it.each(never)('%s → 403 even for the bound host’s own token', async (file) => {
    const reply = await call(op.baseUrl, 'GET', `${clusterPath()}/downloads/${file}`, {
      token: agentTokens.legit,
    });
    expect(reply.status, reply.text).toBe(403);
    expect(reply.body).toMatchObject({
      code: 403,
      message: expect.stringContaining('not served to agent tokens'),
    });
  });

  it('after revocation the image is built with a fresh token that works, the Agent untouched', async () => {
    const agent = await op.ctx.client.get<Agent>(AGENT, hostId, ns);
    expect(agent.metadata.ownerReferences?.[0]?.uid).toBe(uid(own));
    // The token the discovery image is built with (no OS image here, so no ISO is served).
    const baked = imageServicesOf(op.ctx).agentToken(uid(own));
    expect(baked).not.toBe(agentTokens.revoked);
    const poll = await call(op.baseUrl, 'GET', `${hostPath()}/instructions`, { token: baked });
    expect(poll.status, poll.text).toBe(200);
    const old = await call(op.baseUrl, 'GET', `${hostPath()}/instructions`, { token: agentTokens.revoked });
    expect(old.status).toBe(401);
  });
});
