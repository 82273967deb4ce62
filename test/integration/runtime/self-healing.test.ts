// The API client heals itself: after an oversized write, a poisoned HTTP/2 session, a GOAWAY or a
// stream reset, new requests (watches included) go over a new connection, and 429 + Retry-After is
// honoured. Against the real API server, directly or through an HTTP/2 fault-injecting proxy.
import { constants } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError, KubeClient } from '../../../src/runtime/client.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ConfigMapResource } from '../../../src/runtime/types.ts';
import { adminKubeConfig, eventually, newNamespace } from '../../harness/env.ts';
import { H2FaultProxy } from './h2-fault-proxy.ts';
import { adminClient, type ConfigMap, configMap, converged, newInformer } from './helpers.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

/** Fails instead of hanging: a wedged client never answers within a few seconds. */
function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);
}

async function setup(kubeConfig = adminKubeConfig()) {
  const namespace = await newNamespace('rt-heal');
  const metrics = new RuntimeMetrics();
  const client = new KubeClient({ kubeConfig, metrics: metrics.clientSink() });
  const { informer } = newInformer(client, namespace);
  const admin = adminClient();
  cleanups.push(
    () => informer.stop(),
    () => client.close(),
    () => admin.close(),
  );
  informer.start();
  await informer.waitForSync();
  return { namespace, client, informer, admin, metrics };
}

async function withProxy() {
  const proxy = await H2FaultProxy.start(adminKubeConfig());
  const s = await setup(proxy.kubeConfig());
  cleanups.push(() => proxy.close());
  return { proxy, ...s };
}

/** Every kind of request works again, each answering promptly, and the watch delivers. */
async function stillWorks(s: Awaited<ReturnType<typeof setup>>, name: string) {
  const { client, namespace, informer } = s;
  await within(10_000, 'list', client.list(ConfigMapResource, { namespace }));
  await within(10_000, 'create', client.create(ConfigMapResource, configMap(namespace, name, { a: '1' })));
  await within(10_000, 'get', client.get(ConfigMapResource, name, namespace));
  await within(
    10_000,
    'patch',
    client.patch(ConfigMapResource, name, namespace, 'merge', { data: { a: '2' } }),
  );
  await eventually(async () => (informer.get(namespace, name) as ConfigMap | undefined)?.data?.a === '2', {
    timeoutMs: 20_000,
    what: `the informer to see ${name} patched`,
  });
}

describe('self-healing API client', () => {
  // Measured on kube-apiserver 1.35: bodies over 3,145,728 bytes get 413 when sent one at a time.
  // Once more than Node's 10 MB HTTP/2 session memory sits unsent on the session (one 20 MiB body,
  // or eight 6 MiB ones at once, as a host's retried 6 MiB inventory did), Node refuses every new
  // stream on that session with ENHANCE_YOUR_CALM, for good: the wedge this test reproduces.
  it.each([
    [20, 1],
    [6, 8],
  ])(
    '%i MiB written %i at a time to the real API server fail, and poison nothing else',
    async (mib, parallel) => {
      const s = await setup();
      const { client, namespace } = s;
      await client.create(ConfigMapResource, configMap(namespace, 'target'));
      const huge = 'x'.repeat(mib * 1024 * 1024);
      const outcomes = await Promise.all(
        Array.from({ length: parallel }, () =>
          client.patch(ConfigMapResource, 'target', namespace, 'merge', { data: { huge } }).then(
            () => 'applied',
            (e: unknown) => e,
          ),
        ),
      );
      for (const o of outcomes) expect(o).toBeInstanceOf(Error);
      await stillWorks(s, 'after-oversized');
      expect(await metricValue(s.metrics.restReconnects)).toBeGreaterThan(0);
    },
  );

  it('a session that refuses every new stream (ENHANCE_YOUR_CALM) is replaced', async () => {
    const s = await withProxy();
    const before = s.proxy.sessionsOpened;
    expect(s.proxy.poisonSessions()).toBeGreaterThan(0);
    // A read is replayed on the new connection: the caller never sees the poisoned session.
    await within(10_000, 'get after poisoning', s.client.list(ConfigMapResource, { namespace: s.namespace }));
    expect(s.proxy.count({ status: 0 })).toBeGreaterThan(0);
    expect(s.proxy.sessionsOpened).toBeGreaterThan(before);
    await stillWorks(s, 'after-poison');
    expect(await metricValue(s.metrics.restReconnects, { cause: 'ERR_HTTP2_STREAM_ERROR' })).toBe(1);
  });

  it('GOAWAY (ENHANCE_YOUR_CALM) on every session: requests and watches carry on', async () => {
    const s = await withProxy();
    await eventually(async () => s.proxy.openWatches > 0, { what: 'the watch to be open' });
    const before = s.proxy.sessionsOpened;
    expect(s.proxy.goawayAll(constants.NGHTTP2_ENHANCE_YOUR_CALM)).toBeGreaterThan(0);
    await stillWorks(s, 'after-goaway');
    expect(s.proxy.sessionsOpened).toBeGreaterThan(before);
    await converged(s.informer, s.admin, s.namespace);
  });

  it('a watch reset mid-stream resumes and misses nothing', async () => {
    const s = await withProxy();
    await eventually(async () => s.proxy.openWatches > 0, { what: 'the watch to be open' });
    const watchesBefore = s.proxy.count({ watch: true });
    expect(s.proxy.resetWatches(constants.NGHTTP2_INTERNAL_ERROR)).toBe(1);
    // Written while the watch is down: the resumed watch must deliver it.
    await s.admin.create(ConfigMapResource, configMap(s.namespace, 'during-reset', { a: '1' }));
    await eventually(async () => s.informer.get(s.namespace, 'during-reset'), {
      timeoutMs: 20_000,
      what: 'the informer to see the object written during the reset',
    });
    expect(s.proxy.count({ watch: true })).toBeGreaterThan(watchesBefore);
    await stillWorks(s, 'after-reset');
  });

  it('429 with Retry-After is retried after the time the server asked for', async () => {
    const s = await withProxy();
    s.proxy.throttleNext(2, 2);
    const started = Date.now();
    const list = await s.client.list(ConfigMapResource, { namespace: s.namespace });
    const elapsed = Date.now() - started;
    expect(list.items).toEqual([]);
    const tries = s.proxy.requests.filter((r) => !r.watch && r.path.includes('/configmaps'));
    expect(tries.map((r) => r.status).slice(-3)).toEqual([429, 429, 200]);
    const gaps = tries.slice(-3).map((r, i, all) => (i ? r.at - all[i - 1]!.at : 0));
    expect(gaps[1]).toBeGreaterThanOrEqual(1_950);
    expect(gaps[2]).toBeGreaterThanOrEqual(1_950);
    expect(elapsed).toBeGreaterThanOrEqual(3_900);
    // A 429 is an answer: the connection is kept.
    expect(await metricValue(s.metrics.restReconnects)).toBe(0);
  });

  it('a 413 answer reaches the caller as such and the client carries on', async () => {
    const s = await setup();
    await s.client.create(ConfigMapResource, configMap(s.namespace, 'target'));
    // Just over the request body limit but small enough for the server to answer it.
    const err = await s.client
      .patch(ConfigMapResource, 'target', s.namespace, 'merge', {
        data: { big: 'x'.repeat(3 * 1024 * 1024) },
      })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).statusCode).toBe(413);
    await stillWorks(s, 'after-413');
  });
});
