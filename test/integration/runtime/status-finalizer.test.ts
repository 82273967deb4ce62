// Status writes (conflict retry, no-op skip) and finalizers (never drop another controller's) against
// the real API server, counting requests through the proxy.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../src/runtime/client.ts';
import { type Condition, setCondition } from '../../../src/runtime/conditions.ts';
import { addFinalizer, reconcileWithFinalizer, removeFinalizer } from '../../../src/runtime/finalizer.ts';
import { updateStatus } from '../../../src/runtime/status.ts';
import { type ApiResource, ConfigMapResource, type KubeObject } from '../../../src/runtime/types.ts';
import { adminKubeConfig, newNamespace, uniqueName } from '../../harness/env.ts';
import { FaultProxy } from './fault-proxy.ts';
import { adminClient, configMap, deleteCrd, installTestCrd } from './helpers.ts';

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string; observed?: number; owner?: string; conditions?: Condition[] };
}

let admin: KubeClient;
let proxy: FaultProxy;
let client: KubeClient;
let widgets: ApiResource;

beforeAll(async () => {
  admin = adminClient();
  widgets = await installTestCrd(admin, `${uniqueName('status')}.runtime.test`, 'Widget');
  proxy = await FaultProxy.start(adminKubeConfig());
  client = new KubeClient({ kubeConfig: proxy.kubeConfig(), qps: 0 });
});

afterAll(async () => {
  await client?.close();
  await proxy?.close();
  if (widgets) await deleteCrd(admin, widgets);
  await admin?.close();
});

/** Requests sent through the proxy while `fn` runs. */
async function requestsDuring(fn: () => Promise<unknown>): Promise<string[]> {
  const before = proxy.requests.length;
  await fn();
  return proxy.requests.slice(before).map((r) => `${r.method} ${r.path.split('/').slice(-1)[0]} ${r.status}`);
}

describe('updateStatus', () => {
  it('writes once when something changed and skips a no-op write entirely', async () => {
    const ns = await newNamespace('rt-status');
    const w = await admin.create<Widget>(widgets, {
      metadata: { namespace: ns, name: 'w' },
      spec: { size: 1 },
    });
    const desired = (cur: Widget) => ({ ...cur.status, phase: 'Ready', observed: cur.spec?.size });

    let written!: Widget;
    expect(
      await requestsDuring(async () => {
        const r = await updateStatus(client, widgets, w, desired);
        expect(r.written).toBe(true);
        written = r.object;
      }),
    ).toEqual(['PUT status 200']);
    expect(written.status).toEqual({ phase: 'Ready', observed: 1 });

    // Same desired status again (as an idle reconcile would compute): no request at all.
    expect(
      await requestsDuring(async () => {
        expect((await updateStatus(client, widgets, written, desired)).written).toBe(false);
      }),
    ).toEqual([]);
  });

  it('retries a resourceVersion conflict on a fresh read and keeps the other writer’s change', async () => {
    const ns = await newNamespace('rt-status');
    const stale = await admin.create<Widget>(widgets, {
      metadata: { namespace: ns, name: 'w' },
      spec: { size: 2 },
    });
    // Another controller writes status after we read: our copy is now stale.
    await admin.replaceStatus<Widget>(widgets, { ...stale, status: { owner: 'someone-else' } });

    const requests = await requestsDuring(async () => {
      const r = await updateStatus(client, widgets, stale, (cur: Widget) => ({
        ...cur.status,
        phase: 'Ready',
      }));
      expect(r.written).toBe(true);
    });
    expect(requests).toEqual(['PUT status 409', 'GET w 200', 'PUT status 200']);
    const live = await admin.get<Widget>(widgets, 'w', ns);
    expect(live.status).toEqual({ owner: 'someone-else', phase: 'Ready' });
  });

  it('gives up after 5 attempts when every write loses the race', async () => {
    const ns = await newNamespace('rt-status');
    const w = await admin.create<Widget>(widgets, {
      metadata: { namespace: ns, name: 'w' },
      spec: { size: 2 },
    });
    let rival = 0;
    // A client whose every status write is preceded by another controller's write.
    const contended = {
      get: client.get.bind(client),
      replaceStatus: async (res: ApiResource, obj: Widget) => {
        const cur = await admin.get<Widget>(widgets, 'w', ns);
        await admin.replaceStatus(widgets, { ...cur, status: { owner: `rival-${rival++}` } });
        return client.replaceStatus(res, obj);
      },
    } as unknown as KubeClient;
    let computed = 0;
    let err: unknown;
    const requests = await requestsDuring(async () => {
      err = await updateStatus(contended, widgets, w, (cur: Widget) => {
        computed++;
        return { ...cur.status, phase: 'Ready' };
      }).catch((e: unknown) => e);
    });
    expect((err as { statusCode?: number }).statusCode).toBe(409);
    expect(computed).toBe(5);
    expect(requests.filter((r) => r === 'PUT status 409')).toHaveLength(5);
    expect(requests.filter((r) => r.startsWith('GET'))).toHaveLength(4);
  });

  it('a condition rewritten with the same status later is a no-op on the real server (no per-write timestamps)', async () => {
    const ns = await newNamespace('rt-status');
    const w = await admin.create<Widget>(widgets, { metadata: { namespace: ns, name: 'w' } });
    const withReady = (at: Date) => (cur: Widget) => ({
      ...cur.status,
      conditions: setCondition(
        cur.status?.conditions,
        { type: 'Ready', status: 'True', reason: 'AllGood' },
        at,
      ),
    });
    const first = await updateStatus(client, widgets, w, withReady(new Date()));
    expect(first.written).toBe(true);
    const fromServer = await admin.get<Widget>(widgets, 'w', ns);
    const later = new Date(Date.now() + 3_600_000);
    expect(await requestsDuring(() => updateStatus(client, widgets, fromServer, withReady(later)))).toEqual(
      [],
    );
  });
});

