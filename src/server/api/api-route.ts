// The pipeline every REST operation runs through, in this order: path ids and query checked
// (400), credential authenticated and checked against the records the request names
// (401/403/404/503, body never read), body read under its size limit (413) and validated (400),
// then the backend. A refused request never reaches the backend.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { AccessTarget, Authenticator, AuthRequest, AuthResult, UrlKind } from '../../auth/types.ts';
import { capForLog } from '../../util/log-text.ts';
import type { CallContext, FileDownload, HostApiBackend, Outcome } from './backend.ts';
import { type ApiError, apiError, middlewareErrorBody } from './errors.ts';
import {
  BodyTimeoutError,
  checkDeclaredLength,
  discardRest,
  type JsonList,
  PayloadTooLargeError,
  readBody,
  sendEmpty,
  sendError,
  sendFile,
  sendJson,
  sendJsonList,
  sendMiddlewareError,
} from './http-io.ts';
import {
  type BodyKind,
  type BodyLimits,
  Budget,
  bodyLimitOf,
  type ConcurrencyLimits,
  DEFAULT_BODY_LIMITS,
  DEFAULT_CONCURRENCY,
  HEAVY_WORK_BYTES,
  LoopTurns,
} from './limits.ts';
import { MultipartError } from './multipart.ts';
import { checkPathIds, QueryReader } from './query.ts';
import type { RouteParams, Router } from './router.ts';
import { type Parsed, parseJsonBody } from './schemas.ts';
import { API_BASE_PATH } from './wire.ts';

/** Body limits, concurrency limits and body timeouts (docs/operations.md). */
export interface ApiLimits extends BodyLimits, ConcurrencyLimits {
  /** A JSON body must arrive whole within this time (408 and the connection closed otherwise). */
  bodyTimeoutMs: number;
  /** A log upload may not pause longer than this between two chunks. */
  uploadIdleTimeoutMs: number;
}

export const DEFAULT_LIMITS: ApiLimits = {
  ...DEFAULT_BODY_LIMITS,
  ...DEFAULT_CONCURRENCY,
  bodyTimeoutMs: 60_000,
  uploadIdleTimeoutMs: 60_000,
};

/** The shared budgets of one server (see limits.ts). */
export interface ApiBudgets {
  readonly largeBodies: Budget;
  readonly uploads: Budget;
  readonly downloads: Budget;
  /** Heavy bodies and replies, one per turn of the event loop. */
  readonly heavyWork: LoopTurns;
}

export function budgetsFor(limits: ApiLimits): ApiBudgets {
  return {
    largeBodies: new Budget(limits.largeBodyBytes),
    uploads: new Budget(limits.logUploads),
    downloads: new Budget(limits.downloads),
    heavyWork: new LoopTurns(),
  };
}

export type ApiReply =
  | {
      readonly kind: 'json';
      readonly status: number;
      readonly body: unknown;
      readonly headers?: Record<string, string>;
      /** Serialised in a turn of the event loop of its own (see LoopTurns). */
      readonly heavy?: boolean;
    }
  | { readonly kind: 'jsonList'; readonly status: number; readonly list: JsonList }
  | { readonly kind: 'empty'; readonly status: number }
  | { readonly kind: 'file'; readonly file: FileDownload }
  | { readonly kind: 'error'; readonly error: ApiError };

export function errorReply(status: number, reason: string): ApiReply {
  return { kind: 'error', error: apiError(status, reason) };
}

/** The backend's answer, or its error in the declared shape. */
export function fromOutcome<T>(outcome: Outcome<T>, onOk: (value: T) => ApiReply): ApiReply {
  return outcome.ok ? onOk(outcome.value) : { kind: 'error', error: outcome.error };
}

export interface ApiDeps {
  readonly backend: HostApiBackend;
  readonly auth: Authenticator;
  readonly logger: Logger;
  readonly limits: ApiLimits;
  readonly budgets: ApiBudgets;
}

