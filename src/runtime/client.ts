// A small JSON REST client for the Kubernetes API over undici (HTTP/2 when the server offers it):
// CRUD, the three patch flavours, the status subresource and streaming watches. Errors carry the HTTP
// status and the API's Status reason.
//
// Budgets: every request (watches included, as in client-go) first takes a token from its client's
// bucket; withBudget() gives another caller its own bucket over the same connection. The default
// bucket is off (qps 0), as in controller-runtime >= v0.21: the API server's Priority and Fairness
// does the limiting and answers 429 with Retry-After, which is honoured here.
//
// Self-healing: all requests share one connection, so one broken HTTP/2 session would fail them all.
// After any transport failure (reset, GOAWAY, HTTP/2 session or stream error, timeout) or a 413 the
// connection is retired: later requests open a new one, requests still running on the old one may
// finish for drainMs, and a failed GET is replayed once on the new connection.
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, type Dispatcher, request } from 'undici';
import { ApiHealth } from './api-health.ts';
import type { KubeConfigLike } from './kubeconfig.ts';
import { TokenBucket } from './rate-limiter.ts';
import {
  type ApiResource,
  apiVersionOf,
  type KubeObject,
  type ObjectList,
  type Status,
  type WatchEvent,
} from './types.ts';

export interface ClientMetricsSink {
  request(method: string, code: string, ms: number): void;
  throttled(ms: number): void;
  /** The connection was retired; `cause` is '413' or the transport error's code. */
  reconnected?(cause: string): void;
}

export interface KubeClientOptions {
  kubeConfig: KubeConfigLike;
  /**
   * Sustained requests per second of this client's budget; <= 0 disables. Default 0 (off:
   * controller-runtime >= v0.21, kubernetes-sigs/controller-runtime#3119, relies on API Priority and
   * Fairness).
   */
  qps?: number;
  /** Burst of the budget when qps > 0. Default 30 (controller-runtime < v0.21). */
  burst?: number;
  /** A ready-made budget (overrides qps/burst). */
  limiter?: TokenBucket;
  /** Headers/body timeout for ordinary requests. Default 60 s (project choice; client-go has none). */
  requestTimeoutMs?: number;
  /** How long a retired connection may finish its in-flight requests before it is closed. Default 60 s. */
  drainMs?: number;
  userAgent?: string;
  metrics?: ClientMetricsSink;
  /** Outcome tracking for probes; a new one when absent. Shared by withBudget() views. */
  health?: ApiHealth;
  /** Told why a connection was retired (for a log line). */
  onReconnect?: (reason: string) => void;
}

export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  // JSON is YAML, so an apply body can be sent as JSON under the YAML media type.
  apply: 'application/apply-patch+yaml',
};

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  signal?: AbortSignal;
}

export interface WatchOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  resourceVersion?: string;
  /** Server-side watch timeout. */
  timeoutSeconds: number;
  /** Client-side: abort if no bytes arrive for this long (detects dead connections). */
  idleTimeoutMs: number;
  signal?: AbortSignal;
}

export interface WriteOptions {
  fieldManager?: string;
  dryRun?: boolean;
  signal?: AbortSignal;
}

export interface PatchOptions extends WriteOptions {
  subresource?: 'status';
  /** Server-side apply only: take ownership of conflicting fields. */
  force?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  signal?: AbortSignal;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  /** The body already serialised (sent instead of `body`). */
  bodyText?: string;
  contentType?: string;
  signal?: AbortSignal;
}

