// The watch under fire: dropped connections, forced 410s, half-open connections and quiet periods
// with only bookmarks, against the real API server through a fault-injecting proxy.
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../src/runtime/client.ts';
import { Controller } from '../../../src/runtime/controller.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { type ApiResource, type KubeObject, objectKey } from '../../../src/runtime/types.ts';
import { adminKubeConfig, eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { FaultProxy } from './fault-proxy.ts';
import {
  adminClient,
  converged,
  deleteCrd,
  installTestCrd,
  newInformer,
  recordNotifications,
} from './helpers.ts';

// A kind of our own: its watch cache sees only this file's traffic, so other test files churning
// ConfigMaps in parallel cannot push our resourceVersion out of the cache window (a genuine 410).
let Items: ApiResource;
const item = (namespace: string, name: string, v = '0'): KubeObject & { spec: { v: string } } => ({
  metadata: { namespace, name },
  spec: { v },
});
beforeAll(async () => {
  const admin = adminClient();
  Items = await installTestCrd(admin, `${uniqueName('watch')}.runtime.test`, 'Item');
  await admin.close();
});
afterAll(async () => {
  const admin = adminClient();
  if (Items) await deleteCrd(admin, Items);
  await admin.close();
});

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  // In registration order: stop consumers before closing the connections they use.
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

async function setup(informerOpts: Parameters<typeof newInformer>[2] = {}) {
  const namespace = await newNamespace('rt-watch');
  const proxy = await FaultProxy.start(adminKubeConfig());
  const client = new KubeClient({ kubeConfig: proxy.kubeConfig(), qps: 0 });
  const admin = adminClient();
  const { informer, metrics } = newInformer(client, namespace, informerOpts, Items);
  cleanups.push(
    () => informer.stop(),
    () => proxy.close(),
    () => client.close(),
    () => admin.close(),
  );
  return { namespace, proxy, client, admin, informer, metrics };
}

const relists = (m: RuntimeMetrics) => metricValue(m.watchRelists);
const restarts = (m: RuntimeMetrics, reason: string) => metricValue(m.watchRestarts, { reason });

describe('watch resilience', () => {
  it('survives dropped connections mid-stream: every event exactly once, no relist, no reconcile storm', async () => {
    const { namespace, proxy, admin, informer, metrics } = await setup();
    const notes = recordNotifications(informer);
    // A controller on top, counting reconciles per key.
    const reconciles = new Map<string, number>();
    const controller = new Controller({
      name: 'watch-test',
      logger: pino({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
      workers: 2,
      reconcile: (req) => {
        reconciles.set(req.name, (reconciles.get(req.name) ?? 0) + 1);
      },
    });
    informer.addHandler({
      onAdd: (o) => controller.enqueue(objectKey(o)),
      onUpdate: (_o, n) => controller.enqueue(objectKey(n)),
      onDelete: (o) => controller.enqueue(objectKey(o)),
    });
    cleanups.unshift(() => controller.stop());
    controller.start();
    informer.start();
    await informer.waitForSync();

    const writes = new Map<string, number>();
    const wrote = (name: string) => writes.set(name, (writes.get(name) ?? 0) + 1);
    let drops = 0;
    // Writes land while connected, while disconnected (between a drop and the re-watch) and in between.
    const disconnectedWrite = (name: string) => async () => {
      await admin.create(Items, item(namespace, name));
      wrote(name);
    };
    for (let i = 0; i < 24; i++) {
      await admin.create(Items, item(namespace, `cm-${i}`));
      wrote(`cm-${i}`);
      if (i % 8 === 7) drops += await proxy.dropWatchesAndWaitForReconnect(disconnectedWrite(`gap-${i}`));
    }
    for (let i = 0; i < 24; i += 2) {
      await admin.patch(Items, `cm-${i}`, namespace, 'merge', { spec: { v: '1' } });
      wrote(`cm-${i}`);
      if (i % 6 === 4) drops += await proxy.dropWatchesAndWaitForReconnect(disconnectedWrite(`gap-p${i}`));
    }
    for (let i = 0; i < 24; i += 3) {
      await admin.delete(Items, `cm-${i}`, namespace);
      wrote(`cm-${i}`);
    }
    drops += proxy.dropWatches();
    await converged(informer, admin, namespace);

    expect(drops).toBe(8);
    // The last drop has no write after it, so the cache converges before its restart is counted.
    await eventually(async () => (await restarts(metrics, 'error')) >= 8, { what: '8 watch restarts' });
    expect(await restarts(metrics, 'error')).toBeGreaterThanOrEqual(8);
    // Resumed from the last resourceVersion each time: never needed a relist...
    expect(await relists(metrics)).toBe(1);
    // ...and saw each write exactly once (no loss, no replayed duplicates).
    expect(Object.fromEntries(notes.perName)).toEqual(Object.fromEntries(writes));

    // Reconciles: every object at least once, never more than once per notification.
    await eventually(
      async () => controller.queue.len() === 0 && [...writes.keys()].every((k) => reconciles.has(k)),
    );
    for (const [name, n] of reconciles) expect(n).toBeLessThanOrEqual(writes.get(name)!);
    // Idle afterwards: nothing changes, nothing is reconciled. The barrier: a sentinel written after
    // the last drop is seen and reconciled; a late or replayed event for any other object would
    // have come before it on the watch, and its key before it in the queue.
    const sum = () => [...reconciles.values()].reduce((a, b) => a + b, 0);
    const total = sum();
    await admin.create(Items, item(namespace, 'sentinel'));
    await eventually(async () => reconciles.has('sentinel') && controller.queue.len() === 0, {
      what: 'the sentinel reconciled',
    });
    expect(sum() - reconciles.get('sentinel')!).toBe(total);
    notes.perName.delete('sentinel');
    expect(Object.fromEntries(notes.perName)).toEqual(Object.fromEntries(writes));
  });

  it('relists on 410 Gone (ERROR event or HTTP status) and infers changes missed while disconnected', async () => {
    const { namespace, proxy, admin, informer, metrics } = await setup();
    for (let i = 0; i < 5; i++) await admin.create(Items, item(namespace, `cm-${i}`));
    informer.start();
    await informer.waitForSync();
    const notes = recordNotifications(informer);
    notes.log.length = 0; // replayed adds of the initial list

    // API server "down" while things change; when it is back our resourceVersion is compacted.
    proxy.setRefusing(true);
    await admin.delete(Items, 'cm-0', namespace);
    await admin.patch(Items, 'cm-1', namespace, 'merge', { spec: { v: 'changed' } });
    await admin.create(Items, item(namespace, 'cm-new'));
    proxy.failNextWatch('event');
    proxy.setRefusing(false);
    await converged(informer, admin, namespace);
    expect(await relists(metrics)).toBe(2);
    expect(await restarts(metrics, 'gone')).toBe(1);
    expect(notes.log.sort()).toEqual(['add:cm-new', 'delete:cm-0', 'update:cm-1']);

    // Same again with the 410 as an HTTP status on the watch request; nothing changed meanwhile,
    // so the relist must not notify anyone.
    notes.log.length = 0;
    // Only once the post-relist watch is streaming: a request already past the proxy's 410 check
    // would otherwise miss both the drop and the forced 410.
    await eventually(async () => proxy.activeWatches === 1, { what: 'a streaming watch' });
    proxy.failNextWatch('http');
    expect(proxy.dropWatches()).toBe(1);
    await eventually(async () => (await relists(metrics)) === 3, { what: 'third list' });
    expect(await restarts(metrics, 'gone')).toBe(2);
    await admin.create(Items, item(namespace, 'after'));
    await converged(informer, admin, namespace);
    expect(notes.log).toEqual(['add:after']);
  });

  it('detects half-open connections (silent after headers, or no headers at all) with the idle timeout', async () => {
    // Server timeout 2–4 s, client idle timeout = that + 1 s.
    const { namespace, proxy, admin, informer, metrics } = await setup({
      minWatchTimeoutSeconds: 2,
      idleMarginMs: 1000,
    });
    informer.start();
    await informer.waitForSync();
    await eventually(async () => proxy.activeWatches === 1, { what: 'a streaming watch' });
    expect(proxy.stallWatches()).toBe(1);
    proxy.blackholeNextWatch();
    const stalledAt = Date.now();
    await admin.create(Items, item(namespace, 'while-stalled'));
    await eventually(async () => informer.store.get(`${namespace}/while-stalled`), {
      timeoutMs: 30_000,
      what: 'event after the stalled and the unanswered watch',
    });
    expect(Date.now() - stalledAt).toBeGreaterThan(2 * 3000); // two idle timeouts, each ≥ 3 s
    expect(await restarts(metrics, 'error')).toBeGreaterThanOrEqual(2);
    expect(await relists(metrics)).toBe(1);
  });

  it('keeps its place through a bookmark-only period (no events in scope, others busy elsewhere)', async () => {
    const { namespace, proxy, admin, informer, metrics } = await setup({ minWatchTimeoutSeconds: 3 });
    const elsewhere = await newNamespace('rt-busy');
    informer.start();
    await informer.waitForSync();
    const notes = recordNotifications(informer);
    let n = 0;
    const busy = setInterval(() => {
      void admin.create(Items, item(elsewhere, `noise-${n++}`)).catch(() => undefined);
    }, 200);
    await eventually(
      async () => proxy.count({ watch: true }) >= 3 && (await metricValue(metrics.watchBookmarks)) >= 2,
      {
        timeoutMs: 40_000,
        what: 'several watches and bookmarks',
      },
    );
    clearInterval(busy);
    expect(notes.log).toEqual([]);
    expect(await relists(metrics)).toBe(1);
    expect(await restarts(metrics, 'timeout')).toBeGreaterThanOrEqual(2);
    // Each re-watch starts from a newer resourceVersion, carried only by bookmarks.
    const rvs = proxy.requests
      .filter((r) => r.query.get('watch') === 'true')
      .map((r) => Number(r.query.get('resourceVersion')));
    expect(rvs.length).toBeGreaterThanOrEqual(3);
    expect(rvs.at(-1)!).toBeGreaterThan(rvs[0]!);
    for (let i = 1; i < rvs.length; i++) expect(rvs[i]!).toBeGreaterThanOrEqual(rvs[i - 1]!);
    expect(
      proxy.requests.every(
        (r) => r.query.get('watch') !== 'true' || r.query.get('allowWatchBookmarks') === 'true',
      ),
    ).toBe(true);
    await admin.create(Items, item(namespace, 'finally'));
    await eventually(async () => notes.log.includes('add:finally'));
  });
});
