// Finalizer add/remove with JSON Patch `test` operations (the kube-rs finalizer approach): the patch
// asserts exactly what we believe the list looks like, so a concurrent change by another controller
// makes the patch fail (422) instead of silently dropping or duplicating someone's finalizer. On a
// failed test we re-read the object and try again, a bounded number of times.
import { isInvalid, isNotFound, type KubeClient } from './client.ts';
import type { ApiResource, KubeObject } from './types.ts';

const MAX_ATTEMPTS = 5;

type Op = { op: 'test' | 'add' | 'remove'; path: string; value?: unknown };

export function hasFinalizer(obj: KubeObject, finalizer: string): boolean {
  return obj.metadata.finalizers?.includes(finalizer) ?? false;
}

export function isBeingDeleted(obj: KubeObject): boolean {
  return obj.metadata.deletionTimestamp !== undefined;
}

function uidTest(obj: KubeObject): Op[] {
  // Guards against patching a different object that was recreated under the same name.
  return obj.metadata.uid ? [{ op: 'test', path: '/metadata/uid', value: obj.metadata.uid }] : [];
}

function addPatch(obj: KubeObject, finalizer: string): Op[] {
  const current = obj.metadata.finalizers;
  if (!current) {
    // `test` with null succeeds on an absent field, so this fails if someone added a list meanwhile.
    return [
      ...uidTest(obj),
      { op: 'test', path: '/metadata/finalizers', value: null },
      { op: 'add', path: '/metadata/finalizers', value: [finalizer] },
    ];
  }
  return [
    ...uidTest(obj),
    { op: 'test', path: '/metadata/finalizers', value: current },
    { op: 'add', path: '/metadata/finalizers/-', value: finalizer },
  ];
}

/** JSON Pointer escaping of one path segment (RFC 6901): annotation keys hold `/`. */
const pointerSegment = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** Sets `annotations` in the same patch; a map that appears meanwhile fails the `test`. */
function annotationOps(obj: KubeObject, annotations: Record<string, string> | undefined): Op[] {
  if (!annotations || Object.keys(annotations).length === 0) return [];
  if (!obj.metadata.annotations) {
    return [
      { op: 'test', path: '/metadata/annotations', value: null },
      { op: 'add', path: '/metadata/annotations', value: annotations },
    ];
  }
  return Object.entries(annotations).map(([k, v]) => ({
    op: 'add' as const,
    path: `/metadata/annotations/${pointerSegment(k)}`,
    value: v,
  }));
}

function removePatch(obj: KubeObject, index: number, finalizer: string): Op[] {
  const path = `/metadata/finalizers/${index}`;
  return [...uidTest(obj), { op: 'test', path, value: finalizer }, { op: 'remove', path }];
}

async function patchWithRetry<T extends KubeObject>(
  client: KubeClient,
  res: ApiResource,
  obj: T,
  build: (current: T) => Op[] | undefined,
): Promise<T | undefined> {
  let current: T | undefined = obj;
  for (let attempt = 1; ; attempt++) {
    const patch = build(current);
    if (!patch) return current;
    const name: string = current.metadata.name ?? '';
    const namespace: string | undefined = current.metadata.namespace;
    try {
      return await client.patch<T>(res, name, namespace, 'json', patch);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      if (!isInvalid(err) || attempt >= MAX_ATTEMPTS) throw err;
    }
    // Our view was stale: read the live object (the cache may lag) and rebuild the patch.
    current = await client.getIfExists<T>(res, name, namespace);
    if (!current || (obj.metadata.uid && current.metadata.uid !== obj.metadata.uid)) return undefined;
  }
}

/**
 * Adds `finalizer` if missing; returns the updated object (or undefined if it no longer exists).
 * `annotations`, if given, are set in the same patch (only when the finalizer is added): one write
 * where a controller's first pass would otherwise make two.
 */
export function addFinalizer<T extends KubeObject>(
  client: KubeClient,
  res: ApiResource,
  obj: T,
  finalizer: string,
  annotations?: Record<string, string>,
): Promise<T | undefined> {
  return patchWithRetry(client, res, obj, (cur) =>
    hasFinalizer(cur, finalizer)
      ? undefined
      : [...addPatch(cur, finalizer), ...annotationOps(cur, annotations)],
  );
}

/** Removes `finalizer` only, leaving every other finalizer in place. */
export function removeFinalizer<T extends KubeObject>(
  client: KubeClient,
  res: ApiResource,
  obj: T,
  finalizer: string,
): Promise<T | undefined> {
  return patchWithRetry(client, res, obj, (cur) => {
    const index = cur.metadata.finalizers?.indexOf(finalizer) ?? -1;
    return index < 0 ? undefined : removePatch(cur, index, finalizer);
  });
}

export interface FinalizerHandlers<T, R> {
  /** The object is live and carries our finalizer. */
  apply(obj: T): Promise<R>;
  /** The object is being deleted; release external resources. The finalizer goes once this resolves. */
  cleanup(obj: T): Promise<R>;
}

/**
 * Reconcile wrapper: ensures the finalizer on live objects before `apply`, runs `cleanup` on deletion
 * and then removes the finalizer. `apply` runs in the same reconcile as the finalizer add, because a
 * generation-changed predicate would filter the metadata-only event the add causes.
 */
export async function reconcileWithFinalizer<T extends KubeObject, R>(
  client: KubeClient,
  res: ApiResource,
  obj: T,
  finalizer: string,
  handlers: FinalizerHandlers<T, R>,
): Promise<R | undefined> {
  if (isBeingDeleted(obj)) {
    if (!hasFinalizer(obj, finalizer)) return undefined;
    const result = await handlers.cleanup(obj);
    await removeFinalizer(client, res, obj, finalizer);
    return result;
  }
  const current = hasFinalizer(obj, finalizer) ? obj : await addFinalizer(client, res, obj, finalizer);
  if (!current) return undefined;
  return handlers.apply(current);
}
