// Deletion paths (kubeapi.md §3.1.2 steps 4–5):
//
// * AgentClusterInstall deleted → cancel a running installation, delete the Agents that came from
//   an InfraEnv bound to this cluster, return late-bound Agents to their pool (clear
//   spec.clusterDeploymentName; deleted instead when the CD has preserveOnDelete), drop the
//   cluster's generated files and logs, then remove the ACI finalizer. The ClusterDeployment stays.
// * ClusterDeployment deleted → delete its ACI (which runs the above) and remove the CD finalizer
//   once the ACI is gone.
//
// A step that cannot finish is reported (log line and a Warning Event on the object whose
// deletion waits) and retried after 10 s.

import {
  AGENTCLUSTERINSTALL_FINALIZER,
  type Agent,
  type AgentClusterInstall,
  CLUSTERDEPLOYMENT_FINALIZER,
  type ClusterDeployment,
  INFRAENV_LABEL,
} from '../../api/index.ts';
import type { SmEvent } from '../../core/statemachine/index.ts';
import { cancelClusterInstallation } from '../../core/statemachine/index.ts';
import { removeClusterFiles, removeClusterLogs } from '../../records/clusters/artifacts-store.ts';
import { forgetVipVerifications } from '../../records/clusters/vip-verifications.ts';
import type { OperatorContext } from '../../records/context.ts';
import type { AgentCluster } from '../../records/index.ts';
import { AGENT, AGENT_CLUSTER_INSTALL, CLUSTER_DEPLOYMENT } from '../../records/resources.ts';
import {
  hasFinalizer,
  isBeingDeleted,
  isNotFound,
  keyOf,
  type ReconcileResult,
  removeFinalizer,
} from '../../runtime/index.ts';
import { writeHostChanges } from './hosts-write.ts';

export const TEARDOWN_RETRY_MS = 10_000;

/** Cluster statuses in which deleting the ACI cancels the installation first. */
const CANCEL_ON_DELETE = [
  'installing',
  'preparing-for-installation',
  'installing-pending-user-action',
  'finalizing',
  'error',
];

export type AgentDisposal = 'delete' | 'unbind';

/**
 * What happens to an Agent of a deleted cluster: Agents whose InfraEnv is bound to the cluster are
 * deleted; late-bound ones are released (or deleted when the CD asks to preserve nothing of
 * them: preserveOnDelete); without a known InfraEnv they are released.
 */
export function agentDisposal(
  ctx: OperatorContext,
  agent: Agent,
  cdKey: string,
  cd: ClusterDeployment | undefined,
): AgentDisposal {
  const ieName = agent.metadata.labels?.[INFRAENV_LABEL];
  if (!ieName) return 'unbind';
  const ie = ctx.informers.infraEnvs.get(agent.metadata.namespace, ieName);
  if (!ie) return 'unbind';
  const ref = ie.spec.clusterRef;
  if (ref?.name) {
    const boundTo = keyOf(ref.namespace || ie.metadata.namespace, ref.name);
    return boundTo === cdKey ? 'delete' : 'unbind';
  }
  return cd?.spec.preserveOnDelete === true ? 'delete' : 'unbind';
}

export interface TeardownDeps {
  /** The cluster record, when one exists (for cancelling a running installation). */
  cluster: AgentCluster | undefined;
  /** Writes the ACI status for a cancelled cluster. */
  writeCancelled: (cluster: AgentCluster) => Promise<void>;
  recordEvents: (events: readonly SmEvent[]) => void;
}

