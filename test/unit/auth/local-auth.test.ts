import { beforeEach, describe, expect, it } from 'vitest';
import {
  type AuthFailureEvent,
  type AuthRequest,
  LocalAuth,
  MemoryKeyStore,
  signJwt,
} from '../../../src/auth/index.ts';
import { generateKeyPairPem, importKeyPair } from '../../../src/auth/keys.ts';
import {
  CLUSTER_1,
  CLUSTER_2,
  HOST_A1,
  HOST_B1,
  HOST_C1,
  IE_A,
  IE_B,
  IE_C,
  TestResolver,
  UNKNOWN_ID,
} from '../server/api/helpers.ts';

let now = new Date('2026-03-01T00:00:00Z');
let resolver: TestResolver;
let events: AuthFailureEvent[];
let auth: LocalAuth;

beforeEach(async () => {
  now = new Date('2026-03-01T00:00:00Z');
  resolver = new TestResolver();
  events = [];
  auth = await LocalAuth.create({
    keyStore: new MemoryKeyStore(),
    resolver,
    events: { authFailure: (e) => events.push(e) },
    urlTokenTtlSeconds: 3600,
    reissueBeforeSeconds: 600,
    now: () => now,
  });
});

const agent = (token: string | undefined, target: AuthRequest['target']): AuthRequest => ({
  method: 'GET',
  path: '/x',
  remoteAddress: '127.0.0.1',
  ...(token !== undefined ? { agentToken: token } : {}),
  accepts: { agent: true },
  target,
});
const url = (
  token: string,
  kinds: AuthRequest['accepts']['url'],
  target: AuthRequest['target'],
): AuthRequest => ({
  method: 'GET',
  path: '/y',
  urlToken: token,
  accepts: { url: kinds },
  target,
});
const ieToken = (id: string) => auth.issueAgentToken({ kind: 'infra-env', id });

describe('agent tokens (X-Secret-Key)', () => {
  it('use upstream claims exactly: {"infra_env_id": id}, no expiry', () => {
    const payload = ieToken(IE_A).split('.')[1]!;
    expect(Buffer.from(payload, 'base64url').toString()).toBe(`{"infra_env_id":"${IE_A}"}`);
  });

  it('open their own infra-env without a resolver round trip', async () => {
    const result = await auth.authenticate(agent(ieToken(IE_A), { infraEnvId: IE_A, hostId: HOST_A1 }));
    expect(result).toEqual({
      ok: true,
      principal: { scheme: 'agent', subject: { kind: 'infra-env', id: IE_A } },
    });
    expect(resolver.coversCalls).toEqual([]);
    expect(events).toEqual([]);
  });

  it('compare ids case-insensitively', async () => {
    const result = await auth.authenticate(agent(ieToken(IE_A), { infraEnvId: IE_A.toUpperCase() }));
    expect(result.ok).toBe(true);
  });

  it('missing or empty credential → 401 unauthenticated, with an event', async () => {
    for (const token of [undefined, '']) {
      expect(await auth.authenticate(agent(token, { infraEnvId: IE_A }))).toEqual({
        ok: false,
        status: 401,
        reason: 'unauthenticated for invalid credentials',
      });
    }
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({
      status: 401,
      scheme: 'none',
      method: 'GET',
      path: '/x',
      remoteAddress: '127.0.0.1',
    });
  });

  it('forged (other key) → 401 "Failed to parse token: …\\n"', async () => {
    const foreign = importKeyPair(generateKeyPairPem());
    const forged = signJwt({ infra_env_id: IE_A }, foreign.privateKey);
    const result = await auth.authenticate(agent(forged, { infraEnvId: IE_A }));
    expect(result).toEqual({
      ok: false,
      status: 401,
      reason: 'Failed to parse token: token signature is invalid: crypto/ecdsa: verification error\n',
    });
    expect(events[0]).toMatchObject({ status: 401, scheme: 'agent' });
  });

  it('claims without ids → 401 claims are incorrectly formatted', async () => {
    const keys = auth.keyPairPem;
    const token = signJwt({ sub: IE_A }, importKeyPair(keys).privateKey);
    expect(await auth.authenticate(agent(token, { infraEnvId: IE_A }))).toMatchObject({
      status: 401,
      reason: 'claims are incorrectly formatted',
    });
  });

  it('token of a deleted infra-env → 401 infraEnv <id> does not exist', async () => {
    resolver.infraEnvs.delete(IE_A);
    expect(await auth.authenticate(agent(ieToken(IE_A), { infraEnvId: IE_A }))).toEqual({
      ok: false,
      status: 401,
      reason: `infraEnv ${IE_A} does not exist`,
    });
    const clusterToken = auth.issueAgentToken({ kind: 'cluster', id: UNKNOWN_ID });
    expect(await auth.authenticate(agent(clusterToken, { clusterId: UNKNOWN_ID }))).toMatchObject({
      status: 401,
      reason: `Cluster ${UNKNOWN_ID} does not exist`,
    });
  });

  it('another infra-env on the path → 403, never asking the resolver', async () => {
    const result = await auth.authenticate(agent(ieToken(IE_A), { infraEnvId: IE_B }));
    expect(result).toEqual({
      ok: false,
      status: 403,
      reason: `token of infraEnv ${IE_A} is not authorized for infraEnv ${IE_B}`,
    });
    expect(resolver.coversCalls).toEqual([]);
    expect(events[0]).toMatchObject({
      status: 403,
      scheme: 'agent',
      subject: { kind: 'infra-env', id: IE_A },
      target: { infraEnvId: IE_B },
    });
  });

  it('a host of another infra-env in the same cluster is covered (installer/controller of a shared cluster)', async () => {
    expect((await auth.authenticate(agent(ieToken(IE_A), { infraEnvId: IE_B, hostId: HOST_B1 }))).ok).toBe(
      true,
    );
    const outside = await auth.authenticate(agent(ieToken(IE_A), { infraEnvId: IE_C, hostId: HOST_C1 }));
    expect(outside).toMatchObject({ ok: false, status: 403 });
  });

  it('clusters: the infra-env’s cluster is open, another cluster is not', async () => {
    expect((await auth.authenticate(agent(ieToken(IE_A), { clusterId: CLUSTER_1 }))).ok).toBe(true);
    expect((await auth.authenticate(agent(ieToken(IE_B), { clusterId: CLUSTER_1 }))).ok).toBe(true);
    expect(await auth.authenticate(agent(ieToken(IE_A), { clusterId: CLUSTER_2 }))).toMatchObject({
      status: 403,
    });
  });

  it('cluster tokens open their cluster and its hosts only', async () => {
    const token = auth.issueAgentToken({ kind: 'cluster', id: CLUSTER_1 });
    expect((await auth.authenticate(agent(token, { clusterId: CLUSTER_1, hostId: HOST_B1 }))).ok).toBe(true);
    expect((await auth.authenticate(agent(token, { infraEnvId: IE_B, hostId: HOST_B1 }))).ok).toBe(true);
    expect(await auth.authenticate(agent(token, { clusterId: CLUSTER_2 }))).toMatchObject({ status: 403 });
  });

  it('records that cannot be checked yet → 503 (the agent retries), not 401', async () => {
    resolver.failing = true;
    const result = await auth.authenticate(agent(ieToken(IE_A), { infraEnvId: IE_A }));
    expect(result).toMatchObject({ ok: false, status: 503 });
    expect(events[0]?.reason).toContain('cache not synced');
  });

  it('a download URL token is not an agent token', async () => {
    const { token } = auth.issueUrlToken('events', { kind: 'infra-env', id: IE_A });
    expect(await auth.authenticate(agent(token, { infraEnvId: IE_A }))).toMatchObject({ status: 401 });
  });

  it('a throwing event sink does not change the answer', async () => {
    const loud = await LocalAuth.create({
      keyStore: new MemoryKeyStore(),
      resolver,
      events: {
        authFailure: () => {
          throw new Error('sink down');
        },
      },
    });
    expect(await loud.authenticate(agent(undefined, { infraEnvId: IE_A }))).toMatchObject({ status: 401 });
  });
});

