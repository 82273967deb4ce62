// KubeClient's budgets, 429 handling and connection replacement, against a loopback HTTP server
// that plays the API server's part (the real one is in test/integration/runtime/self-healing.test.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  describeTransportError,
  isTransient,
  KubeClient,
  retryAfterMs,
} from '../../../src/runtime/client.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { TokenBucket } from '../../../src/runtime/rate-limiter.ts';

type Handler = (req: IncomingMessage, res: ServerResponse, socket: Socket) => void;

interface Loopback {
  client: (extra?: Partial<ConstructorParameters<typeof KubeClient>[0]>) => KubeClient;
  /** Sockets (connections) the server has accepted so far. */
  connections: () => number;
  /** Ids of sockets that have closed. */
  closed: Set<number>;
  seen: { method: string; url: string; socket: number; at: number }[];
}

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

async function loopback(handler: Handler): Promise<Loopback> {
  const sockets = new Map<Socket, number>();
  const seen: Loopback['seen'] = [];
  const closed = new Set<number>();
  const server: Server = createServer((req, res) => {
    const id = sockets.get(req.socket) ?? 0;
    seen.push({ method: req.method ?? '', url: req.url ?? '', socket: id, at: Date.now() });
    req.resume();
    req.on('end', () => handler(req, res, req.socket));
  });
  server.on('connection', (s) => {
    const id = sockets.size + 1;
    sockets.set(s, id);
    s.on('close', () => closed.add(id));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: 'c',
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        skipTLSVerify: true,
      },
    ],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return {
    client: (extra = {}) => {
      const c = new KubeClient({ kubeConfig: kc, ...extra });
      cleanups.unshift(() => c.close());
      return c;
    },
    connections: () => sockets.size,
    closed,
    seen,
  };
}

const ok = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}');

describe('client-side budgets', () => {
  it('are off by default (controller-runtime >= v0.21): a burst of 200 requests never waits', async () => {
    const lb = await loopback((_q, res) => ok(res));
    const c = lb.client();
    expect(c.limiter.qps).toBe(0);
    for (let i = 0; i < 200; i++) expect(c.limiter.reserve()).toBe(0);
  });

  it('a fixed limit can be restored, and each budget is its own', async () => {
    const lb = await loopback((_q, res) => ok(res));
    const reconcilers = lb.client({ qps: 1, burst: 1 });
    const events = reconcilers.withBudget(new TokenBucket(1, 1));
    await reconcilers.request('GET', '/warm-up'); // opens the connection
    await new Promise((r) => setTimeout(r, 1000)); // the reconcilers' token is back
    expect(reconcilers.limiter.reserve()).toBe(0); // and spent again: their next request waits 1 s
    const started = Date.now();
    const eventWrite = events.request('POST', '/events', { body: {} }).then(() => Date.now() - started);
    const reconcile = reconcilers.request('GET', '/b').then(() => Date.now() - started);
    const [eventMs, reconcileMs] = await Promise.all([eventWrite, reconcile]);
    expect(eventMs).toBeLessThan(500); // not queued behind the empty reconciler budget
    expect(reconcileMs).toBeGreaterThanOrEqual(900);
    // One transport: both budgets' requests went over the same connection.
    expect(new Set(lb.seen.map((s) => s.socket)).size).toBe(1);
  });
});

