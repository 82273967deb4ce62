// List-then-watch for one kind, as a loop that never gives up (kube-rs watcher, client-go reflector):
//   list (paged) ─► watch from the list's resourceVersion, bookmarks on, server timeout 5–10 min
//   watch closed by the server ─► watch again from the last resourceVersion (no delay)
//   410 Gone (HTTP or ERROR event) ─► list again (at once; back-to-back 410s go through the backoff)
//   any other failure ─► exponential backoff with jitter, then resume (watch if we have a
//                         resourceVersion, else list)
// A list is reported as Init, InitApply*, InitDone so the consumer can swap its store atomically and
// infer deletions that happened while it was not watching.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import { Backoff } from './backoff.ts';
import { ApiError, isGone, type ListOptions, type WatchOptions } from './client.ts';
import { internStrings } from './intern.ts';
import type { ApiResource, KubeObject, ObjectList, Status, WatchEvent } from './types.ts';

export type WatcherEvent<T> =
  | { type: 'init' }
  | { type: 'initApply'; object: T }
  | { type: 'initDone' }
  | { type: 'apply'; object: T }
  | { type: 'delete'; object: T };

/** The two calls a watcher needs; KubeClient provides them, unit tests script them. */
export interface ListWatchClient {
  list<T extends KubeObject>(res: ApiResource, opts: ListOptions): Promise<ObjectList<T>>;
  watch<T extends KubeObject>(res: ApiResource, opts: WatchOptions): AsyncIterable<WatchEvent<T>>;
}

export type WatchRestartReason = 'timeout' | 'closed' | 'gone' | 'error';

export interface WatchMetricsSink {
  /**
   * A watch ended and a new one starts: 'timeout' (the server ended it at its timeout), 'closed'
   * (the server ended it early, e.g. its watch cache dropped us for reading too slowly), 'gone'
   * (410), 'error'.
   */
  restarted(reason: WatchRestartReason): void;
  relisted(): void;
  bookmark(): void;
}

export interface WatcherOptions<T extends KubeObject> {
  client: ListWatchClient;
  resource: ApiResource;
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Items per list page. Default 500 (client-go pager default). */
  pageSize?: number;
  /** Server watch timeout is this × (1 + random) seconds. Default 300 s (client-go reflector minWatchTimeout). */
  minWatchTimeoutSeconds?: number;
  /** Client idle timeout = server timeout + this. Default 5 s (kube-rs: 290 s server + 5 s). */
  idleMarginMs?: number;
  backoff?: Backoff;
  /** Applied to every object before it is handed on; default compactForCache. */
  transform?: (obj: T) => T;
  onEvent: (ev: WatcherEvent<T>) => void;
  /** The API server was heard from: a list page, any watch event, or a watch it closed on time. */
  onHeard?: () => void;
  logger: Logger;
  metrics?: WatchMetricsSink;
  random?: () => number;
}

/** The manifest client-side `kubectl apply` (and the GitOps tools that run it) keeps on each object. */
export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Drops what no reconciler reads before caching: metadata.managedFields, typically the largest part
 * of a small object, and the last-applied annotation, the object's manifest a second time on a hub
 * fed by `kubectl apply`. Writes patch the keys they set (or the status), so the stored annotation
 * is kept; the annotations map stays, empty if need be, so a patch that tests for a missing map
 * still sees what the server has.
 */
export function stripForCache<T extends KubeObject>(obj: T): T {
  const m = obj.metadata;
  if (m?.managedFields) delete m.managedFields;
  if (m?.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined) delete m.annotations[LAST_APPLIED_ANNOTATION];
  return obj;
}

/**
 * The default cache transform: stripForCache, then one shared copy of each repeated string value
 * (intern.ts). Secrets keep stripForCache alone: their values stay out of the process-wide pool.
 */
export function compactForCache<T extends KubeObject>(obj: T): T {
  return internStrings(stripForCache(obj));
}

/** A watch that ends this fast without a single event is treated as a failure (client-go does too). */
const SHORT_WATCH_MS = 1000;
/** A clean end this long before the requested timeoutSeconds was the server's choice, not the timeout. */
const EARLY_END_MS = 1000;

export class Watcher<T extends KubeObject> {
  private readonly opts: WatcherOptions<T>;
  private readonly backoff: Backoff;
  private readonly transform: (obj: T) => T;
  private readonly random: () => number;
  /** Last resourceVersion seen; kept across a failed watch so the retry resumes where it broke. */
  private rv: string | undefined;

  constructor(opts: WatcherOptions<T>) {
    this.opts = opts;
    this.backoff = opts.backoff ?? new Backoff();
    this.transform = opts.transform ?? compactForCache;
    this.random = opts.random ?? Math.random;
  }

