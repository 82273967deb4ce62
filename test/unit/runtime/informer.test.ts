import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { KubeClient } from '../../../src/runtime/client.ts';
import { Informer } from '../../../src/runtime/informer.ts';
import { ConfigMapResource, type KubeObject } from '../../../src/runtime/types.ts';

const logger = pino({ level: 'silent' });

function cm(name: string, rv: string): KubeObject {
  return { metadata: { namespace: 'ns', name, resourceVersion: rv } };
}

function recording(inf: Informer) {
  const log: string[] = [];
  inf.addHandler({
    onAdd: (o, fromList) =>
      log.push(`add:${o.metadata.name}@${o.metadata.resourceVersion}${fromList ? ' (list)' : ''}`),
    onUpdate: (o, n) =>
      log.push(`update:${n.metadata.name}@${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`),
    onDelete: (o) => log.push(`delete:${o.metadata.name}@${o.metadata.resourceVersion}`),
  });
  return log;
}

function newInformer(client: Partial<KubeClient> = {}, labelSelector?: string) {
  return new Informer({ client: client as KubeClient, resource: ConfigMapResource, logger, labelSelector });
}

describe('Informer', () => {
  it('swaps the store only at InitDone and infers deletes from a relist', async () => {
    const inf = newInformer();
    const log = recording(inf);
    inf.process({ type: 'init' });
    inf.process({ type: 'initApply', object: cm('a', '1') });
    expect(inf.store.size).toBe(0); // nothing visible mid-list
    expect(inf.hasSynced()).toBe(false);
    inf.process({ type: 'initApply', object: cm('b', '1') });
    inf.process({ type: 'initDone' });
    expect(inf.hasSynced()).toBe(true);
    await inf.waitForSync();
    inf.process({ type: 'apply', object: cm('a', '2') });
    // Relist after a watch gap: b was deleted meanwhile, c created, a unchanged since rv 2.
    inf.process({ type: 'init' });
    inf.process({ type: 'initApply', object: cm('a', '2') });
    inf.process({ type: 'initApply', object: cm('c', '5') });
    expect(inf.store.keys().sort()).toEqual(['ns/a', 'ns/b']);
    inf.process({ type: 'initDone' });
    expect(inf.store.keys().sort()).toEqual(['ns/a', 'ns/c']);
    expect(log).toEqual([
      'add:a@1 (list)',
      'add:b@1 (list)',
      'update:a@1->2',
      'add:c@5 (list)',
      'delete:b@1',
    ]);
  });

  it('suppresses updates that do not change the resourceVersion', () => {
    const inf = newInformer();
    const log = recording(inf);
    inf.process({ type: 'apply', object: cm('a', '1') });
    inf.process({ type: 'apply', object: cm('a', '1') });
    inf.process({ type: 'apply', object: cm('a', '2') });
    inf.process({ type: 'delete', object: cm('a', '3') });
    expect(log).toEqual(['add:a@1', 'update:a@1->2', 'delete:a@3']);
  });

  it('an abandoned list (error mid-way) is discarded by the next Init', () => {
    const inf = newInformer();
    inf.process({ type: 'init' });
    inf.process({ type: 'initApply', object: cm('stale', '1') });
    inf.process({ type: 'init' });
    inf.process({ type: 'initApply', object: cm('a', '2') });
    inf.process({ type: 'initDone' });
    expect(inf.store.keys()).toEqual(['ns/a']);
  });

  it('replays the cache to a handler added after sync', () => {
    const inf = newInformer();
    inf.process({ type: 'init' });
    inf.process({ type: 'initApply', object: cm('a', '1') });
    inf.process({ type: 'initDone' });
    const log = recording(inf);
    expect(log).toEqual(['add:a@1 (list)']);
  });

  it('a throwing handler does not stop the others', () => {
    const inf = newInformer();
    inf.addHandler({
      onAdd: () => {
        throw new Error('bad handler');
      },
    });
    const log = recording(inf);
    inf.process({ type: 'apply', object: cm('a', '1') });
    expect(log).toEqual(['add:a@1']);
  });

  it('getOrFetch reads the API on a miss only for label-scoped informers', async () => {
    const gets: string[] = [];
    const client = {
      getIfExists: async (_res: unknown, name: string) => {
        gets.push(name);
        return name === 'unlabelled'
          ? { metadata: { name, namespace: 'ns', managedFields: [{}] } }
          : undefined;
      },
    } as unknown as KubeClient;
    const scoped = newInformer(client, 'agent-install.openshift.io/watch=true');
    scoped.process({ type: 'apply', object: cm('cached', '1') });
    expect((await scoped.getOrFetch('ns', 'cached'))?.metadata.name).toBe('cached');
    const live = await scoped.getOrFetch('ns', 'unlabelled');
    expect(live?.metadata.name).toBe('unlabelled');
    expect(live?.metadata.managedFields).toBeUndefined();
    expect(await scoped.getOrFetch('ns', 'missing')).toBeUndefined();
    expect(gets).toEqual(['unlabelled', 'missing']);

    const full = newInformer(client);
    expect(await full.getOrFetch('ns', 'unlabelled')).toBeUndefined();
    expect(gets).toHaveLength(2);
  });

  it('with a namespace set, drops list and watch events of other namespaces', () => {
    const inf = new Informer({
      client: {} as KubeClient,
      resource: ConfigMapResource,
      logger,
      namespaces: new Set(['a', 'b']),
    });
    const log = recording(inf);
    const obj = (namespace: string, name: string, rv: string): KubeObject => ({
      metadata: { namespace, name, resourceVersion: rv },
    });
    inf.process({ type: 'init' });
    inf.process({ type: 'initApply', object: obj('a', 'x', '1') });
    inf.process({ type: 'initApply', object: obj('c', 'x', '1') });
    inf.process({ type: 'initDone' });
    inf.process({ type: 'apply', object: obj('b', 'y', '2') });
    inf.process({ type: 'apply', object: obj('c', 'y', '2') });
    inf.process({ type: 'apply', object: obj('a', 'x', '3') });
    inf.process({ type: 'delete', object: obj('c', 'x', '4') });
    inf.process({ type: 'delete', object: obj('b', 'y', '5') });
    expect(inf.store.keys()).toEqual(['a/x']);
    expect(log).toEqual(['add:x@1 (list)', 'add:y@2', 'update:x@1->3', 'delete:y@5']);
  });
});
