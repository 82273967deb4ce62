// Plain JSON shapes of Kubernetes objects as they travel over the wire. Timestamps stay RFC 3339
// strings (not Date) so that a value read from the API compares equal to the value written back.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  managedFields?: unknown[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface ObjectList<T> {
  apiVersion?: string;
  kind?: string;
  metadata: ListMeta;
  items: T[];
}

/** The v1 Status object the API server returns with errors and inside watch ERROR events. */
export interface Status {
  kind?: 'Status';
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; kind?: string; retryAfterSeconds?: number; causes?: unknown[] };
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T> {
  type: WatchEventType;
  object: T | Status;
}

/** Enough about a resource to build its REST paths (the kube-rs `ApiResource` idea). */
export interface ApiResource {
  /** API group; '' for the core group. */
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural used in URLs, e.g. 'configmaps'. */
  plural: string;
  namespaced: boolean;
}

export function apiVersionOf(res: ApiResource): string {
  return res.group ? `${res.group}/${res.version}` : res.version;
}

/** A stable identity for a resource type, used to share one informer per kind. */
export function resourceId(res: ApiResource): string {
  return `${res.plural}.${res.version}.${res.group}`;
}

/** The cache/work-queue key: 'namespace/name', or 'name' for cluster-scoped objects (as client-go). */
export function objectKey(obj: KubeObject): string {
  return keyOf(obj.metadata.namespace, obj.metadata.name ?? '');
}

export function keyOf(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf('/');
  if (slash < 0) return { namespace: undefined, name: key };
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

export const ConfigMapResource: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'ConfigMap',
  plural: 'configmaps',
  namespaced: true,
};
export const SecretResource: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Secret',
  plural: 'secrets',
  namespaced: true,
};
export const NamespaceResource: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Namespace',
  plural: 'namespaces',
  namespaced: false,
};
export const EventResource: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'Event',
  plural: 'events',
  namespaced: true,
};
export const LeaseResource: ApiResource = {
  group: 'coordination.k8s.io',
  version: 'v1',
  kind: 'Lease',
  plural: 'leases',
  namespaced: true,
};
export const CustomResourceDefinitionResource: ApiResource = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

/** Label that opts a Secret or ConfigMap into the operator's cache (assisted-service convention). */
export const WATCH_LABEL = 'agent-install.openshift.io/watch';
