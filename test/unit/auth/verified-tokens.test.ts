// The memo of good tokens (LocalAuth.check): a token is verified by its ECDSA signature once, and a
// token this process has just signed not at all. The signature checks are counted on node:crypto.
import * as nodeCrypto from 'node:crypto';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { type AuthRequest, LocalAuth, MemoryKeyStore } from '../../../src/auth/index.ts';
import { IE_A, TestResolver } from '../server/api/helpers.ts';

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return { ...original, verify: vi.fn(original.verify) };
});
const verify = vi.mocked(nodeCrypto.verify);

let now: Date;
let auth: LocalAuth;

beforeEach(async () => {
  now = new Date('2026-03-01T00:00:00Z');
  auth = await LocalAuth.create({
    keyStore: new MemoryKeyStore(),
    resolver: new TestResolver(),
    events: { authFailure: () => {} },
    urlTokenTtlSeconds: 3600,
    reissueBeforeSeconds: 600,
    now: () => now,
  });
  verify.mockClear();
});

const agentRequest = (token: string): AuthRequest => ({
  method: 'GET',
  path: '/x',
  remoteAddress: '127.0.0.1',
  agentToken: token,
  accepts: { agent: true },
  target: { infraEnvId: IE_A },
});
const eventsUrl = 'https://svc.example/api/assisted-install/v2/events?host_id=h1';

describe('signature checks of good tokens', () => {
  it('a URL this process has just signed reads back its expiry without a signature check', () => {
    const issued = auth.issueDownloadUrl(eventsUrl, 'events', { kind: 'infra-env', id: IE_A });
    expect(auth.urlExpiry(issued.url)).toEqual(issued.expiresAt);
    expect(verify).not.toHaveBeenCalled();
  });

  it('an agent token this process has just signed opens its infra-env without a signature check', async () => {
    const token = auth.issueAgentToken({ kind: 'infra-env', id: IE_A });
    expect(await auth.authenticate(agentRequest(token))).toMatchObject({ ok: true });
    expect(verify).not.toHaveBeenCalled();
  });

  it('a token signed elsewhere with the same keys is checked once, then remembered', async () => {
    const token = auth.issueAgentToken({ kind: 'infra-env', id: IE_A });
    const sameKeys = await LocalAuth.create({
      keyStore: new MemoryKeyStore(auth.keyPairPem),
      resolver: new TestResolver(),
      events: { authFailure: () => {} },
      now: () => now,
    });
    for (let i = 0; i < 3; i++)
      expect(await sameKeys.authenticate(agentRequest(token))).toMatchObject({ ok: true });
    expect(verify).toHaveBeenCalledTimes(1);
  });

  it('a remembered URL token still expires: checked afresh, and refused, after its exp', () => {
    const issued = auth.issueDownloadUrl(eventsUrl, 'events', { kind: 'infra-env', id: IE_A });
    now = new Date(issued.expiresAt.getTime());
    expect(auth.urlExpiry(issued.url)).toBeUndefined();
    expect(verify).toHaveBeenCalledTimes(1);
  });
});
