// The host-facing REST server (agent-api.md §0–§2) on node:http. Other parts mount their own
// handlers on the same server through `add` (the image service's /byapikey/…, /images/…,
// /boot-artifacts/… routes).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { redactCredentialPath } from '../../auth/download-urls.ts';
import type { Authenticator } from '../../auth/types.ts';
import { capForLog } from '../../util/log-text.ts';
import {
  type ApiDeps,
  type ApiLimits,
  answerFailure,
  budgetsFor,
  DEFAULT_LIMITS,
  mountApiRoute,
} from './api-route.ts';
import type { HostApiBackend } from './backend.ts';
import { apiError } from './errors.ts';
import { sendError, sendJson, sendMiddlewareError } from './http-io.ts';
import { type RawHandler, Router } from './router.ts';
import { HOST_ROUTES } from './routes-agent.ts';
import { CLUSTER_ROUTES } from './routes-cluster.ts';
import { EVENT_ROUTES } from './routes-events.ts';
import { INFRA_ENV_ROUTES } from './routes-infra-env.ts';
import { LOGS_ROUTES } from './routes-logs.ts';
import { API_BASE_PATH } from './wire.ts';

export interface ApiServerOptions {
  backend: HostApiBackend;
  auth: Authenticator;
  logger: Logger;
  limits?: Partial<ApiLimits>;
  /** Also serve GET /health (process up) and GET /ready (200 when ready() holds, else 503). */
  probes?: { ready(): boolean };
  /**
   * While false, every request but the probes is answered 503 with Retry-After (hosts retry): a
   * standby replica must not take check-ins or step replies it would keep in its own memory.
   */
  serving?: () => boolean;
  timeouts?: {
    /** Whole request, uploads included (default 10 min). */
    requestTimeoutMs?: number;
    headersTimeoutMs?: number;
    /** Idle keep-alive (default 65 s, longer than typical load balancers' idle timeouts). */
    keepAliveTimeoutMs?: number;
  };
  /** Open connections at most; further ones are closed on accept (default 10,000). */
  maxConnections?: number;
}

export interface ApiServer {
  readonly router: Router;
  /** Registers an extra handler; `pattern` is absolute (not below the API base path). */
  add(method: string, pattern: string, handler: RawHandler): void;
  /** The request listener (for mounting on a server created elsewhere, e.g. HTTPS). */
  handler(req: IncomingMessage, res: ServerResponse): void;
  listen(port: number, host?: string): Promise<AddressInfo>;
  close(): Promise<void>;
  /** Bound address after listen. */
  readonly address: AddressInfo | undefined;
}

/** Above the largest published fleet (3,500 hosts polling one hub) with head-room. */
export const DEFAULT_MAX_CONNECTIONS = 10_000;

export const ALL_API_ROUTES = [
  ...HOST_ROUTES,
  ...CLUSTER_ROUTES,
  ...LOGS_ROUTES,
  ...EVENT_ROUTES,
  ...INFRA_ENV_ROUTES,
];

const PROBE_PATHS = new Set(['/health', '/ready']);

export function createApiServer(options: ApiServerOptions): ApiServer {
  const logger = options.logger;
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const deps: ApiDeps = {
    backend: options.backend,
    auth: options.auth,
    logger,
    limits,
    budgets: budgetsFor(limits),
  };
  const router = new Router();
  for (const route of ALL_API_ROUTES) mountApiRoute(router, route, deps);

  // Upstream requires userAuth, which local mode never grants; the answer is image refs only,
  // so it is served without a credential instead of always failing.
  router.add('GET', `${API_BASE_PATH}/v2/component-versions`, async (_req, res) => {
    const outcome = await options.backend.getComponentVersions();
    if (outcome.ok) sendJson(res, 200, outcome.value);
    else sendError(res, outcome.error);
  });
  if (options.probes) {
    const probes = options.probes;
    router.add('GET', '/health', (_req, res) => sendJson(res, 200, { status: 'ok' }));
    router.add('GET', '/ready', (_req, res) =>
      probes.ready() ? sendJson(res, 200, { status: 'ready' }) : sendJson(res, 503, { status: 'not ready' }),
    );
  }

  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    let url: URL;
    try {
      url = new URL(req.url ?? '/', 'http://localhost');
    } catch {
      sendError(res, apiError(400, 'malformed request URL'));
      return;
    }
    const method = req.method ?? 'GET';
    // Only when the line is written: every host poll passes here.
    if (logger.isLevelEnabled('debug')) logRequestWhenSent(logger, req, res, url);
    const match = router.match(method, url.pathname);
    if (match.kind === 'not-found') {
      sendMiddlewareError(res, 404, `path ${url.pathname} was not found`);
      return;
    }
    if (match.kind === 'method-not-allowed') {
      sendMiddlewareError(res, 405, `method ${method} is not allowed, but [${match.allowed.join(',')}] are`, {
        allow: match.allowed.join(', '),
      });
      return;
    }
    if (options.serving && !options.serving() && !PROBE_PATHS.has(url.pathname)) {
      sendMiddlewareError(res, 503, 'this replica does not serve the API now (not the leader), retry', {
        'retry-after': '1',
      });
      return;
    }
    Promise.resolve()
      .then(() => match.handler(req, res, match.params, url))
      .catch((err: unknown) => answerFailure(res, err, logger, `${method} ${match.pattern}`));
  };

  let server: Server | undefined;
  return {
    router,
    add: (method, pattern, h) => router.add(method, pattern, h),
    handler,
    get address() {
      return (server?.address() as AddressInfo | null) ?? undefined;
    },
    async listen(port, host) {
      if (server) throw new Error('API server is already listening');
      const created = createServer(handler);
      created.requestTimeout = options.timeouts?.requestTimeoutMs ?? 10 * 60_000;
      created.headersTimeout = options.timeouts?.headersTimeoutMs ?? 60_000;
      created.keepAliveTimeout = options.timeouts?.keepAliveTimeoutMs ?? 65_000;
      created.maxConnections = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS;
      await new Promise<void>((resolve, reject) => {
        created.once('error', reject);
        created.listen(port, host, () => {
          created.off('error', reject);
          resolve();
        });
      });
      created.on('error', (err) => logger.error({ err }, 'API server error'));
      server = created;
      return created.address() as AddressInfo;
    },
    async close() {
      const current = server;
      server = undefined;
      if (!current) return;
      current.closeIdleConnections();
      const closed = new Promise<void>((resolve) => current.close(() => resolve()));
      current.closeAllConnections();
      await closed;
    },
  };
}

/** Logs the request once its response is sent (debug level). */
function logRequestWhenSent(logger: Logger, req: IncomingMessage, res: ServerResponse, url: URL): void {
  const started = process.hrtime.bigint();
  res.once('finish', () => {
    // The path only (queries may carry api_key credentials), its /byapikey/ token hidden.
    logger.debug(
      {
        method: req.method ?? 'GET',
        path: capForLog(redactCredentialPath(url.pathname)),
        status: res.statusCode,
        ms: Number(process.hrtime.bigint() - started) / 1e6,
      },
      'request',
    );
  });
}
