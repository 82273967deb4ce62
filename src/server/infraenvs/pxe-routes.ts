// The PXE routes (agent-api.md §9.1): the infra-env's initrd with its ignition and ramdisk
// appended (/images/{infra_env_id}/pxe-initrd, `pxe-initrd` token) and the unauthenticated boot
// artifacts of an OS image (/boot-artifacts/{kernel|rootfs|ins-file}).

import { serveView } from '../../images/iso-stream.ts';
import { bootArtifactFile, bootArtifactView, pxeInitrdView } from '../../images/pxe.ts';
import type { RawHandler } from '../api/router.ts';
import { HttpFailure, header, type ImageScope, LOWER_UUID, must, send } from './image-scope.ts';
import { ignitionFor, lastModifiedOf, ramdiskFor } from './loaded.ts';

/** GET/HEAD /images/{infra_env_id}/pxe-initrd?version=&arch=&api_key= */
export function pxeInitrd(s: ImageScope): RawHandler {
  return s.handle(async (req, res, params, url) => {
    const id = params.infra_env_id ?? '';
    if (!LOWER_UUID.test(id)) throw new HttpFailure(404, `path ${url.pathname} was not found`);
    await s.authorize(req, url, id, 'pxe-initrd');
    const os = s.osImage(url.searchParams.get('version'), url.searchParams.get('arch'), 400);
    const loaded = await s.load(id);
    // Static networking travels in the ramdisk, as for the minimal ISO.
    const ignition = must(ignitionFor(s.ctx, s.services, loaded, 'minimal-iso'));
    const ramdisk = must(ramdiskFor(loaded));
    const base = await s.baseImage(os, 'full-iso');
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
}

/** GET/HEAD /boot-artifacts/{artifact}?version=&arch= */
export function bootArtifacts(s: ImageScope): RawHandler {
  return s.handle(async (req, res, params, url) => {
    const artifact = params.artifact ?? '';
    if (!['kernel', 'rootfs', 'ins-file'].includes(artifact)) {
      throw new HttpFailure(404, `unknown boot artifact ${artifact}`);
    }
    const os = s.osImage(url.searchParams.get('version'), url.searchParams.get('arch'), 400);
    const base = await s.baseImage(os, 'full-iso');
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
}
