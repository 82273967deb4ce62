// Honest probes: /readyz fails while the API server is unreachable or a cache hears nothing from its
// watch, and comes back with them; /healthz fails only when a restart would help (our requests get
// no answer while a new connection does), not when the API server itself is down. Against the real
// API server through the fault-injecting proxy, with windows shortened for the test.
import { afterEach, describe, expect, it } from 'vitest';
import { Manager } from '../../../src/runtime/manager.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ConfigMapResource } from '../../../src/runtime/types.ts';
import { adminKubeConfig, eventually, newNamespace } from '../../harness/env.ts';
import { FaultProxy } from './fault-proxy.ts';
import { logger } from './helpers.ts';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

async function start(windows: { readyMs: number; liveMs: number }) {
  const namespace = await newNamespace('rt-probe');
  const proxy = await FaultProxy.start(adminKubeConfig());
  const mgr = new Manager({
    kubeConfig: proxy.kubeConfig(),
    logger,
    metrics: new RuntimeMetrics(),
    leaderElection: false,
    namespace,
    healthProbeAddress: { host: '127.0.0.1', port: 0 },
    minWatchTimeoutSeconds: 1,
    watchIdleMarginMs: 500,
    watchBackoff: { initialMs: 100, maxMs: 500 },
    apiUnavailableReadyWindowMs: windows.readyMs,
    apiStuckLivenessWindowMs: windows.liveMs,
  });
  mgr.informer(ConfigMapResource);
  const done = mgr.start().catch(() => undefined);
  cleanups.push(
    async () => {
      await mgr.stop();
      await done;
    },
    () => proxy.close(),
  );
  const probe = async (path: '/readyz' | '/healthz') => {
    const r = await fetch(`http://127.0.0.1:${mgr.ports[0]}${path}`);
    return { code: r.status, body: await r.text() };
  };
  await eventually(async () => (await probe('/readyz')).code === 200, { what: 'ready' });
  return { mgr, proxy, probe };
}

describe('probes', () => {
  it('API server unreachable: /readyz fails after its window and recovers; /healthz stays ok', async () => {
    const { mgr, proxy, probe } = await start({ readyMs: 1_500, liveMs: 3_000 });
    proxy.setRefusing(true);
    const notReady = await eventually(
      async () => {
        const r = await probe('/readyz');
        return r.code === 503 && r.body;
      },
      { timeoutMs: 15_000, what: '/readyz to fail' },
    );
    expect(notReady).toMatch(/every API request failed for \d+ s/);
    // Past the liveness window too: a fresh connection fails as well, so a restart would not help.
    await eventually(async () => mgr.client.health.unreachableForMs() > 3_500, {
      timeoutMs: 15_000,
      what: 'the outage to outlast the liveness window',
    });
    expect(await probe('/healthz')).toEqual({ code: 200, body: 'ok' });
    proxy.setRefusing(false);
    await eventually(async () => (await probe('/readyz')).code === 200, {
      timeoutMs: 15_000,
      what: '/readyz to recover',
    });
  });

  it('a cache that hears nothing from its watch for longer than a watch may be silent: not ready', async () => {
    // Readiness window for API failures well above the cache's limit (2 × 1 s + 0.5 s).
    const { proxy, probe } = await start({ readyMs: 60_000, liveMs: 120_000 });
    proxy.setBlackholingWatches(true);
    const notReady = await eventually(
      async () => {
        const r = await probe('/readyz');
        return r.code === 503 && r.body;
      },
      { timeoutMs: 20_000, what: '/readyz to fail' },
    );
    expect(notReady).toMatch(/cache configmaps\.v1\. heard nothing from its watch for \d+ s \(limit 3 s\)/);
    expect((await probe('/healthz')).code).toBe(200);
    proxy.setBlackholingWatches(false);
    await eventually(async () => (await probe('/readyz')).code === 200, {
      timeoutMs: 20_000,
      what: '/readyz to recover',
    });
  });

  it('no answer to our requests while a new connection is answered: /healthz fails', async () => {
    const { proxy, probe } = await start({ readyMs: 1_000, liveMs: 2_000 });
    // Every request but the API server's own /readyz is reset, however many connections we open.
    proxy.setResettingExcept('/readyz');
    const unhealthy = await eventually(
      async () => {
        const r = await probe('/healthz');
        return r.code === 503 && r.body;
      },
      { timeoutMs: 20_000, what: '/healthz to fail' },
    );
    expect(unhealthy).toMatch(/no API request answered for \d+ s .* while a new connection is \(HTTP 200\)/);
    expect((await probe('/readyz')).code).toBe(503);
    proxy.setResettingExcept(undefined);
    await eventually(async () => (await probe('/healthz')).code === 200, {
      timeoutMs: 30_000,
      what: '/healthz to recover',
    });
  });
});
