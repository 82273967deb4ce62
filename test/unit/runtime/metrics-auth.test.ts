import { createSecureContext } from 'node:tls';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../../../src/runtime/client.ts';
import {
  MAX_BEARER_TOKEN_BYTES,
  MetricsAuthorizer,
  metricsCertificate,
} from '../../../src/runtime/metrics-auth.ts';

type Body = { spec: Record<string, unknown> };

/** A KubeClient that answers TokenReviews from `tokens` (token → user) and SARs from `readers`. */
function fakeClient(tokens: Record<string, string>, readers: string[], fail?: 'tokenreview' | 'sar') {
  const calls: { path: string; body: Body }[] = [];
  const client = {
    async request(_method: string, path: string, opts: { body: Body }) {
      calls.push({ path, body: opts.body });
      if (path.endsWith('/tokenreviews')) {
        if (fail === 'tokenreview') throw new Error('connection refused');
        const user = tokens[String(opts.body.spec.token)];
        return { status: user ? { authenticated: true, user: { username: user, groups: ['g'] } } : {} };
      }
      if (fail === 'sar') throw new Error('connection refused');
      return { status: { allowed: readers.includes(String(opts.body.spec.user)) } };
    },
  };
  return { client: client as unknown as KubeClient, calls };
}

describe('MetricsAuthorizer', () => {
  const tokens = { good: 'prometheus', other: 'tenant' };
  it.each([
    [undefined, 401],
    ['', 401],
    ['Basic dXNlcjpwYXNz', 401],
    ['Bearer ', 401],
    ['Bearer forged', 401],
    [`Bearer ${'x'.repeat(MAX_BEARER_TOKEN_BYTES + 1)}`, 401],
    ['Bearer other', 403],
    ['Bearer good', 200],
    ['bearer good', 200],
  ])('%j → %i', async (header, code) => {
    const { client } = fakeClient(tokens, ['prometheus']);
    const access = await new MetricsAuthorizer(client).check(header);
    expect(access.ok ? 200 : access.code).toBe(code);
  });

  it('asks for get on the non-resource URL /metrics as the token’s user', async () => {
    const { client, calls } = fakeClient(tokens, ['prometheus']);
    expect(await new MetricsAuthorizer(client).check('Bearer good')).toEqual({
      ok: true,
      user: 'prometheus',
    });
    expect(calls[1]?.body.spec).toEqual({
      user: 'prometheus',
      groups: ['g'],
      nonResourceAttributes: { path: '/metrics', verb: 'get' },
    });
  });

  it('caches decisions per token for their TTL, failures not at all', async () => {
    let now = 0;
    const { client, calls } = fakeClient(tokens, ['prometheus']);
    const auth = new MetricsAuthorizer(client, { allowTtlMs: 1000, denyTtlMs: 100, now: () => now });
    await auth.check('Bearer good');
    await auth.check('Bearer good');
    await auth.check('Bearer other');
    await auth.check('Bearer other');
    expect(calls).toHaveLength(4);
    now = 200;
    await auth.check('Bearer good');
    await auth.check('Bearer other');
    expect(calls).toHaveLength(6);
    const failing = fakeClient(tokens, ['prometheus'], 'sar');
    const f = new MetricsAuthorizer(failing.client);
    expect(await f.check('Bearer good')).toMatchObject({ ok: false, code: 500 });
    await f.check('Bearer good');
    expect(failing.calls).toHaveLength(4);
  });

  it('never keeps more than maxEntries decisions', async () => {
    const many = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`t${i}`, `u${i}`]));
    const { client, calls } = fakeClient(many, []);
    const auth = new MetricsAuthorizer(client, { maxEntries: 3 });
    for (let i = 0; i < 10; i++) await auth.check(`Bearer t${i}`);
    await auth.check('Bearer t9');
    expect(calls).toHaveLength(20);
    await auth.check('Bearer t0');
    expect(calls).toHaveLength(22);
  });

  it('answers 500 when the TokenReview cannot be made', async () => {
    const { client } = fakeClient(tokens, [], 'tokenreview');
    expect(await new MetricsAuthorizer(client).check('Bearer good')).toMatchObject({ ok: false, code: 500 });
  });
});

describe('metricsCertificate', () => {
  it('self-signs a chain TLS accepts when no directory has one', async () => {
    const pair = await metricsCertificate('/nonexistent', pino({ level: 'silent' }));
    expect(() => createSecureContext({ cert: pair.certPem, key: pair.keyPem })).not.toThrow();
    expect(pair.certPem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });
});
