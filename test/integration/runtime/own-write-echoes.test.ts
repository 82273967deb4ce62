// OwnWriteEchoes against the real API server: the watch event of a reconciler's own status write
// is dropped, and another writer's change that lands while the write is in flight (so the write
// fails with 409) is handed on, once. The proxy holds the write so the race is not left to timing.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../src/runtime/client.ts';
import { OwnWriteEchoes } from '../../../src/runtime/echoes.ts';
import type { Informer } from '../../../src/runtime/informer.ts';
import { updateStatus } from '../../../src/runtime/status.ts';
import type { ApiResource, KubeObject } from '../../../src/runtime/types.ts';
import { adminKubeConfig, eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { FaultProxy } from './fault-proxy.ts';
import { adminClient, converged, deleteCrd, installTestCrd, newInformer } from './helpers.ts';

interface Widget extends KubeObject {
  spec?: { size?: number };
  status?: { phase?: string; observed?: number };
}

let admin: KubeClient;
let proxy: FaultProxy;
let client: KubeClient;
let widgets: ApiResource;
let informer: Informer | undefined;

beforeAll(async () => {
  admin = adminClient();
  widgets = await installTestCrd(admin, `${uniqueName('echoes')}.runtime.test`, 'Widget');
  proxy = await FaultProxy.start(adminKubeConfig());
  // The writes under test go through the proxy; the informer and the other writer do not.
  client = new KubeClient({ kubeConfig: proxy.kubeConfig(), qps: 0 });
});

afterEach(async () => {
  await informer?.stop();
  informer = undefined;
});

afterAll(async () => {
  await client?.close();
  await proxy?.close();
  if (widgets) await deleteCrd(admin, widgets);
  await admin?.close();
});

const rv = (o: KubeObject) => o.metadata.resourceVersion ?? '';
const ready = (cur: Widget) => ({ phase: 'Ready', observed: cur.spec?.size });

/** A widget watched by an informer whose handler sees only the updates the tracker passes. */
async function watchedWidget() {
  const ns = await newNamespace('rt-echoes');
  await admin.create<Widget>(widgets, { metadata: { namespace: ns, name: 'w' }, spec: { size: 1 } });
  const passed: string[] = [];
  const released: string[] = [];
  const echoes = new OwnWriteEchoes((o, n) => released.push(`${rv(o)}→${rv(n)}`));
  informer = newInformer(admin, ns, {}, widgets).informer;
  informer.addHandler({
    onUpdate: (o, n) => {
      if (echoes.predicate.update?.(o, n) ?? true) passed.push(`${rv(o)}→${rv(n)}`);
    },
  });
  informer.start();
  await converged(informer, admin, ns);
  const cached = () => informer?.store.get(`${ns}/w`) as Widget;
  const cachedAt = (version: string) =>
    eventually(async () => rv(cached()) === version, { what: `the cache to reach ${version}` });
  return { ns, echoes, passed, released, cached, cachedAt };
}

describe('OwnWriteEchoes on the real API server', () => {
  it('drops the echo of its own status write and passes the next change by someone else', async () => {
    const { echoes, passed, released, cached, cachedAt } = await watchedWidget();
    const read = cached();
    const { object } = await updateStatus(client, widgets, read, ready, {
      echoes: { tracker: echoes, when: () => true },
    });
    await cachedAt(rv(object));
    const other = await admin.replace<Widget>(widgets, { ...object, spec: { size: 2 } });
    await cachedAt(rv(other));
    // Both updates went through the handler's filter: the echo was held back, the other passed.
    expect(passed).toEqual([`${rv(object)}→${rv(other)}`]);
    expect(released).toEqual([]);
    expect(echoes.size).toBe(0);
  });

  it('a change made while the write is in flight: the write gets 409, the change is handed on once, the retry’s echo is dropped', async () => {
    const { echoes, passed, released, cached, cachedAt } = await watchedWidget();
    const read = cached();
    const hold = proxy.holdNext('PUT', '/status');
    const conflictsBefore = proxy.count({ method: 'PUT', status: 409 });
    const writing = updateStatus(client, widgets, read, ready, {
      echoes: { tracker: echoes, when: () => true },
    });
    await hold.arrived;
    // Another writer changes the spec under the write, which was computed from `read`.
    const other = await admin.replace<Widget>(widgets, { ...read, spec: { size: 2 } });
    await cachedAt(rv(other));
    // From the version the write was sent against: it could be the write's own echo, so it waits.
    expect(passed).toEqual([]);
    expect(released).toEqual([]);

    hold.release();
    const { object } = await writing;
    expect(proxy.count({ method: 'PUT', status: 409 })).toBe(conflictsBefore + 1);
    // The 409 settled the write with nothing: the held update was someone else's, handed on.
    expect(released).toEqual([`${rv(read)}→${rv(other)}`]);
    // The retry read the other writer's spec and wrote on top of it.
    expect(object.status).toEqual({ phase: 'Ready', observed: 2 });
    await cachedAt(rv(object));

    const later = await admin.replace<Widget>(widgets, { ...object, spec: { size: 3 } });
    await cachedAt(rv(later));
    // The retry's echo (other → object) was dropped; the next change by someone else passed.
    expect(passed).toEqual([`${rv(object)}→${rv(later)}`]);
    expect(released).toHaveLength(1);
    expect(echoes.size).toBe(0);
  });
});
