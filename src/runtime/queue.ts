// The work queue between event handlers and reconcile workers (client-go util/workqueue semantics):
// - dedupe: a key waiting in the queue is held once, however many events arrive (dirty set);
// - exclusivity: a key being processed is never handed to a second worker (processing set); if it is
//   added meanwhile it is queued again, once, when the first worker calls done();
// - delayed add: a min-heap of ready times, the earliest request for a key wins;
// - rate-limited add: the delay comes from a RateLimiter (per-key backoff, global bucket);
// - low priority: keys added by addLowPriority (an informer's initial list, as controller-runtime's
//   priority queue does) are handed out only when no other key waits, so the resync of a whole
//   fleet after a restart or failover does not hold back the changes that arrive meanwhile. A key
//   waiting at low priority that is added normally moves up; never the other way.
import { type Clock, defaultControllerRateLimiter, type RateLimiter } from './rate-limiter.ts';

/** Hooks for queue metrics; metrics.ts binds them to prom-client. */
export interface QueueMetricsSink {
  added(): void;
  depth(n: number): void;
  /** Time a key waited in the queue before a worker took it. */
  queued(ms: number): void;
  /** Time a worker held a key. */
  worked(ms: number): void;
  retried(): void;
}

export interface WorkQueueOptions {
  rateLimiter?: RateLimiter;
  metrics?: QueueMetricsSink;
  now?: Clock;
}

/** A FIFO of keys with O(1) amortised shift (Array#shift is O(n) on large arrays). */
class Fifo {
  private items: string[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(key: string): void {
    this.items.push(key);
  }

  shift(): string | undefined {
    if (this.head >= this.items.length) return undefined;
    const key = this.items[this.head++];
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return key;
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

interface Delayed {
  key: string;
  at: number;
}

/** Binary min-heap on `at`. Superseded entries are left in place and skipped when popped. */
class DelayHeap {
  private readonly heap: Delayed[] = [];

  get size(): number {
    return this.heap.length;
  }

  peek(): Delayed | undefined {
    return this.heap[0];
  }

  push(d: Delayed): void {
    const h = this.heap;
    h.push(d);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (h[parent]!.at <= h[i]!.at) break;
      [h[parent], h[i]] = [h[i]!, h[parent]!];
      i = parent;
    }
  }

  pop(): Delayed | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.at < h[m]!.at) m = l;
        if (r < h.length && h[r]!.at < h[m]!.at) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }

  clear(): void {
    this.heap.length = 0;
  }
}

export class WorkQueue {
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: QueueMetricsSink | undefined;
  private readonly now: Clock;
  private readonly fifo = new Fifo();
  /** The low-priority lane; entries whose key is not in lowQueued are stale (moved up) and skipped. */
  private readonly low = new Fifo();
  private readonly lowQueued = new Set<string>();
  /** Keys being processed whose pending re-add is low priority. */
  private readonly lowPending = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly processing = new Map<string, number>();
  private readonly enqueuedAt = new Map<string, number>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly delayed = new DelayHeap();
  private readonly readyAt = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  /** A microtask that hands keys to waiting workers is scheduled. */
  private waking = false;
  private timerAt = Number.POSITIVE_INFINITY;
  private stopping = false;
  private drained: (() => void)[] = [];

  constructor(opts: WorkQueueOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.rateLimiter = opts.rateLimiter ?? defaultControllerRateLimiter(this.now);
    this.metrics = opts.metrics;
  }

  /** Keys waiting for a worker, either priority (not counting delayed or in-flight keys). */
  len(): number {
    return this.fifo.length + this.lowQueued.size;
  }

  /** Keys being processed now (a key added meanwhile is queued again when its pass ends). */
  inFlight(): number {
    return this.processing.size;
  }

  /** Delayed keys (requeueAfter, retries) that become ready within `ms` from now. */
  dueWithin(ms: number): number {
    const until = this.now() + ms;
    let n = 0;
    for (const at of this.readyAt.values()) if (at <= until) n++;
    return n;
  }

  get shuttingDown(): boolean {
    return this.stopping;
  }

  add(key: string): void {
    if (this.stopping) return;
    if (this.dirty.has(key)) {
      this.raise(key);
      return;
    }
    this.metrics?.added();
    this.dirty.add(key);
    if (this.processing.has(key)) return; // done() re-queues it
    this.enqueue(key);
  }

  /** Like add, but the key waits behind every normally added one (it keeps a higher priority it has). */
  addLowPriority(key: string): void {
    if (this.stopping || this.dirty.has(key)) return;
    this.metrics?.added();
    this.dirty.add(key);
    if (this.processing.has(key)) {
      this.lowPending.add(key);
      return;
    }
    this.enqueue(key, true);
  }

