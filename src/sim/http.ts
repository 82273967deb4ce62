// The HTTP side of a simulated host: the agent-API client the agent, installer and controller
// share, with the wire habits of the Go clients (agent-api.md §0.2–§0.7): X-Secret-Key on every
// call, the underscore header discovery_agent_version, JSON bodies ending in a newline, exact
// success codes (any other code is an error, as the generated Go readers treat it), error bodies
// that must decode in the declared shape, and the two transport retry policies.

import { Agent, type Dispatcher, request } from 'undici';
import { goDecodeProblems } from './go-decode.ts';

export const API_PREFIX = '/api/assisted-install';

/** Bounds the number of requests in flight across all hosts sharing it. */
export class Limiter {
  readonly max: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(max: number) {
    this.max = Math.max(1, max);
  }

  async acquire(): Promise<() => void> {
    if (this.active >= this.max) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // Hand the slot straight to the next waiter (active stays the same).
      if (next) next();
      else this.active--;
    };
  }

  get inFlight(): number {
    return this.active;
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * agent: 3 retries on temporary network errors and 503/504 (2–10 s, exponential, jittered).
 * installer: 404/423/425 ×10; 408/429/5xx and any network error ×360 (2–10 s jittered).
 * none: one attempt.
 */
export type RetryPolicy = 'agent' | 'installer' | 'none';

export interface ApiCall {
  /** Swagger operation id, for stats and errors. */
  op: string;
  method: 'GET' | 'POST' | 'PUT';
  /** Path after /api/assisted-install, e.g. "/v2/infra-envs/…/hosts". */
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  /** JSON body (sent with Content-Type application/json and a trailing newline). */
  json?: unknown;
  body?: Buffer;
  contentType?: string;
  /** The one success code swagger declares. */
  expect: number;
  retry: RetryPolicy;
  /** Sends the discovery_agent_version header (agent and runner calls). */
  agentVersion?: string;
  /** File endpoints must answer application/octet-stream (§0.4). */
  octetStream?: boolean;
  /** Wire model (wire-models.ts) the success body is decoded into, strictly as the Go client does. */
  decode?: string;
}

export interface ApiResponse {
  status: number;
  body: Buffer;
  /** The decoded body when the call names a model. */
  json?: unknown;
}

/** One request and its answer as they crossed the wire (for recording and contract checks). */
export interface WireExchange {
  op: string;
  method: ApiCall['method'];
  /** Path below the API prefix, without the query. */
  path: string;
  query: string;
  /** The JSON request body, when one was sent. */
  requestJson?: unknown;
  requestContentType?: string;
  status: number;
  contentType: string;
  body: Buffer;
}

export class ApiError extends Error {
  readonly op: string;
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  readonly body: string;
  /** Network error code (ECONNREFUSED…) when status is 0. */
  readonly code?: string;
  /** The error body decodes in the shape swagger declares for the status (§0.5). */
  readonly typed: boolean;

  constructor(
    op: string,
    status: number,
    message: string,
    extra: { body?: string; code?: string; typed?: boolean } = {},
  ) {
    super(`${op}: ${message}`);
    this.name = 'ApiError';
    this.op = op;
    this.status = status;
    this.body = extra.body ?? '';
    this.code = extra.code;
    this.typed = extra.typed ?? false;
  }
}

/** Whether an error body decodes as `infra_error` (401/403: numeric code) or `error` (string code). */
export function errorBodyDecodes(status: number, body: string): boolean {
  if (body.trim() === '') return true;
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    return false;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const code = (value as { code?: unknown }).code;
  if (code === undefined || code === null) return true;
  return status === 401 || status === 403 ? typeof code === 'number' : typeof code === 'string';
}

const AGENT_TEMPORARY = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

function retryable(policy: RetryPolicy, status: number, code: string | undefined, attempt: number): boolean {
  if (policy === 'agent')
    return (
      attempt < 3 && (status === 503 || status === 504 || (status === 0 && AGENT_TEMPORARY.has(code ?? '')))
    );
  if (policy === 'installer') {
    if (status === 404 || status === 423 || status === 425) return attempt < 10;
    return attempt < 360 && (status === 0 || status === 408 || status === 429 || status >= 500);
  }
  return false;
}

export interface ClientContext {
  /** The agent's --url (scheme, host, port, optional path prefix). */
  serviceUrl: string;
  /** X-Secret-Key. */
  token: string;
  dispatcher: Dispatcher;
  limiter?: Limiter;
  signal?: AbortSignal;
  /** Simulated seconds per real second: retry delays are divided by it. */
  speed: number;
  random: () => number;
  userAgent?: string;
  /** Every HTTP exchange's outcome (a status, or "network"). */
  onResult?: (op: string, outcome: number | 'network') => void;
  /** Every request that got an answer, with both bodies. */
  onExchange?: (exchange: WireExchange) => void;
}

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string } };
  return e?.cause?.code ?? e?.code;
}

function queryString(query: ApiCall['query']): string {
  return Object.entries(query ?? {})
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
}

