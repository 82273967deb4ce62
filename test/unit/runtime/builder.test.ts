import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import {
  ControllerBuilder,
  type ControllerHost,
  type ControllerRegistration,
} from '../../../src/runtime/builder.ts';
import { InformerCache } from '../../../src/runtime/cache.ts';
import type { KubeClient } from '../../../src/runtime/client.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import {
  allOf,
  annotationsChanged,
  anyOf,
  generationChanged,
  labelsChanged,
  objectMatches,
  updateWhen,
} from '../../../src/runtime/predicates.ts';
import {
  type ApiResource,
  ConfigMapResource,
  type KubeObject,
  type ObjectMeta,
  SecretResource,
} from '../../../src/runtime/types.ts';

const logger = pino({ level: 'silent' });

const WidgetResource: ApiResource = {
  group: 'example.io',
  version: 'v1',
  kind: 'Widget',
  plural: 'widgets',
  namespaced: true,
};

function host() {
  const metrics = new RuntimeMetrics();
  const registrations: ControllerRegistration[] = [];
  const h: ControllerHost = {
    cache: new InformerCache({ client: {} as KubeClient, logger, metrics }),
    logger,
    metrics,
    add: (r) => registrations.push(r),
  };
  return { h, registrations };
}

function o(meta: ObjectMeta, extra: Record<string, unknown> = {}): KubeObject {
  return { metadata: { namespace: 'ns', resourceVersion: '1', ...meta }, ...extra };
}

/** Drains the controller's queue without running workers. */
async function drain(reg: ControllerRegistration): Promise<string[]> {
  const keys: string[] = [];
  while (reg.controller.queue.len() > 0) {
    const k = (await reg.controller.queue.get())!;
    keys.push(k);
    reg.controller.queue.done(k);
  }
  return keys.sort();
}

describe('ControllerBuilder', () => {
  it('queues objects of a list behind objects of watch events', async () => {
    const { h, registrations } = host();
    new ControllerBuilder(h, 'widgets').for(WidgetResource).complete(() => undefined);
    const reg = registrations[0]!;
    const [widgets] = reg.wire();
    widgets!.process({ type: 'init' });
    for (const name of ['l1', 'l2', 'l3']) widgets!.process({ type: 'initApply', object: o({ name }) });
    widgets!.process({ type: 'initDone' });
    widgets!.process({ type: 'apply', object: o({ name: 'w1' }) });
    widgets!.process({ type: 'apply', object: o({ name: 'l2', resourceVersion: '2' }) });
    const order: string[] = [];
    while (reg.controller.queue.len() > 0) {
      const k = (await reg.controller.queue.get())!;
      order.push(k);
      reg.controller.queue.done(k);
    }
    // l2 changed after the list: it moves up with the watch event's key.
    expect(order).toEqual(['ns/w1', 'ns/l2', 'ns/l1', 'ns/l3']);
  });

  it('wires primary, owned and mapped kinds to the right keys', async () => {
    const { h, registrations } = host();
    new ControllerBuilder(h, 'widgets')
      .for(WidgetResource)
      .owns(SecretResource)
      .watches(ConfigMapResource, (cm) => {
        const target = cm.metadata.annotations?.['example.io/widget'];
        return target ? [`${cm.metadata.namespace}/${target}`] : [];
      })
      .complete(() => undefined);
    const reg = registrations[0]!;
    expect(reg.resources.map((r) => r.plural)).toEqual(['widgets', 'secrets', 'configmaps']);
    expect(reg.optional).toBe(false);
    const [widgets, secrets, configmaps] = reg.wire();
    expect(reg.wire()).toHaveLength(3); // idempotent, no double handlers

    widgets!.process({ type: 'apply', object: o({ name: 'w1' }) });
    expect(await drain(reg)).toEqual(['ns/w1']);

    const ownerRef = (kind: string, apiVersion: string, controller: boolean) => ({
      apiVersion,
      kind,
      name: 'w2',
      uid: 'u',
      controller,
    });
    secrets!.process({
      type: 'apply',
      object: o({ name: 's1', ownerReferences: [ownerRef('Widget', 'example.io/v1', true)] }),
    });
    // Not a controller reference, wrong group, wrong kind: ignored.
    secrets!.process({
      type: 'apply',
      object: o({ name: 's2', ownerReferences: [ownerRef('Widget', 'example.io/v1', false)] }),
    });
    secrets!.process({
      type: 'apply',
      object: o({ name: 's3', ownerReferences: [ownerRef('Widget', 'other.io/v1', true)] }),
    });
    secrets!.process({
      type: 'apply',
      object: o({ name: 's4', ownerReferences: [ownerRef('Gadget', 'example.io/v1', true)] }),
    });
    expect(await drain(reg)).toEqual(['ns/w2']);

    configmaps!.process({
      type: 'apply',
      object: o({ name: 'c1', annotations: { 'example.io/widget': 'w3' } }),
    });
    configmaps!.process({ type: 'apply', object: o({ name: 'c2' }) });
    expect(await drain(reg)).toEqual(['ns/w3']);

    // An update that moves the mapping wakes both the old and the new target; a delete the last.
    configmaps!.process({
      type: 'apply',
      object: o({ name: 'c1', resourceVersion: '2', annotations: { 'example.io/widget': 'w4' } }),
    });
    expect(await drain(reg)).toEqual(['ns/w3', 'ns/w4']);
    configmaps!.process({
      type: 'delete',
      object: o({ name: 'c1', annotations: { 'example.io/widget': 'w4' } }),
    });
    expect(await drain(reg)).toEqual(['ns/w4']);
  });

  it('applies predicates per source', async () => {
    const { h, registrations } = host();
    new ControllerBuilder(h, 'widgets')
      .for(WidgetResource, { predicates: [generationChanged] })
      .complete(() => undefined);
    const reg = registrations[0]!;
    const [widgets] = reg.wire();
    widgets!.process({ type: 'apply', object: o({ name: 'w', generation: 1 }) });
    expect(await drain(reg)).toEqual(['ns/w']); // creates pass
    widgets!.process({ type: 'apply', object: o({ name: 'w', generation: 1, resourceVersion: '2' }) });
    expect(await drain(reg)).toEqual([]); // status-only write: filtered
    widgets!.process({ type: 'apply', object: o({ name: 'w', generation: 2, resourceVersion: '3' }) });
    expect(await drain(reg)).toEqual(['ns/w']);
  });

  it("mapUpdate picks an update's keys from both versions; creates and deletes still map", async () => {
    // A ConfigMap lists widget names; an update wakes only the names added or removed.
    const { h, registrations } = host();
    const names = (cm: KubeObject) => (cm as { data?: { names?: string } }).data?.names?.split(',') ?? [];
    new ControllerBuilder(h, 'widgets')
      .for(WidgetResource)
      .watches(ConfigMapResource, (cm) => names(cm).map((n) => `ns/${n}`), {
        mapUpdate: (oldCm, newCm) => {
          const [a, b] = [names(oldCm), names(newCm)];
          const onlyInOne = [...a.filter((n) => !b.includes(n)), ...b.filter((n) => !a.includes(n))];
          return onlyInOne.map((n) => `ns/${n}`);
        },
      })
      .complete(() => undefined);
    const reg = registrations[0]!;
    const [, configmaps] = reg.wire();
    configmaps!.process({ type: 'apply', object: o({ name: 'c' }, { data: { names: 'a,b,c' } }) });
    expect(await drain(reg)).toEqual(['ns/a', 'ns/b', 'ns/c']);
    configmaps!.process({
      type: 'apply',
      object: o({ name: 'c', resourceVersion: '2' }, { data: { names: 'a,c,d' } }),
    });
    expect(await drain(reg)).toEqual(['ns/b', 'ns/d']);
    configmaps!.process({ type: 'delete', object: o({ name: 'c' }, { data: { names: 'a,c,d' } }) });
    expect(await drain(reg)).toEqual(['ns/a', 'ns/c', 'ns/d']);
  });

  it('an optional() controller says so; for() is required and only once', () => {
    const { h, registrations } = host();
    new ControllerBuilder(h, 'bmh')
      .for(WidgetResource)
      .optional()
      .withWorkers(3)
      .complete(() => undefined);
    expect(registrations[0]!.optional).toBe(true);
    expect(registrations[0]!.controller.workers).toBe(3);
    expect(() => new ControllerBuilder(h, 'x').complete(() => undefined)).toThrow(/for\(\) is required/);
    expect(() => new ControllerBuilder(h, 'x').owns(SecretResource)).toThrow(/before owns/);
    expect(() => new ControllerBuilder(h, 'x').for(WidgetResource).for(WidgetResource)).toThrow(/twice/);
  });
});

