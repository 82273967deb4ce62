// Installation progress (spec §1.3 host percentage, §2.7 cluster percentages).

import type { Cluster, ClusterProgressInfo, Host } from '../model.ts';
import { stagesForHost } from './stages.ts';

/** Weights of the three phases in the total (they sum to 0.95; `installed` forces 100). */
export const PROGRESS_WEIGHT = { preparing: 0.1, installing: 0.7, finalizing: 0.15 } as const;

/** (index+1)/len·100 of a host's stage in its role's list (0 when the list is empty). */
export function hostInstallationPercentage(
  host: Host,
  cluster: Cluster | null | undefined,
  kubeApiEnabled: boolean,
): number {
  const stages = stagesForHost(host, cluster, kubeApiEnabled);
  if (stages.length === 0) return 0;
  const index = stages.indexOf(host.progress?.current_stage as never);
  return ((index + 1) / stages.length) * 100;
}

/** Σ(stage index+1) / Σ(stage-list length) over all hosts, as an integer percentage. */
export function installingStagePercentage(cluster: Cluster, kubeApiEnabled: boolean): number {
  let done = 0;
  let total = 0;
  for (const host of cluster.hosts) {
    const stages = stagesForHost(host, cluster, kubeApiEnabled);
    total += stages.length;
    done += stages.indexOf(host.progress?.current_stage as never) + 1;
  }
  return total === 0 ? 0 : Math.trunc((done / total) * 100);
}

/** Settled operators (builtin available, OLM available or failed) over all monitored operators. */
export function finalizingStagePercentage(cluster: Cluster): number {
  const operators = cluster.monitored_operators ?? [];
  if (operators.length === 0) return 0;
  const settled = operators.filter((op) =>
    op.operator_type === 'builtin'
      ? op.status === 'available'
      : op.status === 'available' || op.status === 'failed',
  ).length;
  return Math.trunc((settled / operators.length) * 100);
}

/**
 * The cluster's progress block recomputed from its hosts and operators: weights 0.10 / 0.70 / 0.15,
 * `installed` forces 100, and the total never goes down.
 */
export function clusterProgress(cluster: Cluster, kubeApiEnabled: boolean): ClusterProgressInfo {
  const prev = cluster.progress ?? {};
  if (cluster.status === 'installed') {
    return {
      ...prev,
      preparing_for_installation_stage_percentage: 100,
      installing_stage_percentage: 100,
      finalizing_stage_percentage: 100,
      total_percentage: 100,
    };
  }
  const preparing = prev.preparing_for_installation_stage_percentage ?? 0;
  const installing = installingStagePercentage(cluster, kubeApiEnabled);
  const finalizing = finalizingStagePercentage(cluster);
  const total = Math.trunc(
    PROGRESS_WEIGHT.preparing * preparing +
      PROGRESS_WEIGHT.installing * installing +
      PROGRESS_WEIGHT.finalizing * finalizing,
  );
  return {
    ...prev,
    preparing_for_installation_stage_percentage: preparing,
    installing_stage_percentage: installing,
    finalizing_stage_percentage: finalizing,
    total_percentage: Math.max(prev.total_percentage ?? 0, total),
  };
}