/** A failed API call: HTTP status code plus the Status object's reason and message. */
export class ApiError extends Error {
  readonly statusCode: number;
  /** Status.reason, e.g. NotFound, Conflict, AlreadyExists, Expired, Invalid ('' when absent). */
  readonly reason: string;
  readonly status: Status | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(statusCode: number, status: Status | undefined, message: string, retryAfterSeconds?: number) {
    super(message);
    this.name = 'ApiError';
    this.statusCode = statusCode;
    this.reason = status?.reason ?? '';
    this.status = status;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

function statusCodeOf(err: unknown): number | undefined {
  return err instanceof ApiError ? err.statusCode : undefined;
}

export const isNotFound = (err: unknown): boolean => statusCodeOf(err) === 404;
/** A resourceVersion precondition failed (optimistic concurrency), not AlreadyExists. */
export const isConflict = (err: unknown): boolean =>
  statusCodeOf(err) === 409 && (err as ApiError).reason !== 'AlreadyExists';
export const isAlreadyExists = (err: unknown): boolean =>
  statusCodeOf(err) === 409 && (err as ApiError).reason === 'AlreadyExists';
/** The requested resourceVersion is gone (compacted): relist. */
export const isGone = (err: unknown): boolean => statusCodeOf(err) === 410;
export const isInvalid = (err: unknown): boolean => statusCodeOf(err) === 422;
/**
 * Worth sending again a little later: the server failed or is overloaded (5xx, or a 429 past the
 * client's own Retry-After retries), or no answer came (a reset, refused or timed-out connection:
 * undici's and Node's errors carry a string code). Not an abort, and not a bug of ours (no code).
 */
export const isTransient = (err: unknown): boolean => {
  const code = statusCodeOf(err);
  if (code !== undefined) return code === 429 || code >= 500;
  const transport = (err as { code?: unknown } | undefined)?.code;
  return typeof transport === 'string' && transport !== 'ABORT_ERR';
};

interface Connection {
  server: string;
  dispatcher: Dispatcher;
  retired: boolean;
}

/** Connection state shared by a client and its withBudget() views. */
class Transport {
  current: Promise<Connection> | undefined;
  resolved: Connection | undefined;
  readonly draining = new Set<Connection>();
  auth: { headers: Record<string, string>; at: number } | undefined;
  closed = false;
}

/** Credentials from a kubeconfig can rotate (token files, exec plugins); re-read them this often. */
const AUTH_REFRESH_MS = 30_000;
/** client-go rest.Request maxRetries for 429/Retry-After. */
const MAX_THROTTLE_RETRIES = 10;
/** Longest Retry-After honoured as given; longer ones are cut to this (project choice). */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * HTTP/2 receive windows, as Go's HTTP/2 transport (and so client-go) sets them: 4 MiB per stream,
 * 1 GiB per connection. undici's 256 KiB per stream holds fewer than 20 Agent watch events (about
 * 14 KiB each as sent): when the event loop is busy for 0.1 s during a registration wave the API
 * server's writes block, its watch cache's buffer for the watcher fills and it closes the watch
 * ("Forcing ... watcher close due to unresponsiveness"). Memory is bounded per stream by the window.
 * Passed as undici's top-level options: 8.12 ignores h2Options.settings.initialWindowSize.
 */
export const STREAM_WINDOW_BYTES = 4 << 20;
export const CONNECTION_WINDOW_BYTES = 1 << 30;

export class KubeClient {
  readonly limiter: TokenBucket;
  readonly health: ApiHealth;
  private readonly opts: KubeClientOptions;
  private readonly kubeConfig: KubeConfigLike;
  private readonly requestTimeoutMs: number;
  private readonly userAgent: string;
  private readonly metrics: ClientMetricsSink | undefined;
  private readonly transport: Transport;

  constructor(opts: KubeClientOptions, transport = new Transport()) {
    this.opts = opts;
    this.kubeConfig = opts.kubeConfig;
    this.limiter = opts.limiter ?? new TokenBucket(opts.qps ?? 0, opts.burst ?? 30);
    this.health = opts.health ?? new ApiHealth();
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 60_000;
    this.userAgent = opts.userAgent ?? 'agent-install-operator';
    this.metrics = opts.metrics;
    this.transport = transport;
  }

  /**
   * The same client (connection, credentials, health) with its own request budget, so that one kind
   * of traffic (Events, say) neither waits behind nor starves the others.
   */
  withBudget(limiter: TokenBucket): KubeClient {
    return new KubeClient({ ...this.opts, limiter, health: this.health }, this.transport);
  }

