// One shared informer per kind for the whole manager, so N controllers watching Secrets open one
// watch and hold one copy. Per-kind settings restrict what is cached (assisted-service caches only
// Secrets and ConfigMaps labelled agent-install.openshift.io/watch=true; reads of others go live).
import type { Logger } from 'pino';
import type { BackoffOptions } from './backoff.ts';
import type { KubeClient } from './client.ts';
import { Informer } from './informer.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { type ApiResource, type KubeObject, resourceId } from './types.ts';

export interface ResourceCacheOptions {
  resource: ApiResource;
  /**
   * Watch only this namespace, whatever the cache-wide one (e.g. the operator's own Services,
   * which RBAC grants in its namespace only). Ignored for cluster-scoped kinds.
   */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Runs before caching; default compactForCache (managedFields and kubectl's last-applied
   * annotation dropped, repeated strings shared).
   * Must be the same for every user of the kind.
   */
  transform?: (obj: KubeObject) => KubeObject;
}

export interface InformerCacheOptions {
  client: KubeClient;
  logger: Logger;
  metrics: RuntimeMetrics;
  /**
   * Restrict every namespaced informer to one namespace or a set of them (undefined = all). One is
   * watched server-side; several share one cluster-wide watch filtered to the set as events arrive.
   */
  namespace?: string | readonly string[];
  byResource?: ResourceCacheOptions[];
  pageSize?: number;
  minWatchTimeoutSeconds?: number;
  idleMarginMs?: number;
  backoff?: BackoffOptions;
}

export class InformerCache {
  private readonly opts: InformerCacheOptions;
  private readonly informers = new Map<string, Informer>();
  private readonly settings = new Map<string, ResourceCacheOptions>();
  private running = false;

  constructor(opts: InformerCacheOptions) {
    this.opts = opts;
    for (const s of opts.byResource ?? []) this.settings.set(resourceId(s.resource), s);
  }

  /** The shared informer for a kind, created on first use; started at once if the cache runs. */
  informer<T extends KubeObject = KubeObject>(resource: ApiResource): Informer<T> {
    const id = resourceId(resource);
    let inf = this.informers.get(id);
    if (!inf) {
      const s = this.settings.get(id);
      const scope = resource.namespaced ? informerScope(s?.namespace ?? this.opts.namespace) : {};
      inf = new Informer<KubeObject>({
        client: this.opts.client,
        resource,
        ...scope,
        labelSelector: s?.labelSelector,
        fieldSelector: s?.fieldSelector,
        transform: s?.transform,
        logger: this.opts.logger.child({ resource: id }),
        metrics: this.opts.metrics.watchSink(id),
        pageSize: this.opts.pageSize,
        minWatchTimeoutSeconds: this.opts.minWatchTimeoutSeconds,
        idleMarginMs: this.opts.idleMarginMs,
        backoff: this.opts.backoff,
      });
      this.informers.set(id, inf);
      if (this.running) inf.start();
    }
    return inf as unknown as Informer<T>;
  }

  /**
   * The informer for a kind if something already created it (e.g. an optional controller whose
   * kinds are served); never creates one.
   */
  existing<T extends KubeObject = KubeObject>(resource: ApiResource): Informer<T> | undefined {
    return this.informers.get(resourceId(resource)) as unknown as Informer<T> | undefined;
  }

  start(): void {
    this.running = true;
    for (const inf of this.informers.values()) inf.start();
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all([...this.informers.values()].map((i) => i.stop()));
  }

  /** True when every informer created so far has completed its first list. */
  hasSynced(): boolean {
    for (const inf of this.informers.values()) if (!inf.hasSynced()) return false;
    return true;
  }

  /** Caches that have heard nothing from their watch for longer than it may stay silent. */
  stale(now = Date.now()): { resource: string; silentMs: number; maxSilenceMs: number }[] {
    const out: { resource: string; silentMs: number; maxSilenceMs: number }[] = [];
    for (const [id, inf] of this.informers) {
      const silentMs = inf.silentForMs(now);
      if (silentMs > inf.maxSilenceMs) out.push({ resource: id, silentMs, maxSilenceMs: inf.maxSilenceMs });
    }
    return out;
  }

  /** Waits for the given informers (default all) to sync; rejects after timeoutMs. */
  async waitForSync(timeoutMs: number, informers: Informer[] = [...this.informers.values()]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const pending = informers.filter((i) => !i.hasSynced()).map((i) => resourceId(i.resource));
        reject(new Error(`caches not synced after ${timeoutMs} ms: ${pending.join(', ')}`));
      }, timeoutMs);
      timer.unref?.(); // waiting must not keep a process alive that is otherwise done
    });
    try {
      await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** How an informer is restricted: one namespace server-side, or several filtered client-side. */
export function informerScope(namespace: string | readonly string[] | undefined): {
  namespace?: string;
  namespaces?: ReadonlySet<string>;
} {
  if (namespace === undefined) return {};
  if (typeof namespace === 'string') return { namespace };
  const set = new Set(namespace);
  if (set.size === 0) throw new Error('an empty namespace list would cache nothing');
  if (set.size === 1) return { namespace: [...set][0] };
  return { namespaces: set };
}