export interface HandlerContext<Q> {
  readonly req: IncomingMessage;
  readonly params: RouteParams;
  readonly query: Q;
  readonly call: CallContext;
  readonly deps: ApiDeps;
  /** Reads and validates the JSON body (413 over the limit is raised for the pipeline to answer). */
  body<S extends z.ZodType>(schema: S, model: string): Promise<Parsed<z.output<S>>>;
  /** Checks records named in the body against the credential (e.g. the ids of a posted event). */
  authorize(target: AccessTarget): Promise<AuthResult>;
  /** Keeps a budget share until the reply has been sent. */
  hold(release: () => void): void;
}

export interface ApiRoute<Q = undefined> {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path below the base path, e.g. `/v2/infra-envs/{infra_env_id}/hosts`. */
  readonly path: string;
  /** Accepted credentials: agent token (X-Secret-Key) and/or download tokens of these kinds. */
  readonly auth: { readonly agent?: boolean; readonly url?: readonly UrlKind[] };
  /** Which body limit applies (default: the JSON ceiling). */
  readonly bodyKind?: BodyKind;
  /** Parses query parameters; problems go to the reader's error list (→ 400). */
  readonly query?: (reader: QueryReader) => Q;
  /** The records the request names (default: the path's infra_env_id, cluster_id, host_id). */
  readonly target?: (params: RouteParams, query: Q) => AccessTarget;
  readonly handle: (ctx: HandlerContext<Q>) => Promise<ApiReply>;
}

/** Erases the query type so routes of different shapes fit in one list. */
export function defineRoute<Q>(route: ApiRoute<Q>): ApiRoute<unknown> {
  return route as unknown as ApiRoute<unknown>;
}