  /** Runs until the signal aborts. Never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    const { logger, metrics } = this.opts;
    // 410s in a row with nothing useful in between: the first relists at once, later ones back off
    // so a server that keeps expiring us is not hammered with full lists.
    let goneStreak = 0;
    const gone = async (detail: unknown) => {
      this.rv = undefined;
      metrics?.restarted('gone');
      const delayMs = ++goneStreak > 1 ? this.backoff.next() : 0;
      logger.info({ detail: String(detail), delayMs }, 'watch expired (410); relisting');
      if (delayMs > 0) await sleep(delayMs, undefined, { signal }).catch(() => undefined);
    };
    while (!signal.aborted) {
      let listing = false;
      try {
        if (this.rv === undefined) {
          listing = true;
          this.rv = await this.list(signal);
          listing = false;
        }
        const result = await this.watch(this.rv, signal);
        if (result.gone) {
          if (result.events > 1) goneStreak = 0;
          await gone(`ERROR event at resourceVersion ${this.rv}`);
          continue;
        }
        goneStreak = 0;
        if (result.events === 0 && result.durationMs < SHORT_WATCH_MS && !signal.aborted) {
          throw new Error(`watch closed after ${result.durationMs} ms without events`);
        }
        if (signal.aborted) break; // we stopped it: not a restart
        this.opts.onHeard?.();
        metrics?.restarted(this.endReason(result));
      } catch (err) {
        if (signal.aborted) break;
        // A 410 on the watch request itself: our resourceVersion is compacted away. A 410 while
        // listing (expired continue token) goes through the backoff like other errors.
        if (isGone(err) && !listing) {
          await gone(err);
          continue;
        }
        const delayMs = this.backoff.next();
        metrics?.restarted('error');
        logger.warn({ err: String(err), delayMs, listing }, 'list/watch failed; retrying');
        await sleep(delayMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  /** 'timeout' for a watch the server ended at the timeout we asked for, 'closed' for one ended early. */
  private endReason(result: {
    events: number;
    durationMs: number;
    timeoutSeconds: number;
  }): WatchRestartReason {
    if (result.durationMs >= result.timeoutSeconds * 1000 - EARLY_END_MS) return 'timeout';
    this.opts.logger.debug(
      { events: result.events, durationMs: result.durationMs },
      'watch closed early by the server',
    );
    return 'closed';
  }

  private async list(signal: AbortSignal): Promise<string> {
    const { client, resource, namespace, labelSelector, fieldSelector, onEvent, metrics } = this.opts;
    onEvent({ type: 'init' });
    let cont: string | undefined;
    let rv = '';
    do {
      const page: ObjectList<T> = await client.list<T>(resource, {
        namespace,
        labelSelector,
        fieldSelector,
        limit: this.opts.pageSize ?? 500,
        continue: cont,
        signal,
      });
      this.opts.onHeard?.();
      for (const item of page.items) onEvent({ type: 'initApply', object: this.transform(item) });
      cont = page.metadata.continue || undefined;
      rv = page.metadata.resourceVersion ?? rv;
    } while (cont);
    onEvent({ type: 'initDone' });
    metrics?.relisted();
    return rv;
  }

  private async watch(
    rv: string,
    signal: AbortSignal,
  ): Promise<{ gone: boolean; events: number; durationMs: number; timeoutSeconds: number }> {
    const { client, resource, namespace, labelSelector, fieldSelector, onEvent, metrics } = this.opts;
    const timeoutSeconds = Math.floor((this.opts.minWatchTimeoutSeconds ?? 300) * (1 + this.random()));
    const started = Date.now();
    let events = 0;
    const stream = client.watch<T>(resource, {
      namespace,
      labelSelector,
      fieldSelector,
      resourceVersion: rv,
      timeoutSeconds,
      idleTimeoutMs: timeoutSeconds * 1000 + (this.opts.idleMarginMs ?? 5000),
      signal,
    });
    for await (const ev of stream) {
      events++;
      this.opts.onHeard?.();
      if (ev.type === 'ERROR') {
        const status = ev.object as Status;
        if (status.code === 410)
          return { gone: true, events, durationMs: Date.now() - started, timeoutSeconds };
        throw new ApiError(
          status.code ?? 500,
          status,
          `watch error event: ${status.reason}: ${status.message}`,
        );
      }
      const obj = ev.object as T;
      this.rv = obj.metadata?.resourceVersion ?? this.rv;
      if (ev.type === 'BOOKMARK') {
        metrics?.bookmark();
        continue;
      }
      const object = this.transform(obj);
      if (ev.type === 'DELETED') onEvent({ type: 'delete', object });
      else onEvent({ type: 'apply', object });
    }
    return { gone: false, events, durationMs: Date.now() - started, timeoutSeconds };
  }
}