  /** A waiting low-priority key moves to the normal lane. */
  private raise(key: string): void {
    this.lowPending.delete(key);
    if (this.lowQueued.delete(key)) this.fifo.push(key);
  }

  /** Adds the key after `delayMs`; if the key is already waiting, the earlier time wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopping) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = this.now() + delayMs;
    const existing = this.readyAt.get(key);
    if (existing !== undefined && existing <= at) return;
    this.readyAt.set(key, at);
    this.delayed.push({ key, at });
    this.schedule();
  }

  addRateLimited(key: string): void {
    if (this.stopping) return;
    this.metrics?.retried();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  /** Clears the key's failure history (call after a successful reconcile). */
  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.retries(key);
  }

  /** Waits for the next key; undefined once the queue is shut down. Call done(key) when finished. */
  get(): Promise<string | undefined> {
    if (this.len() > 0) return Promise.resolve(this.take());
    if (this.stopping) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    const started = this.processing.get(key);
    if (started === undefined) return;
    this.processing.delete(key);
    this.metrics?.worked(this.now() - started);
    if (this.stopping) {
      if (this.processing.size === 0) for (const r of this.drained.splice(0)) r();
      return;
    }
    if (this.dirty.has(key)) this.enqueue(key, this.lowPending.delete(key));
  }

  /**
   * Stops handing out keys and waits for in-flight keys to be done. Queued and delayed keys are
   * dropped: whoever runs next (this process after restart, or the next leader) lists every object
   * and enqueues it again, so nothing is lost that a relist does not recover.
   */
  shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.processing.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  /** Stops handing out keys without waiting. */
  shutDown(): void {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    this.delayed.clear();
    this.readyAt.clear();
    this.fifo.clear();
    this.low.clear();
    this.lowQueued.clear();
    this.lowPending.clear();
    this.dirty.clear();
    this.enqueuedAt.clear();
    this.metrics?.depth(0);
    for (const w of this.waiters.splice(0)) w(undefined);
  }

  private enqueue(key: string, lowPriority = false): void {
    this.enqueuedAt.set(key, this.now());
    if (lowPriority) {
      this.low.push(key);
      this.lowQueued.add(key);
    } else {
      this.fifo.push(key);
    }
    this.metrics?.depth(this.len());
    this.wakeWaiters();
  }

  /**
   * Hands waiting keys to waiting workers once the current synchronous burst is over (informer
   * handlers for one event run back to back, and several may map it to the same key): a key handed
   * out on the first add would be in flight for the second and run twice for one change.
   */
  private wakeWaiters(): void {
    if (this.waking || this.waiters.length === 0) return;
    this.waking = true;
    queueMicrotask(() => {
      this.waking = false;
      while (!this.stopping && this.waiters.length > 0 && this.len() > 0) this.waiters.shift()!(this.take());
    });
  }

  /** The next key: the normal lane first, then the low one (skipping keys that moved up). */
  private next(): string {
    const key = this.fifo.shift();
    if (key !== undefined) return key;
    for (;;) {
      const lowKey = this.low.shift();
      if (lowKey === undefined) throw new Error('work queue: low-priority lane lost a waiting key');
      if (this.lowQueued.delete(lowKey)) return lowKey;
    }
  }

  private take(): string {
    const key = this.next();
    const now = this.now();
    this.dirty.delete(key);
    this.processing.set(key, now);
    this.metrics?.queued(now - (this.enqueuedAt.get(key) ?? now));
    this.enqueuedAt.delete(key);
    this.metrics?.depth(this.len());
    return key;
  }

  private schedule(): void {
    let head = this.delayed.peek();
    // Drop superseded entries (an earlier add for the same key replaced them).
    while (head && this.readyAt.get(head.key) !== head.at) {
      this.delayed.pop();
      head = this.delayed.peek();
    }
    if (!head) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
      return;
    }
    if (this.timer && this.timerAt <= head.at) return;
    clearTimeout(this.timer);
    this.timerAt = head.at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, head.at - this.now()));
    // A pending retry must not keep a finished process alive; the manager's servers do that.
    this.timer.unref?.();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const now = this.now();
    for (let head = this.delayed.peek(); head && head.at <= now; head = this.delayed.peek()) {
      this.delayed.pop();
      if (this.readyAt.get(head.key) !== head.at) continue;
      this.readyAt.delete(head.key);
      this.add(head.key);
    }
    this.schedule();
  }
}
