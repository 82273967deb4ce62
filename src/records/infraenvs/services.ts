// Process-wide state the InfraEnv controller, its REST backend part and the image service routes
// share, one instance per OperatorContext (a WeakMap keyed by the context, so tests running two
// operators in one process do not mix them):
//
// * the LocalAuth that signs download URLs and agent tokens. It is created by the hosts part's
//   startHostServer, after the controllers are registered; it reaches this registry through
//   `mountImageRoutes(ctx, server, auth)` or `infraEnvBackend(ctx, { auth })` (both call
//   `setAuth`), or a direct `setAuth(ctx, auth)`. Until then the InfraEnv controller writes
//   nothing and waits; `onAuth` listeners (the controller) re-enqueue every InfraEnv once it is set.
// * the agent token of each infra-env, signed once per process and token generation: the token is
//   part of the ISO's embedded ignition, and ECDSA signatures are randomised, so re-signing per
//   request would make consecutive Range requests of one download disagree.
// * the base image cache (`<dataDir>/images`) and what is known about each OS image's download.
import { join } from 'node:path';
import type { InfraEnv } from '../../api/index.ts';
import { INFRAENV_TOKEN_GENERATION_ANNOTATION } from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import { BaseImageCache, type CachedImage, cachedIsoName, type OsImage } from '../../images/base-images.ts';
import { perObject } from '../../util/per-object.ts';
import type { OperatorContext } from '../context.ts';

export type BaseImageState =
  | { state: 'downloading' }
  | { state: 'ready'; image: CachedImage }
  | { state: 'failed'; error: string; at: number };

/** A failed base image download is tried again at the next prefetch after this long. */
export const BASE_IMAGE_RETRY_MS = 60_000;

export class ImageServices {
  private authValue: LocalAuth | undefined;
  private readonly authListeners: (() => void)[] = [];
  private readonly agentTokens = new Map<string, { generation: string | undefined; token: string }>();
  private readonly ctx: OperatorContext;
  private readonly baseImages = new Map<string, BaseImageState>();
  private readonly baseImageListeners: (() => void)[] = [];
  readonly cache: BaseImageCache;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
    this.cache = new BaseImageCache({
      dataDir: join(ctx.settings.dataDir, 'images'),
      logger: ctx.logger.child({ component: 'base-images' }),
      // Read at use: the base URL is final only once the REST server listens (port 0 in tests).
      get imageServiceBaseUrl() {
        return ctx.urls.imageServiceBaseUrl;
      },
    });
  }

  get auth(): LocalAuth | undefined {
    return this.authValue;
  }

  setAuth(auth: LocalAuth): void {
    if (this.authValue === auth) return;
    this.authValue = auth;
    this.agentTokens.clear();
    for (const listener of this.authListeners) listener();
  }

  /** Called (again) whenever the auth object is set. */
  onAuth(listener: () => void): void {
    this.authListeners.push(listener);
  }

  /**
   * The infra-env's agent token (X-Secret-Key / PULL_SECRET_TOKEN), stable for the process until
   * the InfraEnv's token generation changes (revocation).
   */
  agentToken(infraEnvId: string): string {
    const auth = this.authValue;
    if (!auth) throw new Error('local authentication is not set up yet');
    const generation = tokenGenerationOf(this.ctx.infraEnvById(infraEnvId.toLowerCase()));
    const cached = this.agentTokens.get(infraEnvId);
    if (cached && cached.generation === generation) return cached.token;
    const token = auth.issueAgentToken({ kind: 'infra-env', id: infraEnvId });
    this.agentTokens.set(infraEnvId, { generation, token });
    return token;
  }

  forgetInfraEnv(infraEnvId: string): void {
    this.agentTokens.delete(infraEnvId);
  }

  /** What is known about an OS image's base ISO (undefined: never asked for). */
  baseImageState(os: OsImage): BaseImageState | undefined {
    return this.baseImages.get(baseImageKey(os));
  }

  /** Called when a prefetch settles. */
  onBaseImage(listener: () => void): void {
    this.baseImageListeners.push(listener);
  }

  /**
   * Downloads the full ISO of each OS image in the background (what the image service does at
   * start-up); errors are kept for /health and the AgentServiceConfig's DeploymentsHealthy, and
   * a failed download is retried by a prefetch at least BASE_IMAGE_RETRY_MS later.
   */
  prefetch(images: readonly OsImage[]): void {
    for (const os of images) {
      const key = baseImageKey(os);
      const known = this.baseImages.get(key);
      if (known?.state === 'downloading' || known?.state === 'ready') continue;
      if (known?.state === 'failed' && Date.now() - known.at < BASE_IMAGE_RETRY_MS) continue;
      this.baseImages.set(key, { state: 'downloading' });
      this.cache.ensure(os).then(
        (image) => this.settled(key, { state: 'ready', image }),
        (err: unknown) =>
          this.settled(key, {
            state: 'failed',
            error: err instanceof Error ? err.message : String(err),
            at: Date.now(),
          }),
      );
    }
  }

  /** Whether every listed OS image's base ISO is in the cache. */
  allReady(images: readonly OsImage[]): boolean {
    return images.every((os) => this.baseImageState(os)?.state === 'ready');
  }

  private settled(key: string, state: BaseImageState): void {
    this.baseImages.set(key, state);
    for (const listener of this.baseImageListeners) listener();
  }

  /** Ends the cache's downloads; the manager awaits it on shutdown, before the data goes. */
  close(): Promise<void> {
    return this.cache.close();
  }
}

/** The InfraEnv's token-generation annotation (revocation), if set. */
export function tokenGenerationOf(ie: InfraEnv | undefined): string | undefined {
  return ie?.metadata.annotations?.[INFRAENV_TOKEN_GENERATION_ANNOTATION] || undefined;
}

/** One entry per cached file and source URL (a changed URL is a new download). */
function baseImageKey(os: OsImage): string {
  return `${cachedIsoName('full-iso', os)}|${os.url}`;
}

const registry = perObject((ctx: OperatorContext) => {
  const services = new ImageServices(ctx);
  // A download left running after stop kept writing into the data directory (its owner may
  // remove it right away: an integration test's clean-up failed with ENOTEMPTY).
  ctx.mgr.onShutdown(() => services.close());
  return services;
});

export function imageServicesOf(ctx: OperatorContext): ImageServices {
  return registry.of(ctx);
}

/** Hands the REST server's LocalAuth to the InfraEnv controller and the image service. */
export function setAuth(ctx: OperatorContext, auth: LocalAuth): void {
  imageServicesOf(ctx).setAuth(auth);
}
