// A controller: a work queue of keys and N workers calling the reconciler (controller-runtime's
// reconcileHandler semantics). The reconciler sees only the key and must re-read state from caches.
//   returns {requeueAfter}  → forget backoff history, run again after the delay
//   returns nothing          → forget backoff history
//   throws TerminalError     → logged and counted, not retried (until the next event for the key)
//   throws anything else     → rate-limited retry (5 ms doubling to 1000 s, global 10 qps bucket)
// Nothing a reconciler throws or rejects with can stop a worker or the process.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { RuntimeMetrics } from './metrics.ts';
import { WorkQueue } from './queue.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { type KubeObject, objectKey, splitKey } from './types.ts';

export interface ReconcileRequest {
  /** 'namespace/name' or 'name'. */
  key: string;
  namespace: string | undefined;
  name: string;
}

export interface ReconcileContext {
  /** Logger bound to controller, key and reconcileId. */
  log: Logger;
  /** Unique per reconcile call, for correlating log lines. */
  reconcileId: string;
  /** Aborted when the controller stops (lost leadership, shutdown); long work should give up. */
  signal: AbortSignal;
}

export interface ReconcileResult {
  /** Run again after this many milliseconds (e.g. to poll something not watched). */
  requeueAfter?: number;
}

/** What a reconcile may return; void admits `async (req) => { … }` with no return statement. */
// biome-ignore lint/suspicious/noConfusingVoidType: see above.
export type ReconcileOutcome = ReconcileResult | undefined | void;

export type Reconciler = (
  req: ReconcileRequest,
  ctx: ReconcileContext,
) => Promise<ReconcileOutcome> | ReconcileOutcome;

/** A failure that retrying cannot fix (invalid spec, …): reported, not retried. */
export class TerminalError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

export interface ControllerOptions {
  name: string;
  reconcile: Reconciler;
  /** Concurrent reconciles (distinct keys only). Default 1 (controller-runtime MaxConcurrentReconciles). */
  workers?: number;
  /** Default: client-go DefaultControllerRateLimiter. */
  rateLimiter?: RateLimiter;
  logger: Logger;
  metrics: RuntimeMetrics;
}

/** See Controller.onPassEnd. */
export type PassListener = (key: string, startedAt: number) => void;

/** Bugs rather than conditions: counted separately (controller-runtime counts recovered panics). */
function isProgrammingError(err: unknown): boolean {
  return (
    !(err instanceof Error) ||
    err instanceof TypeError ||
    err instanceof ReferenceError ||
    err instanceof RangeError
  );
}

export class Controller {
  readonly name: string;
  readonly queue: WorkQueue;
  readonly workers: number;
  private readonly reconcile: Reconciler;
  private readonly logger: Logger;
  private readonly metrics: RuntimeMetrics;
  private readonly abort = new AbortController();
  private running: Promise<void>[] | undefined;
  private readonly passListeners = new Set<PassListener>();

  constructor(opts: ControllerOptions) {
    this.name = opts.name;
    this.reconcile = opts.reconcile;
    this.workers = Math.max(1, opts.workers ?? 1);
    this.logger = opts.logger.child({ controller: opts.name });
    this.metrics = opts.metrics;
    this.queue = new WorkQueue({ rateLimiter: opts.rateLimiter, metrics: opts.metrics.queueSink(opts.name) });
  }

  get started(): boolean {
    return this.running !== undefined;
  }

  /**
   * Calls `listener` after each pass of a key ends, whatever its outcome, with the performance.now()
   * at which the pass started: tests wait on it instead of sleeping. Returns the unsubscribe.
   */
  onPassEnd(listener: PassListener): () => void {
    this.passListeners.add(listener);
    return () => this.passListeners.delete(listener);
  }

  /** `lowPriority`: behind every key enqueued normally (objects of an informer's list). */
  enqueue(key: string, lowPriority = false): void {
    if (lowPriority) this.queue.addLowPriority(key);
    else this.queue.add(key);
  }

  /**
   * Enqueues every one of `objects` at low priority: a pass over a whole kind (its service URLs
   * changed, say) waits behind the changes arriving meanwhile.
   */
  resync(objects: Iterable<KubeObject>): void {
    for (const obj of objects) this.queue.addLowPriority(objectKey(obj));
  }

  enqueueAfter(key: string, delayMs: number): void {
    this.queue.addAfter(key, delayMs);
  }

  start(): void {
    if (this.running) return;
    this.metrics.maxConcurrentReconciles.set({ controller: this.name }, this.workers);
    this.running = Array.from({ length: this.workers }, () => this.work());
    this.logger.info({ workers: this.workers }, 'controller started');
  }

  /** Stops taking keys, signals in-flight reconciles, and waits for them (or for timeoutMs). */
  async stop(timeoutMs = 30_000): Promise<void> {
    this.abort.abort();
    const drained = this.queue.shutDownWithDrain();
    let timer: NodeJS.Timeout | undefined;
    const timedOut = await Promise.race([
      Promise.all([drained, ...(this.running ?? [])]).then(() => false),
      new Promise<boolean>((r) => {
        timer = setTimeout(() => r(true), timeoutMs);
      }),
    ]);
    clearTimeout(timer);
    if (timedOut) this.logger.warn({ timeoutMs }, 'reconciles still running at shutdown deadline');
  }

  private async work(): Promise<void> {
    for (;;) {
      const key = await this.queue.get();
      if (key === undefined) return;
      try {
        await this.reconcileKey(key);
      } finally {
        this.queue.done(key);
      }
      // A reconcile that reads only caches completes in microtasks, and so does taking the next
      // key of a full queue: without a turn of the event loop here, a backlog would be worked
      // through in one stall of every request and timer (issue 16: up to 1.5 s in a wave).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  private async reconcileKey(key: string): Promise<void> {
    const reconcileId = randomUUID();
    const log = this.logger.child({ key, reconcileId });
    const labels = { controller: this.name };
    const stopTimer = this.metrics.reconcileTime.startTimer(labels);
    const startedAt = performance.now();
    this.metrics.activeWorkers.inc(labels);
    try {
      const { namespace, name } = splitKey(key);
      const result = await this.reconcile(
        { key, namespace, name },
        { log, reconcileId, signal: this.abort.signal },
      );
      this.queue.forget(key);
      if (result && result.requeueAfter !== undefined && result.requeueAfter > 0) {
        this.queue.addAfter(key, result.requeueAfter);
        this.metrics.reconcileTotal.inc({ ...labels, result: 'requeue_after' });
      } else {
        this.metrics.reconcileTotal.inc({ ...labels, result: 'success' });
      }
      log.debug('reconciled');
    } catch (err) {
      if (err instanceof TerminalError) {
        this.queue.forget(key);
        this.metrics.terminalReconcileErrors.inc(labels);
        this.metrics.reconcileTotal.inc({ ...labels, result: 'terminal_error' });
        log.error({ err }, 'reconcile failed with a terminal error; not retrying');
        return;
      }
      if (isProgrammingError(err)) this.metrics.reconcilePanics.inc(labels);
      this.metrics.reconcileErrors.inc(labels);
      this.metrics.reconcileTotal.inc({ ...labels, result: 'error' });
      this.queue.addRateLimited(key);
      log.error({ err, retries: this.queue.numRequeues(key) }, 'reconcile failed; will retry');
    } finally {
      stopTimer();
      this.metrics.activeWorkers.dec(labels);
      for (const l of this.passListeners) l(key, startedAt);
    }
  }
}
