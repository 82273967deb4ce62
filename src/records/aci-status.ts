// Cluster record → AgentClusterInstall status (kubeapi.md §1.4 status, §2.1, §3.1.11), plus
// `status.backend` with what `clusterFromResources` needs to rebuild the record.

import type {
  AgentClusterInstall,
  AgentClusterInstallBackendStatus,
  AgentClusterInstallStatus,
  MonitoredOperatorStatus,
  ValidationsStatus,
} from '../api/index.ts';
import type { HostStatus } from '../core/model.ts';
import { effectiveRole } from '../core/statemachine/hostutil.ts';
import { aciConditionValues } from './aci-conditions.ts';
import type { AgentHost } from './agent.ts';
import type { SpecSyncError } from './agent-conditions.ts';
import type { AgentCluster } from './cluster.ts';
import { apiPlatform, provisionCounts } from './cluster-spec.ts';
import { setClusterInstallConditions } from './conditions.ts';
import { sameUrlTarget } from './urls.ts';

export interface AciStatusContext {
  now: Date;
  specSyncError?: SpecSyncError;
  /** holdInstallation or the ClusterDeployment reconcile-pause annotation (see isInstallationHeld). */
  hold?: boolean;
  /** Agents of this ClusterDeployment whose SpecSynced is False. */
  unsyncedAgents: number;
  /** Signed events URL of the cluster. */
  eventsURL?: UrlOffer;
  /** Signed logs URL of the cluster. */
  logsURL?: UrlOffer;
}

/**
 * A signed URL, or its unsigned form and how to sign it: signing (ECDSA) is then done only when
 * the URL is written, not for a URL that the one already in status wins over.
 */
export type UrlOffer = string | { target: string; sign(): string };

function dropUndefined<T extends object>(entries: T): T {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as T;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text ? text : undefined;
}

/**
 * Upstream fills the events and logs URLs once and never refreshes them. A URL already in status
 * is kept while it names the same target (signatures need not be deterministic); a new one is
 * written only when `allowed`.
 */
function urlOnce(previous: string | undefined, next: UrlOffer | undefined, allowed: boolean): string {
  const target = typeof next === 'object' ? next.target : next;
  if (previous && (target === undefined || sameUrlTarget(previous, target))) return previous;
  if (!allowed || !target) return '';
  return typeof next === 'object' ? next.sign() : target;
}

/** Hosts counted as ready: approved and known, or already installing or installed. */
const READY_HOST_STATES: readonly HostStatus[] = [
  'known',
  'preparing-for-installation',
  'preparing-successful',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
  'installed',
  'added-to-existing-cluster',
];

/**
 * The agent counters upstream declares but never fills (filled here, see the spec README):
 * discovered = hosts of the cluster with that effective role; ready = those approved and known
 * or past it.
 */
export function agentCounters(hosts: readonly AgentHost[]) {
  const ready = (h: AgentHost) => h.approved && READY_HOST_STATES.includes(h.status);
  const controlPlane = hosts.filter((h) => ['master', 'bootstrap'].includes(effectiveRole(h)));
  const workers = hosts.filter((h) => effectiveRole(h) === 'worker');
  return {
    controlPlaneAgentsDiscovered: controlPlane.length,
    controlPlaneAgentsReady: controlPlane.filter(ready).length,
    workerAgentsDiscovered: workers.length,
    workerAgentsReady: workers.filter(ready).length,
  };
}

