// The discovery ISO routes (agent-api.md §9.1): by api_key in the path
// (/byapikey/{token}/{version}/{arch}/{full|minimal}.iso) and the long form
// (/images/{infra_env_id}?version=&type=&arch=&api_key=). Streamed from the cached base image with
// the infra-env's ignition, kernel arguments and ramdisk overlaid in place.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { redactCredentialPath } from '../../auth/index.ts';
import type { OsImage } from '../../images/base-images.ts';
import { parseKernelArguments } from '../../images/embed.ts';
import {
  type DiscoveryImageType,
  discoveryIsoFilename,
  imageTypeForFilename,
  serveIso,
} from '../../images/iso-stream.ts';
import { discoveryOverlays } from '../../images/live-iso.ts';
import type { RawHandler } from '../api/router.ts';
import { HttpFailure, header, type ImageScope, LOWER_UUID, must, send } from './image-scope.ts';
import { ignitionFor, lastModifiedOf, ramdiskFor } from './loaded.ts';

/** GET/HEAD /byapikey/{token}/{version}/{arch}/{filename}: the token is an `iso` download token. */
export function byApiKey(s: ImageScope): RawHandler {
  return s.handle(async (req, res, params, url) => {
    const type = imageTypeForFilename(params.filename ?? '');
    if (!type) throw new HttpFailure(404, `unknown image file ${params.filename}`);
    const result = await s.auth.authenticatePathToken(params.token ?? '', ['iso'], {
      method: req.method ?? 'GET',
      // The token is a credential: it never goes into events or logs.
      path: redactCredentialPath(url.pathname),
      ...(req.socket.remoteAddress ? { remoteAddress: req.socket.remoteAddress } : {}),
    });
    if (!result.ok) throw new HttpFailure(result.status, result.reason);
    const { subject } = result.principal;
    if (subject.kind !== 'infra-env') throw new HttpFailure(404, 'Object Not Found');
    const os = s.osImage(params.version ?? null, params.arch ?? null, 404);
    await serveDiscoveryIso(s, req, res, subject.id, os, type);
  });
}

/** GET/HEAD /images/{infra_env_id}?version=&type=&arch=&api_key= */
export function imagesLongForm(s: ImageScope): RawHandler {
  return s.handle(async (req, res, params, url) => {
    const id = params.infra_env_id ?? '';
    if (!LOWER_UUID.test(id)) throw new HttpFailure(404, `path ${url.pathname} was not found`);
    const q = url.searchParams;
    const typeParam = q.get('type');
    if (!typeParam) throw new HttpFailure(400, 'type is required');
    const type = (['full-iso', 'minimal-iso', 'disconnected-iso'] as const).find((t) => t === typeParam);
    if (!type) throw new HttpFailure(400, `unknown image type ${typeParam}`);
    await s.authorize(req, url, id, 'iso');
    const os = s.osImage(q.get('version'), q.get('arch'), 404);
    await serveDiscoveryIso(s, req, res, id, os, type);
  });
}

async function serveDiscoveryIso(
  s: ImageScope,
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
  const loaded = await s.load(id);
  const ignition = must(ignitionFor(s.ctx, s.services, loaded, type));
  const ramdisk = type === 'minimal-iso' ? must(ramdiskFor(loaded)) : undefined;
  const kernelArguments = parseKernelArguments(JSON.stringify(loaded.inputs.record.kernel_arguments ?? []));
  const base = await s.baseImage(os, type);
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