describe('finalizers', () => {
  it('add and remove only our finalizer, even from a stale view while another controller changes the list', async () => {
    const ns = await newNamespace('rt-fin');
    const created = await admin.create(ConfigMapResource, {
      ...configMap(ns, 'cm'),
      metadata: { namespace: ns, name: 'cm', finalizers: ['other.io/keep'] },
    });
    const ours = 'agent-install.openshift.io/test';
    // Someone adds a finalizer after our (cached) read: our add's `test` fails, we re-read, retry.
    await admin.patch(ConfigMapResource, 'cm', ns, 'merge', {
      metadata: { finalizers: ['other.io/keep', 'third.io/x'] },
    });
    const added = await requestsDuring(async () => {
      const r = await addFinalizer(client, ConfigMapResource, created, ours);
      expect(r?.metadata.finalizers).toEqual(['other.io/keep', 'third.io/x', ours]);
    });
    expect(added).toEqual(['PATCH cm 422', 'GET cm 200', 'PATCH cm 200']);
    // Adding again is a no-op without a request.
    const current = await admin.get(ConfigMapResource, 'cm', ns);
    expect(await requestsDuring(() => addFinalizer(client, ConfigMapResource, current, ours))).toEqual([]);

    // Someone inserts a finalizer in front of ours after our read: the index we hold now points at
    // another controller's finalizer. The `test` op catches it; we re-read and remove the right one.
    await admin.patch(ConfigMapResource, 'cm', ns, 'json', [
      { op: 'add', path: '/metadata/finalizers/0', value: 'first.io/y' },
    ]);
    const removed = await requestsDuring(async () => {
      const r = await removeFinalizer(client, ConfigMapResource, current, ours);
      expect(r?.metadata.finalizers).toEqual(['first.io/y', 'other.io/keep', 'third.io/x']);
    });
    expect(removed).toEqual(['PATCH cm 422', 'GET cm 200', 'PATCH cm 200']);
    expect((await admin.get(ConfigMapResource, 'cm', ns)).metadata.finalizers).toEqual([
      'first.io/y',
      'other.io/keep',
      'third.io/x',
    ]);
  });

  it('adds annotations in the patch that adds the finalizer, keeping annotations another writer added meanwhile', async () => {
    const ns = await newNamespace('rt-fin');
    const ours = 'agent-install.openshift.io/test';
    const mark = { 'example.io/mark': 'true' };
    // No annotations yet, and someone adds the map after our read: the `test` fails, we retry.
    const bare = await admin.create(ConfigMapResource, configMap(ns, 'bare'));
    await admin.patch(ConfigMapResource, 'bare', ns, 'merge', {
      metadata: { annotations: { 'other.io/a': '1' } },
    });
    const added = await requestsDuring(async () => {
      const r = await addFinalizer(client, ConfigMapResource, bare, ours, mark);
      expect(r?.metadata.finalizers).toEqual([ours]);
      expect(r?.metadata.annotations).toEqual({ 'other.io/a': '1', 'example.io/mark': 'true' });
    });
    expect(added).toEqual(['PATCH bare 422', 'GET bare 200', 'PATCH bare 200']);
    // With a finalizer already in place nothing is sent, annotations included.
    const current = await admin.get(ConfigMapResource, 'bare', ns);
    expect(
      await requestsDuring(() =>
        addFinalizer(client, ConfigMapResource, current, ours, { 'example.io/x': 'y' }),
      ),
    ).toEqual([]);
    expect((await admin.get(ConfigMapResource, 'bare', ns)).metadata.annotations).toEqual({
      'other.io/a': '1',
      'example.io/mark': 'true',
    });
  });

  it('reconcileWithFinalizer: adds on live objects, cleans up on deletion, and the object goes once others let go', async () => {
    const ns = await newNamespace('rt-fin');
    const ours = 'agent-install.openshift.io/test';
    await admin.create(ConfigMapResource, {
      ...configMap(ns, 'cm'),
      metadata: { namespace: ns, name: 'cm', finalizers: ['other.io/keep'] },
    });
    const calls: string[] = [];
    const handlers = {
      apply: async (o: KubeObject) => {
        calls.push(`apply:${o.metadata.finalizers?.join(',')}`);
      },
      cleanup: async () => {
        calls.push('cleanup');
      },
    };
    await reconcileWithFinalizer(
      client,
      ConfigMapResource,
      await admin.get(ConfigMapResource, 'cm', ns),
      ours,
      handlers,
    );
    await admin.delete(ConfigMapResource, 'cm', ns);
    const deleting = await admin.get(ConfigMapResource, 'cm', ns);
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    await reconcileWithFinalizer(client, ConfigMapResource, deleting, ours, handlers);
    // Our finalizer released, the other controller's keeps the object alive.
    const after = await admin.get(ConfigMapResource, 'cm', ns);
    expect(after.metadata.finalizers).toEqual(['other.io/keep']);
    // Once deleting and without our finalizer, nothing more happens.
    await reconcileWithFinalizer(client, ConfigMapResource, after, ours, handlers);
    expect(calls).toEqual([`apply:other.io/keep,${ours}`, 'cleanup']);
    await removeFinalizer(admin, ConfigMapResource, after, 'other.io/keep');
    expect(await admin.getIfExists(ConfigMapResource, 'cm', ns)).toBeUndefined();
  });
});
