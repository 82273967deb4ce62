// A small JSON REST client for the Kubernetes API over undici: CRUD, the three patch flavours, the
// status subresource and streaming watches. Every request (watches included, as in client-go) first
// takes a token from a QPS/burst bucket. Errors carry the HTTP status and the API's Status reason.
import type { KubeConfig } from '@kubernetes/client-node';
import { Agent, type Dispatcher, request } from 'undici';
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
}

export interface KubeClientOptions {
  kubeConfig: KubeConfig;
  /** Sustained requests per second; <= 0 disables. Default 20 (controller-runtime < v0.21 and assisted-service). */
  qps?: number;
  /** Default 30 (same source). */
  burst?: number;
  /** Headers/body timeout for ordinary requests. Default 60 s (project choice; client-go has none). */
  requestTimeoutMs?: number;
  userAgent?: string;
  metrics?: ClientMetricsSink;
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

interface Connection {
  server: string;
  dispatcher: Dispatcher;
}

/** Credentials from a kubeconfig can rotate (token files, exec plugins); re-read them this often. */
const AUTH_REFRESH_MS = 30_000;
const MAX_THROTTLE_RETRIES = 5;

export class KubeClient {
  readonly limiter: TokenBucket;
  private readonly kubeConfig: KubeConfig;
  private readonly requestTimeoutMs: number;
  private readonly userAgent: string;
  private readonly metrics: ClientMetricsSink | undefined;
  private connection: Promise<Connection> | undefined;
  private auth: { headers: Record<string, string>; at: number } | undefined;

  constructor(opts: KubeClientOptions) {
    this.kubeConfig = opts.kubeConfig;
    this.limiter = new TokenBucket(opts.qps ?? 20, opts.burst ?? 30);
    this.requestTimeoutMs = opts.requestTimeoutMs ?? 60_000;
    this.userAgent = opts.userAgent ?? 'agent-install-operator';
    this.metrics = opts.metrics;
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

  /** PUT to the status subresource; only .status is taken from obj. */
  replaceStatus<T extends KubeObject>(res: ApiResource, obj: T, opts: WriteOptions = {}): Promise<T> {
    return this.request<T>('PUT', this.path(res, obj.metadata.namespace, obj.metadata.name, 'status'), {
      body: withTypeMeta(res, obj),
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
    const resp = await this.send('GET', path, {
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
    });
    const body = resp.body;
    try {
      body.setEncoding('utf8');
      let buf = '';
      for await (const chunk of body as AsyncIterable<string>) {
        buf += chunk;
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
    const resp = await this.send(method, path, opts);
    const text = await resp.body.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Closes connections, aborting in-flight requests (open watches would otherwise never finish). */
  async close(): Promise<void> {
    const conn = await this.connection?.catch(() => undefined);
    await conn?.dispatcher.destroy();
  }

  private async send(
    method: string,
    path: string,
    opts: RequestOptions & { idleTimeoutMs?: number },
  ): Promise<Dispatcher.ResponseData> {
    const conn = await this.connect();
    const qs = queryString(opts.query);
    const url = `${conn.server}${path}${qs ? `?${qs}` : ''}`;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    for (let attempt = 0; ; attempt++) {
      const waited = await this.limiter.take(opts.signal);
      if (waited > 0) this.metrics?.throttled(waited);
      const headers: Record<string, string> = {
        ...(await this.authHeaders()),
        accept: 'application/json',
        'user-agent': this.userAgent,
      };
      if (body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
      const started = Date.now();
      let resp: Dispatcher.ResponseData;
      try {
        resp = await request(url, {
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
        throw err;
      }
      this.metrics?.request(method, String(resp.statusCode), Date.now() - started);
      if (resp.statusCode < 400) return resp;
      const err = await apiErrorFrom(method, path, resp);
      // The server asked us to slow down (API Priority and Fairness); client-go retries these too.
      if (resp.statusCode === 429 && attempt < MAX_THROTTLE_RETRIES) {
        const seconds = Math.min(err.retryAfterSeconds ?? 1, 10);
        await new Promise((r) => setTimeout(r, seconds * 1000));
        continue;
      }
      throw err;
    }
  }

  private connect(): Promise<Connection> {
    this.connection ??= (async () => {
      const cluster = this.kubeConfig.getCurrentCluster();
      if (!cluster) throw new Error('kubeconfig has no current cluster');
      const tls: Record<string, unknown> = {};
      await this.kubeConfig.applyToHTTPSOptions(tls);
      const connect: Record<string, unknown> = {};
      for (const k of ['ca', 'cert', 'key', 'pfx', 'passphrase', 'rejectUnauthorized', 'servername']) {
        if (tls[k] !== undefined) connect[k] = tls[k];
      }
      return { server: cluster.server.replace(/\/+$/, ''), dispatcher: new Agent({ connect }) };
    })();
    return this.connection;
  }

  private async authHeaders(): Promise<Record<string, string>> {
    const now = Date.now();
    if (this.auth && now - this.auth.at < AUTH_REFRESH_MS) return this.auth.headers;
    const opts: { headers?: Record<string, string>; auth?: string } = { headers: {} };
    await this.kubeConfig.applyToHTTPSOptions(opts as never);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) headers[k.toLowerCase()] = String(v);
    if (opts.auth) headers.authorization = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    this.auth = { headers, at: now };
    return headers;
  }
}

function withTypeMeta<T extends KubeObject>(res: ApiResource, obj: T): T {
  return { ...obj, apiVersion: apiVersionOf(res), kind: res.kind };
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
