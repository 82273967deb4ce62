// The image service routes (agent-api.md §9.1), mounted on the REST API server: one process
// serves both, so the image service reads the infra-env directly instead of calling the REST
// API back with the caller's credential (§9.2 steps 2–4) — same checks, same answers.
//
//   GET/HEAD /byapikey/{token}/{version}/{arch}/{full|minimal}.iso    ISO, token in the path
//   GET/HEAD /images/{infra_env_id}?version=&type=&arch=&api_key=       ISO, long form
//   GET/HEAD /images/{infra_env_id}/pxe-initrd?version=&arch=&api_key=  PXE initrd + ignition
//   GET/HEAD /boot-artifacts/{kernel|rootfs|ins-file}?version=&arch=    unauthenticated
//   GET /health (200 once every OS image is cached, else 503; unless the server has its own),
//   GET /live
//
// ISOs and initrds are streamed from the cached base image with the infra-env's ignition,
// kernel arguments and ramdisk overlaid in place (HEAD and single Range requests supported).
// Credentials: download tokens of kind `iso` (ISO) or `pxe-initrd` (initrd) for the infra-env;
// a forged or expired token is 401, a token of another infra-env 404 (§7.3).
//
// `mountImageRoutes` also hands `auth` to the InfraEnv controller (setAuth), which starts
// writing status URLs from then on: call it once ctx.urls are final (after listen when the
// port was 0).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { type LocalAuth, redactCredentialPath } from '../../auth/index.ts';
import type { CachedImage, OsImage } from '../../images/base-images.ts';
import { EmbedError, parseKernelArguments } from '../../images/embed.ts';
import {
  type DiscoveryImageType,
  discoveryIsoFilename,
  imageTypeForFilename,
  type ServeResponse,
  serveIso,
  serveView,
} from '../../images/iso-stream.ts';
import { discoveryOverlays } from '../../images/live-iso.ts';
import { bootArtifactFile, bootArtifactView, pxeInitrdView } from '../../images/pxe.ts';
import type { OperatorContext } from '../../records/context.ts';
import { imageServicesOf, setAuth } from '../../records/infraenvs/services.ts';
import { serviceConfigOf } from '../../records/serviceconfig/service-config.ts';
import type { Outcome } from '../api/backend.ts';
import { sendJson, sendMiddlewareError } from '../api/http-io.ts';
import type { RawHandler } from '../api/router.ts';
import type { ApiServer } from '../api/server.ts';
import { ignitionFor, type LoadedInfraEnv, lastModifiedOf, loadInfraEnv, ramdiskFor } from './backend.ts';

/** Route regex of the image service: a lower-case UUID. */
const LOWER_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

class HttpFailure extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function must<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new HttpFailure(outcome.error.status, outcome.error.reason);
  return outcome.value;
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

async function send(res: ServerResponse, served: ServeResponse): Promise<void> {
  res.writeHead(served.status, served.headers);
  if (!served.body) {
    res.end();
    return;
  }
  try {
    await pipeline(served.body, res);
  } catch {
    // The client went away mid-download; the stream has closed its file handle.
  }
}

