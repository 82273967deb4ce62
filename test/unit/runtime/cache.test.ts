import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { InformerCache, informerScope } from '../../../src/runtime/cache.ts';
import type { KubeClient, ListOptions } from '../../../src/runtime/client.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ConfigMapResource, SecretResource } from '../../../src/runtime/types.ts';

const logger = pino({ level: 'silent' });

describe('InformerCache', () => {
  it('lists a kind in its own namespace when its options name one, else in the cache-wide one', async () => {
    const listed: Record<string, ListOptions> = {};
    const client = {
      list: async (res: { plural: string }, opts: ListOptions) => {
        listed[res.plural] = opts;
        return { metadata: { resourceVersion: '1' }, items: [] };
      },
      // Parks the watch until the informer is stopped.
      watch: async function* (_res: unknown, opts: { signal?: AbortSignal }) {
        await new Promise((resolve) => opts.signal?.addEventListener('abort', resolve));
        yield* [];
      },
    } as unknown as KubeClient;
    const cache = new InformerCache({
      client,
      logger,
      metrics: new RuntimeMetrics(),
      namespace: 'watched',
      byResource: [{ resource: SecretResource, namespace: 'operator', fieldSelector: 'metadata.name=x' }],
    });
    cache.informer(SecretResource);
    cache.informer(ConfigMapResource);
    cache.start();
    await cache.waitForSync(5_000);
    await cache.stop();
    expect(listed.secrets).toMatchObject({ namespace: 'operator', fieldSelector: 'metadata.name=x' });
    expect(listed.configmaps).toMatchObject({ namespace: 'watched' });
  });

  it('lists several namespaces as one cluster-wide watch and keeps only their objects', async () => {
    const listed: ListOptions[] = [];
    const item = (namespace: string, name: string) => ({
      metadata: { namespace, name, resourceVersion: '1' },
    });
    const client = {
      list: async (_res: unknown, opts: ListOptions) => {
        listed.push(opts);
        return {
          metadata: { resourceVersion: '1' },
          items: [item('a', 'x'), item('b', 'y'), item('other', 'z')],
        };
      },
      watch: async function* (_res: unknown, opts: { signal?: AbortSignal }) {
        await new Promise((resolve) => opts.signal?.addEventListener('abort', resolve));
        yield* [];
      },
    } as unknown as KubeClient;
    const cache = new InformerCache({ client, logger, metrics: new RuntimeMetrics(), namespace: ['a', 'b'] });
    const inf = cache.informer(ConfigMapResource);
    cache.start();
    await cache.waitForSync(5_000);
    await cache.stop();
    expect(listed).toHaveLength(1);
    expect(listed[0]?.namespace).toBeUndefined();
    expect(inf.store.keys().sort()).toEqual(['a/x', 'b/y']);
  });
});

describe('informerScope', () => {
  it.each([
    { given: undefined, scope: {} },
    { given: 'a', scope: { namespace: 'a' } },
    { given: ['a'], scope: { namespace: 'a' } },
    { given: ['a', 'a'], scope: { namespace: 'a' } },
    { given: ['a', 'b'], scope: { namespaces: new Set(['a', 'b']) } },
  ])('$given → $scope', ({ given, scope }) => {
    expect(informerScope(given)).toEqual(scope);
  });

  it('refuses an empty list, which would cache nothing', () => {
    expect(() => informerScope([])).toThrow(/empty namespace list/);
  });
});
