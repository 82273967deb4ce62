// An informer: a Watcher feeding a Store, plus event handlers notified of each change. A relist is
// buffered and swapped in at InitDone; handlers then see adds, real updates and the deletes that
// happened while the watch was down. Updates that do not change the resourceVersion are suppressed.
import type { Logger } from 'pino';
import { Backoff, type BackoffOptions } from './backoff.ts';
import type { KubeClient } from './client.ts';
import { Store } from './store.ts';
import { type ApiResource, type KubeObject, keyOf, objectKey } from './types.ts';
import { stripForCache, Watcher, type WatcherEvent, type WatchMetricsSink } from './watcher.ts';

export interface EventHandler<T> {
  /** `fromList` is true for objects seen in a (re)list rather than a watch event. */
  onAdd?(obj: T, fromList: boolean): void;
  onUpdate?(oldObj: T, newObj: T): void;
  onDelete?(obj: T): void;
}

export interface InformerOptions<T extends KubeObject> {
  client: KubeClient;
  resource: ApiResource;
  namespace?: string;
  /**
   * Keep only objects in these namespaces (the watch itself is cluster-wide). Several namespaces
   * cannot be one server-side watch; a client-side filter keeps one watch and one store per kind.
   */
  namespaces?: ReadonlySet<string>;
  /** Only objects matching are cached; see getOrFetch for reading the others. */
  labelSelector?: string;
  fieldSelector?: string;
  transform?: (obj: T) => T;
  logger: Logger;
  metrics?: WatchMetricsSink;
  pageSize?: number;
  minWatchTimeoutSeconds?: number;
  idleMarginMs?: number;
  backoff?: BackoffOptions;
}

export class Informer<T extends KubeObject = KubeObject> {
  readonly store = new Store<T>();
  readonly resource: ApiResource;
  readonly labelSelector: string | undefined;
  private readonly opts: InformerOptions<T>;
  private readonly handlers: EventHandler<T>[] = [];
  private buffer: T[] | undefined;
  private synced = false;
  private syncWaiters: (() => void)[] = [];
  private abort: AbortController | undefined;
  private running: Promise<void> | undefined;
  private lastHeardAt = 0;

  constructor(opts: InformerOptions<T>) {
    this.opts = opts;
    this.resource = opts.resource;
    this.labelSelector = opts.labelSelector;
  }

  /**
   * Registers a handler. If the informer has already synced, the handler first gets an add for every
   * cached object, so a late subscriber (a controller started after its CRD appeared) misses nothing.
   */
  addHandler(handler: EventHandler<T>): void {
    this.handlers.push(handler);
    if (this.synced) for (const obj of this.store.list()) this.call(() => handler.onAdd?.(obj, true));
  }

  get started(): boolean {
    return this.running !== undefined;
  }

  start(): void {
    if (this.running) return;
    this.abort = new AbortController();
    const watcher = new Watcher<T>({
      client: this.opts.client,
      resource: this.opts.resource,
      namespace: this.opts.namespace,
      labelSelector: this.opts.labelSelector,
      fieldSelector: this.opts.fieldSelector,
      transform: this.opts.transform,
      pageSize: this.opts.pageSize,
      minWatchTimeoutSeconds: this.opts.minWatchTimeoutSeconds,
      idleMarginMs: this.opts.idleMarginMs,
      backoff: new Backoff(this.opts.backoff),
      logger: this.opts.logger,
      metrics: this.opts.metrics,
      onEvent: (ev) => this.process(ev),
      onHeard: () => {
        this.lastHeardAt = Date.now();
      },
    });
    this.lastHeardAt = Date.now();
    this.running = watcher.run(this.abort.signal);
  }

  async stop(): Promise<void> {
    this.abort?.abort();
    await this.running;
  }

  hasSynced(): boolean {
    return this.synced;
  }

  /**
   * Longest healthy silence: a watch lasts at most twice the minimum watch timeout, and the client
   * gives a silent one the idle margin on top before it reconnects. Quieter than this for longer
   * means the watch keeps failing to come back.
   */
  get maxSilenceMs(): number {
    return 2 * (this.opts.minWatchTimeoutSeconds ?? 300) * 1000 + (this.opts.idleMarginMs ?? 5000);
  }

  /** How long since the API server was last heard from for this cache (0 when not started). */
  silentForMs(now = Date.now()): number {
    return this.running && !this.abort?.signal.aborted ? now - this.lastHeardAt : 0;
  }

  /** Resolves after the first complete list has been stored. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    return new Promise((resolve) => this.syncWaiters.push(resolve));
  }

  get(namespace: string | undefined, name: string): T | undefined {
    return this.store.get(keyOf(namespace, name));
  }

  /**
   * Cache first; on a miss, an informer that caches only a labelled subset reads the API (the object
   * may exist without the label). A miss in an unfiltered, synced cache is authoritative.
   */
  async getOrFetch(namespace: string | undefined, name: string): Promise<T | undefined> {
    const cached = this.get(namespace, name);
    if (cached || (!this.opts.labelSelector && !this.opts.fieldSelector)) return cached;
    const live = await this.opts.client.getIfExists<T>(this.resource, name, namespace);
    return live ? (this.opts.transform ?? stripForCache)(live) : undefined;
  }

  /** Applies one watcher event to the store and notifies handlers. Public so tests can drive it. */
  process(ev: WatcherEvent<T>): void {
    if ('object' in ev && !this.inScope(ev.object)) return;
    switch (ev.type) {
      case 'init':
        this.buffer = [];
        return;
      case 'initApply':
        this.buffer?.push(ev.object);
        return;
      case 'initDone': {
        const delta = this.store.replace(this.buffer ?? []);
        this.buffer = undefined;
        for (const obj of delta.added) this.notify((h) => h.onAdd?.(obj, true));
        for (const { oldObj, newObj } of delta.updated) this.notify((h) => h.onUpdate?.(oldObj, newObj));
        for (const obj of delta.deleted) this.notify((h) => h.onDelete?.(obj));
        if (!this.synced) {
          this.synced = true;
          for (const r of this.syncWaiters.splice(0)) r();
        }
        return;
      }
      case 'apply': {
        const obj = ev.object;
        const old = this.store.upsert(obj);
        if (!old) this.notify((h) => h.onAdd?.(obj, false));
        else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) {
          this.notify((h) => h.onUpdate?.(old, obj));
        }
        return;
      }
      case 'delete': {
        // The event carries the object's final state, newer than what the store held.
        this.store.delete(objectKey(ev.object));
        this.notify((h) => h.onDelete?.(ev.object));
        return;
      }
    }
  }

  private inScope(obj: T): boolean {
    return !this.opts.namespaces || this.opts.namespaces.has(obj.metadata.namespace ?? '');
  }

  private notify(fn: (h: EventHandler<T>) => void): void {
    for (const h of this.handlers) this.call(() => fn(h));
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch (err) {
      // A faulty handler must not break the watch or starve the other handlers.
      this.opts.logger.error({ err, resource: this.resource.plural }, 'informer event handler threw');
    }
  }
}
