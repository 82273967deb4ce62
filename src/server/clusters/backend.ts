// The cluster-level operations of the host REST API (agent-api.md §2.2, §2.3) on top of the
// records: reads build the cluster from the caches (views.clusterView); writes change only what
// they report — in `AgentClusterInstall.status.backend`, through updateStatus (conflicts retried
// on the live object) — and enqueue the ClusterDeployment, whose reconciler recomputes the rest
// of the status (conditions, progress) and moves the cluster on.
//
// One module per route group: downloads.ts (files, credentials, logs), progress.ts (logs and
// finalizing progress, monitored operators), completion.ts (ingress CA, completion); scope.ts
// holds what they share. deps: { auth } — the API's local authentication; registering it here
// also lets the reconciler sign the events and logs URLs it writes into status.

import type { LocalAuth } from '../../auth/index.ts';
import { setClusterUrlAuth } from '../../records/clusters/status.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type HostApiBackend, ok } from '../api/backend.ts';
import { completeInstallation, uploadIngressCert } from './completion.ts';
import { downloadClusterCredentials, downloadClusterFile, downloadClusterLogs } from './downloads.ts';
import {
  reportMonitoredOperatorStatus,
  updateClusterFinalizingProgress,
  updateClusterLogsProgress,
} from './progress.ts';
import { apiCluster, clusterScope, isOutcome } from './scope.ts';

export interface ClusterBackendDeps {
  auth: LocalAuth;
}

export type ClusterBackend = Pick<
  HostApiBackend,
  | 'getCluster'
  | 'downloadClusterFile'
  | 'downloadClusterCredentials'
  | 'downloadClusterLogs'
  | 'updateClusterLogsProgress'
  | 'updateClusterFinalizingProgress'
  | 'reportMonitoredOperatorStatus'
  | 'uploadIngressCert'
  | 'completeInstallation'
>;

export function clusterBackend(ctx: OperatorContext, deps: ClusterBackendDeps): ClusterBackend {
  setClusterUrlAuth(ctx, deps.auth);
  const s = clusterScope(ctx);
  return {
    async getCluster(_call, input) {
      const found = await s.locate(input.clusterId);
      if (isOutcome(found)) return found;
      return ok(apiCluster(found.cluster));
    },
    downloadClusterFile: (call, input) => downloadClusterFile(s, call, input),
    downloadClusterCredentials: (call, input) => downloadClusterCredentials(s, call, input),
    downloadClusterLogs: (_call, input) => downloadClusterLogs(s, input),
    updateClusterLogsProgress: (_call, input) => updateClusterLogsProgress(s, input),
    updateClusterFinalizingProgress: (_call, input) => updateClusterFinalizingProgress(s, input),
    reportMonitoredOperatorStatus: (_call, input) => reportMonitoredOperatorStatus(s, input),
    uploadIngressCert: (_call, input) => uploadIngressCert(s, input),
    completeInstallation: (_call, input) => completeInstallation(s, input),
  };
}
