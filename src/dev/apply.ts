// Server-side apply of YAML documents, as `kubectl apply --server-side` would do it, through the
// project's own JSON client (client-node's typed models drop fields). Used by make demo, hack/deploy.ts
// and tests that apply manifests.
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { findKind } from '../api/index.ts';
import { type ApiResource, KubeClient, type KubeConfigLike, type KubeObject } from '../runtime/index.ts';

export const FIELD_MANAGER = 'agent-install-operator-dev';

// Built-in kinds the project's manifests hold: apiVersion/kind → [plural, namespaced]. The
// project's own and external CRD kinds come from the src/api kind table.
const BUILTIN_KINDS: Record<string, [string, boolean]> = {
  'v1/Namespace': ['namespaces', false],
  'v1/ServiceAccount': ['serviceaccounts', true],
  'v1/Service': ['services', true],
  'v1/PersistentVolumeClaim': ['persistentvolumeclaims', true],
  'v1/ConfigMap': ['configmaps', true],
  'v1/Secret': ['secrets', true],
  'apps/v1/Deployment': ['deployments', true],
  'rbac.authorization.k8s.io/v1/ClusterRole': ['clusterroles', false],
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ['clusterrolebindings', false],
  'rbac.authorization.k8s.io/v1/Role': ['roles', true],
  'rbac.authorization.k8s.io/v1/RoleBinding': ['rolebindings', true],
  'networking.k8s.io/v1/NetworkPolicy': ['networkpolicies', true],
  'networking.k8s.io/v1/Ingress': ['ingresses', true],
  'apiextensions.k8s.io/v1/CustomResourceDefinition': ['customresourcedefinitions', false],
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': [
    'validatingwebhookconfigurations',
    false,
  ],
  'admissionregistration.k8s.io/v1/MutatingWebhookConfiguration': ['mutatingwebhookconfigurations', false],
  'route.openshift.io/v1/Route': ['routes', true],
};

/** The REST resource of a manifest's object; throws for a kind the project does not know. */
export function resourceOf(obj: KubeObject): ApiResource {
  const apiVersion = obj.apiVersion ?? '';
  const kind = obj.kind ?? '';
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const crd = findKind(apiVersion, kind);
  if (crd)
    return {
      group: crd.group,
      version: crd.version,
      kind,
      plural: crd.plural,
      namespaced: crd.scope === 'Namespaced',
    };
  const builtin = BUILTIN_KINDS[`${apiVersion}/${kind}`];
  if (!builtin) throw new Error(`no REST resource known for ${apiVersion} ${kind}; add it to BUILTIN_KINDS`);
  return { group: group ?? '', version: version ?? '', kind, plural: builtin[0], namespaced: builtin[1] };
}

export function parseManifests(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((d) => d.toJS() as KubeObject | null)
    .filter((o): o is KubeObject => !!o && typeof o === 'object' && !!o.kind);
}

export async function readManifests(file: string): Promise<KubeObject[]> {
  return parseManifests(await readFile(file, 'utf8'));
}

/**
 * Applies each object in order; with `defaultNamespace`, namespaced objects are put there. Objects
 * `dryRun` picks are validated and admitted by the API server but not stored.
 */
export async function applyObjects(
  kc: KubeConfigLike,
  objects: KubeObject[],
  defaultNamespace?: string,
  opts: { dryRun?: (obj: KubeObject, namespaced: boolean) => boolean } = {},
): Promise<KubeObject[]> {
  const client = new KubeClient({ kubeConfig: kc, qps: 0 });
  try {
    const out: KubeObject[] = [];
    for (const obj of objects) {
      const res = resourceOf(obj);
      const body = structuredClone(obj);
      body.metadata ??= {};
      if (defaultNamespace && res.namespaced) body.metadata.namespace = defaultNamespace;
      const ns = res.namespaced ? body.metadata.namespace : undefined;
      out.push(
        await client.patch(res, body.metadata.name ?? '', ns, 'apply', body, {
          fieldManager: FIELD_MANAGER,
          force: true,
          dryRun: opts.dryRun?.(obj, res.namespaced) ?? false,
        }),
      );
    }
    return out;
  } finally {
    await client.close();
  }
}
