// Event filters applied before an event becomes a work-queue key (controller-runtime pkg/predicate).
// A predicate method left undefined lets that kind of event through.
import { isDeepStrictEqual } from 'node:util';
import { jsonEqual } from '../util/json-equal.ts';
import type { KubeObject } from './types.ts';

export interface Predicate<T extends KubeObject = KubeObject> {
  create?(obj: T): boolean;
  update?(oldObj: T, newObj: T): boolean;
  delete?(obj: T): boolean;
}

/**
 * Passes updates that changed metadata.generation, i.e. spec changes for kinds with a status
 * subresource (status-only writes are filtered). Kinds without generation (ConfigMap) never pass.
 */
export const generationChanged: Predicate = {
  update: (o, n) => o.metadata.generation !== n.metadata.generation,
};

export const labelsChanged: Predicate = {
  update: (o, n) => !isDeepStrictEqual(o.metadata.labels ?? {}, n.metadata.labels ?? {}),
};

export const annotationsChanged: Predicate = {
  update: (o, n) => !isDeepStrictEqual(o.metadata.annotations ?? {}, n.metadata.annotations ?? {}),
};

/**
 * Whether what `read` keeps of an object differs between two versions, the API server's own
 * bookkeeping (resourceVersion, managedFields) aside: the update filter of a watch whose reconciler
 * builds its input from that view only, so the filter cannot hide an input.
 */
export function changedAsRead<T extends KubeObject>(read: (obj: T) => T, oldObj: T, newObj: T): boolean {
  return !jsonEqual(withoutBookkeeping(read(oldObj)), withoutBookkeeping(read(newObj)));
}

function withoutBookkeeping<T extends KubeObject>(obj: T): T {
  const { resourceVersion: _rv, managedFields: _mf, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** Custom update filter, e.g. "the Agent's SpecSynced condition flipped". */
export function updateWhen<T extends KubeObject>(fn: (oldObj: T, newObj: T) => boolean): Predicate<T> {
  return { update: fn };
}

/** Passes only updates, and those `fn` accepts: creates and deletes are another source's. */
export function onlyUpdates<T extends KubeObject>(fn: (oldObj: T, newObj: T) => boolean): Predicate<T> {
  return { create: () => false, update: fn, delete: () => false };
}

/** Filters every event kind with the same test on the (new) object. */
export function objectMatches<T extends KubeObject>(fn: (obj: T) => boolean): Predicate<T> {
  return { create: fn, update: (_o, n) => fn(n), delete: fn };
}

/** Passes when any predicate passes (controller-runtime predicate.Or). */
export function anyOf<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => ps.some((p) => p.create?.(obj) ?? true),
    update: (o, n) => ps.some((p) => p.update?.(o, n) ?? true),
    delete: (obj) => ps.some((p) => p.delete?.(obj) ?? true),
  };
}

/** Passes when all predicates pass. */
export function allOf<T extends KubeObject>(...ps: Predicate<T>[]): Predicate<T> {
  return {
    create: (obj) => ps.every((p) => p.create?.(obj) ?? true),
    update: (o, n) => ps.every((p) => p.update?.(o, n) ?? true),
    delete: (obj) => ps.every((p) => p.delete?.(obj) ?? true),
  };
}
