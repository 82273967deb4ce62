// The REST client against the real API server: CRUD, the patch flavours, error details, paging,
// watch streaming and the client-side QPS limiter.
import { afterAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  isAlreadyExists,
  isConflict,
  isInvalid,
  isNotFound,
  KubeClient,
} from '../../../src/runtime/client.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ConfigMapResource, type WatchEvent } from '../../../src/runtime/types.ts';
import { adminKubeConfig, newNamespace } from '../../harness/env.ts';
import { adminClient, type ConfigMap, configMap } from './helpers.ts';

const client = adminClient();
afterAll(() => client.close());

async function error(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return e as ApiError;
}

describe('KubeClient', () => {
  it('creates, reads, replaces, patches (merge, json, apply) and deletes', async () => {
    const ns = await newNamespace('rt-client');
    const created = await client.create<ConfigMap>(ConfigMapResource, configMap(ns, 'a', { x: '1' }));
    expect(created).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', data: { x: '1' } });
    expect((await client.get<ConfigMap>(ConfigMapResource, 'a', ns)).metadata.uid).toBe(created.metadata.uid);

    const replaced = await client.replace<ConfigMap>(ConfigMapResource, { ...created, data: { x: '2' } });
    expect(replaced.data).toEqual({ x: '2' });
    const merged = await client.patch<ConfigMap>(ConfigMapResource, 'a', ns, 'merge', { data: { y: '3' } });
    expect(merged.data).toEqual({ x: '2', y: '3' });
    const jsonPatched = await client.patch<ConfigMap>(ConfigMapResource, 'a', ns, 'json', [
      { op: 'remove', path: '/data/x' },
    ]);
    expect(jsonPatched.data).toEqual({ y: '3' });
    const applied = await client.patch<ConfigMap>(
      ConfigMapResource,
      'b',
      ns,
      'apply',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'b', namespace: ns }, data: { z: '4' } },
      { fieldManager: 'runtime-test', force: true },
    );
    expect(applied.data).toEqual({ z: '4' });
    expect(applied.metadata.managedFields?.length).toBeGreaterThan(0);

    await client.delete(ConfigMapResource, 'a', ns);
    expect(await client.getIfExists(ConfigMapResource, 'a', ns)).toBeUndefined();
  });

  it('errors carry the HTTP status and the Status reason and message', async () => {
    const ns = await newNamespace('rt-client');
    const notFound = await error(client.get(ConfigMapResource, 'missing', ns));
    expect(notFound.statusCode).toBe(404);
    expect(notFound.reason).toBe('NotFound');
    expect(notFound.message).toContain('"missing" not found');
    expect(isNotFound(notFound)).toBe(true);

    const cm = await client.create<ConfigMap>(ConfigMapResource, configMap(ns, 'a'));
    const exists = await error(client.create(ConfigMapResource, configMap(ns, 'a')));
    expect([exists.statusCode, exists.reason, isAlreadyExists(exists), isConflict(exists)]).toEqual([
      409,
      'AlreadyExists',
      true,
      false,
    ]);

    await client.patch(ConfigMapResource, 'a', ns, 'merge', { data: { bump: '1' } });
    const conflict = await error(client.replace(ConfigMapResource, { ...cm, data: { stale: 'yes' } }));
    expect([conflict.statusCode, conflict.reason, isConflict(conflict)]).toEqual([409, 'Conflict', true]);

    const invalid = await error(client.create(ConfigMapResource, configMap(ns, 'Not_A_Valid_Name')));
    expect([invalid.statusCode, invalid.reason, isInvalid(invalid)]).toEqual([422, 'Invalid', true]);
    expect(invalid.status?.details).toBeDefined();
  });

  it('lists page by page with continue tokens; items carry apiVersion and kind', async () => {
    const ns = await newNamespace('rt-client');
    for (let i = 0; i < 5; i++) await client.create(ConfigMapResource, configMap(ns, `cm-${i}`));
    const names: string[] = [];
    let cont: string | undefined;
    let pages = 0;
    do {
      const page = await client.list(ConfigMapResource, { namespace: ns, limit: 2, continue: cont });
      pages++;
      for (const item of page.items) {
        expect(item).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap' });
        names.push(item.metadata.name!);
      }
      cont = page.metadata.continue || undefined;
    } while (cont);
    expect(pages).toBe(Math.ceil(names.length / 2)); // (kube-root-ca.crt exists only when KCM runs)
    expect(names.filter((n) => n.startsWith('cm-')).sort()).toEqual(['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4']);
  });

  it('streams watch events until the server timeout', async () => {
    const ns = await newNamespace('rt-client');
    const list = await client.list(ConfigMapResource, { namespace: ns });
    const events: WatchEvent<ConfigMap>[] = [];
    const started = Date.now();
    const done = (async () => {
      for await (const ev of client.watch<ConfigMap>(ConfigMapResource, {
        namespace: ns,
        resourceVersion: list.metadata.resourceVersion,
        timeoutSeconds: 3,
        idleTimeoutMs: 10_000,
      })) {
        events.push(ev);
      }
    })();
    await client.create(ConfigMapResource, configMap(ns, 'w', { big: 'x'.repeat(200_000) })); // spans chunks
    await client.delete(ConfigMapResource, 'w', ns);
    await done;
    expect(Date.now() - started).toBeGreaterThanOrEqual(2900);
    const mine = events.filter((e) => e.type !== 'BOOKMARK');
    expect(mine.map((e) => e.type)).toEqual(['ADDED', 'DELETED']);
    expect((mine[0]!.object as ConfigMap).data?.big).toHaveLength(200_000);
  });

  it('throttles to the configured QPS after the burst', async () => {
    const metrics = new RuntimeMetrics();
    const slow = new KubeClient({
      kubeConfig: adminKubeConfig(),
      qps: 10,
      burst: 2,
      metrics: metrics.clientSink(),
    });
    try {
      const started = Date.now();
      await Promise.all(
        Array.from({ length: 7 }, () => slow.list(ConfigMapResource, { namespace: 'default' })),
      );
      // 2 at once, then 5 more at 100 ms intervals.
      expect(Date.now() - started).toBeGreaterThanOrEqual(450);
      expect(await metricValue(metrics.restRequests, { method: 'GET', code: '200' })).toBe(7);
    } finally {
      await slow.close();
    }
  });
});
