// HTTP endpoints for probes and scraping: /healthz (process alive), /readyz (caches synced) and
// /metrics (Prometheus text format). The manager may serve probes and metrics on separate ports.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';

export interface CheckResult {
  ok: boolean;
  detail?: string;
}

export interface HealthServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  healthz?: () => CheckResult;
  readyz?: () => CheckResult;
  registry?: Registry;
  logger: Logger;
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
    const server = createServer((req, res) => {
      this.handle(req.url ?? '/')
        .then(({ code, type, body }) => {
          res.writeHead(code, { 'content-type': type }).end(body);
        })
        .catch((err) => {
          this.opts.logger.error({ err }, 'health endpoint failed');
          res.writeHead(500).end();
        });
    });
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

  private async handle(url: string): Promise<{ code: number; type: string; body: string }> {
    const path = url.split('?')[0];
    const check = path === '/healthz' ? this.opts.healthz : path === '/readyz' ? this.opts.readyz : undefined;
    if (check) {
      const r = check();
      return {
        code: r.ok ? 200 : 503,
        type: 'text/plain',
        body: r.ok ? 'ok' : `not ready: ${r.detail ?? ''}`,
      };
    }
    if (path === '/metrics' && this.opts.registry) {
      return { code: 200, type: this.opts.registry.contentType, body: await this.opts.registry.metrics() };
    }
    return { code: 404, type: 'text/plain', body: 'not found' };
  }
}
