import { describe, expect, it } from 'vitest';
import {
  formatLabelSelector,
  indexByLabelPairs,
  LABEL_PAIRS_INDEX,
  matchesLabelSelector,
  selectFromStore,
} from '../../../src/runtime/selector.ts';
import {
  indexByLabel,
  indexByOwner,
  labelIndexName,
  OWNER_INDEX,
  Store,
} from '../../../src/runtime/store.ts';
import type { KubeObject } from '../../../src/runtime/types.ts';

interface Agent extends KubeObject {
  spec?: { macs?: string[] };
}

function obj(
  namespace: string,
  name: string,
  rv: string,
  extra: Partial<KubeObject['metadata']> = {},
  macs?: string[],
): Agent {
  return { metadata: { namespace, name, resourceVersion: rv, ...extra }, spec: { macs } };
}

const byMac = (a: Agent) => a.spec?.macs ?? [];

describe('Store', () => {
  it('byIndexShared: one frozen list until an object filed under the value changes', () => {
    const s = new Store<Agent>();
    const CLUSTER = labelIndexName('cluster');
    s.addIndex(CLUSTER, indexByLabel('cluster'));
    const names = (l: readonly Agent[]) =>
      l.map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    s.upsert(obj('ns', 'a', '1', { labels: { cluster: 'c1' } }));
    s.upsert(obj('ns', 'b', '1', { labels: { cluster: 'c1' } }));
    s.upsert(obj('ns', 'x', '1', { labels: { cluster: 'c2' } }));
    const first = s.byIndexShared(CLUSTER, 'c1');
    expect(names(first)).toEqual(['a@1', 'b@1']);
    expect(Object.isFrozen(first)).toBe(true);
    expect(s.byIndexShared(CLUSTER, 'c1')).toBe(first);
    // Another value's object changing leaves the list alone.
    const other = s.byIndexShared(CLUSTER, 'c2');
    s.upsert(obj('ns', 'x', '2', { labels: { cluster: 'c2' } }));
    expect(s.byIndexShared(CLUSTER, 'c1')).toBe(first);
    expect(names(s.byIndexShared(CLUSTER, 'c2'))).toEqual(['x@2']);
    expect(s.byIndexShared(CLUSTER, 'c2')).not.toBe(other);
    // A member's new version, a member moving away, a member deleted, a relist: each a new list.
    s.upsert(obj('ns', 'a', '2', { labels: { cluster: 'c1' } }));
    const second = s.byIndexShared(CLUSTER, 'c1');
    expect(names(second)).toEqual(['a@2', 'b@1']);
    s.upsert(obj('ns', 'b', '2', { labels: { cluster: 'c2' } }));
    expect(names(s.byIndexShared(CLUSTER, 'c1'))).toEqual(['a@2']);
    expect(names(s.byIndexShared(CLUSTER, 'c2'))).toEqual(['b@2', 'x@2']);
    s.delete('ns/a');
    expect(s.byIndexShared(CLUSTER, 'c1')).toEqual([]);
    s.replace([obj('ns', 'n', '1', { labels: { cluster: 'c1' } })]);
    expect(names(s.byIndexShared(CLUSTER, 'c1'))).toEqual(['n@1']);
    expect(s.byIndexShared(CLUSTER, 'c2')).toEqual([]);
    // The plain answer stays a fresh array of its own.
    expect(s.byIndex(CLUSTER, 'c1')).not.toBe(s.byIndex(CLUSTER, 'c1'));
  });

  it('indexes by namespace, label, owner uid and a custom function', () => {
    const s = new Store<Agent>();
    s.addIndex(labelIndexName('cluster'), indexByLabel('cluster'));
    s.addIndex(OWNER_INDEX, indexByOwner);
    s.addIndex('mac', byMac);
    const owner = { apiVersion: 'v1', kind: 'X', name: 'o', uid: 'uid-1', controller: true };
    s.upsert(
      obj('ns1', 'a', '1', { labels: { cluster: 'c1' }, ownerReferences: [owner] }, ['aa:01', 'aa:02']),
    );
    s.upsert(obj('ns1', 'b', '1', { labels: { cluster: 'c2' } }, ['bb:01']));
    s.upsert(obj('ns2', 'c', '1', { labels: { cluster: 'c1' } }));

    expect(
      s
        .byNamespace('ns1')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(
      s
        .byIndex(labelIndexName('cluster'), 'c1')
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    expect(s.byIndex(OWNER_INDEX, 'uid-1').map((o) => o.metadata.name)).toEqual(['a']);
    expect(s.byIndex('mac', 'aa:02').map((o) => o.metadata.name)).toEqual(['a']);
    expect(s.byIndex('mac', 'zz:99')).toEqual([]);
    expect(s.get('ns2/c')?.metadata.name).toBe('c');
  });

  it('moves index entries when an object changes and drops them on delete', () => {
    const s = new Store<Agent>();
    s.addIndex('mac', byMac);
    s.upsert(obj('ns', 'a', '1', {}, ['aa:01']));
    const old = s.upsert(obj('ns', 'a', '2', {}, ['aa:02']));
    expect(old?.metadata.resourceVersion).toBe('1');
    expect(s.byIndex('mac', 'aa:01')).toEqual([]);
    expect(s.byIndex('mac', 'aa:02').map((o) => o.metadata.resourceVersion)).toEqual(['2']);
    expect(s.delete('ns/a')?.metadata.resourceVersion).toBe('2');
    expect(s.byIndex('mac', 'aa:02')).toEqual([]);
    expect(s.byNamespace('ns')).toEqual([]);
    expect(s.size).toBe(0);
  });

  it('an index added later covers objects already cached', () => {
    const s = new Store<Agent>();
    s.upsert(obj('ns', 'a', '1', {}, ['aa:01']));
    s.addIndex('mac', byMac);
    expect(s.byIndex('mac', 'aa:01')).toHaveLength(1);
    s.addIndex('mac', byMac); // same function: fine
    expect(() => s.addIndex('mac', () => [])).toThrow(/already exists/);
    expect(() => s.byIndex('nope', 'x')).toThrow(/no index/);
  });

  it('replace swaps the contents and reports adds, real updates and inferred deletes', () => {
    const s = new Store<Agent>();
    s.addIndex('mac', byMac);
    s.upsert(obj('ns', 'keep', '1'));
    s.upsert(obj('ns', 'change', '1', {}, ['aa:01']));
    s.upsert(obj('ns', 'gone', '1', {}, ['cc:01']));
    const delta = s.replace([
      obj('ns', 'keep', '1'),
      obj('ns', 'change', '2', {}, ['aa:02']),
      obj('ns', 'new', '1'),
    ]);
    expect(delta.added.map((o) => o.metadata.name)).toEqual(['new']);
    expect(
      delta.updated.map((u) => [u.oldObj.metadata.resourceVersion, u.newObj.metadata.resourceVersion]),
    ).toEqual([['1', '2']]);
    expect(delta.deleted.map((o) => o.metadata.name)).toEqual(['gone']);
    expect(s.keys().sort()).toEqual(['ns/change', 'ns/keep', 'ns/new']);
    expect(s.byIndex('mac', 'cc:01')).toEqual([]);
    expect(s.byIndex('mac', 'aa:01')).toEqual([]);
    expect(s.byIndex('mac', 'aa:02')).toHaveLength(1);
  });

  it('cluster-scoped objects are keyed by name alone', () => {
    const s = new Store();
    s.upsert({ metadata: { name: 'node-1', resourceVersion: '1' } });
    expect(s.get('node-1')).toBeDefined();
    expect(s.byNamespace('')).toEqual([]);
  });
});

describe('label selectors', () => {
  it('match matchLabels and every matchExpressions operator', () => {
    const labels = { a: '1', b: '2' };
    expect(matchesLabelSelector(labels, {})).toBe(true);
    expect(matchesLabelSelector(labels, { matchLabels: { a: '1' } })).toBe(true);
    expect(matchesLabelSelector(labels, { matchLabels: { a: '2' } })).toBe(false);
    expect(
      matchesLabelSelector(labels, { matchExpressions: [{ key: 'b', operator: 'In', values: ['2', '3'] }] }),
    ).toBe(true);
    expect(
      matchesLabelSelector(labels, { matchExpressions: [{ key: 'b', operator: 'NotIn', values: ['2'] }] }),
    ).toBe(false);
    expect(
      matchesLabelSelector(labels, { matchExpressions: [{ key: 'c', operator: 'NotIn', values: ['2'] }] }),
    ).toBe(true);
    expect(matchesLabelSelector(labels, { matchExpressions: [{ key: 'c', operator: 'Exists' }] })).toBe(
      false,
    );
    expect(matchesLabelSelector(labels, { matchExpressions: [{ key: 'c', operator: 'DoesNotExist' }] })).toBe(
      true,
    );
    expect(matchesLabelSelector(undefined, { matchLabels: { a: '1' } })).toBe(false);
  });

  it('format for the API query string', () => {
    expect(
      formatLabelSelector({
        matchLabels: { a: '1' },
        matchExpressions: [
          { key: 'b', operator: 'In', values: ['y', 'x'] },
          { key: 'c', operator: 'Exists' },
          { key: 'd', operator: 'DoesNotExist' },
        ],
      }),
    ).toBe('a=1,b in (x,y),c,!d');
  });

  it('selectFromStore finds NMStateConfig-like objects by an InfraEnv selector via the label-pairs index', () => {
    const s = new Store();
    s.addIndex(LABEL_PAIRS_INDEX, indexByLabelPairs);
    for (let i = 0; i < 50; i++) {
      s.upsert({
        metadata: { namespace: 'ns', name: `n${i}`, labels: { env: `e${i % 5}`, role: i % 2 ? 'x' : 'y' } },
      });
    }
    s.upsert({ metadata: { namespace: 'other', name: 'o', labels: { env: 'e1', role: 'x' } } });
    const got = selectFromStore(s, { matchLabels: { env: 'e1', role: 'x' } }, 'ns');
    expect(got.map((o) => o.metadata.name).sort()).toEqual(['n1', 'n11', 'n21', 'n31', 'n41']);
    expect(selectFromStore(s, { matchLabels: { env: 'nope' } })).toEqual([]);
    expect(selectFromStore(s, { matchLabels: { env: 'e1', role: 'x' } })).toHaveLength(6);
  });
});
