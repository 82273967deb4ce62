// The end of an installation as the installer controller reports it (agent-api.md §2.2): the
// ingress CA (merged into the kubeconfig users download) and the completion call. Success only
// records an event — completing is the monitor's; failure moves the cluster to error.

import {
  clusterFileExists,
  readClusterFile,
  writeClusterFiles,
} from '../../records/clusters/artifacts-store.ts';
import { done, fail, ok } from '../api/backend.ts';
import { mergeIngressCa } from './kubeconfig.ts';
import {
  apiCluster,
  type ClusterInput,
  type ClusterScope,
  INSTALL_PROGRESS_STATUSES,
  type Located,
} from './scope.ts';

type IngressCertInput = ClusterInput<'uploadIngressCert'>;
type CompletionInput = ClusterInput<'completeInstallation'>;

export async function uploadIngressCert(s: ClusterScope, found: Located, input: IngressCertInput) {
  const { ctx } = s;
  const id = found.cluster.id;
  const status = found.cluster.status;
  if (status !== 'finalizing' && status !== 'installed') {
    return fail(
      400,
      `Cluster ${id} is in ${status} state, upload ingress ca can be done only in finalizing or installed state`,
    );
  }
  if (!(await clusterFileExists(ctx, id, 'kubeconfig'))) {
    const noIngress = await readClusterFile(ctx, id, 'kubeconfig-noingress');
    if (!noIngress) return fail(500, `kubeconfig-noingress of cluster ${id} was not found`);
    let merged: string;
    try {
      merged = mergeIngressCa(noIngress.toString('utf8'), input.pem);
    } catch (err) {
      return fail(500, `failed to merge the ingress CA into the kubeconfig: ${(err as Error).message}`);
    }
    await writeClusterFiles(ctx, id, { kubeconfig: merged });
  }
  if (found.aci.status?.backend?.kubeconfigUploaded === true) return done();
  return s.mutateBackend(found, (b) => ({ ...b, kubeconfigUploaded: true }));
}

export async function completeInstallation(s: ClusterScope, found: Located, input: CompletionInput) {
  const { ctx } = s;
  const { cluster } = found;
  if (input.isSuccess) {
    // Completion itself is the monitor's (all hosts installed, kubeconfig and operators in).
    s.clusterEvent(
      cluster,
      'cluster_installation_reported_complete',
      'info',
      `The installer controller reported that cluster ${cluster.name} finished installing`,
    );
    s.enqueue(found);
    return ok(apiCluster(cluster));
  }
  if (!INSTALL_PROGRESS_STATUSES.includes(cluster.status)) {
    return fail(409, `Cluster ${cluster.id} is in ${cluster.status} state, installation cannot be completed`);
  }
  const reason = input.errorInfo || 'The installer controller reported a failure';
  const now = ctx.now().toISOString();
  const written = await s.mutateBackend(found, (b) => ({
    ...b,
    state: 'error',
    stateInfo: reason,
    statusUpdatedAt: now,
    installCompletedAt: now,
  }));
  if (!written.ok) return written;
  s.clusterEvent(
    cluster,
    'cluster_installation_failed',
    'critical',
    `Failed installing cluster ${cluster.name}. Reason: ${reason}`,
  );
  return ok(apiCluster({ ...cluster, status: 'error', status_info: reason }));
}
