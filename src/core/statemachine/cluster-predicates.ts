// Facts about a cluster and its hosts that the cluster rules (and host rule R28) use (spec §2.3).

import type { Cluster, Host, HostStatus } from '../model.ts';
import { CC } from './condition-ids.ts';
import { effectiveRole, isSingleNodeCluster } from './hostutil.ts';

export const INSTALLING_HOST_STATUSES: readonly HostStatus[] = [
  'installing',
  'installing-in-progress',
  'installed',
  'installing-pending-user-action',
  'preparing-successful',
];

function isMasterRole(role: string): boolean {
  return role === 'master' || role === 'bootstrap';
}

/** Two control-plane nodes fenced by their BMCs instead of an arbiter. */
export function isTwoNodesWithFencing(cluster: Cluster): boolean {
  if (cluster.control_plane_count !== 2) return false;
  if (cluster.hosts.some((h) => effectiveRole(h) === 'arbiter')) return false;
  const masters = cluster.hosts.filter((h) => isMasterRole(effectiveRole(h)));
  return masters.length === 2 && masters.every((h) => !!h.fencing_credentials);
}

/**
 * Whether enough masters (and arbiters / workers) are in one of `statuses` for the cluster to count
 * as installing / finalizing. In-status hosts are counted by effective role; expectations by role.
 */
export function hasEnoughMastersAndWorkers(cluster: Cluster, statuses: readonly HostStatus[]): boolean {
  const inStatus = cluster.hosts.filter((h) => statuses.includes(h.status));
  const countIn = (pred: (role: string) => boolean): number =>
    inStatus.filter((h) => pred(effectiveRole(h))).length;
  const masters = countIn(isMasterRole);
  const workers = countIn((r) => r === 'worker');
  if (isSingleNodeCluster(cluster)) return masters === 1 && workers === 0;

  const expectedMasters = cluster.hosts.filter((h) => isMasterRole(h.role)).length;
  const expectedArbiters = cluster.hosts.filter((h) => h.role === 'arbiter').length;
  const expectedWorkers = cluster.hosts.filter((h) => h.role === 'worker').length;
  let minMasters = 3;
  if (expectedArbiters > 0) {
    minMasters = 2;
    if (countIn((r) => r === 'arbiter') < 1) return false;
  } else if (isTwoNodesWithFencing(cluster)) {
    minMasters = 2;
  }
  if (expectedMasters < minMasters || masters < expectedMasters) return false;
  return expectedWorkers < 2 || workers >= 2;
}

/** Enough hosts installed: the cluster moves on to finalizing. */
export function isFinalizing(cluster: Cluster): boolean {
  return hasEnoughMastersAndWorkers(cluster, ['installed']);
}

/** Enough hosts still on their way: the cluster keeps installing. */
export function isInstalling(cluster: Cluster): boolean {
  return hasEnoughMastersAndWorkers(cluster, INSTALLING_HOST_STATUSES);
}

export function hasHostInStatus(cluster: Cluster, status: HostStatus): boolean {
  return cluster.hosts.some((h) => h.status === status);
}

/** Kubeconfig uploaded and every monitored operator settled (builtin available; OLM available/failed). */
export function isClusterComplete(cluster: Cluster): boolean {
  if (!cluster.kubeconfig_uploaded) return false;
  const operators = cluster.monitored_operators ?? [];
  return operators.every((op) =>
    op.operator_type === 'builtin'
      ? op.status === 'available'
      : op.status === 'available' || op.status === 'failed',
  );
}

export function allHostsDone(cluster: Cluster): boolean {
  return cluster.hosts.every((h) => h.status === 'installed' || h.status === 'error');
}

/** The non-validation cluster conditions of §2.3. */
export function clusterConditions(cluster: Cluster): Record<string, boolean> {
  const hosts: Host[] = cluster.hosts;
  const preparingLike: readonly HostStatus[] = [
    'preparing-for-installation',
    'preparing-successful',
    'preparing-failed',
    'known',
  ];
  const prep = cluster.last_installation_preparation?.status;
  return {
    [CC.vipDhcpAllocationSet]: cluster.vip_dhcp_allocation === true,
    [CC.allHostsPreparedSuccessfully]: hosts.every((h) => h.status === 'preparing-successful'),
    [CC.unpreparingHostsExist]: hosts.some((h) => !preparingLike.includes(h.status)),
    [CC.failedPreparingHostsExist]: hosts.some((h) => h.status === 'preparing-failed'),
    [CC.clusterPreparationSucceeded]: prep === 'success',
    [CC.clusterPreparationFailed]: prep === 'failed',
  };
}
