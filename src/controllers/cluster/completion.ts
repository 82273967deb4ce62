// Hand-off of an installed cluster (kubeapi.md §3.1.9): the admin kubeconfig and kubeadmin
// Secrets, `AgentClusterInstall.spec.clusterMetadata`, and — because Hive may not be there to do
// it (spec README, "Works without Hive") — `ClusterDeployment.spec.installed` and
// `spec.clusterMetadata` when nothing else has set them.

import {
  type AgentClusterInstall,
  type ClusterDeployment,
  HIVE_CLUSTER_DEPLOYMENT_NAME_LABEL,
  HIVE_SECRET_TYPE_KUBEADMIN_CREDS,
  HIVE_SECRET_TYPE_KUBECONFIG,
  HIVE_SECRET_TYPE_LABEL,
  type HiveClusterMetadata,
} from '../../api/index.ts';
import { readClusterFile } from '../../records/clusters/artifacts-store.ts';
import type { OperatorContext } from '../../records/context.ts';
import type { AgentCluster } from '../../records/index.ts';
import { AGENT_CLUSTER_INSTALL, CLUSTER_DEPLOYMENT, SECRET } from '../../records/resources.ts';
import { isAlreadyExists, type KubeObject, type OwnerReference } from '../../runtime/index.ts';

export const KUBEADMIN_USERNAME = 'kubeadmin';

export function kubeconfigSecretName(cd: ClusterDeployment): string {
  return cd.spec.clusterMetadata?.adminKubeconfigSecretRef?.name || `${cd.metadata.name}-admin-kubeconfig`;
}

export function passwordSecretName(cd: ClusterDeployment): string {
  return `${cd.metadata.name}-admin-password`;
}

function ownerRefTo(cd: ClusterDeployment): OwnerReference {
  return {
    apiVersion: cd.apiVersion ?? 'hive.openshift.io/v1',
    kind: cd.kind ?? 'ClusterDeployment',
    name: cd.metadata.name ?? '',
    uid: cd.metadata.uid ?? '',
    blockOwnerDeletion: true,
  };
}

interface SecretObject extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}

function secretFor(
  cd: ClusterDeployment,
  name: string,
  type: string,
  data: Record<string, string>,
): SecretObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name,
      namespace: cd.metadata.namespace,
      labels: {
        [HIVE_CLUSTER_DEPLOYMENT_NAME_LABEL]: cd.metadata.name ?? '',
        [HIVE_SECRET_TYPE_LABEL]: type,
      },
      ownerReferences: [ownerRefTo(cd)],
    },
    type: 'Opaque',
    data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
  };
}

/**
 * Creates the Secret, or with `overwrite` replaces its data when it differs. Never reads through
 * the watch-filtered cache: these Secrets are not labelled for it.
 */
async function ensureSecret(
  ctx: OperatorContext,
  secret: SecretObject,
  overwrite: boolean,
): Promise<boolean> {
  const ns = secret.metadata.namespace;
  const name = secret.metadata.name ?? '';
  const existing = await ctx.client.getIfExists<SecretObject>(SECRET, name, ns);
  if (!existing) {
    try {
      await ctx.client.create(SECRET, secret);
      return true;
    } catch (err) {
      if (!isAlreadyExists(err)) throw err;
      return false;
    }
  }
  if (!overwrite || JSON.stringify(existing.data ?? {}) === JSON.stringify(secret.data)) return false;
  await ctx.client.patch(SECRET, name, ns, 'merge', { data: secret.data });
  return true;
}

export interface CompletionFiles {
  kubeconfig?: string;
  kubeconfigNoIngress?: string;
  kubeadminPassword?: string;
}

export async function readCompletionFiles(ctx: OperatorContext, clusterId: string): Promise<CompletionFiles> {
  const read = async (name: string) => (await readClusterFile(ctx, clusterId, name))?.toString('utf8');
  const out: CompletionFiles = {};
  const kubeconfig = await read('kubeconfig');
  const noIngress = await read('kubeconfig-noingress');
  const password = await read('kubeadmin-password');
  if (kubeconfig !== undefined) out.kubeconfig = kubeconfig;
  if (noIngress !== undefined) out.kubeconfigNoIngress = noIngress;
  if (password !== undefined) out.kubeadminPassword = password.trim();
  return out;
}

function sameMetadata(a: HiveClusterMetadata | undefined, b: HiveClusterMetadata): boolean {
  return (
    !!a &&
    a.clusterID === b.clusterID &&
    a.infraID === b.infraID &&
    a.adminKubeconfigSecretRef?.name === b.adminKubeconfigSecretRef.name &&
    a.adminPasswordSecretRef?.name === b.adminPasswordSecretRef?.name
  );
}

