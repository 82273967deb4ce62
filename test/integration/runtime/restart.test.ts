// The API server goes away and comes back (same port, same etcd). Runs its own control plane so the
// shared one is not disturbed.
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlane } from '../../../src/dev/controlplane.ts';
import { KubeClient } from '../../../src/runtime/client.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ConfigMapResource, NamespaceResource } from '../../../src/runtime/types.ts';
import { eventually } from '../../harness/env.ts';
import { configMap, logger } from './helpers.ts';

let plane: ControlPlane;
let kubeConfig: KubeConfig;
let admin: KubeClient;

beforeAll(async () => {
  plane = await ControlPlane.start();
  kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(plane.kubeconfigPath);
  admin = new KubeClient({ kubeConfig, qps: 0 });
});

afterAll(async () => {
  await admin?.close();
  await plane?.stop();
});

describe('API server restart', () => {
  it('informers and controllers recover, miss nothing, and do not re-reconcile untouched objects', async () => {
    const namespace = 'restart';
    await admin.create(NamespaceResource, { metadata: { name: namespace } });
    for (let i = 0; i < 10; i++) await admin.create(ConfigMapResource, configMap(namespace, `cm-${i}`));

    const metrics = new RuntimeMetrics();
    const mgr = new Manager({
      kubeConfig,
      logger,
      metrics,
      leaderElection: false,
      namespace,
      watchBackoff: { initialMs: 200, maxMs: 2000 },
    });
    const reconciles = new Map<string, number>();
    mgr
      .controller('restart-test')
      .for(ConfigMapResource)
      .complete((req) => {
        reconciles.set(req.name, (reconciles.get(req.name) ?? 0) + 1);
      });
    const running = mgr.start();
    try {
      await eventually(async () => reconciles.size === 10 && mgr.isReady());
      const relistsBefore = await metricValue(metrics.watchRelists);

      await plane.stopApiServer();
      await new Promise((r) => setTimeout(r, 2000)); // watch broken, reconnects refused meanwhile
      await plane.startApiServer();
      // Right after the restart, while the watcher is probably still backing off.
      await admin.patch(ConfigMapResource, 'cm-1', namespace, 'merge', { data: { changed: 'yes' } });
      await admin.delete(ConfigMapResource, 'cm-2', namespace);
      await admin.create(ConfigMapResource, configMap(namespace, 'after-restart'));

      const store = mgr.informer(ConfigMapResource).store;
      await eventually(
        async () => {
          const live = await admin.list(ConfigMapResource, { namespace });
          const want = live.items.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
          const have = store
            .list()
            .map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`)
            .sort();
          return JSON.stringify(want) === JSON.stringify(have);
        },
        { timeoutMs: 40_000, what: 'cache to catch up after the restart' },
      );
      await eventually(async () => reconciles.has('after-restart') && (reconciles.get('cm-2') ?? 0) >= 2);

      expect(await metricValue(metrics.watchRestarts, { reason: 'error' })).toBeGreaterThanOrEqual(1);
      // The restarted API server's watch cache starts at a newer revision than ours (it writes its
      // own Lease and endpoints on start-up), so the resumed watch gets "too old resource version"
      // (410) and the informer relists.
      expect(await metricValue(metrics.watchRestarts, { reason: 'gone' })).toBeGreaterThanOrEqual(1);
      expect(await metricValue(metrics.watchRelists)).toBeGreaterThan(relistsBefore);
      expect(reconciles.get('cm-1')).toBe(2);
      // Untouched objects: the relist found them unchanged, so no reconcile storm.
      for (let i = 3; i < 10; i++) expect(reconciles.get(`cm-${i}`)).toBe(1);
      expect(reconciles.get('cm-0')).toBe(1);
    } finally {
      await mgr.stop();
      await running;
    }
  });
});