/** The AgentClusterInstall is being deleted (the CD may or may not exist). */
export async function teardownClusterInstall(
  ctx: OperatorContext,
  aci: AgentClusterInstall,
  cdKey: string,
  cd: ClusterDeployment | undefined,
  deps: TeardownDeps,
): Promise<ReconcileResult | undefined> {
  if (!hasFinalizer(aci, AGENTCLUSTERINSTALL_FINALIZER)) return undefined;
  const log = ctx.logger.child({
    controller: 'clusterdeployment',
    aci: `${aci.metadata.namespace}/${aci.metadata.name}`,
  });
  const agents = ctx.agentsOfCluster(cdKey);
  const { cluster } = deps;

  if (cluster && CANCEL_ON_DELETE.includes(cluster.status)) {
    const cancelled = cancelClusterInstallation(cluster, {}, { now: ctx.now() });
    if (cancelled.ok) {
      const next = cancelled.cluster as AgentCluster;
      await writeHostChanges(
        ctx,
        agents,
        cluster.hosts,
        next.hosts as AgentCluster['hosts'],
        cancelled.changedHostIds,
      );
      await deps.writeCancelled(next);
      deps.recordEvents(cancelled.events);
    } else {
      // Upstream aborts the deletion step here; the hosts are deleted or released below anyway.
      log.info({ reason: cancelled.error.message }, 'installation could not be cancelled before deletion');
    }
  }

  const failures: string[] = [];
  for (const agent of agents) {
    const name = agent.metadata.name ?? '';
    const ns = agent.metadata.namespace;
    try {
      if (agentDisposal(ctx, agent, cdKey, cd) === 'delete') {
        if (!isBeingDeleted(agent)) await ctx.client.delete(AGENT, name, ns);
      } else {
        await ctx.client.patch(AGENT, name, ns, 'merge', { spec: { clusterDeploymentName: null } });
      }
    } catch (err) {
      if (!isNotFound(err)) failures.push(`${ns}/${name}: ${(err as Error).message}`);
    }
  }
  if (failures.length > 0) {
    const message = `could not release the cluster's Agents: ${failures.join('; ')}`;
    log.warn(message);
    ctx.mgr.events.event(aci, 'Warning', 'DeprovisionFailed', message);
    return { requeueAfter: TEARDOWN_RETRY_MS };
  }

  // "Deregister": the record lives in the CRs; the data directory holds the rest.
  const clusterId = cd?.metadata.uid ?? aci.status?.backend?.clusterID;
  if (clusterId) {
    try {
      await removeClusterFiles(ctx, clusterId);
      await removeClusterLogs(ctx, clusterId);
      forgetVipVerifications(ctx, clusterId);
    } catch (err) {
      const message = `could not remove the cluster's files: ${(err as Error).message}`;
      log.warn(message);
      ctx.mgr.events.event(aci, 'Warning', 'DeprovisionFailed', message);
      return { requeueAfter: TEARDOWN_RETRY_MS };
    }
  }
  await removeFinalizer(ctx.client, AGENT_CLUSTER_INSTALL, aci, AGENTCLUSTERINSTALL_FINALIZER);
  return undefined;
}

/** The ClusterDeployment is being deleted: delete its ACI first, then let the CD go. */
export async function teardownClusterDeployment(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  aci: AgentClusterInstall | undefined,
): Promise<ReconcileResult | undefined> {
  if (!hasFinalizer(cd, CLUSTERDEPLOYMENT_FINALIZER)) return undefined;
  if (aci) {
    if (!isBeingDeleted(aci)) {
      try {
        await ctx.client.delete(AGENT_CLUSTER_INSTALL, aci.metadata.name ?? '', aci.metadata.namespace);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    }
    const message = `could not confirm clusterInstall ${aci.metadata.name} deletion was successfuly completed`;
    ctx.logger.info({ cd: `${cd.metadata.namespace}/${cd.metadata.name}` }, message);
    ctx.mgr.events.event(cd, 'Normal', 'WaitingForClusterInstallDeletion', message);
    return { requeueAfter: TEARDOWN_RETRY_MS };
  }
  await removeFinalizer(ctx.client, CLUSTER_DEPLOYMENT, cd, CLUSTERDEPLOYMENT_FINALIZER);
  return undefined;
}
