// The install flow around the state machines (spec §2.5) as pure steps. Validation happens between
// steps in the caller: after roles were auto-assigned it re-validates and refreshes before step 3.

import type { Cluster, Host } from '../model.ts';
import { chooseBootstrapHost } from './bootstrap.ts';
import { cancelClusterTransition, prepareForInstallation, resetClusterTransition } from './cluster-sm.ts';
import { clusterSuccess } from './cluster-update.ts';
import { cancelHostInstallation, resetHostPendingUserAction } from './host-sm.ts';
import { hostnameForMessage, isDay2Host } from './hostutil.ts';
import { schedulableMastersForcedTrue } from './monitor.ts';
import {
  type ClusterResult,
  failure,
  type HostResult,
  type SmContext,
  type SmError,
  type SmEvent,
} from './result.ts';
import { anyRoleAutoAssigned, autoAssignRoles, type RoleFitness } from './role-assignment.ts';

export interface RoleStepResult {
  readonly ok: true;
  readonly cluster: Cluster;
  readonly changedHostIds: string[];
  /** Roles were assigned: re-run host/cluster validations and refreshes before checking readiness. */
  readonly needsRefresh: boolean;
}

/** Steps 1–2: auto-assign roles (all hosts need an inventory) and insist day-1 hosts are known. */
export function assignRolesForInstall(
  cluster: Cluster,
  fits: RoleFitness,
): RoleStepResult | { ok: false; error: SmError } {
  const assigned = autoAssignRoles(cluster, fits);
  const next: Cluster = { ...cluster, hosts: assigned.hosts };
  next.schedulable_masters_forced_true = schedulableMastersForcedTrue(next);
  const autoAssigned = anyRoleAutoAssigned(assigned);
  if (autoAssigned) {
    const notReady = next.hosts.find((h) => !isDay2Host(h) && h.status !== 'known');
    if (notReady) {
      return failure(
        400,
        `Host ${hostnameForMessage(notReady)} is in status ${notReady.status} and not ready for install`,
      );
    }
  }
  return { ok: true, cluster: next, changedHostIds: assigned.changedHostIds, needsRefresh: autoAssigned };
}

/** Step 3: only a `ready` cluster may start. */
export function checkReadyForInstall(cluster: Cluster): SmError | undefined {
  if (cluster.status === 'ready') return undefined;
  return {
    code: 409,
    message: `Cluster is not ready for installation, ${cluster.status_info} validation_info=${JSON.stringify(cluster.validations_info ?? {})}`,
  };
}

/** Step 4: ready → preparing-for-installation and the bootstrap host chosen, together or not at all. */
export function startInstallation(cluster: Cluster, ctx: SmContext): ClusterResult {
  const ready = checkReadyForInstall(cluster);
  if (ready) return { ok: false, error: ready };
  const prepared = prepareForInstallation(cluster, {}, ctx);
  if (!prepared.ok) return prepared;
  const bootstrap = chooseBootstrapHost(prepared.cluster);
  if (!bootstrap.ok) return bootstrap;
  const next = { ...prepared.cluster, hosts: bootstrap.hosts };
  return clusterSuccess(cluster, next, [...prepared.events, ...bootstrap.events], {
    ...(prepared.rule ? { rule: prepared.rule } : {}),
    changedHostIds: bootstrap.changed ? [bootstrap.hostId] : [],
  });
}

/** Step 6 succeeded: install files are generated (HandlePreInstallSuccess). */
export function handlePreInstallSuccess(
  cluster: Cluster,
  input: { openshiftClusterId?: string },
  _ctx: SmContext,
): ClusterResult {
  const next: Cluster = {
    ...cluster,
    last_installation_preparation: { status: 'success', reason: '' },
    ...(input.openshiftClusterId ? { openshift_cluster_id: input.openshiftClusterId } : {}),
  };
  return clusterSuccess(cluster, next, []);
}

/** Step 6 failed: the error text becomes the preparation reason (CR9 then moves the cluster to ready). */
export function handlePreInstallError(
  cluster: Cluster,
  input: { error: string },
  _ctx: SmContext,
): ClusterResult {
  const next: Cluster = {
    ...cluster,
    last_installation_preparation: { status: 'failed', reason: input.error },
  };
  const event: SmEvent = {
    name: 'cluster_prepare_installation_failed',
    severity: 'error',
    message: `Failed to prepare the installation due to an unexpected error: ${input.error}. Please retry later`,
    cluster_id: cluster.id,
  };
  return clusterSuccess(cluster, next, [event]);
}

/** Step 8: a host re-registered while preparing reset the preparation; redo HandlePreInstallSuccess. */
export function needsPreInstallSuccessRerun(cluster: Cluster): boolean {
  return (
    cluster.status === 'preparing-for-installation' &&
    cluster.hosts.length > 0 &&
    cluster.hosts.every((h) => h.status === 'preparing-successful') &&
    cluster.last_installation_preparation?.status === 'not_started'
  );
}

function applyToHosts(before: Cluster, after: ClusterResult, each: (h: Host) => HostResult): ClusterResult {
  if (!after.ok) return after;
  const results = after.cluster.hosts.map(each);
  const failed = results.find((r) => !r.ok);
  if (failed && !failed.ok) return failed;
  const hosts = results.map((r, i) => (r.ok ? r.host : (after.cluster.hosts[i] as Host)));
  const changedHostIds = results.flatMap((r, i) => (r.ok && r.changed ? [hosts[i]?.id as string] : []));
  const events = [...after.events, ...results.flatMap((r) => (r.ok ? r.events : []))];
  return clusterSuccess(before, { ...after.cluster, hosts }, events, {
    ...(after.rule ? { rule: after.rule } : {}),
    actions: after.actions,
    changedHostIds,
  });
}

/** V2ResetCluster: the cluster back to insufficient and every host to resetting-pending-user-action. */
export function resetClusterInstallation(
  cluster: Cluster,
  input: { reason?: string },
  ctx: SmContext,
): ClusterResult {
  return applyToHosts(cluster, resetClusterTransition(cluster, input, ctx), (h) =>
    resetHostPendingUserAction(h, {}, ctx),
  );
}

/** Cancel: the cluster and each host; a single host without a cancel rule aborts the whole operation. */
export function cancelClusterInstallation(
  cluster: Cluster,
  input: { reason?: string },
  ctx: SmContext,
): ClusterResult {
  return applyToHosts(cluster, cancelClusterTransition(cluster, input, ctx), (h) =>
    cancelHostInstallation(h, input.reason ? { reason: input.reason } : {}, ctx),
  );
}