/** The body as the Go client's model decode sees it: any wrong JSON type is an error, never coerced. */
function decodeStrictly(call: ApiCall, status: number, body: Buffer): unknown {
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (err) {
    throw new ApiError(call.op, status, `cannot decode the ${call.decode} body: ${(err as Error).message}`);
  }
  const problems = goDecodeProblems(value, call.decode!);
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ');
    throw new ApiError(call.op, status, `cannot decode the ${call.decode} body: ${shown}`);
  }
  return value;
}

export class AgentApiClient {
  readonly ctx: ClientContext;
  private readonly base: string;

  constructor(ctx: ClientContext) {
    this.ctx = ctx;
    this.base = ctx.serviceUrl.replace(/\/+$/, '') + API_PREFIX;
  }

  url(path: string, query?: ApiCall['query']): string {
    const qs = queryString(query);
    return `${this.base}${path}${qs ? `?${qs}` : ''}`;
  }

  /** Performs the call with its retry policy; resolves on the expected status, else throws ApiError. */
  async call(call: ApiCall): Promise<ApiResponse> {
    const { ctx } = this;
    for (let attempt = 0; ; attempt++) {
      let status = 0;
      let code: string | undefined;
      let failure: ApiError;
      try {
        const res = await this.once(call);
        if (res.status === call.expect) {
          if (call.octetStream && !res.contentType.startsWith('application/octet-stream')) {
            throw new ApiError(
              call.op,
              res.status,
              `download answered Content-Type ${res.contentType || '(none)'}`,
            );
          }
          if (call.decode === undefined) return { status: res.status, body: res.body };
          return { status: res.status, body: res.body, json: decodeStrictly(call, res.status, res.body) };
        }
        status = res.status;
        const text = res.body.toString('utf8');
        const declaredSuccess = status >= 200 && status < 300;
        failure = new ApiError(
          call.op,
          status,
          declaredSuccess
            ? `response status code ${status} does not match the declared ${call.expect}`
            : `HTTP ${status} ${text.slice(0, 300)}`,
          { body: text, typed: !declaredSuccess && errorBodyDecodes(status, text) },
        );
      } catch (err) {
        if (err instanceof ApiError) throw err;
        if (ctx.signal?.aborted) throw err;
        code = errorCode(err);
        failure = new ApiError(call.op, 0, `${code ?? 'network error'}: ${(err as Error).message}`, { code });
      }
      if (!retryable(call.retry, status, code, attempt)) throw failure;
      const cap = call.retry === 'agent' ? Math.min(10, 2 * 2 ** attempt) : 10;
      await sleep(((2 + ctx.random() * (cap - 2)) * 1000) / ctx.speed, ctx.signal);
    }
  }

  private async once(call: ApiCall): Promise<{ status: number; body: Buffer; contentType: string }> {
    const { ctx } = this;
    const headers: Record<string, string> = {
      accept: 'application/json',
      'x-secret-key': ctx.token,
      'user-agent': ctx.userAgent ?? 'agent-install-sim',
    };
    if (call.agentVersion !== undefined) headers.discovery_agent_version = call.agentVersion;
    let body: Buffer | string | undefined;
    if (call.json !== undefined) {
      body = `${JSON.stringify(call.json)}\n`;
      headers['content-type'] = 'application/json';
    } else if (call.body) {
      body = call.body;
      headers['content-type'] = call.contentType ?? 'application/octet-stream';
    }
    const release = ctx.limiter ? await ctx.limiter.acquire() : undefined;
    try {
      const res = await request(this.url(call.path, call.query), {
        method: call.method,
        headers,
        body,
        dispatcher: ctx.dispatcher,
        signal: ctx.signal,
      });
      const buf = Buffer.from(await res.body.arrayBuffer());
      ctx.onResult?.(call.op, res.statusCode);
      const ct = res.headers['content-type'];
      const contentType = (Array.isArray(ct) ? ct[0] : ct) ?? '';
      ctx.onExchange?.({
        op: call.op,
        method: call.method,
        path: call.path,
        query: queryString(call.query),
        ...(call.json !== undefined ? { requestJson: call.json } : {}),
        ...(headers['content-type'] ? { requestContentType: headers['content-type'] } : {}),
        status: res.statusCode,
        contentType,
        body: buf,
      });
      return { status: res.statusCode, body: buf, contentType };
    } catch (err) {
      if (!ctx.signal?.aborted) ctx.onResult?.(call.op, 'network');
      throw err;
    } finally {
      release?.();
    }
  }
}

export interface DispatcherOptions {
  /** Max sockets per origin. */
  connections?: number;
  ca?: string[];
  rejectUnauthorized?: boolean;
}

/** One keep-alive connection pool for many simulated hosts. */
export function createDispatcher(opts: DispatcherOptions = {}): Agent {
  return new Agent({
    connections: opts.connections ?? 64,
    keepAliveTimeout: 30_000,
    connect: {
      rejectUnauthorized: opts.rejectUnauthorized ?? true,
      ...(opts.ca ? { ca: opts.ca } : {}),
    },
  });
}