  /** REST path of a collection or one object, optionally a subresource. */
  path(res: ApiResource, namespace?: string, name?: string, subresource?: string): string {
    let p = res.group ? `/apis/${res.group}/${res.version}` : `/api/${res.version}`;
    if (res.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
    p += `/${res.plural}`;
    if (name !== undefined) p += `/${encodeURIComponent(name)}`;
    if (subresource) p += `/${subresource}`;
    return p;
  }

  get<T extends KubeObject>(
    res: ApiResource,
    name: string,
    namespace?: string,
    signal?: AbortSignal,
  ): Promise<T> {
    return this.request<T>('GET', this.path(res, namespace, name), { signal });
  }

  /** Like get, but a 404 yields undefined. */
  async getIfExists<T extends KubeObject>(
    res: ApiResource,
    name: string,
    namespace?: string,
    signal?: AbortSignal,
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(res, name, namespace, signal);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** One page of a list. Items get apiVersion/kind filled in (the API omits them in lists). */
  async list<T extends KubeObject>(res: ApiResource, opts: ListOptions = {}): Promise<ObjectList<T>> {
    const list = await this.request<ObjectList<T>>('GET', this.path(res, opts.namespace), {
      query: {
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
        limit: opts.limit,
        continue: opts.continue,
        resourceVersion: opts.resourceVersion,
      },
      signal: opts.signal,
    });
    const apiVersion = apiVersionOf(res);
    list.items ??= [];
    for (const item of list.items) {
      item.apiVersion = apiVersion;
      item.kind = res.kind;
    }
    return list;
  }

  create<T extends KubeObject>(res: ApiResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.request<T>('POST', this.path(res, obj.metadata.namespace), {
      body: withTypeMeta(res, obj),
      query: writeQuery(opts),
      signal: opts.signal,
    });
  }

  /** PUT; fails with a conflict when obj.metadata.resourceVersion is stale. */
  replace<T extends KubeObject>(res: ApiResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.request<T>('PUT', this.path(res, obj.metadata.namespace, obj.metadata.name), {
      body: withTypeMeta(res, obj),
      query: writeQuery(opts),
      signal: opts.signal,
    });
  }

  /**
   * PUT to the status subresource; only .status is taken from obj. `json`: obj as
   * serialiseWithTypeMeta gives it, when the caller already has it (a status write measures it).
   */
  replaceStatus<T extends KubeObject>(
    res: ApiResource,
    obj: T,
    opts: WriteOptions & { json?: string } = {},
  ): Promise<T> {
    return this.request<T>('PUT', this.path(res, obj.metadata.namespace, obj.metadata.name, 'status'), {
      ...(opts.json !== undefined ? { bodyText: opts.json } : { body: withTypeMeta(res, obj) }),
      query: writeQuery(opts),
      signal: opts.signal,
    });
  }

  patch<T extends KubeObject>(
    res: ApiResource,
    name: string,
    namespace: string | undefined,
    type: PatchType,
    body: unknown,
    opts: PatchOptions = {},
  ): Promise<T> {
    return this.request<T>('PATCH', this.path(res, namespace, name, opts.subresource), {
      body,
      contentType: PATCH_CONTENT_TYPES[type],
      query: { ...writeQuery(opts), force: type === 'apply' && opts.force ? true : undefined },
      signal: opts.signal,
    });
  }

  async delete(res: ApiResource, name: string, namespace?: string, opts: DeleteOptions = {}): Promise<void> {
    await this.request('DELETE', this.path(res, namespace, name), {
      body: {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: opts.propagationPolicy,
        preconditions: opts.preconditions,
        gracePeriodSeconds: opts.gracePeriodSeconds,
      },
      signal: opts.signal,
    });
  }

  /**
   * Streams watch events until the server closes the watch (timeoutSeconds), the connection drops,
   * or nothing arrives for idleTimeoutMs. Bookmarks are always requested. An ERROR event is yielded
   * as is; the caller decides (410 means relist).
   */
  async *watch<T extends KubeObject>(res: ApiResource, opts: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    const path = this.path(res, opts.namespace);
    const { resp, conn } = await this.send('GET', path, {
      query: {
        watch: true,
        allowWatchBookmarks: true,
        resourceVersion: opts.resourceVersion,
        timeoutSeconds: opts.timeoutSeconds,
        labelSelector: opts.labelSelector,
        fieldSelector: opts.fieldSelector,
      },
      signal: opts.signal,
      idleTimeoutMs: opts.idleTimeoutMs,
      // The watcher has its own retry loop (with backoff and metrics); the connection is still retired.
      noReplay: true,
    });
    const body = resp.body;
    try {
      body.setEncoding('utf8');
      let buf = '';
      const chunks = (body as AsyncIterable<string>)[Symbol.asyncIterator]();
      for (;;) {
        let next: IteratorResult<string>;
        try {
          next = await chunks.next();
        } catch (err) {
          // Reset, GOAWAY or silence mid-stream: the connection may be what broke.
          this.transportFault(conn, err, opts.signal);
          throw err;
        }
        if (next.done) break;
        buf += next.value;
        let start = 0;
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n', start)) {
          const line = buf.slice(start, nl);
          start = nl + 1;
          if (line.trim()) yield JSON.parse(line) as WatchEvent<T>;
        }
        buf = buf.slice(start);
      }
      if (buf.trim()) yield JSON.parse(buf) as WatchEvent<T>;
    } finally {
      body.destroy();
    }
  }

  /** Any JSON request; the response is parsed (undefined for an empty body). */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    for (let replayed = false; ; replayed = true) {
      const { resp, conn } = await this.send(method, path, opts);
      let text: string;
      try {
        text = await resp.body.text();
      } catch (err) {
        if (!this.transportFault(conn, err, opts.signal) || method !== 'GET' || replayed) throw err;
        continue;
      }
      return (text ? JSON.parse(text) : undefined) as T;
    }
  }

