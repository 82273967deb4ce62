// The cluster state machine (spec §2): event-driven rules, the refresh rules, and the pure
// transition functions callers use.

import type { Cluster } from '../model.ts';
import { clusterConditions } from './cluster-predicates.ts';
import { CLUSTER_INFO } from './cluster-refresh-effects.ts';
import {
  type ClusterArgs,
  type ClusterEngine,
  type ClusterTransitionType,
  moveCluster,
} from './cluster-sm-common.ts';
import { addClusterRefreshRules } from './cluster-sm-refresh.ts';
import {
  clusterSuccess,
  NOT_STARTED_PREPARATION,
  resetClusterFields,
  resetClusterLogsFields,
  setClusterStatus,
} from './cluster-update.ts';
import { RuleEngine } from './engine.ts';
import { softTimeoutsEnabled } from './host-conditions.ts';
import { resolveOptions } from './options.ts';
import { type ClusterResult, failure, type SmContext } from './result.ts';

export const CANCELLED_BY_USER = 'Installation was cancelled by user';
export const RESET_BY_USER = 'cluster was reset by user';

function addClusterEventRules(sm: ClusterEngine): void {
  sm.add('CancelInstallation', {
    id: 'CC1',
    sources: ['installing', 'installing-pending-user-action', 'error', 'finalizing'],
    destination: 'cancelled',
    apply: moveCluster((a) => a.reason ?? CANCELLED_BY_USER),
  });
  sm.add('CancelInstallation', {
    id: 'CC2',
    sources: ['preparing-for-installation'],
    destination: 'ready',
    apply: moveCluster((a) => a.reason ?? CANCELLED_BY_USER),
  });
  sm.add('ResetCluster', {
    id: 'RS1',
    sources: [
      'preparing-for-installation',
      'installing',
      'installing-pending-user-action',
      'error',
      'cancelled',
      'finalizing',
    ],
    destination: 'insufficient',
    apply: moveCluster(
      (a) => a.reason ?? RESET_BY_USER,
      (a) => resetClusterFields(a.cluster),
    ),
  });
  sm.add('PrepareForInstallation', {
    id: 'PI1',
    sources: ['ready'],
    destination: 'preparing-for-installation',
    apply: moveCluster(
      () => CLUSTER_INFO.preparingForInstallation,
      (a) => ({
        install_started_at: a.now.toISOString(),
        ...resetClusterLogsFields(),
        last_installation_preparation: { ...NOT_STARTED_PREPARATION },
      }),
    ),
  });
}

function buildClusterStateMachine(): ClusterEngine {
  const sm: ClusterEngine = new RuleEngine();
  addClusterEventRules(sm);
  addClusterRefreshRules(sm);
  return sm;
}

export const CLUSTER_STATE_MACHINE: ClusterEngine = buildClusterStateMachine();

/** Runs one transition type on a cluster (its `hosts` travel with it). */
export function runClusterTransition(
  type: ClusterTransitionType,
  cluster: Cluster,
  ctx: SmContext,
  reason?: string,
): ClusterResult {
  const options = resolveOptions(ctx.options);
  const conditions =
    type === 'RefreshStatus' ? { ...clusterConditions(cluster), ...ctx.conditions } : { ...ctx.conditions };
  const args: ClusterArgs = {
    cluster,
    now: ctx.now,
    options,
    conditions,
    soft: softTimeoutsEnabled(cluster, options),
    ...(reason !== undefined ? { reason } : {}),
  };
  const result = CLUSTER_STATE_MACHINE.run(type, cluster.status, args);
  if (!result.ok) return failure(result.kind === 'no-rule' ? 409 : 500, result.error);
  return result.output.ok ? { ...result.output, rule: result.rule.id } : result.output;
}

/**
 * The monitor's refresh: `ctx.conditions` holds the cluster validation results (pass `{}` outside
 * insufficient / ready / pending-for-input / preparing, where upstream computes none). The §2.3
 * non-validation conditions are computed from the cluster and its hosts; given ids take precedence.
 */
export function refreshCluster(
  cluster: Cluster,
  _input: Record<string, never>,
  ctx: SmContext,
): ClusterResult {
  return runClusterTransition('RefreshStatus', cluster, ctx);
}

export function cancelClusterTransition(
  cluster: Cluster,
  input: { reason?: string },
  ctx: SmContext,
): ClusterResult {
  return runClusterTransition('CancelInstallation', cluster, ctx, input.reason);
}

export function resetClusterTransition(
  cluster: Cluster,
  input: { reason?: string },
  ctx: SmContext,
): ClusterResult {
  return runClusterTransition('ResetCluster', cluster, ctx, input.reason);
}

export function prepareForInstallation(
  cluster: Cluster,
  _input: Record<string, never>,
  ctx: SmContext,
): ClusterResult {
  return runClusterTransition('PrepareForInstallation', cluster, ctx);
}

/** Initial status of a new cluster record by kind (the registrar's choice). */
export function initialClusterStatus(
  kind: Cluster['kind'] | string,
): Pick<Cluster, 'status' | 'status_info'> {
  if (kind === 'AddHostsCluster') return { status: 'adding-hosts', status_info: CLUSTER_INFO.addingHosts };
  if (kind === 'DisconnectedCluster') return { status: 'unmonitored', status_info: CLUSTER_INFO.unmonitored };
  return { status: 'insufficient', status_info: CLUSTER_INFO.insufficientInitial };
}

/** TransformClusterToDay2: an installed day-1 cluster starts accepting added hosts. */
export function transformClusterToDay2(
  cluster: Cluster,
  _input: Record<string, never>,
  ctx: SmContext,
): ClusterResult {
  if (cluster.status !== 'installed' || cluster.kind !== 'Cluster') {
    return failure(409, `Cluster ${cluster.id} cannot be transformed to day-2 in status ${cluster.status}`);
  }
  const apiVip = cluster.api_vips[0]?.ip;
  const umn = cluster.user_managed_networking;
  // Upstream changes status, kind and DNS name only: status_info keeps "Cluster is installed".
  const r = setClusterStatus(cluster, 'adding-hosts', cluster.status_info, ctx.now, {
    kind: 'AddHostsCluster',
    api_vip_dns_name: !umn && apiVip ? apiVip : `api.${cluster.name}.${cluster.base_dns_domain}`,
  });
  return clusterSuccess(cluster, r.cluster, r.events);
}
