// HTTP endpoints for probes and scraping: /healthz (liveness), /readyz (readiness; what the checks
// mean is the manager's business) and /metrics (Prometheus text format). The manager may serve probes and metrics on separate ports.
// A secure metrics server speaks HTTPS and lets only authorised callers scrape (metrics-auth.ts).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { MetricsAccess } from './metrics-auth.ts';

export interface CheckResult {
  ok: boolean;
  detail?: string;
}

export interface HealthServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  healthz?: () => CheckResult | Promise<CheckResult>;
  readyz?: () => CheckResult | Promise<CheckResult>;
  registry?: Registry;
  logger: Logger;
  /** Serve HTTPS with this certificate (PEM) instead of plain HTTP. */
  tls?: { certPem: string; keyPem: string };
  /** Decides who may read /metrics from the Authorization header; unset: anyone. */
  authorizeMetrics?: (authorization: string | undefined) => Promise<MetricsAccess>;
}

export class HealthServer {
  private readonly opts: HealthServerOptions;
  private server: Server | undefined;

  constructor(opts: HealthServerOptions) {
    this.opts = opts;
  }

  /** The bound port (after start). */
  get port(): number {
    return (this.server?.address() as AddressInfo | null)?.port ?? 0;
  }

  async start(): Promise<void> {
    const listener = (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req)
        .then(({ code, type, body }) => {
          res.writeHead(code, { 'content-type': type }).end(body);
        })
        .catch((err) => {
          this.opts.logger.error({ err }, 'health endpoint failed');
          res.writeHead(500).end();
        });
    };
    const tls = this.opts.tls;
    const server: Server = tls
      ? createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, listener)
      : createServer(listener);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.opts.port, this.opts.host, () => resolve());
    });
    this.server = server;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage): Promise<{ code: number; type: string; body: string }> {
    const path = (req.url ?? '/').split('?')[0];
    const check = path === '/healthz' ? this.opts.healthz : path === '/readyz' ? this.opts.readyz : undefined;
    if (check) {
      const r = await check();
      return {
        code: r.ok ? 200 : 503,
        type: 'text/plain',
        body: r.ok ? 'ok' : `not ready: ${r.detail ?? ''}`,
      };
    }
    if (path === '/metrics' && this.opts.registry) {
      const access = this.opts.authorizeMetrics
        ? await this.opts.authorizeMetrics(req.headers.authorization)
        : undefined;
      if (access && !access.ok) {
        if (access.code === 500)
          this.opts.logger.warn({ err: access.message }, 'metrics: could not check the caller');
        return { code: access.code, type: 'text/plain', body: access.message };
      }
      return { code: 200, type: this.opts.registry.contentType, body: await this.opts.registry.metrics() };
    }
    return { code: 404, type: 'text/plain', body: 'not found' };
  }
}
