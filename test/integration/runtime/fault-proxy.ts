// A plain-HTTP proxy in front of the real API server that can break watches on purpose: drop the
// connection, stall it (half-open: no bytes, no close), answer the next watch with 410 Gone (as an
// HTTP status or as an ERROR event, the two ways the API server reports an expired resourceVersion),
// or refuse connections (API server down). It also logs every request so tests can count them.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, type Dispatcher, request } from 'undici';

export interface LoggedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  status: number;
}

interface ActiveWatch {
  res: ServerResponse;
  upstream: AbortController;
  stalled: boolean;
}

const EXPIRED = {
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: 'too old resource version: 1 (2)',
  reason: 'Expired',
  code: 410,
};

interface Hold {
  method: string;
  pathIncludes: string;
  arrived: (body: string) => void;
  gate: Promise<void>;
}

function addHold(list: Hold[], method: string, pathIncludes: string) {
  const arrived = Promise.withResolvers<string>();
  const gate = Promise.withResolvers<void>();
  list.push({ method, pathIncludes, arrived: arrived.resolve, gate: gate.promise });
  return { arrived: arrived.promise, release: () => gate.resolve() };
}

/** Takes the first hold in `list` matching the request, tells it `body` and waits for its release. */
async function waitOnHold(list: Hold[], method: string | undefined, path: string, body: string) {
  const i = list.findIndex((h) => h.method === method && path.includes(h.pathIncludes));
  if (i < 0) return;
  const [hold] = list.splice(i, 1);
  hold?.arrived(body);
  await hold?.gate;
}

export class FaultProxy {
  readonly requests: LoggedRequest[] = [];
  private readonly server: Server;
  private readonly upstream: string;
  private readonly dispatcher: Dispatcher;
  private readonly sockets = new Set<Socket>();
  private readonly watches = new Set<ActiveWatch>();
  private readonly pending410: ('http' | 'event')[] = [];
  private blackholes = 0;
  private blackholingWatches = false;
  private resettingExcept: string | undefined;
  private refusing = false;
  private readonly holds: Hold[] = [];
  private readonly responseHolds: Hold[] = [];