describe('revocation (InfraEnv token-generation annotation)', () => {
  it('tokens issued before a revocation get 401 on every scheme; fresh ones work', async () => {
    const oldAgent = ieToken(IE_A);
    const oldUrl = auth.issueUrlToken('infra-env-files', { kind: 'infra-env', id: IE_A }).token;
    const oldIso = auth.issueUrlToken('iso', { kind: 'infra-env', id: IE_A }).token;
    resolver.generations.set(IE_A, '1');

    const revoked = { ok: false, status: 401, reason: `token of infraEnv ${IE_A} has been revoked` };
    expect(await auth.authenticate(agent(oldAgent, { infraEnvId: IE_A }))).toEqual(revoked);
    expect(await auth.authenticate(url(oldUrl, ['infra-env-files'], { infraEnvId: IE_A }))).toEqual(revoked);
    expect(await auth.authenticatePathToken(oldIso, ['iso'], { method: 'GET', path: '/byapikey' })).toEqual(
      revoked,
    );
    expect(events.at(-1)).toMatchObject({ status: 401, scheme: 'url' });

    const fresh = ieToken(IE_A);
    expect(JSON.parse(Buffer.from(fresh.split('.')[1]!, 'base64url').toString())).toEqual({
      infra_env_id: IE_A,
      token_generation: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
    });
    expect((await auth.authenticate(agent(fresh, { infraEnvId: IE_A }))).ok).toBe(true);
    // Another infra-env's tokens are untouched.
    expect((await auth.authenticate(agent(ieToken(IE_B), { infraEnvId: IE_B }))).ok).toBe(true);

    // Bumping again revokes the generation-1 token too.
    resolver.generations.set(IE_A, '2');
    expect(await auth.authenticate(agent(fresh, { infraEnvId: IE_A }))).toEqual(revoked);
  });

  it('a revoked download URL has no expiry, so status writers re-issue it', () => {
    const issued = auth.issueDownloadUrl('http://svc/x?file_name=discovery.ign', 'infra-env-files', {
      kind: 'infra-env',
      id: IE_A,
    });
    expect(auth.urlExpiry(issued.url)).toEqual(issued.expiresAt);
    resolver.generations.set(IE_A, 'rotated');
    expect(auth.urlExpiry(issued.url)).toBeUndefined();
  });

  it('a forged generation claim does not survive the signature check', async () => {
    resolver.generations.set(IE_A, '1');
    const good = ieToken(IE_A);
    const [h, , sig] = good.split('.');
    const claims = Buffer.from(JSON.stringify({ infra_env_id: IE_A, token_generation: 'x' })).toString(
      'base64url',
    );
    const result = await auth.authenticate(agent(`${h}.${claims}.${sig}`, { infraEnvId: IE_A }));
    expect(result).toMatchObject({ ok: false, status: 401 });
  });
});