  /**
   * GET `path` (default the API server's /readyz) over a new connection used once: tells a broken
   * connection of this client from an API server that is down. Returns the HTTP status, or the error.
   */
  async probeFresh(path = '/readyz', timeoutMs = 5_000): Promise<number | Error> {
    let conn: Connection | undefined;
    try {
      conn = await this.newConnection();
      const resp = await request(`${conn.server}${path}`, {
        headers: { ...(await this.authHeaders()), 'user-agent': this.userAgent },
        dispatcher: conn.dispatcher,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      await resp.body.dump();
      return resp.statusCode;
    } catch (err) {
      return err instanceof Error ? err : new Error(String(err));
    } finally {
      await conn?.dispatcher.destroy().catch(() => undefined);
    }
  }

  /** Closes connections, aborting in-flight requests (open watches would otherwise never finish). */
  async close(): Promise<void> {
    const t = this.transport;
    t.closed = true;
    const current = await t.current?.catch(() => undefined);
    const all = [...t.draining, ...(current ? [current] : [])];
    await Promise.all(all.map((c) => c.dispatcher.destroy().catch(() => undefined)));
  }

  private async send(
    method: string,
    path: string,
    opts: RequestOptions & { idleTimeoutMs?: number; noReplay?: boolean },
  ): Promise<{ resp: Dispatcher.ResponseData; conn: Connection }> {
    const qs = queryString(opts.query);
    const body = opts.bodyText ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
    let replayed = opts.noReplay === true;
    for (let throttled = 0; ; ) {
      const waited = await this.limiter.take(opts.signal);
      if (waited > 0) this.metrics?.throttled(waited);
      const conn = await this.connect();
      const headers: Record<string, string> = {
        ...(await this.authHeaders()),
        accept: 'application/json',
        'user-agent': this.userAgent,
      };
      if (body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
      const started = Date.now();
      let resp: Dispatcher.ResponseData;
      try {
        resp = await request(`${conn.server}${path}${qs ? `?${qs}` : ''}`, {
          method: method as Dispatcher.HttpMethod,
          headers,
          body,
          dispatcher: conn.dispatcher,
          signal: opts.signal,
          // For a watch, "idle" covers the wait for headers too: a connection can die at any point.
          headersTimeout: opts.idleTimeoutMs ?? this.requestTimeoutMs,
          bodyTimeout: opts.idleTimeoutMs ?? this.requestTimeoutMs,
        });
      } catch (err) {
        this.metrics?.request(method, '<error>', Date.now() - started);
        // A read is safe to repeat on the new connection; a write may have reached the server, so
        // its caller decides (reconcilers requeue).
        if (this.transportFault(conn, err, opts.signal) && method === 'GET' && !replayed) {
          replayed = true;
          continue;
        }
        throw err;
      }
      this.metrics?.request(method, String(resp.statusCode), Date.now() - started);
      this.health.answered(resp.statusCode);
      if (resp.statusCode < 400) return { resp, conn };
      const err = await apiErrorFrom(method, path, resp);
      // A body over the server's limit can stay half-sent on the HTTP/2 session and hold its memory:
      // Node then refuses every new stream on it (ENHANCE_YOUR_CALM). Never reuse that connection.
      if (resp.statusCode === 413) this.retire(conn, '413', err.message);
      // The server asked us to slow down (API Priority and Fairness); client-go retries these too.
      if (resp.statusCode === 429 && throttled++ < MAX_THROTTLE_RETRIES) {
        await sleep(retryAfterMs(err), undefined, { signal: opts.signal });
        continue;
      }
      throw err;
    }
  }

  /**
   * Books a request that got no HTTP answer and retires its connection. Returns false when the
   * failure was ours to cause (the caller aborted, or the client is closed).
   */
  private transportFault(conn: Connection, err: unknown, signal: AbortSignal | undefined): boolean {
    if (signal?.aborted || this.transport.closed) return false;
    const detail = describeTransportError(err);
    // A retired connection is closed by us once its drain time is over: not the server's doing.
    if (!conn.retired) this.health.unanswered(detail);
    this.retire(conn, transportErrorCode(err), detail);
    return true;
  }

  /** New requests go to a new connection; this one may finish what it carries for drainMs. */
  private retire(conn: Connection, cause: string, detail: string): void {
    const t = this.transport;
    if (conn.retired || t.closed) return;
    conn.retired = true;
    if (t.resolved === conn) {
      t.current = undefined;
      t.resolved = undefined;
    }
    this.metrics?.reconnected?.(cause);
    this.opts.onReconnect?.(detail);
    t.draining.add(conn);
    const destroy = setTimeout(
      () => void conn.dispatcher.destroy().catch(() => undefined),
      this.opts.drainMs ?? 60_000,
    );
    destroy.unref();
    void conn.dispatcher
      .close()
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(destroy);
        t.draining.delete(conn);
      });
  }

  private connect(): Promise<Connection> {
    const t = this.transport;
    if (!t.current) {
      const pending = this.newConnection();
      t.current = pending;
      pending.then(
        (conn) => {
          if (t.current === pending) t.resolved = conn;
        },
        () => {
          if (t.current === pending) t.current = undefined; // try again next time
        },
      );
    }
    return t.current;
  }

  private async newConnection(): Promise<Connection> {
    const cluster = this.kubeConfig.getCurrentCluster();
    if (!cluster) throw new Error('kubeconfig has no current cluster');
    const tls: Record<string, unknown> = {};
    await this.kubeConfig.applyToHTTPSOptions(tls);
    const connect: Record<string, unknown> = {};
    for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername']) {
      if (tls[k] !== undefined) connect[k] = tls[k];
    }
    return {
      server: cluster.server.replace(/\/+$/, ''),
      dispatcher: new Agent({
        connect,
        initialWindowSize: STREAM_WINDOW_BYTES,
        connectionWindowSize: CONNECTION_WINDOW_BYTES,
      }),
      retired: false,
    };
  }