function backendStatus(cluster: AgentCluster): AgentClusterInstallBackendStatus {
  const p = cluster.progress;
  const progress = dropUndefined({
    preparingForInstallationStagePercentage: p?.preparing_for_installation_stage_percentage,
    installingStagePercentage: p?.installing_stage_percentage,
    finalizingStagePercentage: p?.finalizing_stage_percentage,
    finalizingStage: p?.finalizing_stage,
    finalizingStageStartedAt: p?.finalizing_stage_started_at,
    finalizingStageTimedOut: p?.finalizing_stage_timed_out,
  });
  const operators = cluster.monitored_operators?.map((o) =>
    dropUndefined<MonitoredOperatorStatus>({
      name: o.name,
      operatorType: o.operator_type,
      status: o.status,
      statusInfo: o.status_info,
      timeoutSeconds: o.timeout_seconds,
      version: o.version,
      namespace: o.namespace,
      subscriptionName: o.subscription_name,
    }),
  );
  const last = cluster.last_installation_preparation;
  return dropUndefined<AgentClusterInstallBackendStatus>({
    clusterID: cluster.id,
    kind: cluster.kind,
    state: cluster.status,
    stateInfo: cluster.status_info,
    imported: cluster.imported ? true : undefined,
    openshiftVersion: cluster.openshift_version,
    releaseImage: cluster.ocp_release_image,
    cpuArchitecture: cluster.cpu_architecture,
    openshiftClusterID: cluster.openshift_cluster_id,
    apiVipDnsName: cluster.api_vip_dns_name,
    createdAt: cluster.created_at,
    statusUpdatedAt: cluster.status_updated_at,
    installStartedAt: cluster.install_started_at,
    installCompletedAt: cluster.install_completed_at,
    lastInstallationPreparation: last ? { status: last.status, reason: last.reason } : undefined,
    progress: Object.keys(progress).length > 0 ? progress : undefined,
    monitoredOperators: operators,
    kubeconfigUploaded: cluster.kubeconfig_uploaded,
    logsInfo: cluster.logs_info,
    controllerLogsStartedAt: cluster.controller_logs_started_at,
    controllerLogsCollectedAt: cluster.controller_logs_collected_at,
  });
}

/**
 * The ACI status for a cluster record. Conditions follow Hive's setter (timestamps renewed only
 * when status, reason or message change) and URLs are kept once written, so projecting an
 * unchanged cluster twice yields a deep-equal status. Without a cluster (an error before upstream
 * would have one) only SpecSynced, the Unknown set and a cleared debugInfo are written; every other
 * field, `status.backend` included, stays as it was.
 */
export function clusterToAciStatus(
  cluster: AgentCluster | undefined,
  aci: AgentClusterInstall,
  ctx: AciStatusContext,
): AgentClusterInstallStatus {
  const previous = aci.status;
  const conditions = setClusterInstallConditions(
    previous?.conditions,
    aciConditionValues({
      cluster,
      requirements: provisionCounts(aci.spec),
      hold: ctx.hold === true,
      unsyncedAgents: ctx.unsyncedAgents,
      ...(ctx.specSyncError ? { specSyncError: ctx.specSyncError } : {}),
    }),
    ctx.now,
  );
  if (!cluster) {
    return {
      ...previous,
      conditions,
      progress: previous?.progress ?? { totalPercentage: 0 },
      debugInfo: { eventsURL: '', logsURL: '' },
    };
  }
  const installed = cluster.status === 'installed';
  const logsExist =
    !!cluster.controller_logs_collected_at || cluster.hosts.some((h) => !!h.logs_collected_at);
  const api = cluster.api_vips.map((v) => v.ip);
  const ingress = cluster.ingress_vips.map((v) => v.ip);
  const validationsInfo =
    cluster.validations_info && Object.keys(cluster.validations_info).length > 0
      ? (structuredClone(cluster.validations_info) as ValidationsStatus)
      : undefined;
  return dropUndefined<AgentClusterInstallStatus>({
    conditions,
    progress: { totalPercentage: Math.trunc(cluster.progress?.total_percentage ?? 0) },
    ...agentCounters(cluster.hosts),
    connectivityMajorityGroups: nonEmpty(cluster.connectivity_majority_groups),
    machineNetwork:
      cluster.machine_networks.length > 0
        ? cluster.machine_networks.map((n) => ({ cidr: n.cidr }))
        : undefined,
    debugInfo: dropUndefined({
      eventsURL: urlOnce(previous?.debugInfo?.eventsURL, ctx.eventsURL, !installed),
      logsURL: urlOnce(previous?.debugInfo?.logsURL, ctx.logsURL, !installed && logsExist),
      state: nonEmpty(cluster.status),
      stateInfo: nonEmpty(cluster.status_info),
    }),
    apiVIP: api[0],
    apiVIPs: api.length > 0 ? api : undefined,
    ingressVIP: ingress[0],
    ingressVIPs: ingress.length > 0 ? ingress : undefined,
    userManagedNetworking: cluster.user_managed_networking,
    platformType: apiPlatform(cluster.platform.type),
    validationsInfo,
    backend: backendStatus(cluster),
  });
}