export function mountImageRoutes(ctx: OperatorContext, server: ApiServer, auth: LocalAuth): void {
  setAuth(ctx, auth);
  const services = imageServicesOf(ctx);
  const log = ctx.logger.child({ component: 'image-service' });

  /** Wraps a handler: HttpFailure → its status; anything else → 500 (logged). */
  const handle =
    (
      fn: (
        req: IncomingMessage,
        res: ServerResponse,
        params: Record<string, string>,
        url: URL,
      ) => Promise<void>,
    ): RawHandler =>
    async (req, res, params, url) => {
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

  const osImage = (version: string | null, arch: string | null, unknownStatus: number): OsImage => {
    if (!version) throw new HttpFailure(400, 'version is required');
    const a = arch || 'x86_64';
    const os = serviceConfigOf(ctx).current.osImages.forDownload(version, a);
    if (!os) throw new HttpFailure(unknownStatus, `no OS image for version ${version} and architecture ${a}`);
    return os;
  };

  const baseImage = async (os: OsImage, kind: 'full-iso' | 'minimal-iso'): Promise<CachedImage> => {
    try {
      return kind === 'full-iso' ? await services.cache.ensure(os) : await services.cache.ensureMinimal(os);
    } catch (err) {
      log.warn({ err, version: os.openshiftVersion, arch: os.cpuArchitecture }, 'base image unavailable');
      throw new HttpFailure(503, `the ${kind} base image is not available: ${(err as Error).message}`);
    }
  };

  /** Authenticates an `api_key` of `kind` for the infra-env in the path. */
  const authorize = async (req: IncomingMessage, url: URL, id: string, kind: 'iso' | 'pxe-initrd') => {
    const result = await auth.authenticate({
      method: req.method ?? 'GET',
      path: url.pathname,
      ...(req.socket.remoteAddress ? { remoteAddress: req.socket.remoteAddress } : {}),
      urlToken: url.searchParams.get('api_key') ?? undefined,
      accepts: { url: [kind] },
      target: { infraEnvId: id },
    });
    if (!result.ok) throw new HttpFailure(result.status, result.reason);
  };

  const load = async (id: string): Promise<LoadedInfraEnv> => must(await loadInfraEnv(ctx, id));

  async function serveDiscoveryIso(
    req: IncomingMessage,
    res: ServerResponse,
    id: string,
    os: OsImage,
    type: DiscoveryImageType,
  ): Promise<void> {
    if (type === 'disconnected-iso') throw new HttpFailure(400, 'disconnected-iso images are not supported');
    if (type === 'minimal-iso' && os.cpuArchitecture === 's390x') {
      throw new HttpFailure(400, 'there is no minimal ISO for s390x');
    }
    const loaded = await load(id);
    const ignition = must(ignitionFor(ctx, services, loaded, type));
    const ramdisk = type === 'minimal-iso' ? must(ramdiskFor(loaded)) : undefined;
    const kernelArguments = parseKernelArguments(JSON.stringify(loaded.inputs.record.kernel_arguments ?? []));
    const base = await baseImage(os, type);
    const overlays = discoveryOverlays(base.layout, {
      ignition,
      kernelArguments,
      ...(ramdisk ? { ramdisk } : {}),
      cpuArchitecture: os.cpuArchitecture,
    });
    await send(
      res,
      await serveIso({
        isoPath: base.path,
        size: base.size,
        overlays,
        method: req.method ?? 'GET',
        range: req.headers.range,
        ifRange: header(req, 'if-range'),
        lastModified: lastModifiedOf(loaded.infraEnv),
        filename: discoveryIsoFilename(id, type, os.cpuArchitecture),
      }),
    );
  }

  const byApiKey = handle(async (req, res, params, url) => {
    const type = imageTypeForFilename(params.filename ?? '');
    if (!type) throw new HttpFailure(404, `unknown image file ${params.filename}`);
    const result = await auth.authenticatePathToken(params.token ?? '', ['iso'], {
      method: req.method ?? 'GET',
      // The token is a credential: it never goes into events or logs.
      path: redactCredentialPath(url.pathname),
      ...(req.socket.remoteAddress ? { remoteAddress: req.socket.remoteAddress } : {}),
    });
    if (!result.ok) throw new HttpFailure(result.status, result.reason);
    const { subject } = result.principal;
    if (subject.kind !== 'infra-env') throw new HttpFailure(404, 'Object Not Found');
    const os = osImage(params.version ?? null, params.arch ?? null, 404);
    await serveDiscoveryIso(req, res, subject.id, os, type);
  });

  const imagesLongForm = handle(async (req, res, params, url) => {
    const id = params.infra_env_id ?? '';
    if (!LOWER_UUID.test(id)) throw new HttpFailure(404, `path ${url.pathname} was not found`);
    const q = url.searchParams;
    const typeParam = q.get('type');
    if (!typeParam) throw new HttpFailure(400, 'type is required');
    const type = (['full-iso', 'minimal-iso', 'disconnected-iso'] as const).find((t) => t === typeParam);
    if (!type) throw new HttpFailure(400, `unknown image type ${typeParam}`);
    await authorize(req, url, id, 'iso');
    const os = osImage(q.get('version'), q.get('arch'), 404);
    await serveDiscoveryIso(req, res, id, os, type);
  });

  const pxeInitrd = handle(async (req, res, params, url) => {
    const id = params.infra_env_id ?? '';
    if (!LOWER_UUID.test(id)) throw new HttpFailure(404, `path ${url.pathname} was not found`);
    await authorize(req, url, id, 'pxe-initrd');
    const os = osImage(url.searchParams.get('version'), url.searchParams.get('arch'), 400);
    const loaded = await load(id);
    // Static networking travels in the ramdisk, as for the minimal ISO.
    const ignition = must(ignitionFor(ctx, services, loaded, 'minimal-iso'));
    const ramdisk = must(ramdiskFor(loaded));
    const base = await baseImage(os, 'full-iso');
    let view: ReturnType<typeof pxeInitrdView>;
    try {
      view = pxeInitrdView(base.path, base.layout, { ignition, ramdisk });
    } catch (err) {
      throw new HttpFailure(500, (err as Error).message);
    }
    await send(
      res,
      await serveView(
        view,
        { method: req.method ?? 'GET', range: req.headers.range, ifRange: header(req, 'if-range') },
        { lastModified: lastModifiedOf(loaded.infraEnv), filename: 'initrd.img' },
      ),
    );
  });

  const bootArtifacts = handle(async (req, res, params, url) => {
    const artifact = params.artifact ?? '';
    if (!['kernel', 'rootfs', 'ins-file'].includes(artifact)) {
      throw new HttpFailure(404, `unknown boot artifact ${artifact}`);
    }
    const os = osImage(url.searchParams.get('version'), url.searchParams.get('arch'), 400);
    const base = await baseImage(os, 'full-iso');
    const file = bootArtifactFile(base.layout, artifact, os.cpuArchitecture, os.version);
    if (!file) throw new HttpFailure(404, `the image has no ${artifact} for ${os.cpuArchitecture}`);
    await send(
      res,
      await serveView(
        bootArtifactView(base.path, file),
        { method: req.method ?? 'GET', range: req.headers.range, ifRange: header(req, 'if-range') },
        { lastModified: base.mtime, filename: file.filename },
      ),
    );
  });

  for (const method of ['GET', 'HEAD']) {
    server.add(method, '/byapikey/{token}/{version}/{arch}/{filename}', byApiKey);
    server.add(method, '/images/{infra_env_id}', imagesLongForm);
    server.add(method, '/images/{infra_env_id}/pxe-initrd', pxeInitrd);
    server.add(method, '/boot-artifacts/{artifact}', bootArtifacts);
  }
  const free = (path: string) => server.router.match('GET', path).kind === 'not-found';
  if (free('/health')) {
    server.add('GET', '/health', (_req, res) => {
      const config = serviceConfigOf(ctx).current;
      const ready = config.loaded && services.allReady(config.osImages.images);
      sendJson(res, ready ? 200 : 503, { status: ready ? 'ok' : 'base images are not ready' });
    });
  }
  if (free('/live')) server.add('GET', '/live', (_req, res) => sendJson(res, 200, { status: 'ok' }));
}
