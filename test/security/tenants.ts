// Tenants for the multi-tenancy suite (issue 13): users minted by the harness (client certificates
// signed by the test control plane's CA) whose only rights are a Role in their own namespace, the
// way a hub shared through RHACM gives each team namespaces. An "admin" is a tenant granted the same
// Role in more namespaces (RHACM's pattern: host pools in one namespace, clusters in others).
//
// Usage:
//   const a = await mintTenant('a');            // user tenant-a-xxxx, namespace a-xxxx
//   await a.client.create(INFRA_ENV, ...)       // allowed in a.namespace, forbidden elsewhere
//   await grantEdit(otherNs, a.user)            // now also an editor of otherNs
//   const token = await serviceAccountToken(ns, 'scraper')  // a bearer token the API server accepts
import { KubeConfig } from '@kubernetes/client-node';
import { inject } from 'vitest';
import { mintUserFromDir } from '../../src/dev/controlplane.ts';
import { type ApiResource, KubeClient, type KubeObject } from '../../src/runtime/index.ts';
import { adminKubeConfig, newNamespace, uniqueName } from '../harness/env.ts';

const rbac = (plural: string, kind: string, namespaced: boolean): ApiResource => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind,
  plural,
  namespaced,
});
export const ROLE = rbac('roles', 'Role', true);
export const ROLE_BINDING = rbac('rolebindings', 'RoleBinding', true);
export const CLUSTER_ROLE = rbac('clusterroles', 'ClusterRole', false);
export const CLUSTER_ROLE_BINDING = rbac('clusterrolebindings', 'ClusterRoleBinding', false);
export const SERVICE_ACCOUNT: ApiResource = {
  group: '',
  version: 'v1',
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  namespaced: true,
};

/** Name of the Role (and RoleBinding) that makes a user an editor of a namespace. */
export const TENANT_ROLE_NAME = 'aio-tenant-edit';

const EDIT = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];

/**
 * What a team editing its own namespace usually holds (the `edit` aggregate for these kinds): full
 * rights on the operator's kinds, the Hive and metal3 kinds it installs with, Secrets and ConfigMaps.
 * Read-only on Events and the status subresources (a tenant never writes status).
 */
export const TENANT_EDIT_RULES = [
  {
    apiGroups: ['agent-install.openshift.io'],
    resources: ['agents', 'infraenvs', 'nmstateconfigs', 'agentclassifications'],
    verbs: EDIT,
  },
  { apiGroups: ['extensions.hive.openshift.io'], resources: ['agentclusterinstalls'], verbs: EDIT },
  { apiGroups: ['hive.openshift.io'], resources: ['clusterdeployments'], verbs: EDIT },
  { apiGroups: ['metal3.io'], resources: ['baremetalhosts'], verbs: EDIT },
  { apiGroups: [''], resources: ['secrets', 'configmaps'], verbs: EDIT },
  { apiGroups: [''], resources: ['events'], verbs: ['get', 'list', 'watch'] },
];

export interface Tenant {
  /** The user name the API server authenticates (the certificate's CN). */
  user: string;
  /** The namespace the tenant edits (created for it). */
  namespace: string;
  kubeconfigPath: string;
  kubeConfig: KubeConfig;
  /** A client acting as the tenant; closed by dispose(). */
  client: KubeClient;
  dispose(): Promise<void>;
}

let adminClient: KubeClient | undefined;

/** One admin client for the helpers of a test file (never closed: the worker exits with the file). */
export function admin(): KubeClient {
  adminClient ??= new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
  return adminClient;
}

/**
 * Minting users needs the harness's own control plane (its CA); against AIO_TEST_KUBECONFIG there
 * is none, and suites built on mintTenant skip (`tenantSuite` instead of `describe`).
 */
export function canMintUsers(): boolean {
  return inject('controlPlaneDir') !== '';
}

/** Makes `user` an editor of `namespace` (Role TENANT_ROLE_NAME + a RoleBinding per user). */
export async function grantEdit(namespace: string, user: string): Promise<void> {
  const client = admin();
  const role = await client.getIfExists(ROLE, TENANT_ROLE_NAME, namespace);
  if (!role) {
    await client.create(ROLE, {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: TENANT_ROLE_NAME, namespace },
      rules: TENANT_EDIT_RULES,
    } as KubeObject);
  }
  await client.create(ROLE_BINDING, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: `${TENANT_ROLE_NAME}-${bindingSuffix(user)}`, namespace },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: TENANT_ROLE_NAME },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
  } as KubeObject);
}

function bindingSuffix(user: string): string {
  return user
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 50);
}

/**
 * A fresh namespace `<prefix>-xxxx` and a user `tenant-<prefix>-xxxx` (group system:authenticated
 * only) who may edit it and nothing else.
 */
export async function mintTenant(prefix: string): Promise<Tenant> {
  const dir = inject('controlPlaneDir');
  if (!dir) throw new Error('mintTenant needs the harness control plane (not AIO_TEST_KUBECONFIG)');
  const namespace = await newNamespace(prefix);
  const user = `tenant-${namespace}`;
  await grantEdit(namespace, user);
  const creds = await mintUserFromDir(dir, user, ['system:authenticated'], `${uniqueName(user)}.kubeconfig`);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(creds.kubeconfigPath);
  const client = new KubeClient({ kubeConfig, qps: 0 });
  return {
    user,
    namespace,
    kubeconfigPath: creds.kubeconfigPath,
    kubeConfig,
    client,
    dispose: () => client.close(),
  };
}

/**
 * A bearer token for ServiceAccount `name` in `namespace` (created if missing) from the TokenRequest
 * API: a real token the API server's TokenReview accepts, for checks of token-authenticated routes.
 * With `audiences`, a token meant for someone else (the API server's own TokenReview refuses it).
 */
export async function serviceAccountToken(
  namespace: string,
  name: string,
  opts: { expirationSeconds?: number; audiences?: string[] } = {},
): Promise<string> {
  const client = admin();
  if (!(await client.getIfExists(SERVICE_ACCOUNT, name, namespace))) {
    await client.create(SERVICE_ACCOUNT, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name, namespace },
    } as KubeObject);
  }
  const review = await client.request<{ status?: { token?: string } }>(
    'POST',
    `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`,
    {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          expirationSeconds: opts.expirationSeconds ?? 600,
          ...(opts.audiences ? { audiences: opts.audiences } : {}),
        },
      },
    },
  );
  const token = review.status?.token;
  if (!token) throw new Error(`TokenRequest for ${namespace}/${name} returned no token`);
  return token;
}
