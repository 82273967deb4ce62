// Discovers where hosts reach the REST API when SERVICE_BASE_URL is not set: the operator's Route
// (only where route.openshift.io/v1 is served), else its Ingress, else its Service (see
// base-urls.ts for what each yields), each named by a setting and looked for in the operator
// namespace. One informer per kind, restricted by field selector to the one named object, keeps
// the answer current on every replica; a change of the resulting URL tells ctx.onUrlsChange
// listeners (the controllers that write URLs into status), nothing else does.
//
// The informers live in the manager's shared cache (their namespace pinned by the cache options
// below) and are created before the manager starts, so the caches the controllers wait for
// include them: no reconcile writes the listen address first and the discovered one a moment later.

import {
  discoverBaseUrl,
  type IngressObject,
  type RouteObject,
  type ServiceObject,
} from '../records/base-urls.ts';
import type { OperatorSettings } from '../records/config.ts';
import type { OperatorContext } from '../records/context.ts';
import { INGRESS, ROUTE, SERVICE } from '../records/resources.ts';
import { Discovery, type Informer, type KubeObject, type ResourceCacheOptions } from '../runtime/index.ts';

/** Explicit SERVICE_BASE_URL wins over anything discovered, so then nothing is watched. */
export function discoversBaseUrl(settings: Pick<OperatorSettings, 'serviceBaseUrl'>): boolean {
  return settings.serviceBaseUrl === undefined;
}

/** Cache options for the manager: each kind watched in `namespace`, for the one named object. */
export function baseUrlCacheOptions(settings: OperatorSettings, namespace: string): ResourceCacheOptions[] {
  if (!discoversBaseUrl(settings)) return [];
  const byName = (name: string) => `metadata.name=${name}`;
  return [
    { resource: ROUTE, namespace, fieldSelector: byName(settings.apiRouteName) },
    { resource: INGRESS, namespace, fieldSelector: byName(settings.apiIngressName) },
    { resource: SERVICE, namespace, fieldSelector: byName(settings.apiServiceName) },
  ];
}

export interface BaseUrlDiscoveryOptions {
  /** How often to ask again whether Routes are served while they are not. Default 30 s. */
  routeCheckIntervalMs?: number;
}

export class BaseUrlDiscovery {
  private readonly ctx: OperatorContext;
  private readonly routeCheckIntervalMs: number;
  private route: Informer<RouteObject> | undefined;
  private ingress: Informer<IngressObject> | undefined;
  private service: Informer<ServiceObject> | undefined;
  private routeTimer: NodeJS.Timeout | undefined;
  private lastHint: string | undefined;
  private stopped = false;

  constructor(ctx: OperatorContext, opts: BaseUrlDiscoveryOptions = {}) {
    this.ctx = ctx;
    this.routeCheckIntervalMs = opts.routeCheckIntervalMs ?? 30_000;
  }

  /**
   * Creates the informers (call before mgr.start() so they are part of the initial sync; with the
   * manager's cache options from baseUrlCacheOptions). Asks once whether Routes are served; if
   * not, asks again every routeCheckIntervalMs until they are or stop() is called.
   */
  async start(): Promise<void> {
    if (!discoversBaseUrl(this.ctx.settings)) return;
    this.ingress = this.ctx.mgr.informer<IngressObject>(INGRESS);
    this.service = this.ctx.mgr.informer<ServiceObject>(SERVICE);
    this.listen(this.ingress);
    this.listen(this.service);
    if (await this.routeServed()) {
      this.watchRoutes();
      return;
    }
    this.routeTimer = setInterval(() => {
      void this.routeServed().then((served) => {
        if (!served || this.route || this.stopped) return;
        clearInterval(this.routeTimer);
        this.ctx.logger.info('route.openshift.io/v1 is now served; watching the API Route');
        this.watchRoutes();
      });
    }, this.routeCheckIntervalMs);
    this.routeTimer.unref?.();
  }

  stop(): void {
    this.stopped = true;
    clearInterval(this.routeTimer);
  }

  /** Recomputes the discovered URL from the caches; listeners hear of it only if it changed. */
  refresh(): void {
    const { ctx } = this;
    const { settings, namespace } = ctx;
    const found = discoverBaseUrl({
      route: this.route?.get(namespace, settings.apiRouteName),
      ingress: this.ingress?.get(namespace, settings.apiIngressName),
      service: this.service?.get(namespace, settings.apiServiceName),
    });
    const before = ctx.urls;
    if (ctx.urlState.update({ discovered: found?.url })) {
      ctx.logger.info(
        {
          from: before.serviceBaseUrl,
          to: ctx.urls.serviceBaseUrl,
          source: found ? `${found.source}/${found.name}` : 'listen address',
        },
        'service base URL changed',
      );
    }
    if (found?.hint && found.hint !== this.lastHint) ctx.logger.warn({ service: found.name }, found.hint);
    this.lastHint = found?.hint;
  }

  private watchRoutes(): void {
    this.route = this.ctx.mgr.informer<RouteObject>(ROUTE);
    this.listen(this.route);
  }

  /** After the field is set: a handler added to a synced informer runs at once, and reads it. */
  private listen<T extends KubeObject>(informer: Informer<T>): void {
    const refresh = () => this.refresh();
    informer.addHandler({ onAdd: refresh, onUpdate: refresh, onDelete: refresh });
  }

  private async routeServed(): Promise<boolean> {
    try {
      return await new Discovery(this.ctx.client).allServed([ROUTE]);
    } catch (err) {
      this.ctx.logger.warn(
        { err: String(err) },
        'could not ask whether Routes are served; asking again later',
      );
      return false;
    }
  }
}