export interface CompletionOutcome {
  /** Something was written. */
  wrote: boolean;
  /** Why the hand-off could not be completed yet (e.g. the files are missing). */
  pending?: string;
  /** The ACI as written, when its spec was patched (later writes start from it). */
  aci?: AgentClusterInstall;
}

function patchClusterMetadata(
  ctx: OperatorContext,
  aci: AgentClusterInstall,
  metadata: HiveClusterMetadata,
): Promise<AgentClusterInstall> {
  return ctx.client.patch<AgentClusterInstall>(
    AGENT_CLUSTER_INSTALL,
    aci.metadata.name ?? '',
    aci.metadata.namespace,
    'merge',
    { spec: { clusterMetadata: metadata } },
  );
}

/**
 * While installing or finalizing, before any metadata exists: the kubeconfig Secret with the
 * no-ingress kubeconfig, and clusterMetadata without the password reference.
 */
export async function handOffEarlyKubeconfig(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
  cluster: AgentCluster,
): Promise<CompletionOutcome> {
  if (aci.spec.clusterMetadata) return { wrote: false };
  const files = await readCompletionFiles(ctx, cluster.id);
  if (!files.kubeconfigNoIngress)
    return { wrote: false, pending: 'kubeconfig-noingress is not generated yet' };
  const name = kubeconfigSecretName(cd);
  await ensureSecret(
    ctx,
    secretFor(cd, name, HIVE_SECRET_TYPE_KUBECONFIG, { kubeconfig: files.kubeconfigNoIngress }),
    false,
  );
  const metadata: HiveClusterMetadata = {
    clusterID: cluster.openshift_cluster_id ?? '',
    infraID: cluster.id,
    adminKubeconfigSecretRef: { name },
  };
  return { wrote: true, aci: await patchClusterMetadata(ctx, aci, metadata) };
}

/** Whether the cluster still needs its installed hand-off (CD not installed, Completed not yet True). */
export function needsInstalledHandOff(
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
  cluster: AgentCluster,
): boolean {
  const completed = aci.status?.conditions?.find((c) => c.type === 'Completed');
  const handedOff = cd.spec.installed === true && completed?.reason === 'InstallationCompleted';
  return cluster.status === 'installed' && cluster.kind === 'Cluster' && !handedOff;
}

/**
 * The cluster is installed: password Secret (created once), kubeconfig Secret with the full
 * kubeconfig, ACI clusterMetadata, and the ClusterDeployment's installed flag and metadata.
 */
export async function handOffInstalledCluster(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
  cluster: AgentCluster,
): Promise<CompletionOutcome> {
  const files = await readCompletionFiles(ctx, cluster.id);
  const kubeconfig = files.kubeconfig ?? files.kubeconfigNoIngress;
  if (!kubeconfig || files.kubeadminPassword === undefined) {
    return { wrote: false, pending: 'the cluster credentials are not available in the data directory' };
  }
  const kubeconfigName = kubeconfigSecretName(cd);
  const passwordName = passwordSecretName(cd);
  let wrote = await ensureSecret(
    ctx,
    secretFor(cd, passwordName, HIVE_SECRET_TYPE_KUBEADMIN_CREDS, {
      username: KUBEADMIN_USERNAME,
      password: files.kubeadminPassword,
    }),
    false,
  );
  wrote =
    (await ensureSecret(
      ctx,
      secretFor(cd, kubeconfigName, HIVE_SECRET_TYPE_KUBECONFIG, { kubeconfig }),
      true,
    )) || wrote;
  const metadata: HiveClusterMetadata = {
    clusterID: cluster.openshift_cluster_id || aci.spec.clusterMetadata?.clusterID || '',
    infraID: cluster.id,
    adminKubeconfigSecretRef: { name: kubeconfigName },
    adminPasswordSecretRef: { name: passwordName },
  };
  let patched: AgentClusterInstall | undefined;
  if (!sameMetadata(aci.spec.clusterMetadata, metadata)) {
    patched = await patchClusterMetadata(ctx, aci, metadata);
    wrote = true;
  }
  // Hive copies these from the ACI once Completed is True; without Hive nobody would.
  const cdPatch: Record<string, unknown> = {};
  if (cd.spec.installed !== true) cdPatch.installed = true;
  if (!cd.spec.clusterMetadata) cdPatch.clusterMetadata = metadata;
  if (Object.keys(cdPatch).length > 0) {
    await ctx.client.patch(CLUSTER_DEPLOYMENT, cd.metadata.name ?? '', cd.metadata.namespace, 'merge', {
      spec: cdPatch,
    });
    wrote = true;
  }
  return patched ? { wrote, aci: patched } : { wrote };
}
