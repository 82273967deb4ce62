import { pino } from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Controller, type Reconciler, TerminalError } from '../../../src/runtime/controller.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';

const logger = pino({ level: 'silent' });

function newController(reconcile: Reconciler, workers = 1) {
  const metrics = new RuntimeMetrics();
  const c = new Controller({ name: 'test', reconcile, workers, logger, metrics });
  return { c, metrics };
}

const count = (m: RuntimeMetrics, result: string) =>
  metricValue(m.reconcileTotal, { controller: 'test', result });

afterEach(() => {
  vi.useRealTimers();
});

describe('Controller', () => {
  it('passes the key split into namespace and name, with a fresh reconcile id per call', async () => {
    const seen: { ns?: string; name: string; id: string; key: string }[] = [];
    const { c } = newController((req, ctx) => {
      seen.push({ ns: req.namespace, name: req.name, id: ctx.reconcileId, key: req.key });
    });
    c.start();
    c.enqueue('ns1/a');
    c.enqueue('cluster-scoped');
    await vi.waitFor(() => expect(seen).toHaveLength(2));
    c.enqueue('ns1/a');
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    await c.stop();
    expect(seen[0]).toMatchObject({ ns: 'ns1', name: 'a', key: 'ns1/a' });
    expect(seen[1]).toMatchObject({ ns: undefined, name: 'cluster-scoped' });
    expect(new Set(seen.map((s) => s.id)).size).toBe(3);
  });

  it('resync queues every object behind the keys enqueued normally', async () => {
    const seen: string[] = [];
    const { c } = newController((req) => {
      seen.push(req.key);
    });
    const obj = (name: string) => ({ metadata: { namespace: 'ns', name } });
    c.resync([obj('a'), obj('b')]);
    c.enqueue('ns/c');
    c.start();
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    await c.stop();
    expect(seen).toEqual(['ns/c', 'ns/a', 'ns/b']);
  });

  it('tells pass listeners when each pass ended, failed ones included, and when it started', async () => {
    let fail = true;
    let begun = 0;
    const { c, metrics } = newController(() => {
      begun = performance.now();
      if (fail) {
        fail = false;
        throw new TerminalError('once');
      }
    });
    const ends: [string, number, number][] = [];
    const off = c.onPassEnd((key, startedAt) => ends.push([key, startedAt, begun]));
    c.start();
    c.enqueue('ns1/a');
    await vi.waitFor(() => expect(ends).toHaveLength(1));
    c.enqueue('ns1/b');
    await vi.waitFor(() => expect(ends).toHaveLength(2));
    off();
    c.enqueue('ns1/c');
    await vi.waitFor(async () => expect(await metricValue(metrics.reconcileTotal)).toBe(3));
    await c.stop();
    expect(ends.map(([k]) => k)).toEqual(['ns1/a', 'ns1/b']);
    for (const [, startedAt, reconcileBegan] of ends) expect(startedAt).toBeLessThanOrEqual(reconcileBegan);
  });

  it('retries a thrown error with growing backoff and forgets the history on success', async () => {
    vi.useFakeTimers();
    const times: number[] = [];
    let failuresLeft = 4;
    const { c, metrics } = newController(() => {
      times.push(Date.now());
      if (failuresLeft-- > 0) throw new Error('transient');
    });
    c.start();
    const t0 = Date.now();
    c.enqueue('ns/a');
    await vi.advanceTimersByTimeAsync(1000);
    expect(times.map((t) => t - t0)).toEqual([0, 5, 15, 35, 75]); // waits 5, 10, 20, 40 ms
    expect(c.queue.numRequeues('ns/a')).toBe(0);
    expect(await count(metrics, 'error')).toBe(4);
    expect(await count(metrics, 'success')).toBe(1);
    expect(await metricValue(metrics.reconcileErrors, { controller: 'test' })).toBe(4);
    // A later failure starts again at 5 ms.
    failuresLeft = 1;
    const t1 = Date.now();
    times.length = 0;
    c.enqueue('ns/a');
    await vi.advanceTimersByTimeAsync(100);
    expect(times.map((t) => t - t1)).toEqual([0, 5]);
    await c.stop();
  });

  it('does not retry a TerminalError but counts it', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const { c, metrics } = newController(() => {
      calls++;
      throw new TerminalError('spec is invalid');
    });
    c.start();
    c.enqueue('ns/a');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(calls).toBe(1);
    expect(await metricValue(metrics.terminalReconcileErrors, { controller: 'test' })).toBe(1);
    expect(await count(metrics, 'error')).toBe(0);
    // A new event for the key still reconciles it.
    c.enqueue('ns/a');
    await vi.advanceTimersByTimeAsync(10);
    expect(calls).toBe(2);
    await c.stop();
  });

  it('requeueAfter runs the key again after the delay and resets backoff', async () => {
    vi.useFakeTimers();
    const times: number[] = [];
    let n = 0;
    const { c, metrics } = newController(() => {
      times.push(Date.now());
      n++;
      if (n === 1) throw new Error('once');
      if (n <= 3) return { requeueAfter: 60_000 };
      return undefined;
    });
    c.start();
    const t0 = Date.now();
    c.enqueue('ns/a');
    await vi.advanceTimersByTimeAsync(200_000);
    expect(times.map((t) => t - t0)).toEqual([0, 5, 60_005, 120_005]);
    expect(await count(metrics, 'requeue_after')).toBe(2);
    expect(c.queue.numRequeues('ns/a')).toBe(0);
    await c.stop();
  });

  it('survives reconcilers that throw synchronously, throw non-Errors, or reject with TypeErrors', async () => {
    vi.useFakeTimers();
    const behaviours: (() => unknown)[] = [
      () => {
        throw 'a string';
      },
      () => Promise.reject(new TypeError('x is undefined')),
      () => {
        const o = undefined as unknown as { a: number };
        return o.a;
      },
      () => undefined,
    ];
    let i = 0;
    const { c, metrics } = newController(() => behaviours[i++]?.() as undefined);
    c.start();
    c.enqueue('ns/a');
    await vi.advanceTimersByTimeAsync(1000);
    expect(i).toBe(4);
    expect(await metricValue(metrics.reconcilePanics, { controller: 'test' })).toBe(3);
    expect(await count(metrics, 'success')).toBe(1);
    await c.stop();
  });

  it('runs N workers on distinct keys, never one key twice at once', async () => {
    let active = 0;
    let maxActive = 0;
    const activeKeys = new Set<string>();
    let overlaps = 0;
    let runs = 0;
    const { c } = newController(async (req) => {
      if (activeKeys.has(req.key)) overlaps++;
      activeKeys.add(req.key);
      active++;
      maxActive = Math.max(maxActive, active);
      await new Promise((r) => setTimeout(r, 20));
      active--;
      activeKeys.delete(req.key);
      runs++;
    }, 3);
    c.start();
    for (let round = 0; round < 5; round++) {
      for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) c.enqueue(`ns/${k}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    await vi.waitFor(() => expect(c.queue.len()).toBe(0), { timeout: 5000 });
    await c.stop();
    expect(maxActive).toBe(3);
    expect(overlaps).toBe(0);
    expect(runs).toBeGreaterThanOrEqual(6);
    expect(runs).toBeLessThanOrEqual(12); // 30 adds collapse: ≤ 1 run + 1 re-run per key
  });

  it('stop() aborts the context signal and waits for in-flight reconciles', async () => {
    let finished = false;
    let aborted = false;
    const started = Promise.withResolvers<void>();
    const { c } = newController(async (_req, ctx) => {
      started.resolve();
      await new Promise((r) => setTimeout(r, 50));
      aborted = ctx.signal.aborted;
      finished = true;
    });
    c.start();
    c.enqueue('ns/a');
    await started.promise;
    await c.stop();
    expect(finished).toBe(true);
    expect(aborted).toBe(true);
    c.enqueue('ns/b'); // ignored after stop
    expect(c.queue.len()).toBe(0);
  });
});
