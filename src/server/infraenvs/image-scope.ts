// What the image routes share: failures as HTTP answers (HttpFailure, must, handle), the OS
// image a request names, its cached base image, api_key checks and the infra-env as loaded for
// the image. Built once by mountImageRoutes (image-routes.ts).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { type LocalAuth, redactCredentialPath } from '../../auth/index.ts';
import type { CachedImage, OsImage } from '../../images/base-images.ts';
import { EmbedError } from '../../images/embed.ts';
import { type ServeResponse, sendBody } from '../../images/iso-stream.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type ImageServices, imageServicesOf } from '../../records/infraenvs/services.ts';
import { serviceConfigOf } from '../../records/serviceconfig/service-config.ts';
import type { Outcome } from '../api/backend.ts';
import { sendMiddlewareError } from '../api/http-io.ts';
import type { RawHandler } from '../api/router.ts';
import { type LoadedInfraEnv, loadInfraEnv } from './loaded.ts';

/** Route regex of the image service: a lower-case UUID. */
export const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export class HttpFailure extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export function must<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new HttpFailure(outcome.error.status, outcome.error.reason);
  return outcome.value;
}

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export async function send(res: ServerResponse, served: ServeResponse): Promise<void> {
  res.writeHead(served.status, served.headers);
  if (!served.body) {
    res.end();
    return;
  }
  try {
    await sendBody(served.body, res);
  } catch {
    // The client went away or the base file failed mid-download: the stream has closed its file
    // handle, and a response cut short tells the client the body is incomplete.
    res.destroy();
  }
}

type ImageHandler = (
  req: IncomingMessage,
  res: ServerResponse,
  params: Record<string, string>,
  url: URL,
) => Promise<void>;

export interface ImageScope {
  ctx: OperatorContext;
  auth: LocalAuth;
  services: ImageServices;
  /** Wraps a handler: HttpFailure → its status; anything else → 500 (logged). */
  handle(fn: ImageHandler): RawHandler;
  /** The OS image of version/arch (arch defaults to x86_64); unknown → unknownStatus. */
  osImage(version: string | null, arch: string | null, unknownStatus: number): OsImage;
  /** The cached base image (503 while it cannot be had). */
  baseImage(os: OsImage, kind: 'full-iso' | 'minimal-iso'): Promise<CachedImage>;
  /** Authenticates an `api_key` of `kind` for the infra-env in the path. */
  authorize(req: IncomingMessage, url: URL, id: string, kind: 'iso' | 'pxe-initrd'): Promise<void>;
  load(id: string): Promise<LoadedInfraEnv>;
}

export function imageScope(ctx: OperatorContext, auth: LocalAuth): ImageScope {
  const services = imageServicesOf(ctx);
  const log = ctx.logger.child({ component: 'image-service' });
  return {
    ctx,
    auth,
    services,
    handle: (fn) => handled(log, fn),
    osImage(version, arch, unknownStatus) {
      if (!version) throw new HttpFailure(400, 'version is required');
      const a = arch || 'x86_64';
      const os = serviceConfigOf(ctx).current.osImages.forDownload(version, a);
      if (!os)
        throw new HttpFailure(unknownStatus, `no OS image for version ${version} and architecture ${a}`);
      return os;
    },
    async baseImage(os, kind) {
      try {
        return kind === 'full-iso' ? await services.cache.ensure(os) : await services.cache.ensureMinimal(os);
      } catch (err) {
        log.warn({ err, version: os.openshiftVersion, arch: os.cpuArchitecture }, 'base image unavailable');
        throw new HttpFailure(503, `the ${kind} base image is not available: ${(err as Error).message}`);
      }
    },
    async authorize(req, url, id, kind) {
      const result = await auth.authenticate({
        method: req.method ?? 'GET',
        path: url.pathname,
        ...(req.socket.remoteAddress ? { remoteAddress: req.socket.remoteAddress } : {}),
        urlToken: url.searchParams.get('api_key') ?? undefined,
        accepts: { url: [kind] },
        target: { infraEnvId: id },
      });
      if (!result.ok) throw new HttpFailure(result.status, result.reason);
    },
    load: async (id) => must(await loadInfraEnv(ctx, id)),
  };
}

function handled(log: Logger, fn: ImageHandler): RawHandler {
  return async (req, res, params, url) => {
    try {
      await fn(req, res, { ...params }, url);
    } catch (err) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (err instanceof HttpFailure) return sendMiddlewareError(res, err.status, err.message);
      if (err instanceof EmbedError) return sendMiddlewareError(res, err.status, err.message);
      log.error({ err, path: redactCredentialPath(url.pathname) }, 'image request failed');
      sendMiddlewareError(res, 500, 'internal error');
    }
  };
}
