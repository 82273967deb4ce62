// An HTTP/2 (TLS) proxy in front of the real API server that breaks the HTTP/2 layer on purpose:
// GOAWAY on every open session, RST_STREAM of open watches mid-stream, a "poisoned" session whose
// every new stream is refused with ENHANCE_YOUR_CALM (what Node does to a session whose memory is
// exhausted), 429 answers with Retry-After (API Priority and Fairness), and answers lost after the
// API server acted on a request (the stream reset where the answer would be). Sessions opened after a
// fault are healthy again, so a client that opens a new connection recovers and one that keeps the
// old one does not. Every request and session is logged so tests can count them.
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type Http2Session,
  type IncomingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { Agent, type Dispatcher, request } from 'undici';
import { CertificateAuthority } from '../../../src/util/pki.ts';

export interface ProxiedRequest {
  method: string;
  path: string;
  watch: boolean;
  session: number;
  status: number;
  at: number;
}

interface OpenStream {
  stream: ServerHttp2Stream;
  watch: boolean;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'host']);

export class H2FaultProxy {
  readonly requests: ProxiedRequest[] = [];
  private readonly server: Http2SecureServer;
  private readonly upstream: string;
  private readonly dispatcher: Dispatcher;
  private readonly caPem: string;
  private readonly sessions = new Map<Http2Session, number>();
  private readonly poisoned = new Set<Http2Session>();
  private readonly open = new Set<OpenStream>();
  private pending429: { retryAfterSeconds: number }[] = [];
  private lost: { left: number; method: string; pathIncludes: string } | undefined;
  private nextSessionId = 1;

  private constructor(upstream: string, dispatcher: Dispatcher, caPem: string, cert: string, key: string) {
    this.upstream = upstream;
    this.dispatcher = dispatcher;
    this.caPem = caPem;
    this.server = createSecureServer({ cert, key, allowHTTP1: false });
    this.server.on('session', (session) => {
      this.sessions.set(session, this.nextSessionId++);
      session.on('close', () => {
        this.sessions.delete(session);
        this.poisoned.delete(session);
      });
      session.on('error', () => undefined);
    });
    this.server.on('stream', (stream, headers) => {
      stream.on('error', () => undefined);
      this.handle(stream, headers).catch(() => {
        if (!stream.destroyed) stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      });
    });
  }

