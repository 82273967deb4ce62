// A manager running a real controller built with the builder: primary, owned and mapped kinds,
// label-scoped Secret cache, status writes, events, probes and metrics; and an optional controller
// whose CRD only appears later. Traffic goes through the proxy so requests can be counted.
import { afterEach, describe, expect, it } from 'vitest';
import { type Condition, setCondition } from '../../../src/runtime/conditions.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { setControllerReference } from '../../../src/runtime/owner.ts';
import { generationChanged } from '../../../src/runtime/predicates.ts';
import { updateStatus } from '../../../src/runtime/status.ts';
import {
  type ApiResource,
  ConfigMapResource,
  EventResource,
  type KubeObject,
  keyOf,
  SecretResource,
  WATCH_LABEL,
} from '../../../src/runtime/types.ts';
import { adminKubeConfig, eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { FaultProxy } from './fault-proxy.ts';
import { adminClient, deleteCrd, installTestCrd, logger, namespaceManager } from './helpers.ts';

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { observedGeneration?: number; children?: number; secret?: string; conditions?: Condition[] };
}

const admin = adminClient();
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c().catch(() => undefined);
});

async function startProxy() {
  const proxy = await FaultProxy.start(adminKubeConfig());
  return proxy;
}

describe('Manager', () => {
  it('runs a builder-wired controller: owns, watches with mapping, label-scoped cache, idle means no writes', async () => {
    const ns = await newNamespace('rt-mgr');
    const widgets = await installTestCrd(admin, `${uniqueName('mgr')}.runtime.test`, 'Widget');
    cleanups.push(() => deleteCrd(admin, widgets));
    const proxy = await startProxy();
    const metrics = new RuntimeMetrics();
    const mgr = new Manager({
      kubeConfig: proxy.kubeConfig(),
      logger,
      metrics,
      leaderElection: false,
      namespace: ns,
      healthProbeAddress: { host: '127.0.0.1', port: 0 },
      metricsAddress: { host: '127.0.0.1', port: 0 },
      cacheByResource: [{ resource: SecretResource, labelSelector: `${WATCH_LABEL}=true` }],
    });
    const widgetCache = mgr.informer<Widget>(widgets);
    const secretCache = mgr.informer(SecretResource);
    const reconciles: string[] = [];
    const widgetController = mgr
      .controller('widget')
      .for(widgets, { predicates: [generationChanged] })
      .owns(ConfigMapResource)
      .watches(SecretResource, (s) => {
        const w = s.metadata.annotations?.['example.io/widget'];
        return w ? [keyOf(s.metadata.namespace, w)] : [];
      })
      .withWorkers(2)
      .complete(async (req) => {
        reconciles.push(req.name);
        const w = widgetCache.get(req.namespace, req.name);
        if (!w) return;
        const childName = `${req.name}-child`;
        const child = mgr.informer(ConfigMapResource).get(req.namespace, childName);
        if (!child) {
          await mgr.client.create(
            ConfigMapResource,
            setControllerReference({ metadata: { namespace: req.namespace, name: childName }, data: {} }, w),
          );
          mgr.events.event(w, 'Normal', 'ChildCreated', `created ${childName}`);
        }
        const secret = secretCache.store
          .byNamespace(req.namespace ?? '')
          .find((s) => s.metadata.annotations?.['example.io/widget'] === req.name);
        await updateStatus(mgr.client, widgets, w, (cur) => ({
          observedGeneration: cur.metadata.generation,
          children: 1,
          secret: secret?.metadata.name,
          conditions: setCondition(cur.status?.conditions, {
            type: 'Ready',
            status: 'True',
            reason: 'Reconciled',
          }),
        }));
      });

    proxy.setRefusing(true); // keep the caches from syncing for a moment
    const running = mgr.start();
    cleanups.unshift(async () => {
      await mgr.stop();
      await running;
    });
    cleanups.push(() => proxy.close());
    await eventually(async () => mgr.ports.length === 2 && mgr.ports.every((p) => p > 0));
    const [probePort, metricsPort] = mgr.ports;
    expect((await fetch(`http://127.0.0.1:${probePort}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${probePort}/readyz`)).status).toBe(503);
    proxy.setRefusing(false);
    await eventually(async () => (await fetch(`http://127.0.0.1:${probePort}/readyz`)).status === 200, {
      what: 'readyz after cache sync',
    });

    // Primary: create → child ConfigMap with a controller reference, status, one event.
    await admin.create<Widget>(widgets, { metadata: { namespace: ns, name: 'w1' }, spec: { size: 1 } });
    const ready = async () => {
      const w = await admin.get<Widget>(widgets, 'w1', ns);
      return w.status?.conditions?.[0]?.status === 'True' ? w : undefined;
    };
    const w1 = await eventually(ready, { what: 'w1 status' });
    const child = await admin.get(ConfigMapResource, 'w1-child', ns);
    expect(child.metadata.ownerReferences?.[0]).toMatchObject({
      kind: 'Widget',
      name: 'w1',
      uid: w1.metadata.uid,
      controller: true,
    });
    expect(w1.status).toMatchObject({ observedGeneration: 1, children: 1 });

    // Idle: once settled, nothing is written any more (status write skipped, predicate drops our own
    // status update, the child's creation event finds nothing to do). Settled: the caches hold w1
    // and its child as the server has them and no key is queued or running, so the passes their
    // events caused are over. Then one more pass must write nothing, and be the only pass.
    await eventually(
      async () => {
        const live = [await admin.get(widgets, 'w1', ns), await admin.get(ConfigMapResource, 'w1-child', ns)];
        const cached = [widgetCache.get(ns, 'w1'), mgr.informer(ConfigMapResource).get(ns, 'w1-child')];
        const active = await metricValue(metrics.activeWorkers, { controller: 'widget' });
        return (
          live.every((o, i) => o.metadata.resourceVersion === cached[i]?.metadata.resourceVersion) &&
          widgetController.queue.len() === 0 &&
          active === 0
        );
      },
      { what: 'w1 settled', timeoutMs: 15_000 },
    );
    const idleReconciles = reconciles.length;
    const writesBefore = proxy.requests.filter((r) => r.method !== 'GET').length;
    const t0 = performance.now();
    const passed = new Promise<void>((resolve) => {
      const off = widgetController.onPassEnd((key, startedAt) => {
        if (key === `${ns}/w1` && startedAt >= t0) resolve(void off());
      });
    });
    widgetController.enqueue(`${ns}/w1`);
    await passed;
    expect(proxy.requests.filter((r) => r.method !== 'GET').length).toBe(writesBefore);
    expect(reconciles.length).toBe(idleReconciles + 1);

    // Owned kind: a change to the child wakes the owner.
    const beforePoke = reconciles.length;
    await admin.patch(ConfigMapResource, 'w1-child', ns, 'merge', { data: { poked: 'yes' } });
    await eventually(async () => reconciles.length > beforePoke, {
      what: 'owner reconciled after child change',
    });

    // Label-scoped Secret cache: the labelled one is cached and mapped, the other one is not.
    await admin.create(SecretResource, {
      metadata: { namespace: ns, name: 'unlabelled', annotations: { 'example.io/widget': 'w1' } },
    });
    await admin.create(SecretResource, {
      metadata: {
        namespace: ns,
        name: 'labelled',
        labels: { [WATCH_LABEL]: 'true' },
        annotations: { 'example.io/widget': 'w1' },
      },
    });
    await eventually(async () => (await admin.get<Widget>(widgets, 'w1', ns)).status?.secret === 'labelled', {
      what: 'status to mention the labelled secret',
    });
    expect(secretCache.get(ns, 'unlabelled')).toBeUndefined();
    expect((await secretCache.getOrFetch(ns, 'unlabelled'))?.metadata.name).toBe('unlabelled');
    expect(await secretCache.getOrFetch(ns, 'missing')).toBeUndefined();

    // One Event, aggregated.
    mgr.events.event(w1, 'Normal', 'ChildCreated', 'created w1-child');
    await mgr.events.flush();
    const events = await admin.list<KubeObject & { reason?: string; count?: number }>(EventResource, {
      namespace: ns,
    });
    const ours = events.items.filter((e) => e.reason === 'ChildCreated');
    expect(ours).toHaveLength(1);
    expect(ours[0]!.count).toBe(2);

    // Metrics endpoint.
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(text).toMatch(/controller_runtime_reconcile_total\{controller="widget",result="success"\} \d+/);
    expect(text).toContain('workqueue_depth{name="widget"}');
    expect(text).toContain('aio_watch_relists_total');
    expect(text).toContain('controller_runtime_max_concurrent_reconciles{controller="widget"} 2');
  });

  it('starts an optional controller only once its CRD is served', async () => {
    const ns = await newNamespace('rt-opt');
    const group = `${uniqueName('opt')}.runtime.test`;
    const gadgets: ApiResource = {
      group,
      version: 'v1',
      kind: 'Gadget',
      plural: 'gadgets',
      namespaced: true,
    };
    const mgr = namespaceManager(ns, { discoveryIntervalMs: 300 });
    const seen: string[] = [];
    mgr
      .controller('always')
      .for(ConfigMapResource)
      .complete(() => undefined);
    const optional = mgr
      .controller('gadget')
      .for(gadgets)
      .optional()
      .complete((req) => {
        seen.push(req.name);
      });
    const running = mgr.start();
    cleanups.push(async () => {
      await mgr.stop();
      await running;
    });
    await eventually(async () => mgr.isReady(), { what: 'ready without the optional kind' });
    // Two more discovery rounds (each a GET of the missing group that answers 404) leave it unstarted.
    const notFound = () => metricValue(mgr.metrics.restRequests, { method: 'GET', code: '404' });
    const rounds = await notFound();
    await eventually(async () => (await notFound()) >= rounds + 2, {
      what: 'two discovery rounds without the kind',
    });
    expect(optional.started).toBe(false);

    const installed = await installTestCrd(admin, group, 'Gadget');
    cleanups.push(() => deleteCrd(admin, installed));
    await admin.create(gadgets, { metadata: { namespace: ns, name: 'g1' } });
    await eventually(async () => seen.includes('g1'), {
      what: 'optional controller to reconcile',
      timeoutMs: 30_000,
    });
    expect(optional.started).toBe(true);
    expect(mgr.isReady()).toBe(true);
  });
});
