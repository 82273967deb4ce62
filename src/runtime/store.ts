// The informer's in-memory cache: objects by key plus named secondary indexes, each a map from an
// index value to the set of keys that produce it, so every lookup is O(1) plus the size of the answer.
// Objects are shared with every reader: treat them as read-only and clone before changing them.
import { sameItems } from '../util/same-items.ts';
import { type KubeObject, objectKey } from './types.ts';

/** Returns the index values an object is filed under (none, one or several). */
export type IndexFunc<T> = (obj: T) => readonly string[];

export const NAMESPACE_INDEX = 'namespace';
export const OWNER_INDEX = 'owner';

export function indexByNamespace(obj: KubeObject): string[] {
  return obj.metadata.namespace ? [obj.metadata.namespace] : [];
}

/** Files an object under the uid of each of its owners. */
export function indexByOwner(obj: KubeObject): string[] {
  return obj.metadata.ownerReferences?.map((r) => r.uid) ?? [];
}

/** Files an object under the value of one label (objects without the label are not indexed). */
export function indexByLabel(label: string): IndexFunc<KubeObject> {
  return (obj) => {
    const v = obj.metadata.labels?.[label];
    return v === undefined ? [] : [v];
  };
}

export function labelIndexName(label: string): string {
  return `label:${label}`;
}

export interface StoreDelta<T> {
  added: T[];
  updated: { oldObj: T; newObj: T }[];
  deleted: T[];
}

const NONE: readonly never[] = Object.freeze([]);

export class Store<T extends KubeObject = KubeObject> {
  private objects = new Map<string, T>();
  private readonly indexFuncs = new Map<string, IndexFunc<T>>();
  private readonly indexes = new Map<string, Map<string, Set<string>>>();
  /** byIndexShared's lists by index name and value, dropped when any object filed there changes. */
  private readonly shared = new Map<string, Map<string, readonly T[]>>();

  constructor() {
    this.addIndex(NAMESPACE_INDEX, indexByNamespace);
  }

  get size(): number {
    return this.objects.size;
  }

  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  /** Every cached object; a fresh array, the objects themselves are shared. */
  list(): T[] {
    return [...this.objects.values()];
  }

  keys(): string[] {
    return [...this.objects.keys()];
  }

  /** Objects filed under `value` in the named index. */
  byIndex(indexName: string, value: string): T[] {
    const keys = this.index(indexName).get(value);
    if (!keys) return [];
    const out: T[] = [];
    for (const k of keys) {
      const o = this.objects.get(k);
      if (o) out.push(o);
    }
    return out;
  }

  /**
   * byIndex's answer as one frozen list, the same list until an object filed under `value` is
   * added, changed or removed: a caller asking often (every poll of a cluster's host asks for
   * the cluster's Agents) neither copies nor compares the list while nothing changed.
   */
  byIndexShared(indexName: string, value: string): readonly T[] {
    let byValue = this.shared.get(indexName);
    const kept = byValue?.get(value);
    if (kept) return kept;
    const list = this.byIndex(indexName, value);
    // Empty answers are not kept: values asked for may be any string.
    if (list.length === 0) return NONE;
    if (!byValue) {
      byValue = new Map();
      this.shared.set(indexName, byValue);
    }
    const frozen = Object.freeze(list);
    byValue.set(value, frozen);
    return frozen;
  }

  byNamespace(namespace: string): T[] {
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  hasIndex(name: string): boolean {
    return this.indexFuncs.has(name);
  }

  /**
   * Adds a named index and files every cached object under it. Adding the same name twice is an
   * error unless it is the very same function (several controllers may ask for the owner index).
   */
  addIndex(name: string, fn: IndexFunc<T>): void {
    const existing = this.indexFuncs.get(name);
    if (existing === fn) return;
    if (existing) throw new Error(`index ${name} already exists with a different function`);
    this.indexFuncs.set(name, fn);
    const idx = new Map<string, Set<string>>();
    this.indexes.set(name, idx);
    for (const [key, obj] of this.objects) for (const v of fn(obj)) addTo(idx, v, key);
  }

  /** Inserts or replaces one object; returns the previous version. */
  upsert(obj: T): T | undefined {
    const key = objectKey(obj);
    const old = this.objects.get(key);
    this.objects.set(key, obj);
    for (const [name, fn] of this.indexFuncs) {
      const idx = this.indexes.get(name)!;
      const before = old ? fn(old) : [];
      const after = fn(obj);
      this.forgetShared(name, before, after);
      if (sameItems(before, after)) continue;
      for (const v of before) removeFrom(idx, v, key);
      for (const v of after) addTo(idx, v, key);
    }
    return old;
  }

  /** Removes an object by key; returns what was cached. */
  delete(key: string): T | undefined {
    const old = this.objects.get(key);
    if (!old) return undefined;
    this.objects.delete(key);
    for (const [name, fn] of this.indexFuncs) {
      const idx = this.indexes.get(name)!;
      const values = fn(old);
      this.forgetShared(name, values, []);
      for (const v of values) removeFrom(idx, v, key);
    }
    return old;
  }

  /**
   * Swaps in a complete new set of objects (after a relist) and reports what changed: objects absent
   * from the new set were deleted while we were not watching. Objects whose resourceVersion did not
   * change are not reported, so a relist after a watch gap does not wake every controller.
   */
  replace(objs: Iterable<T>): StoreDelta<T> {
    const next = new Map<string, T>();
    for (const o of objs) next.set(objectKey(o), o);
    const delta: StoreDelta<T> = { added: [], updated: [], deleted: [] };
    for (const [key, newObj] of next) {
      const oldObj = this.objects.get(key);
      if (!oldObj) delta.added.push(newObj);
      else if (oldObj.metadata.resourceVersion !== newObj.metadata.resourceVersion) {
        delta.updated.push({ oldObj, newObj });
      }
    }
    for (const [key, oldObj] of this.objects) if (!next.has(key)) delta.deleted.push(oldObj);
    this.objects = next;
    this.shared.clear();
    for (const [name, fn] of this.indexFuncs) {
      const idx = new Map<string, Set<string>>();
      for (const [key, obj] of next) for (const v of fn(obj)) addTo(idx, v, key);
      this.indexes.set(name, idx);
    }
    return delta;
  }

  private forgetShared(name: string, before: readonly string[], after: readonly string[]): void {
    const byValue = this.shared.get(name);
    if (!byValue) return;
    for (const v of before) byValue.delete(v);
    for (const v of after) byValue.delete(v);
  }

  private index(name: string): Map<string, Set<string>> {
    const idx = this.indexes.get(name);
    if (!idx) throw new Error(`no index named ${name}`);
    return idx;
  }
}

function addTo(idx: Map<string, Set<string>>, value: string, key: string): void {
  let keys = idx.get(value);
  if (!keys) {
    keys = new Set();
    idx.set(value, keys);
  }
  keys.add(key);
}

function removeFrom(idx: Map<string, Set<string>>, value: string, key: string): void {
  const keys = idx.get(value);
  if (!keys) return;
  keys.delete(key);
  // Drop empty buckets so an index over short-lived values (e.g. MACs) does not grow forever.
  if (keys.size === 0) idx.delete(value);
}
