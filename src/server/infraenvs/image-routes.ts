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
// Routes: iso-routes.ts (discovery ISOs), pxe-routes.ts (PXE initrd, boot artifacts);
// image-scope.ts holds what they share. `mountImageRoutes` also hands `auth` to the InfraEnv
// controller (setAuth), which starts writing status URLs from then on: call it once ctx.urls are
// final (after listen when the port was 0).
import type { LocalAuth } from '../../auth/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { setAuth } from '../../records/infraenvs/services.ts';
import { serviceConfigOf } from '../../records/serviceconfig/service-config.ts';
import { sendJson } from '../api/http-io.ts';
import type { ApiServer } from '../api/server.ts';
import { imageScope } from './image-scope.ts';
import { byApiKey, imagesLongForm } from './iso-routes.ts';
import { bootArtifacts, pxeInitrd } from './pxe-routes.ts';

export function mountImageRoutes(ctx: OperatorContext, server: ApiServer, auth: LocalAuth): void {
  setAuth(ctx, auth);
  const s = imageScope(ctx, auth);
  const { services } = s;
  for (const method of ['GET', 'HEAD']) {
    server.add(method, '/byapikey/{token}/{version}/{arch}/{filename}', byApiKey(s));
    server.add(method, '/images/{infra_env_id}', imagesLongForm(s));
    server.add(method, '/images/{infra_env_id}/pxe-initrd', pxeInitrd(s));
    server.add(method, '/boot-artifacts/{artifact}', bootArtifacts(s));
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
