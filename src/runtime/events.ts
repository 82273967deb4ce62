// A core/v1 Event recorder in the manner of client-go's tools/record:
// - aggregation: the same object + type + reason + message bumps count and lastTimestamp on the
//   existing Event instead of creating a new one (LRU of 4096 recent events);
// - spam filter: per involved object, a token bucket of burst 25 refilled one token per 5 minutes;
//   events beyond that are dropped and counted;
// - fire and forget: writes run in the background, one at a time; a transient failure (no answer,
//   5xx, 429) is sent again after 1 s and 4 s (client-go tries 12 times, 10 s apart); other
//   failures are logged and counted, never thrown.
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import { Lru } from '../util/lru.ts';
import { isAlreadyExists, isNotFound, isTransient, type KubeClient } from './client.ts';
import { formatTime } from './conditions.ts';
import type { RuntimeMetrics } from './metrics.ts';
import { type Clock, TokenBucket } from './rate-limiter.ts';
import { EventResource, type KubeObject } from './types.ts';

export type EventType = 'Normal' | 'Warning';

export interface EventRecorderOptions {
  client: KubeClient;
  /** source.component / reportingComponent, e.g. 'agent-install-operator'. */
  component: string;
  host?: string;
  logger: Logger;
  metrics?: RuntimeMetrics;
  /** Per-object burst. Default 25 (client-go EventSourceObjectSpamFilter). */
  burst?: number;
  /** Per-object refill: one token per this many ms. Default 300 000 (same source). */
  refillIntervalMs?: number;
  /** Aggregation and spam-filter entries kept. Default 4096 (client-go maxLruCacheEntries). */
  cacheSize?: number;
  /** Writes queued before new events are dropped. Default 1000 (project choice). */
  maxPending?: number;
  /** Waits before sending a write again after a transient failure. Default 1 s, then 4 s. */
  retryDelaysMs?: readonly number[];
  now?: Clock;
}

interface Recorded {
  name: string;
  namespace: string;
  count: number;
}

export class EventRecorder {
  private readonly opts: EventRecorderOptions;
  private readonly now: Clock;
  private readonly host: string;
  private readonly recorded: Lru<string, Recorded>;
  private readonly buckets: Lru<string, TokenBucket>;
  private tail: Promise<void> = Promise.resolve();
  private pending = 0;

  constructor(opts: EventRecorderOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.host = opts.host ?? hostname();
    this.recorded = new Lru({ maxEntries: opts.cacheSize ?? 4096 });
    this.buckets = new Lru({ maxEntries: opts.cacheSize ?? 4096 });
  }

  /** Records an event about `obj` (a stored object: kind, name and uid are used). Never throws. */
  event(obj: KubeObject, type: EventType, reason: string, message: string): void {
    const m = obj.metadata;
    const objectId = `${obj.kind}/${m.namespace ?? ''}/${m.name}/${m.uid ?? ''}`;
    let bucket = this.buckets.get(objectId);
    if (!bucket) {
      bucket = new TokenBucket(
        1000 / (this.opts.refillIntervalMs ?? 300_000),
        this.opts.burst ?? 25,
        this.now,
      );
      this.buckets.set(objectId, bucket);
    }
    if (!bucket.tryTake()) {
      this.opts.metrics?.eventsDropped.inc({ reason: 'rate_limited' });
      return;
    }
    if (this.pending >= (this.opts.maxPending ?? 1000)) {
      this.opts.metrics?.eventsDropped.inc({ reason: 'backlog' });
      return;
    }
    this.pending++;
    const key = `${objectId}\u0000${type}\u0000${reason}\u0000${message}`;
    const at = this.now();
    // Drawn once: a write sent again creates the Event under the same name, never a second one.
    const nonce = Math.floor(Math.random() * 1e6);
    this.tail = this.tail
      .then(() => this.writeWithRetries(key, at, nonce, obj, type, reason, message))
      .catch((err) => {
        this.opts.metrics?.eventsDropped.inc({ reason: 'api_error' });
        this.opts.logger.warn({ err: String(err), reason }, 'could not record event');
      })
      .finally(() => {
        this.pending--;
      });
  }

  /** Resolves when every event recorded so far has been written (or dropped). */
  flush(): Promise<void> {
    return this.tail;
  }

  private async writeWithRetries(
    ...args: [string, number, number, KubeObject, EventType, string, string]
  ): Promise<void> {
    const delays = this.opts.retryDelaysMs ?? [1_000, 4_000];
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.write(...args, attempt > 0);
      } catch (err) {
        const delay = delays[attempt];
        if (delay === undefined || !isTransient(err)) throw err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  private async write(
    key: string,
    at: number,
    nonce: number,
    obj: KubeObject,
    type: EventType,
    reason: string,
    message: string,
    retry = false,
  ) {
    const { client } = this.opts;
    const timestamp = formatTime(new Date(at));
    const prev = this.recorded.get(key);
    if (prev) {
      try {
        await client.patch(EventResource, prev.name, prev.namespace, 'merge', {
          count: prev.count + 1,
          lastTimestamp: timestamp,
        });
        prev.count++;
        return;
      } catch (err) {
        // Events expire (kube-apiserver --event-ttl, 1 h); start a new one.
        if (!isNotFound(err)) throw err;
        this.recorded.delete(key);
      }
    }
    const m = obj.metadata;
    const namespace = m.namespace || 'default';
    // client-go names events <object>.<unix nanos in hex>, unique enough without a server round trip.
    const name = `${m.name}.${(BigInt(at) * 1_000_000n + BigInt(nonce)).toString(16)}`;
    const event = {
      metadata: { name, namespace },
      involvedObject: {
        apiVersion: obj.apiVersion,
        kind: obj.kind,
        name: m.name,
        namespace: m.namespace,
        uid: m.uid,
        resourceVersion: m.resourceVersion,
      },
      type,
      reason,
      message,
      source: { component: this.opts.component, host: this.host },
      reportingComponent: this.opts.component,
      reportingInstance: this.host,
      firstTimestamp: timestamp,
      lastTimestamp: timestamp,
      count: 1,
    } as KubeObject;
    try {
      await client.create(EventResource, event);
    } catch (err) {
      // An earlier attempt that got no answer was stored after all.
      if (!(retry && isAlreadyExists(err))) throw err;
    }
    this.recorded.set(key, { name, namespace, count: 1 });
  }
}