  private constructor(upstream: string, dispatcher: Dispatcher) {
    this.upstream = upstream;
    this.dispatcher = dispatcher;
    this.server = createServer((req, res) => {
      this.handle(req, res).catch(() => res.destroy());
    });
    this.server.on('connection', (socket) => {
      if (this.refusing) {
        socket.destroy();
        return;
      }
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  static async start(upstreamKubeConfig: KubeConfig): Promise<FaultProxy> {
    const tls: Record<string, unknown> = {};
    await upstreamKubeConfig.applyToHTTPSOptions(tls);
    const dispatcher = new Agent({ connect: { ca: tls.ca, cert: tls.cert, key: tls.key } as never });
    const proxy = new FaultProxy(upstreamKubeConfig.getCurrentCluster()!.server, dispatcher);
    await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', () => r()));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig that talks to the API server through this proxy (no credentials needed). */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'proxy', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'proxy' }],
      contexts: [{ name: 'proxy', cluster: 'proxy', user: 'proxy' }],
      currentContext: 'proxy',
    });
    return kc;
  }

  /** Watches currently streaming through the proxy. */
  get activeWatches(): number {
    return this.watches.size;
  }

  /** Kills every open watch connection (TCP reset from the client's point of view). */
  dropWatches(): number {
    const n = this.watches.size;
    for (const w of this.watches) {
      w.upstream.abort();
      w.res.socket?.destroy();
    }
    this.watches.clear();
    return n;
  }

  /** Drops open watches, runs `meanwhile`, and resolves once the watcher has opened a new one. */
  async dropWatchesAndWaitForReconnect(
    meanwhile?: () => Promise<unknown>,
    timeoutMs = 15_000,
  ): Promise<number> {
    const before = this.count({ watch: true });
    const dropped = this.dropWatches();
    await meanwhile?.();
    const deadline = Date.now() + timeoutMs;
    while (this.count({ watch: true }) === before || this.watches.size === 0) {
      if (Date.now() > deadline) throw new Error('no new watch after dropping');
      await new Promise((r) => setTimeout(r, 20));
    }
    return dropped;
  }

  /** Open watches stop delivering bytes but stay connected, like a half-open TCP connection. */
  stallWatches(): number {
    for (const w of this.watches) w.stalled = true;
    return this.watches.size;
  }

  /** The next watch request is accepted and never answered (not even headers). */
  blackholeNextWatch(): void {
    this.blackholes++;
  }

  /** While on, every watch request is accepted and never answered, and open watches fall silent. */
  setBlackholingWatches(on: boolean): void {
    this.blackholingWatches = on;
    if (on) this.stallWatches();
  }

  /**
   * While set, every request except those for this exact path has its connection reset: the client
   * gets no answer, while a probe of that path over any connection does.
   */
  setResettingExcept(path: string | undefined): void {
    this.resettingExcept = path;
    if (path !== undefined) this.dropWatches();
  }

  /**
   * Holds the next request with this method and a path containing `pathIncludes` before it reaches
   * the API server: `arrived` resolves once it is held, and the request goes on when `release` is
   * called (a write kept in flight while the test changes the object under it).
   */
  holdNext(method: string, pathIncludes: string): { arrived: Promise<string>; release: () => void } {
    return addHold(this.holds, method, pathIncludes);
  }

  /**
   * Lets the next request with this method and a path containing `pathIncludes` reach the API
   * server, then holds its answer: `arrived` resolves with the answer's body once the API server
   * has answered (a write is made, and watchers hear of it), and the client gets the answer when
   * `release` is called.
   */
  holdNextResponse(method: string, pathIncludes: string): { arrived: Promise<string>; release: () => void } {
    return addHold(this.responseHolds, method, pathIncludes);
  }

  /** The next watch request is answered with 410 Gone. */
  failNextWatch(mode: 'http' | 'event'): void {
    this.pending410.push(mode);
  }

  /** While on, new connections are reset and open ones are dropped (API server down). */
  setRefusing(on: boolean): void {
    this.refusing = on;
    if (on) {
      this.dropWatches();
      for (const s of this.sockets) s.destroy();
    }
  }

  count(filter: { method?: string; pathIncludes?: string; watch?: boolean; status?: number } = {}): number {
    return this.requests.filter(
      (r) =>
        (filter.method === undefined || r.method === filter.method) &&
        (filter.pathIncludes === undefined || r.path.includes(filter.pathIncludes)) &&
        (filter.watch === undefined || (r.query.get('watch') === 'true') === filter.watch) &&
        (filter.status === undefined || r.status === filter.status),
    ).length;
  }

  async close(): Promise<void> {
    this.dropWatches();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
    await this.dispatcher.destroy();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.refusing) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', 'http://proxy');
    const isWatch = url.searchParams.get('watch') === 'true';
    const log = (status: number) =>
      this.requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        status,
      });
    if (this.resettingExcept !== undefined && url.pathname !== this.resettingExcept) {
      log(0);
      req.socket.destroy();
      return;
    }
    if (isWatch && (this.blackholingWatches || this.blackholes > 0)) {
      if (!this.blackholingWatches) this.blackholes--;
      log(0);
      return; // the socket stays open until the client gives up
    }
    const mode = isWatch ? this.pending410.shift() : undefined;
    if (mode === 'http') {
      log(410);
      res.writeHead(410, { 'content-type': 'application/json' }).end(JSON.stringify(EXPIRED));
      return;
    }
    if (mode === 'event') {
      log(200);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`${JSON.stringify({ type: 'ERROR', object: EXPIRED })}\n`);
      return;
    }
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    await waitOnHold(this.holds, req.method, url.pathname, '');
    const upstream = new AbortController();
    res.on('close', () => upstream.abort());
    const headers: Record<string, string> = { accept: 'application/json' };
    if (req.headers['content-type']) headers['content-type'] = req.headers['content-type'];
    const up = await request(`${this.upstream}${req.url}`, {
      method: req.method as Dispatcher.HttpMethod,
      headers,
      body: body.length ? body : undefined,
      dispatcher: this.dispatcher,
      signal: upstream.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    log(up.statusCode);
    res.writeHead(up.statusCode, {
      'content-type': String(up.headers['content-type'] ?? 'application/json'),
    });
    if (!isWatch) {
      const answer = Buffer.from(await up.body.arrayBuffer());
      await waitOnHold(this.responseHolds, req.method, url.pathname, answer.toString('utf8'));
      res.end(answer);
      return;
    }
    res.flushHeaders(); // as the API server does when a watch starts
    const watch: ActiveWatch = { res, upstream, stalled: false };
    this.watches.add(watch);
    try {
      for await (const chunk of up.body) if (!watch.stalled) res.write(chunk);
    } catch {
      // dropped on purpose or client went away
    }
    // A stalled watch stays open (and silent) even after the server ends it: that is the point.
    if (!watch.stalled) {
      this.watches.delete(watch);
      res.end();
    }
  }
}
