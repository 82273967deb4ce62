// What upstream's cluster monitor does every 10 s (core.md §2.6, §2.3, §2.7), done here once per
// reconcile of the ClusterDeployment, as a pure function of the cluster record: day-2 transform,
// machine-network auto-calculation, connectivity groups and IP collisions, cluster validations,
// the refresh rules, the preparation re-run and the progress percentages. Time is an input; the
// caller writes the result (hosts first, then the ACI status) and asks to be woken at
// `nextWakeUp`.

import {
  type Cluster,
  copyValidations,
  type Host,
  type ValidationResult,
  type ValidationsInfo,
} from '../../core/model.ts';
import { autoAssignMachineNetworks } from '../../core/network/machine-network.ts';
import {
  clusterNeedsMonitoring,
  clusterProgress,
  finalizingStageTimeoutMs,
  handlePreInstallSuccess,
  isTwoNodesWithFencing,
  needsPreInstallSuccessRerun,
  refreshCluster,
  resolveOptions,
  type SmEvent,
  type StateMachineOptions,
  schedulableMastersForcedTrue,
  shouldAutoAssignMachineNetwork,
  shouldComputeConnectivity,
  softTimeoutsEnabled,
  transformClusterToDay2,
} from '../../core/statemachine/index.ts';
import { type ClusterValidationConfig, validateCluster } from '../../core/validations/index.ts';
import type { AgentCluster } from '../../records/index.ts';
import { type ConnectivityResult, computedConnectivity } from './connectivity-pacing.ts';

/** Cluster validations whose inputs are in-memory host facts (free addresses, clocks). */
export const FACT_DEPENDENT_CLUSTER_VALIDATIONS: readonly string[] = [
  'api-vips-valid',
  'ingress-vips-valid',
  'ntp-server-configured',
];

/** Statuses whose progress percentages follow the hosts and operators. */
const PROGRESS_STATUSES: readonly string[] = ['installing', 'installing-pending-user-action', 'finalizing'];

export interface MonitorInput {
  cluster: AgentCluster;
  now: Date;
  options?: Partial<StateMachineOptions>;
  validation?: ClusterValidationConfig;
  /** ClusterDeployment spec.installed, or the ACI already reported completion. */
  installed: boolean;
  /** The ACI spec names machine networks (then they are the user's, never auto-calculated). */
  specMachineNetworks: boolean;
  /**
   * False while a host's in-memory facts are not back after a restart (warm-up): validations that
   * need them keep their stored results and connectivity groups are not recomputed.
   */
  hostFactsReady: (hostId: string) => boolean;
  /** Majority groups and IP collisions of the hosts (default: computed now; the controller paces them). */
  connectivityOf?: (hosts: Host[], minGroupSize: number) => ConnectivityResult | undefined;
}

export interface MonitorResult {
  cluster: AgentCluster;
  /** Hosts whose records the refresh changed (to be written to their Agents). */
  changedHostIds: Set<string>;
  events: SmEvent[];
  /** Why a transition could not run (logged; upstream's monitor only logs too). */
  errors: string[];
}

function storedResult(info: ValidationsInfo | undefined, id: string): ValidationResult | undefined {
  for (const list of Object.values(info ?? {})) {
    const found = list.find((r) => r.id === id);
    if (found) return found;
  }
  return undefined;
}

/**
 * Cluster validations, except that while some host is warming up the fact-dependent ones keep
 * the result stored before the restart (so a restart causes no ready → insufficient flap).
 */
export function clusterValidations(
  cluster: Cluster,
  now: Date,
  config: ClusterValidationConfig | undefined,
  warm: boolean,
): { computed: boolean; info: ValidationsInfo; conditions: Record<string, boolean> } {
  const report = validateCluster({ cluster, now, ...(config ? { config } : {}) });
  if (!report.computed) return { computed: false, info: {}, conditions: {} };
  const info = copyValidations(report.validations_info);
  const conditions = { ...report.conditions };
  if (!warm) {
    for (const id of FACT_DEPENDENT_CLUSTER_VALIDATIONS) {
      const stored = storedResult(cluster.validations_info, id);
      if (!stored) continue;
      for (const list of Object.values(info)) {
        const i = list.findIndex((r) => r.id === id);
        if (i >= 0) list[i] = { ...stored };
      }
      conditions[id] = conditions[id] || stored.status === 'success' || stored.status === 'disabled';
    }
  }
  return { computed: true, info, conditions };
}

function changed(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) !== JSON.stringify(b);
}

