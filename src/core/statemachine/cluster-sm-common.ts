// Types and post-transition building blocks of the cluster state machine.

import type { Cluster, ClusterStatus, VipEntry } from '../model.ts';
import { cidrContains } from '../network/cidr.ts';
import { clusterSuccess, setClusterStatus } from './cluster-update.ts';
import type { RuleEngine } from './engine.ts';
import { requiresUserActionReset } from './host-conditions.ts';
import { resetHostPendingUserAction } from './host-sm.ts';
import { isSingleNodeCluster } from './hostutil.ts';
import type { StateMachineOptions } from './options.ts';
import { PROGRESS_WEIGHT } from './progress.ts';
import { type ClusterAction, type ClusterResult, failure, type SmEvent } from './result.ts';

export const CLUSTER_TRANSITIONS = [
  'CancelInstallation',
  'ResetCluster',
  'PrepareForInstallation',
  'RefreshStatus',
] as const;
export type ClusterTransitionType = (typeof CLUSTER_TRANSITIONS)[number];

export interface ClusterArgs {
  readonly cluster: Cluster;
  readonly now: Date;
  readonly options: StateMachineOptions;
  readonly conditions: Readonly<Record<string, boolean>>;
  /** Service soft-timeouts flag AND the cluster organisation's. */
  readonly soft: boolean;
  /** Status info of the event-driven transitions. */
  readonly reason?: string;
}

export type ClusterApply = (a: ClusterArgs, from: ClusterStatus, to: ClusterStatus) => ClusterResult;
export type ClusterEngine = RuleEngine<ClusterTransitionType, ClusterStatus, ClusterArgs, ClusterResult>;

/** The SNO node's address in the primary machine network (upstream GetIpForSingleNodeInstallation). */
export function singleNodeIp(cluster: Cluster): { ip: string } | { error: string } {
  const host =
    cluster.hosts.find((h) => h.bootstrap) ?? (cluster.hosts.length === 1 ? cluster.hosts[0] : undefined);
  if (!host) return { error: 'no bootstrap host were found in cluster' };
  const cidr = cluster.machine_networks[0]?.cidr;
  const addresses = (host.inventory?.interfaces ?? []).flatMap((i) => [
    ...(i.ipv4_addresses ?? []),
    ...(i.ipv6_addresses ?? []),
  ]);
  for (const address of addresses) {
    const ip = address.split('/')[0] as string;
    if (cidr && cidrContains(cidr, ip)) return { ip };
  }
  return {
    error: `Failed to find host ip for single node installation in machine network ${cidr ?? '<none>'}`,
  };
}

/** Extra fields written when a cluster (re)enters `installing` (upstream addExtraParams). */
function installingExtras(a: ClusterArgs, from: ClusterStatus): Partial<Cluster> | { error: string } {
  const extra: Partial<Cluster> = {};
  if (isSingleNodeCluster(a.cluster)) {
    const found = singleNodeIp(a.cluster);
    if ('error' in found) return found;
    const vip: VipEntry[] = [{ ip: found.ip }];
    extra.api_vips = vip;
    extra.ingress_vips = vip.map((v) => ({ ...v }));
  }
  if (from === 'preparing-for-installation') {
    extra.progress = {
      ...a.cluster.progress,
      preparing_for_installation_stage_percentage: 100,
      total_percentage: Math.trunc(PROGRESS_WEIGHT.preparing * 100),
    };
  }
  return extra;
}

/**
 * If the cluster ends up `insufficient` while a host needs a manual reboot to reset, every host
 * goes to resetting-pending-user-action (all or nothing, like upstream's transaction).
 */
export function withPendingUserReset(
  a: ClusterArgs,
  next: Cluster,
  events: SmEvent[],
  more: { rule?: string; actions?: ClusterAction[] } = {},
): ClusterResult {
  let cluster = next;
  let changedHostIds: string[] = [];
  const allEvents = [...events];
  if (
    cluster.status === 'insufficient' &&
    cluster.hosts.some((h) => requiresUserActionReset(h, a.now, a.options))
  ) {
    const results = cluster.hosts.map((h) =>
      resetHostPendingUserAction(h, {}, { now: a.now, options: a.options }),
    );
    const succeeded = results.filter((r) => r.ok);
    // Upstream resets all hosts in one transaction: one failure rolls every host back.
    if (succeeded.length === results.length) {
      cluster = { ...cluster, hosts: succeeded.map((r) => r.host) };
      changedHostIds = succeeded.filter((r) => r.changed).map((r) => r.host.id);
      for (const r of succeeded) allEvents.push(...r.events);
    }
  }
  return clusterSuccess(a.cluster, cluster, allEvents, { ...more, changedHostIds });
}

/** Upstream's PostRefreshCluster: write status+info when either changed, then the reset check. */
export function postRefresh(
  reason: string | ((a: ClusterArgs) => string),
  extra: (a: ClusterArgs) => Partial<Cluster> = () => ({}),
): ClusterApply {
  return (a, from, to) => {
    const info = typeof reason === 'function' ? reason(a) : reason;
    if (from === to && a.cluster.status_info === info) return withPendingUserReset(a, a.cluster, []);
    let fields = extra(a);
    if (to === 'installing') {
      const more = installingExtras(a, from);
      if ('error' in more) return failure(500, more.error as string);
      fields = { ...fields, ...more };
    }
    const r = setClusterStatus(a.cluster, to, info, a.now, fields);
    return withPendingUserReset(a, r.cluster, r.events);
  };
}

/** A rule that leaves the cluster as it is. */
export function stayCluster(a: ClusterArgs): ClusterResult {
  return clusterSuccess(a.cluster, a.cluster, []);
}

/** Event-driven transitions: always write status + reason (+ extra fields). */
export function moveCluster(
  info: (a: ClusterArgs) => string,
  extra: (a: ClusterArgs) => Partial<Cluster> = () => ({}),
): ClusterApply {
  return (a, _from, to) => {
    const r = setClusterStatus(a.cluster, to, info(a), a.now, extra(a));
    return clusterSuccess(a.cluster, r.cluster, r.events);
  };
}