export function targetFromPath(params: RouteParams): AccessTarget {
  const target: { -readonly [K in keyof AccessTarget]: AccessTarget[K] } = {};
  if (params.infra_env_id) target.infraEnvId = params.infra_env_id;
  if (params.cluster_id) target.clusterId = params.cluster_id;
  if (params.host_id) target.hostId = params.host_id;
  return target;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export async function writeReply(res: ServerResponse, reply: ApiReply, budgets?: ApiBudgets): Promise<void> {
  switch (reply.kind) {
    case 'json':
      if (reply.heavy && budgets) await budgets.heavyWork.take();
      return sendJson(res, reply.status, reply.body, reply.headers);
    case 'jsonList':
      return sendJsonList(res, reply.status, reply.list);
    case 'empty':
      return sendEmpty(res, reply.status);
    case 'file': {
      // Streams wait for a download slot; bytes already in memory are sent at once.
      const streamed = !(typeof reply.file.content === 'string' || Buffer.isBuffer(reply.file.content));
      const release = streamed && budgets ? await budgets.downloads.acquire(1) : undefined;
      try {
        return await sendFile(res, reply.file);
      } finally {
        release?.();
      }
    }
    case 'error': {
      const { status } = reply.error;
      // A backend answering a non-error status as an error is a bug, not a client problem.
      const sane = Number.isInteger(status) && status >= 400 && status <= 599;
      return sendError(res, sane ? reply.error : apiError(500, `invalid error status ${status}`));
    }
  }
}

/** Answers an exception escaping a handler: 413 and 400 for body problems, else 500. */
export function answerFailure(res: ServerResponse, err: unknown, logger: Logger, what: string): void {
  if (res.headersSent) {
    logger.warn({ err }, `${what}: failed after the response started`);
    res.destroy(err instanceof Error ? err : undefined);
    return;
  }
  if (err instanceof PayloadTooLargeError) {
    sendError(res, apiError(413, err.message));
    return;
  }
  if (err instanceof BodyTimeoutError) {
    // The client is too slow to be worth waiting for: answer and close the connection.
    res.setHeader('connection', 'close');
    res.once('finish', () => res.socket?.destroy());
    sendError(res, apiError(408, err.message));
    return;
  }
  if (err instanceof MultipartError) {
    sendError(res, apiError(400, err.message));
    return;
  }
  logger.error({ err }, `${what} failed`);
  sendError(res, apiError(500, 'internal error'));
}

/**
 * A JSON body as text, under its kind's limit and the body timeout. A large body (declared, or
 * of unknown length) first waits for room in the shared byte budget, held until the reply is sent.
 */
async function readJsonText(
  req: IncomingMessage,
  deps: ApiDeps,
  kind: BodyKind | undefined,
  hold: (release: () => void) => void,
): Promise<string> {
  const limit = bodyLimitOf(deps.limits, kind);
  checkDeclaredLength(req, limit);
  const declared = Number(req.headers['content-length']);
  const expected = Number.isFinite(declared) ? declared : limit;
  if (expected > deps.limits.largeBodyThreshold) hold(await deps.budgets.largeBodies.acquire(expected));
  const body = await readBody(req, limit, { totalMs: deps.limits.bodyTimeoutMs });
  // Decoded, parsed and handled in a turn of its own (the handler's work up to its first wait).
  if (body.length > HEAVY_WORK_BYTES) await deps.budgets.heavyWork.take();
  return body.toString('utf8');
}

export function mountApiRoute(router: Router, route: ApiRoute<unknown>, deps: ApiDeps): void {
  const what = `${route.method} ${route.path}`;
  router.add(route.method, API_BASE_PATH + route.path, async (req, res, params, url) => {
    const releases: (() => void)[] = [];
    try {
      const problems = checkPathIds(params);
      const reader = new QueryReader(url.searchParams);
      const query = route.query ? route.query(reader) : undefined;
      problems.push(...reader.errors);
      if (problems.length > 0) return sendError(res, apiError(400, problems.join('; ')));

      const authRequest: AuthRequest = {
        method: route.method,
        path: url.pathname,
        ...(req.socket.remoteAddress ? { remoteAddress: req.socket.remoteAddress } : {}),
        agentToken: header(req, 'x-secret-key'),
        urlToken: url.searchParams.get('api_key') ?? undefined,
        accepts: route.auth,
        target: route.target ? route.target(params, query) : targetFromPath(params),
      };
      const authenticated = await deps.auth.authenticate(authRequest);
      if (!authenticated.ok) return sendMiddlewareError(res, authenticated.status, authenticated.reason);
      const principal = authenticated.principal;

      const requestId = header(req, 'x-request-id');
      const agentVersionHeader = header(req, 'discovery_agent_version');
      const call: CallContext = {
        principal,
        ...(requestId ? { requestId } : {}),
        ...(agentVersionHeader ? { agentVersionHeader } : {}),
      };
      const reply = await route.handle({
        req,
        params,
        query,
        call,
        deps,
        body: async (schema, model) =>
          parseJsonBody(
            await readJsonText(req, deps, route.bodyKind, (release) => releases.push(release)),
            schema,
            model,
          ),
        authorize: (target) => deps.auth.authorize(principal, target, { ...authRequest, target }),
        hold: (release) => releases.push(release),
      });
      if (reply.kind === 'error' && reply.error.status >= 500) {
        deps.logger.warn(
          { route: what, status: reply.error.status, reason: capForLog(reply.error.reason) },
          'backend error',
        );
      }
      await writeReply(res, reply, deps.budgets);
    } catch (err) {
      answerFailure(res, err, deps.logger, what);
    } finally {
      for (const release of releases) release();
      // Refused or answered early: let the client finish sending so it reads the answer.
      discardRest(req);
    }
  });
}

/** Sends an authorisation refusal found inside a handler. */
export function refusal(result: Exclude<AuthResult, { ok: true }>): ApiReply {
  return { kind: 'json', status: result.status, body: middlewareErrorBody(result.status, result.reason) };
}