describe('predicates', () => {
  const a = o({ name: 'a', generation: 1, labels: { x: '1' }, annotations: { y: '1' } });
  const sameButRv = o({
    name: 'a',
    generation: 1,
    labels: { x: '1' },
    annotations: { y: '1' },
    resourceVersion: '2',
  });
  const relabelled = o({ name: 'a', generation: 1, labels: { x: '2' }, annotations: { y: '1' } });
  const reannotated = o({ name: 'a', generation: 1, labels: { x: '1' }, annotations: { y: '2' } });
  const respec = o({ name: 'a', generation: 2, labels: { x: '1' }, annotations: { y: '1' } });

  it('generation, labels and annotations changed', () => {
    expect(generationChanged.update!(a, sameButRv)).toBe(false);
    expect(generationChanged.update!(a, respec)).toBe(true);
    expect(labelsChanged.update!(a, sameButRv)).toBe(false);
    expect(labelsChanged.update!(a, relabelled)).toBe(true);
    expect(labelsChanged.update!(o({ name: 'a' }), o({ name: 'a', labels: {} }))).toBe(false);
    expect(annotationsChanged.update!(a, reannotated)).toBe(true);
    expect(annotationsChanged.update!(a, relabelled)).toBe(false);
  });

  it('custom, anyOf and allOf', () => {
    const specSyncedFlipped = updateWhen<KubeObject & { status?: { synced?: boolean } }>(
      (x, y) => x.status?.synced !== y.status?.synced,
    );
    expect(
      specSyncedFlipped.update!(o({}, { status: { synced: false } }), o({}, { status: { synced: true } })),
    ).toBe(true);
    expect(specSyncedFlipped.create).toBeUndefined();
    const either = anyOf(generationChanged, labelsChanged);
    expect(either.update!(a, relabelled)).toBe(true);
    expect(either.update!(a, reannotated)).toBe(false);
    expect(either.create!(a)).toBe(true);
    const both = allOf(generationChanged, labelsChanged);
    expect(both.update!(a, relabelled)).toBe(false);
    const labelled = objectMatches((x) => x.metadata.labels?.x === '1');
    expect(labelled.create!(a)).toBe(true);
    expect(labelled.update!(a, relabelled)).toBe(false);
    expect(labelled.delete!(relabelled)).toBe(false);
  });
});