/** One monitor pass over a cluster record. */
export function monitorCluster(input: MonitorInput): MonitorResult {
  const { now } = input;
  const options = input.options ?? {};
  const sm = { now, options };
  const events: SmEvent[] = [];
  const errors: string[] = [];
  const changedHostIds = new Set<string>();
  let cluster: Cluster = input.cluster;

  // Day 1 → day 2: once the controller regards the cluster as installed (upstream §3.1.9).
  if (input.installed && cluster.status === 'installed' && cluster.kind === 'Cluster') {
    const r = transformClusterToDay2(cluster, {}, sm);
    if (r.ok) {
      cluster = r.cluster;
      events.push(...r.events);
    } else errors.push(r.error.message);
  }

  if (clusterNeedsMonitoring(cluster)) {
    const warm = cluster.hosts.every((h) => input.hostFactsReady(h.id));
    if (!input.specMachineNetworks && shouldAutoAssignMachineNetwork(cluster)) {
      const update = autoAssignMachineNetworks(cluster, now);
      if (update.error) errors.push(update.error);
      else if (update.changed) {
        cluster = {
          ...cluster,
          machine_networks: update.machine_networks,
          machine_network_cidr_updated_at: update.machine_network_cidr_updated_at,
        };
      }
    }
    if (shouldComputeConnectivity(cluster) && warm) {
      const minGroup = isTwoNodesWithFencing(cluster) ? 2 : 3;
      // Undefined while a large cluster's first computation runs: the record keeps its groups.
      const c = (input.connectivityOf ?? computedConnectivity)(cluster.hosts, minGroup);
      if (c) cluster = { ...cluster, connectivity_majority_groups: c.groups };
      if (c?.ipCollisions !== undefined) cluster = { ...cluster, ip_collisions: c.ipCollisions };
    }
    cluster = { ...cluster, schedulable_masters_forced_true: schedulableMastersForcedTrue(cluster) };

    const validations = clusterValidations(cluster, now, input.validation, warm);
    if (validations.computed && Object.keys(validations.info).length > 0) {
      if (changed(cluster.validations_info, validations.info)) {
        cluster = { ...cluster, validations_info: validations.info };
      }
    }

    if (needsPreInstallSuccessRerun(cluster)) {
      const r = handlePreInstallSuccess(cluster, {}, sm);
      if (r.ok) cluster = r.cluster;
    }

    const refreshed = refreshCluster(cluster, {}, { ...sm, conditions: validations.conditions });
    if (refreshed.ok) {
      cluster = refreshed.cluster;
      events.push(...refreshed.events);
      for (const id of refreshed.changedHostIds) changedHostIds.add(id);
    } else errors.push(refreshed.error.message);

    if (PROGRESS_STATUSES.includes(cluster.status)) {
      const progress = clusterProgress(cluster, resolveOptions(options).kubeApiEnabled);
      if (changed(progress, cluster.progress)) cluster = { ...cluster, progress };
    }
  }
  return { cluster: cluster as AgentCluster, changedHostIds, events, errors };
}

/**
 * When the next time-based change of the cluster is due (timeouts of §2.4), in ms from `now`;
 * undefined when nothing is pending. Host timeouts are the Agent reconciler's.
 */
export function nextClusterDeadlineMs(
  cluster: Cluster,
  now: Date,
  partial: Partial<StateMachineOptions> = {},
): number | undefined {
  const options = resolveOptions(partial);
  const at = (iso: string | undefined, ms: number) => (iso ? Date.parse(iso) + ms : undefined);
  const deadlines: (number | undefined)[] = [];
  switch (cluster.status) {
    case 'preparing-for-installation':
      deadlines.push(at(cluster.status_updated_at, options.prepareForInstallationTimeoutMs));
      break;
    case 'installing':
    case 'installing-pending-user-action':
      deadlines.push(at(cluster.install_started_at, options.installationTimeoutMs));
      break;
    case 'finalizing': {
      deadlines.push(at(cluster.install_started_at, options.installationTimeoutMs));
      deadlines.push(at(cluster.status_updated_at, options.finalizingTimeoutMs));
      const stage = cluster.progress?.finalizing_stage;
      if (stage) {
        const soft = softTimeoutsEnabled(cluster, options);
        deadlines.push(
          at(
            cluster.progress?.finalizing_stage_started_at,
            finalizingStageTimeoutMs(stage, cluster, options, soft),
          ),
        );
      }
      break;
    }
    case 'error':
    case 'cancelled': {
      const logs = cluster.logs_info ?? '';
      if (logs === '' && !cluster.controller_logs_started_at) {
        deadlines.push(at(cluster.status_updated_at, options.clusterLogPendingTimeoutMs));
      } else if (logs === 'requested' || logs === 'collecting') {
        deadlines.push(
          at(
            cluster.controller_logs_collected_at ?? cluster.controller_logs_started_at,
            options.clusterLogCollectionTimeoutMs,
          ),
        );
      }
      break;
    }
    case 'insufficient':
      // A host stuck in `resetting` requires user action after RESET_CLUSTER_TIMEOUT.
      for (const h of cluster.hosts) {
        if (h.status === 'resetting') deadlines.push(at(h.status_updated_at, options.resetClusterTimeoutMs));
      }
      break;
  }
  const future = deadlines
    .filter((d): d is number => d !== undefined && !Number.isNaN(d))
    .map((d) => d - now.getTime())
    .filter((d) => d > -60_000);
  if (future.length === 0) return undefined;
  // A second past the deadline, so the comparison "elapsed > timeout" holds when we wake.
  return Math.max(1000, Math.min(...future) + 1000);
}
