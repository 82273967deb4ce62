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
import { apiCluster, clusterRoute, clusterScope } from './scope.ts';

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
    getCluster: clusterRoute(s, async (_s, found) => ok(apiCluster(found.cluster))),
    downloadClusterFile: clusterRoute(s, downloadClusterFile),
    downloadClusterCredentials: clusterRoute(s, downloadClusterCredentials),
    downloadClusterLogs: clusterRoute(s, downloadClusterLogs),
    updateClusterLogsProgress: clusterRoute(s, updateClusterLogsProgress),
    updateClusterFinalizingProgress: clusterRoute(s, updateClusterFinalizingProgress),
    reportMonitoredOperatorStatus: clusterRoute(s, reportMonitoredOperatorStatus),
    uploadIngressCert: clusterRoute(s, uploadIngressCert),
    completeInstallation: clusterRoute(s, completeInstallation),
  };
}