describe('429 Retry-After', () => {
  it('waits as long as the server asked, then retries', async () => {
    let n = 0;
    const lb = await loopback((_q, res) => {
      if (n++ === 0) res.writeHead(429, { 'retry-after': '1' }).end();
      else ok(res);
    });
    const started = Date.now();
    await lb.client().request('GET', '/x');
    expect(Date.now() - started).toBeGreaterThanOrEqual(990);
    expect(lb.seen.length).toBe(2);
  });

  it('a caller that gives up while waiting is not kept waiting', async () => {
    const lb = await loopback((_q, res) => res.writeHead(429, { 'retry-after': '30' }).end());
    const signal = AbortSignal.timeout(300);
    const started = Date.now();
    await expect(lb.client().request('GET', '/x', { signal })).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it.each([
    [undefined, 1000],
    [0, 0],
    [3, 3000],
    [3600, 60_000],
  ])('Retry-After %s s → wait %i ms', (seconds, ms) => {
    expect(retryAfterMs(new ApiError(429, undefined, 'x', seconds))).toBe(ms);
  });
});

describe('connection replacement', () => {
  it('a GET whose connection was reset is replayed once on a new connection', async () => {
    let n = 0;
    const lb = await loopback((_q, res, socket) => {
      if (n++ === 0) socket.destroy();
      else ok(res);
    });
    const metrics = new RuntimeMetrics();
    const c = lb.client({ metrics: metrics.clientSink() });
    await expect(c.request('GET', '/x')).resolves.toEqual({});
    expect(lb.seen.map((s) => s.socket)).toEqual([1, 2]);
    expect(await metricValue(metrics.restReconnects)).toBe(1);
    expect(c.health.failingForMs()).toBe(0);
  });

  it('a write is not replayed (it may have been applied); the next one uses a new connection', async () => {
    let n = 0;
    const lb = await loopback((_q, res, socket) => {
      if (n++ === 0) socket.destroy();
      else ok(res);
    });
    const c = lb.client();
    await expect(c.request('POST', '/x', { body: {} })).rejects.toThrow();
    expect(c.health.unreachableForMs()).toBeGreaterThanOrEqual(0);
    expect(c.health.lastFailure).toMatch(/^UND_ERR_SOCKET|ECONNRESET/);
    await expect(c.request('POST', '/x', { body: {} })).resolves.toEqual({});
    expect(lb.seen.map((s) => s.socket)).toEqual([1, 2]);
  });

  it('tells the failures worth sending again from the others (isTransient)', async () => {
    const lb = await loopback((req, res, socket) => {
      if (req.url === '/reset') socket.destroy();
      else if (req.url === '/busy') res.writeHead(503).end('{"kind":"Status","code":503}');
      else if (req.url === '/forbidden') res.writeHead(403).end('{"kind":"Status","code":403}');
    });
    const c = lb.client();
    const failure = (path: string, signal?: AbortSignal) =>
      c.request('POST', path, { body: {}, signal }).then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(isTransient(await failure('/reset'))).toBe(true);
    expect(isTransient(await failure('/busy'))).toBe(true);
    expect(isTransient(await failure('/forbidden'))).toBe(false);
    // Our own abort (never answered), a 429 past the client's retries, a bug of ours.
    expect(isTransient(await failure('/silent', AbortSignal.timeout(50)))).toBe(false);
    expect(isTransient(new ApiError(429, undefined, 'too many requests'))).toBe(true);
    expect(isTransient(new TypeError('cannot read properties of undefined'))).toBe(false);
  });

  it('after a 413 the next request goes over a new connection', async () => {
    const lb = await loopback((req, res) => {
      if (req.url === '/big')
        res.writeHead(413).end('{"kind":"Status","code":413,"reason":"RequestEntityTooLarge"}');
      else ok(res);
    });
    const metrics = new RuntimeMetrics();
    const c = lb.client({ metrics: metrics.clientSink() });
    await c.request('GET', '/before');
    const err = await c.request('PATCH', '/big', { body: {} }).catch((e) => e);
    expect((err as ApiError).statusCode).toBe(413);
    await c.request('GET', '/after');
    const socketOf = (url: string) => lb.seen.find((s) => s.url === url)!.socket;
    expect(socketOf('/after')).not.toBe(socketOf('/big'));
    expect(await metricValue(metrics.restReconnects, { cause: '413' })).toBe(1);
    // The retired connection is closed by the client once idle (keep-alive would hold it for 4 s).
    await expect.poll(() => lb.closed.has(socketOf('/big')), { timeout: 1000 }).toBe(true);
  });

  it('a caller aborting its own request is not a connection fault', async () => {
    const lb = await loopback(() => undefined); // never answers
    const c = lb.client();
    await expect(c.request('GET', '/x', { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    expect(c.health.unreachableForMs()).toBe(0);
    expect(c.health.failingForMs()).toBe(0);
  });

  it('a fresh-connection probe reports the status or the error', async () => {
    const lb = await loopback((_q, res) => ok(res));
    expect(await lb.client().probeFresh('/readyz')).toBe(200);
    const down = new KubeConfig();
    down.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const probe = await new KubeClient({ kubeConfig: down }).probeFresh('/readyz', 1000);
    expect(probe).toBeInstanceOf(Error);
  });

  it('describes HTTP/2 resets with their code and never more than one line', () => {
    const err = Object.assign(new Error('Stream closed with error code NGHTTP2_ENHANCE_YOUR_CALM'), {
      code: 'ERR_HTTP2_STREAM_ERROR',
      http2ErrorCode: 11,
    });
    expect(describeTransportError(err)).toBe(
      'ERR_HTTP2_STREAM_ERROR: Stream closed with error code NGHTTP2_ENHANCE_YOUR_CALM (HTTP/2 error code 11)',
    );
  });
});
