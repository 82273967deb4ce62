// HTTPS server for the admission webhooks (node:https). Routes: POST /<webhook name> (see
// admission.ts), GET /healthz and /readyz. Bodies that are not AdmissionReviews get 400; a body
// over the size limit gets 413; unexpected failures get 500 and are logged, never thrown.

import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type AdmissionDependencies, handleAdmissionReview, webhookByPath } from './admission.ts';

/** The API server sends at most two objects of ~1.5 MiB each plus the envelope. */
export const MAX_ADMISSION_BODY_BYTES = 8 * 1024 * 1024;
/** The API server gives a webhook at most 30 s; a request taking longer is abandoned anyway. */
export const ADMISSION_REQUEST_TIMEOUT_MS = 30_000;
/** How often the serving certificate files are checked for a rotation. */
export const CERT_RELOAD_INTERVAL_MS = 10_000;

export interface WebhookServerOptions extends AdmissionDependencies {
  certPem: string;
  keyPem: string;
  /** 0 picks a free port. Default 9443. */
  port?: number;
  /** Default all interfaces. */
  host?: string;
  logger?: Logger;
}

export interface WebhookServer {
  readonly port: number;
  /** Replaces the serving certificate (rotation) without dropping the listener. */
  setCertificate(certPem: string, keyPem: string): void;
  close(): Promise<void>;
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const type = typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) }).end(text);
}

export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const log = opts.logger;
  const deps: AdmissionDependencies = {
    ...opts,
    onError: (err, what) => {
      log?.warn({ err }, `admission: failed ${what}`);
      opts.onError?.(err, what);
    },
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'https://localhost').pathname;
    if (path === '/healthz' || path === '/readyz') {
      send(res, 200, 'ok');
      return;
    }
    const hook = webhookByPath(path);
    if (!hook) {
      send(res, 404, `no webhook at ${path}`);
      return;
    }
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      send(res, 405, 'method not allowed');
      return;
    }
    let text: string;
    try {
      text = await readBody(req, MAX_ADMISSION_BODY_BYTES);
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        // Answer, then drop the connection rather than reading the rest of the upload.
        res.setHeader('connection', 'close');
        res.once('finish', () => req.destroy());
        send(res, 413, 'request body too large');
        return;
      }
      throw err;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      send(res, 400, 'request body is not valid JSON');
      return;
    }
    const result = await handleAdmissionReview(body, hook, deps);
    if (result.status === 400) {
      log?.warn({ path, error: result.error }, 'admission: bad AdmissionReview');
      send(res, 400, result.error);
      return;
    }
    const response = result.review.response;
    if (response && !response.allowed) {
      log?.info(
        { path, uid: response.uid, message: response.status?.message },
        `admission: denied ${hook.kind} request`,
      );
    }
    send(res, 200, result.review);
  };

  const server: Server = createServer({ cert: opts.certPem, key: opts.keyPem }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      log?.error({ err }, 'admission: request failed');
      send(res, 500, 'internal error');
    });
  });
  server.on('clientError', (err, socket) => {
    log?.debug({ err }, 'admission: client error');
    socket.destroy();
  });
  server.on('tlsClientError', (err) => log?.debug({ err }, 'admission: TLS handshake failed'));
  server.requestTimeout = ADMISSION_REQUEST_TIMEOUT_MS;
  server.headersTimeout = ADMISSION_REQUEST_TIMEOUT_MS;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 9443, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  log?.info({ port, host: opts.host }, 'admission webhook server listening');

  return {
    port,
    setCertificate(certPem: string, keyPem: string) {
      server.setSecureContext({ cert: certPem, key: keyPem });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface CertificateWatch {
  stop(): void;
}

/**
 * Re-reads tls.crt and tls.key in `certDir` every `intervalMs` and installs them when they
 * changed (cert-manager or the service-ca operator rotate the mounted Secret in place). A pair
 * that does not load (half-written, mismatched) is skipped until the next check.
 */
export function watchCertificateFiles(
  server: Pick<WebhookServer, 'setCertificate'>,
  certDir: string,
  current: { certPem: string; keyPem: string },
  opts: { intervalMs?: number; logger?: Logger } = {},
): CertificateWatch {
  let last = `${current.certPem}\0${current.keyPem}`;
  let running = false;
  const check = async () => {
    if (running) return;
    running = true;
    try {
      const [certPem, keyPem] = await Promise.all([
        readFile(join(certDir, 'tls.crt'), 'utf8'),
        readFile(join(certDir, 'tls.key'), 'utf8'),
      ]);
      const seen = `${certPem}\0${keyPem}`;
      if (seen === last) return;
      server.setCertificate(certPem, keyPem);
      last = seen;
      opts.logger?.info({ certDir }, 'admission: serving certificate reloaded');
    } catch (err) {
      opts.logger?.warn({ err: String(err) }, 'admission: serving certificate not reloaded');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void check(), opts.intervalMs ?? CERT_RELOAD_INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
