// Server-side apply of YAML documents, as `kubectl apply --server-side` would do it. Used by the
// local mode to install samples and by tests that apply manifests.
import { readFile } from 'node:fs/promises';
import {
  type KubeConfig,
  type KubernetesObject,
  KubernetesObjectApi,
  PatchStrategy,
} from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

export const FIELD_MANAGER = 'agent-install-operator-dev';

export function parseManifests(text: string): KubernetesObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubernetesObject | null)
    .filter((o): o is KubernetesObject => !!o && typeof o === 'object' && !!o.kind);
}

export async function readManifests(file: string): Promise<KubernetesObject[]> {
  return parseManifests(await readFile(file, 'utf8'));
}

/** Applies each object in order; with `defaultNamespace`, namespaced objects are put there. */
export async function applyObjects(
  kc: KubeConfig,
  objects: KubernetesObject[],
  defaultNamespace?: string,
): Promise<KubernetesObject[]> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  const out: KubernetesObject[] = [];
  for (const obj of objects) {
    const body = structuredClone(obj);
    body.metadata ??= {};
    if (defaultNamespace && isNamespacedKind(body.kind)) {
      body.metadata.namespace = defaultNamespace;
    }
    out.push(await api.patch(body, undefined, undefined, FIELD_MANAGER, true, PatchStrategy.ServerSideApply));
  }
  return out;
}

// Cluster-scoped kinds among what the project applies; everything else is namespaced.
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterImageSet',
  'AgentServiceConfig',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
]);

export function isNamespacedKind(kind: string | undefined): boolean {
  return !CLUSTER_SCOPED.has(kind ?? '');
}
