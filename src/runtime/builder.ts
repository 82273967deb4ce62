// Fluent wiring of a controller (controller-runtime pkg/builder):
//   new ControllerBuilder(mgr, 'infraenv')
//     .for(InfraEnvResource)                         // events on the primary enqueue its own key
//     .owns(SecretResource)                          // events on children enqueue their controller owner
//     .watches(NMStateConfigResource, mapFn, {predicates})  // anything else, via a mapping function
//     .complete(reconcile)
// Handlers are attached to the manager's shared informers when the manager wires the controller,
// which for optional controllers happens only once their kinds are served.
import type { Logger } from 'pino';
import type { InformerCache } from './cache.ts';
import { Controller, type Reconciler } from './controller.ts';
import type { EventHandler, Informer } from './informer.ts';
import type { RuntimeMetrics } from './metrics.ts';
import type { Predicate } from './predicates.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { type ApiResource, type KubeObject, keyOf, objectKey } from './types.ts';

/** What a builder needs from the manager; also lets tests wire controllers without one. */
export interface ControllerHost {
  readonly cache: InformerCache;
  readonly logger: Logger;
  readonly metrics: RuntimeMetrics;
  /** Workers for controllers that do not choose; default 1. */
  readonly defaultWorkers?: number;
  add(registration: ControllerRegistration): void;
}

export interface ControllerRegistration {
  controller: Controller;
  /** Every kind the controller reads events from. */
  resources: ApiResource[];
  /** Start only when all `resources` are served (their CRDs may be absent). */
  optional: boolean;
  /** Attaches event handlers to the shared informers and returns them. Called once. */
  wire(): Informer[];
}

export interface SourceOptions<T extends KubeObject> {
  /** All must pass for an event to be enqueued. */
  predicates?: Predicate<T>[];
  /**
   * Keys for an update, from both versions, instead of every key either version maps to: for a
   * change that concerns only some of them (a new majority group, the hosts that joined or left).
   */
  mapUpdate?: (oldObj: T, newObj: T) => Iterable<string>;
}

/** Maps an object of a watched kind to the keys of primary objects to reconcile. */
export type MapFunc<T extends KubeObject> = (obj: T) => Iterable<string>;

interface Source {
  resource: ApiResource;
  map: MapFunc<KubeObject>;
  mapUpdate?: ((oldObj: KubeObject, newObj: KubeObject) => Iterable<string>) | undefined;
  predicates: Predicate[];
}

/** Keys of the controller owners of `obj` that are of kind `owner` (controller-runtime Owns()). */
export function mapToControllerOwner(owner: ApiResource): MapFunc<KubeObject> {
  return (obj) => {
    const keys: string[] = [];
    for (const ref of obj.metadata.ownerReferences ?? []) {
      if (!ref.controller || ref.kind !== owner.kind) continue;
      const group = ref.apiVersion.includes('/') ? ref.apiVersion.split('/')[0] : '';
      if (group !== owner.group) continue;
      keys.push(keyOf(owner.namespaced ? obj.metadata.namespace : undefined, ref.name));
    }
    return keys;
  };
}

export class ControllerBuilder {
  private readonly host: ControllerHost;
  private readonly name: string;
  private primary: ApiResource | undefined;
  private readonly sources: Source[] = [];
  private workers: number | undefined;
  private rateLimiter: RateLimiter | undefined;
  private isOptional = false;

  constructor(host: ControllerHost, name: string) {
    this.host = host;
    this.name = name;
  }

  /** The primary kind: its events enqueue the object's own key. */
  for<T extends KubeObject>(resource: ApiResource, opts: SourceOptions<T> = {}): this {
    if (this.primary) throw new Error(`controller ${this.name}: for() called twice`);
    this.primary = resource;
    return this.source(resource, (obj) => [objectKey(obj)], opts);
  }

  /** A child kind: events enqueue the child's controller owner when it is of the primary kind. */
  owns<T extends KubeObject>(resource: ApiResource, opts: SourceOptions<T> = {}): this {
    if (!this.primary) throw new Error(`controller ${this.name}: call for() before owns()`);
    return this.source(resource, mapToControllerOwner(this.primary), opts);
  }

  /** Any other kind: `map` turns each event's object into primary keys. */
  watches<T extends KubeObject>(resource: ApiResource, map: MapFunc<T>, opts: SourceOptions<T> = {}): this {
    return this.source(resource, map, opts);
  }

  /** Concurrent reconciles of distinct keys. Default: the manager's default (1). */
  withWorkers(n: number): this {
    this.workers = n;
    return this;
  }

  withRateLimiter(rateLimiter: RateLimiter): this {
    this.rateLimiter = rateLimiter;
    return this;
  }

  /** Run only while every watched kind is served; start when its CRD appears. */
  optional(): this {
    this.isOptional = true;
    return this;
  }

  complete(reconcile: Reconciler): Controller {
    if (!this.primary) throw new Error(`controller ${this.name}: for() is required`);
    const controller = new Controller({
      name: this.name,
      reconcile,
      workers: this.workers ?? this.host.defaultWorkers ?? 1,
      rateLimiter: this.rateLimiter,
      logger: this.host.logger,
      metrics: this.host.metrics,
    });
    const sources = [...this.sources];
    let wired: Informer[] | undefined;
    this.host.add({
      controller,
      resources: [
        ...new Map(sources.map((s) => [s.resource.plural + s.resource.group, s.resource])).values(),
      ],
      optional: this.isOptional,
      wire: () => {
        wired ??= sources.map((s) => {
          const informer = this.host.cache.informer(s.resource);
          informer.addHandler(enqueueHandler(s, (key, lowPriority) => controller.enqueue(key, lowPriority)));
          return informer;
        });
        return wired;
      },
    });
    return controller;
  }

  private source<T extends KubeObject>(resource: ApiResource, map: MapFunc<T>, opts: SourceOptions<T>): this {
    this.sources.push({
      resource,
      map: map as MapFunc<KubeObject>,
      mapUpdate: opts.mapUpdate as Source['mapUpdate'],
      predicates: (opts.predicates ?? []) as Predicate[],
    });
    return this;
  }
}

/**
 * Maps a source's events to keys. Objects first seen in a list (a start, a failover, a relist
 * after the watch fell too far behind) go in at low priority, so a fleet-wide resync waits behind
 * the changes arriving meanwhile (controller-runtime's priority queue does this for the initial list).
 */
function enqueueHandler(
  source: Source,
  enqueue: (key: string, lowPriority: boolean) => void,
): EventHandler<KubeObject> {
  const { predicates, map, mapUpdate } = source;
  const add = (keys: Iterable<string>, lowPriority = false) => {
    for (const k of keys) enqueue(k, lowPriority);
  };
  return {
    onAdd: (obj, fromList) => {
      if (predicates.every((p) => p.create?.(obj) ?? true)) add(map(obj), fromList);
    },
    onUpdate: (oldObj, newObj) => {
      if (!predicates.every((p) => p.update?.(oldObj, newObj) ?? true)) return;
      if (mapUpdate) return add(mapUpdate(oldObj, newObj));
      // Map both versions: a change that moves the object to another target must wake the old one.
      add(new Set([...map(oldObj), ...map(newObj)]));
    },
    onDelete: (obj) => {
      if (predicates.every((p) => p.delete?.(obj) ?? true)) add(map(obj));
    },
  };
}
