// Routing, extra handlers, probes, unknown paths and methods, component versions.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Router } from '../../../../src/server/api/router.ts';
import { capturingLogger } from '../../../harness/log-capture.ts';
import {
  API,
  call,
  expectErrorShape,
  expectInfraErrorShape,
  IE_A,
  startTestServer,
  type TestServer,
} from './helpers.ts';

describe('Router', () => {
  it('matches parameters, prefers literals, lists allowed methods and refuses duplicates', () => {
    const router = new Router();
    const a = () => {};
    const b = () => {};
    router.add('GET', '/v2/things/{id}', a);
    router.add('get', '/v2/things/special', b);
    router.add('PUT', '/v2/things/{id}', a);
    expect(router.match('GET', '/v2/things/x%2Fy')).toMatchObject({
      kind: 'found',
      handler: a,
      params: { id: 'x/y' },
    });
    expect(router.match('GET', '/v2/things/special')).toMatchObject({ kind: 'found', handler: b });
    expect(router.match('DELETE', '/v2/things/1')).toEqual({
      kind: 'method-not-allowed',
      allowed: ['GET', 'PUT'],
    });
    expect(router.match('GET', '/v2/things/')).toEqual({ kind: 'not-found' });
    expect(router.match('GET', '/v2/things/%E0%A4%A')).toEqual({ kind: 'not-found' });
    expect(() => router.add('GET', '/v2/things/{id}', a)).toThrow(/already registered/);
    expect(() => router.add('GET', 'relative', a)).toThrow(/must start with/);
  });
});

describe('request log lines', () => {
  /** A server logging at `level`; the lines it wrote. */
  async function serverLoggingAt(level: string) {
    const { logger, lines } = capturingLogger(level);
    return { t: await startTestServer({ logger }), lines };
  }

  it('at debug level, one line per request with its path and status, no query', async () => {
    const { t, lines } = await serverLoggingAt('debug');
    try {
      expect((await call(t, 'GET', '/health?api_key=secret')).status).toBe(200);
      await expect.poll(() => lines.filter((l) => l.msg === 'request')).toHaveLength(1);
      expect(lines.find((l) => l.msg === 'request')).toMatchObject({
        method: 'GET',
        path: '/health',
        status: 200,
      });
      expect(JSON.stringify(lines)).not.toContain('secret');
    } finally {
      await t.close();
    }
  });

  it('at info level, no request lines', async () => {
    const { t, lines } = await serverLoggingAt('info');
    try {
      expect((await call(t, 'GET', '/health')).status).toBe(200);
      expect((await call(t, 'GET', '/health')).status).toBe(200);
      expect(lines.filter((l) => l.msg === 'request')).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('API server', () => {
  let t: TestServer;
  beforeEach(async () => {
    t = await startTestServer();
  });
  afterEach(async () => {
    await t.close();
  });

  it('unknown paths → 404 and wrong methods → 405 in the {"code","message"} shape', async () => {
    const missing = await call(t, 'GET', `${API}/nowhere`);
    expect(expectInfraErrorShape(missing, 404).message).toBe(
      'path /api/assisted-install/v2/nowhere was not found',
    );
    const wrong = await call(t, 'DELETE', `${API}/infra-envs/${IE_A}/hosts`);
    expect(expectInfraErrorShape(wrong, 405).message).toBe('method DELETE is not allowed, but [POST] are');
    expect(wrong.headers.allow).toBe('POST');
    expect(t.calls).toEqual([]);
  });

  it('lets other parts mount handlers on the same server', async () => {
    t.server.add('GET', '/byapikey/{token}/{version}/{arch}/{file}', (_req, res, params, url) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${params.file} ${url.searchParams.get('x')}`);
    });
    const reply = await call(t, 'GET', '/byapikey/tok/4.16/x86_64/full.iso?x=1', { token: null });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('full.iso 1');
  });

  it('answers 500 when a mounted handler throws before responding', async () => {
    t.server.add('GET', '/explode', () => {
      throw new Error('kaboom');
    });
    expectErrorShape(await call(t, 'GET', '/explode', { token: null }), 500);
  });

  it('serves probes and component versions without credentials', async () => {
    expect((await call(t, 'GET', '/health', { token: null })).status).toBe(200);
    expect((await call(t, 'GET', '/ready', { token: null })).json).toEqual({ status: 'ready' });
    const versions = await call(t, 'GET', `${API}/component-versions`, { token: null });
    expect(versions.status).toBe(200);
    expect(versions.json).toEqual({
      versions: { 'discovery-agent': 'quay.io/edge-infrastructure/assisted-installer-agent:latest' },
      release_tag: 'v0.1.0',
    });
  });

  it('answers 503 with Retry-After to every API request while the replica does not serve', async () => {
    let serving = false;
    const standby = await startTestServer({ serving: () => serving });
    try {
      const refused = await call(standby, 'POST', `${API}/infra-envs/${IE_A}/hosts`, {
        body: { host_id: '00000000-0000-4000-8000-000000000001' },
      });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(standby.calls).toEqual([]);
      expect((await call(standby, 'GET', '/health', { token: null })).status).toBe(200);
      expect((await call(standby, 'GET', '/ready', { token: null })).status).toBe(503);
      serving = true;
      expect((await call(standby, 'GET', '/ready', { token: null })).status).toBe(200);
      const served = await call(standby, 'POST', `${API}/infra-envs/${IE_A}/hosts`, {
        body: { host_id: '00000000-0000-4000-8000-000000000001' },
      });
      expect(served.status).toBe(201);
    } finally {
      await standby.close();
    }
  });

  it('refuses to listen twice and closes idempotently', async () => {
    await expect(t.server.listen(0, '127.0.0.1')).rejects.toThrow(/already listening/);
    expect(t.server.address?.port).toBeGreaterThan(0);
    await t.server.close();
    await t.server.close();
    expect(t.server.address).toBeUndefined();
  });
});