describe('download URL tokens (api_key)', () => {
  it('open their record for their URL kind until they expire', async () => {
    const { token, expiresAt } = auth.issueUrlToken('infra-env-files', { kind: 'infra-env', id: IE_A });
    expect(expiresAt.toISOString()).toBe('2026-03-01T01:00:00.000Z');
    const result = await auth.authenticate(url(token, ['infra-env-files'], { infraEnvId: IE_A }));
    expect(result).toEqual({
      ok: true,
      principal: {
        scheme: 'url',
        subject: { kind: 'infra-env', id: IE_A },
        urlKind: 'infra-env-files',
        expiresAt,
      },
    });
    now = new Date('2026-03-01T01:00:00Z');
    expect(await auth.authenticate(url(token, ['infra-env-files'], { infraEnvId: IE_A }))).toEqual({
      ok: false,
      status: 401,
      reason: 'Failed to parse token: token has invalid claims: token is expired\n',
    });
  });

  it('another URL kind or another record → 404 Object Not Found (as upstream scope checks)', async () => {
    const { token } = auth.issueUrlToken('events', { kind: 'infra-env', id: IE_A });
    expect(await auth.authenticate(url(token, ['infra-env-files'], { infraEnvId: IE_A }))).toEqual({
      ok: false,
      status: 404,
      reason: 'Object Not Found',
    });
    expect(events.at(-1)?.reason).toBe('api_key for events URLs does not open this URL');
    expect(await auth.authenticate(url(token, ['events'], { infraEnvId: IE_B }))).toMatchObject({
      status: 404,
    });
    expect(await auth.authenticate(url(token, ['events'], {}))).toMatchObject({ status: 404 });
  });

  it('an agent token is not a download token', async () => {
    expect(await auth.authenticate(url(ieToken(IE_A), ['events'], { infraEnvId: IE_A }))).toEqual({
      ok: false,
      status: 401,
      reason: 'api_key is not a download URL token',
    });
  });

  it('path tokens (image service /byapikey/) open their own subject', async () => {
    const { token } = auth.issueUrlToken('iso', { kind: 'infra-env', id: IE_A });
    const meta = { method: 'GET', path: '/byapikey/…' };
    expect(await auth.authenticatePathToken(token, ['iso'], meta)).toMatchObject({
      ok: true,
      principal: { subject: { id: IE_A }, urlKind: 'iso' },
    });
    expect(await auth.authenticatePathToken(token, ['pxe-initrd'], meta)).toMatchObject({ status: 404 });
  });

  it('issueDownloadUrl signs, urlExpiry reads back, needsReissue tells when to renew', () => {
    const issued = auth.issueDownloadUrl(
      `https://svc.example/api/assisted-install/v2/infra-envs/${IE_A}/downloads/files?file_name=ipxe-script`,
      'infra-env-files',
      { kind: 'infra-env', id: IE_A },
    );
    expect(issued.url).toMatch(/\?api_key=[\w-]+\.[\w-]+\.[\w-]+&file_name=ipxe-script$/);
    expect(auth.urlExpiry(issued.url)).toEqual(issued.expiresAt);
    expect(auth.needsReissue(issued.expiresAt)).toBe(false);
    expect(auth.reissueAt(issued.expiresAt).toISOString()).toBe('2026-03-01T00:50:00.000Z');
    now = new Date('2026-03-01T00:50:00Z');
    expect(auth.needsReissue(issued.expiresAt)).toBe(true);
    // Unknown expiry: no token, an upstream-style token, a token of other keys.
    expect(auth.urlExpiry('https://svc.example/x')).toBeUndefined();
    expect(auth.urlExpiry(`https://svc.example/x?api_key=${ieToken(IE_A)}`)).toBeUndefined();
    expect(auth.needsReissue(undefined)).toBe(true);
  });

  it('refuses a TTL shorter than the re-issue head start', async () => {
    await expect(
      LocalAuth.create({
        keyStore: new MemoryKeyStore(),
        resolver,
        events: { authFailure: () => {} },
        urlTokenTtlSeconds: 60,
        reissueBeforeSeconds: 60,
      }),
    ).rejects.toThrow(/reissueBeforeSeconds/);
  });
});