  static async start(upstreamKubeConfig: KubeConfig): Promise<H2FaultProxy> {
    const tls: Record<string, unknown> = {};
    await upstreamKubeConfig.applyToHTTPSOptions(tls);
    const dispatcher = new Agent({ connect: { ca: tls.ca, cert: tls.cert, key: tls.key } as never });
    const ca = await CertificateAuthority.create('h2-fault-proxy');
    const serving = await ca.issue({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], server: true });
    const proxy = new H2FaultProxy(
      upstreamKubeConfig.getCurrentCluster()!.server,
      dispatcher,
      ca.certPem,
      serving.certPem,
      serving.keyPem,
    );
    await new Promise<void>((r) => proxy.server.listen(0, '127.0.0.1', () => r()));
    return proxy;
  }

  get url(): string {
    return `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** A kubeconfig that reaches the API server through this proxy (the proxy holds the credentials). */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'h2proxy', server: this.url, caData: Buffer.from(this.caPem).toString('base64') }],
      users: [{ name: 'h2proxy' }],
      contexts: [{ name: 'h2proxy', cluster: 'h2proxy', user: 'h2proxy' }],
      currentContext: 'h2proxy',
    });
    return kc;
  }

  /** Sessions (client connections) opened so far. */
  get sessionsOpened(): number {
    return this.nextSessionId - 1;
  }

  get openWatches(): number {
    return [...this.open].filter((s) => s.watch).length;
  }

  count(filter: { watch?: boolean; status?: number; method?: string; pathIncludes?: string } = {}): number {
    return this.requests.filter(
      (r) =>
        (filter.watch === undefined || r.watch === filter.watch) &&
        (filter.status === undefined || r.status === filter.status) &&
        (filter.method === undefined || r.method === filter.method) &&
        (filter.pathIncludes === undefined || r.path.includes(filter.pathIncludes)),
    ).length;
  }

  /** GOAWAY with `code` on every open session, then the sessions are closed. */
  goawayAll(code: number = constants.NGHTTP2_ENHANCE_YOUR_CALM): number {
    const sessions = [...this.sessions.keys()];
    for (const s of sessions) {
      s.goaway(code);
      // The peer was told to go away with an error; drop what is still open on the session.
      setTimeout(() => s.destroy(), 50);
    }
    return sessions.length;
  }

  /** RST_STREAM with `code` on every open watch (mid-stream: their headers went out long ago). */
  resetWatches(code: number = constants.NGHTTP2_INTERNAL_ERROR): number {
    const watches = [...this.open].filter((s) => s.watch);
    for (const w of watches) w.stream.close(code);
    return watches.length;
  }

  /**
   * Every session open now refuses each new stream with ENHANCE_YOUR_CALM and never recovers, as a
   * Node session over its memory limit does; streams already open keep working. New sessions are fine.
   */
  poisonSessions(): number {
    for (const s of this.sessions.keys()) this.poisoned.add(s);
    return this.poisoned.size;
  }

  /** The next `n` requests other than watches are answered 429 with this Retry-After (seconds). */
  throttleNext(n: number, retryAfterSeconds: number): void {
    for (let i = 0; i < n; i++) this.pending429.push({ retryAfterSeconds });
  }

  /**
   * The next `n` requests of `method` whose path includes `pathIncludes` reach the API server, and
   * their answers are lost: the stream is reset (INTERNAL_ERROR) instead. Logged with the status
   * the API server gave.
   */
  loseAnswers(n: number, method: string, pathIncludes: string): void {
    this.lost = { left: n, method, pathIncludes };
  }

  private answerLost(method: string, path: string): boolean {
    const l = this.lost;
    if (!l || l.left <= 0 || method !== l.method || !path.includes(l.pathIncludes)) return false;
    l.left--;
    return true;
  }

  async close(): Promise<void> {
    for (const s of this.sessions.keys()) s.destroy();
    await new Promise<void>((r) => this.server.close(() => r()));
    await this.dispatcher.destroy();
  }

  private async handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const method = String(headers[':method']);
    const path = String(headers[':path']);
    const watch = new URL(path, 'https://proxy').searchParams.get('watch') === 'true';
    const session = this.sessions.get(stream.session!) ?? 0;
    const log = (status: number) =>
      this.requests.push({ method, path, watch, session, status, at: Date.now() });
    if (this.poisoned.has(stream.session!)) {
      log(0);
      stream.close(constants.NGHTTP2_ENHANCE_YOUR_CALM);
      return;
    }
    const throttle = watch ? undefined : this.pending429.shift();
    if (throttle) {
      log(429);
      stream.respond({
        ':status': 429,
        'content-type': 'application/json',
        'retry-after': String(throttle.retryAfterSeconds),
      });
      stream.end(
        JSON.stringify({
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'TooManyRequests',
          message: 'Too many requests, please try again later.',
          code: 429,
          details: { retryAfterSeconds: throttle.retryAfterSeconds },
        }),
      );
      return;
    }
    const forward: Record<string, string> = {};
    for (const [k, v] of Object.entries(headers)) {
      if (k.startsWith(':') || HOP_BY_HOP.has(k) || v === undefined) continue;
      forward[k] = Array.isArray(v) ? v.join(', ') : String(v);
    }
    const entry: OpenStream = { stream, watch };
    this.open.add(entry);
    const upstream = new AbortController();
    stream.on('close', () => {
      this.open.delete(entry);
      upstream.abort();
    });
    const chunks: Buffer[] = [];
    for await (const c of stream) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const up = await request(`${this.upstream}${path}`, {
      method: method as Dispatcher.HttpMethod,
      headers: forward,
      body: body.length ? body : undefined,
      dispatcher: this.dispatcher,
      signal: upstream.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
    log(up.statusCode);
    if (stream.destroyed || stream.closed) return;
    if (this.answerLost(method, path)) {
      await up.body.dump();
      stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      return;
    }
    const out: Record<string, string> = { ':status': String(up.statusCode) };
    for (const [k, v] of Object.entries(up.headers)) {
      if (HOP_BY_HOP.has(k) || v === undefined) continue;
      out[k] = Array.isArray(v) ? v.join(', ') : String(v);
    }
    stream.respond(out);
    try {
      for await (const chunk of up.body) {
        if (stream.destroyed || stream.closed) break;
        stream.write(chunk);
      }
    } catch {
      // upstream aborted because the client or a fault closed the stream
    }
    if (!stream.destroyed && !stream.closed) stream.end();
  }
}