  private async authHeaders(): Promise<Record<string, string>> {
    const t = this.transport;
    const now = Date.now();
    if (t.auth && now - t.auth.at < AUTH_REFRESH_MS) return t.auth.headers;
    const opts: { headers?: Record<string, string>; auth?: string } = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(opts as never);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = String(v);
    if (opts.auth) headers.authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    t.auth = { headers, at: now };
    return headers;
  }
}

/** Retry-After in ms (default 1 s when absent), at most MAX_RETRY_AFTER_MS. */
export function retryAfterMs(err: ApiError): number {
  const seconds = err.retryAfterSeconds ?? 1;
  return Math.min(Math.max(0, seconds) * 1000, MAX_RETRY_AFTER_MS);
}

/** The error's code for metrics: undici's (UND_ERR_SOCKET), Node's (ECONNRESET) or its name. */
function transportErrorCode(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown };
  return typeof e?.code === 'string' ? e.code : typeof e?.name === 'string' ? e.name : 'unknown';
}

/** One line about a transport error, with the HTTP/2 error code when the stream was reset. */
export function describeTransportError(err: unknown): string {
  const e = err as { message?: unknown; http2ErrorCode?: unknown; cause?: { message?: unknown } };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const h2 = typeof e?.http2ErrorCode === 'number' ? ` (HTTP/2 error code ${e.http2ErrorCode})` : '';
  const cause = typeof e?.cause?.message === 'string' ? `: ${e.cause.message}` : '';
  return `${transportErrorCode(err)}: ${message}${cause}${h2}`.slice(0, 300);
}

function withTypeMeta<T extends KubeObject>(res: ApiResource, obj: T): T {
  return { ...obj, apiVersion: apiVersionOf(res), kind: res.kind };
}

/** The body a write of `obj` sends, serialised. */
export function serialiseWithTypeMeta(res: ApiResource, obj: KubeObject): string {
  return JSON.stringify(withTypeMeta(res, obj));
}

function writeQuery(opts: WriteOptions): Record<string, string | undefined> {
  return { fieldManager: opts.fieldManager, dryRun: opts.dryRun ? 'All' : undefined };
}

function queryString(query: RequestOptions['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  return params.toString();
}

async function apiErrorFrom(method: string, path: string, resp: Dispatcher.ResponseData): Promise<ApiError> {
  const text = await resp.body.text().catch(() => '');
  let status: Status | undefined;
  try {
    const parsed = JSON.parse(text) as Status;
    if (parsed && parsed.kind === 'Status') status = parsed;
  } catch {
    // not JSON (e.g. a proxy's HTML error page); keep the text in the message
  }
  const header = resp.headers['retry-after'];
  const retryAfter = Number(Array.isArray(header) ? header[0] : header);
  const message = status?.message ?? (text.slice(0, 300) || `HTTP ${resp.statusCode}`);
  return new ApiError(
    resp.statusCode,
    status,
    `${method} ${path}: ${resp.statusCode} ${status?.reason ?? ''}: ${message}`,
    Number.isFinite(retryAfter) ? retryAfter : status?.details?.retryAfterSeconds,
  );
}
