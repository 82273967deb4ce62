// Barriers for "nothing changed" checks: instead of sleeping a fixed time (which passes without
// proving anything when the operator is slow), wait until the operator has demonstrably processed
// the change in question, then check that it wrote nothing (see unchanged.ts).
import type { Informer } from '../../src/runtime/informer.ts';
import type { Manager } from '../../src/runtime/manager.ts';
import type { KubeObject } from '../../src/runtime/types.ts';
import { eventually } from './env.ts';

/**
 * Waits until `informer`'s cache holds `written` at its resourceVersion or a later one. Handlers run
 * as the cache takes an event, so the keys it maps to are enqueued by then. (resourceVersions are
 * etcd revisions on this API server; a later one means ours was delivered before it, in order.)
 */
export async function cached<T extends KubeObject>(
  informer: Informer<T>,
  written: KubeObject,
  timeoutMs = 30_000,
): Promise<void> {
  const { namespace, name, resourceVersion } = written.metadata;
  const want = BigInt(resourceVersion ?? '0');
  await eventually(
    async () => {
      const have = informer.get(namespace, name ?? '')?.metadata.resourceVersion;
      return have !== undefined && BigInt(have) >= want;
    },
    { timeoutMs, what: `${name}@${resourceVersion} in the operator's cache` },
  );
}

/**
 * Waits for a moment when no controller of `mgr` has a key queued or a reconcile running. Every key
 * enqueued before the call has then been reconciled by a pass that started after it was enqueued (a
 * key enqueued during its own pass is queued again when that pass ends). Delayed requeues
 * (requeueAfter, retries) are timers, not queued keys, and do not hold this up.
 */
export async function reconcilesDone(mgr: Manager, what: string, timeoutMs = 30_000): Promise<void> {
  // Let workers woken by a just-made enqueue take their key first (they resume in microtasks).
  await new Promise<void>((r) => setImmediate(r));
  await eventually(
    async () => {
      const busy = mgr.busyControllers();
      // Thrown, so that a timeout says which controllers kept busy.
      if (busy.length > 0) throw new Error(busy.join(', '));
      return true;
    },
    { timeoutMs, intervalMs: 50, what: `reconciles done (${what})` },
  );
}

/**
 * Enqueues `key` on the controller registered as `controller` and waits until a pass of it that
 * started after this call has ended (a pass already running when called does not count: it may
 * have read the world before the change the caller made). Unlike reconcilesDone, other keys being
 * busy (a fast requeue loop) do not hold it up.
 */
export async function passOf(
  mgr: Manager,
  controller: string,
  key: string,
  timeoutMs = 30_000,
): Promise<void> {
  const c = mgr.registered(controller);
  if (!c) throw new Error(`no controller ${controller}`);
  const { promise, resolve, reject } = Promise.withResolvers<void>();
  const t0 = performance.now();
  const off = c.onPassEnd((k, startedAt) => {
    if (k === key && startedAt >= t0) resolve();
  });
  const timer = setTimeout(
    () => reject(new Error(`no pass of ${controller} ${key} in ${timeoutMs} ms`)),
    timeoutMs,
  );
  c.enqueue(key);
  try {
    await promise;
  } finally {
    off();
    clearTimeout(timer);
  }
}

/**
 * The object once the operator has caught up with it: its cache holds the live version, no
 * reconcile is queued or running, and the live version is still the same afterwards (a pass that
 * wrote it would have moved it, and the loop goes round again).
 */
export async function settled<T extends KubeObject>(
  mgr: Manager,
  informer: Informer<T>,
  get: () => Promise<T>,
  what: string,
  timeoutMs = 60_000,
): Promise<T> {
  return eventually(
    async () => {
      const live = await get();
      await cached(informer, live);
      await reconcilesDone(mgr, what);
      const again = await get();
      return again.metadata.resourceVersion === live.metadata.resourceVersion ? again : undefined;
    },
    { timeoutMs, what: `${what} settled` },
  );
}
