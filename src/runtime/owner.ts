// ownerReference helpers (controller-runtime controllerutil). Children carry a controller reference
// to the object that manages them, which drives both garbage collection and Owns() mapping.
import type { KubeObject, OwnerReference } from './types.ts';

export class AlreadyOwnedError extends Error {
  constructor(obj: KubeObject, existing: OwnerReference) {
    super(
      `${obj.kind ?? 'object'} ${obj.metadata.name} is already controlled by ${existing.kind} ${existing.name}`,
    );
    this.name = 'AlreadyOwnedError';
  }
}

function ownerRef(owner: KubeObject, controller: boolean): OwnerReference {
  const { apiVersion, kind } = owner;
  const { name, uid } = owner.metadata;
  if (!apiVersion || !kind || !name || !uid) {
    throw new Error('owner needs apiVersion, kind, metadata.name and metadata.uid (use a stored object)');
  }
  return controller
    ? { apiVersion, kind, name, uid, controller: true, blockOwnerDeletion: true }
    : { apiVersion, kind, name, uid };
}

/** The reference marked controller: true, if any. */
export function getControllerOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

export function isOwnedBy(obj: KubeObject, owner: KubeObject): boolean {
  return obj.metadata.ownerReferences?.some((r) => r.uid === owner.metadata.uid) ?? false;
}

function checkNamespaces(obj: KubeObject, owner: KubeObject): void {
  // The garbage collector ignores (and deletes for) references to owners in another namespace.
  const ownerNs = owner.metadata.namespace;
  if (ownerNs && ownerNs !== obj.metadata.namespace) {
    throw new Error(
      `cross-namespace owner reference: ${ownerNs}/${owner.metadata.name} cannot own an object in ${obj.metadata.namespace ?? 'the cluster scope'}`,
    );
  }
}

/**
 * Makes `owner` the controller of `obj` (mutates obj.metadata.ownerReferences and returns obj). An
 * existing reference to the same owner is updated; a different controller is an AlreadyOwnedError.
 */
export function setControllerReference<T extends KubeObject>(obj: T, owner: KubeObject): T {
  checkNamespaces(obj, owner);
  const ref = ownerRef(owner, true);
  const existing = getControllerOf(obj);
  if (existing && existing.uid !== ref.uid) throw new AlreadyOwnedError(obj, existing);
  const others = (obj.metadata.ownerReferences ?? []).filter((r) => r.uid !== ref.uid);
  obj.metadata.ownerReferences = [...others, ref];
  return obj;
}

/** Adds a plain (non-controller) owner reference unless one to the same owner exists. */
export function setOwnerReference<T extends KubeObject>(obj: T, owner: KubeObject): T {
  checkNamespaces(obj, owner);
  if (isOwnedBy(obj, owner)) return obj;
  obj.metadata.ownerReferences = [...(obj.metadata.ownerReferences ?? []), ownerRef(owner, false)];
  return obj;
}
