// The AgentClusterInstall-only reconciler (kubeapi.md §3.2), for ACIs no ClusterDeployment
// manages: the CD it names is missing (upstream's InputError), or — a deliberate difference (spec
// README) — the CD exists but its clusterInstallRef names another install, which SpecSynced now
// reports instead of leaving the ACI silently untouched. It also lets such an ACI be deleted when
// it still carries our finalizer (its CD went away first).

import {
  AGENTCLUSTERINSTALL_FINALIZER,
  type AgentClusterInstall,
  type ClusterDeployment,
} from '../../api/index.ts';
import { computeAciStatus } from '../../records/clusters/status.ts';
import type { OperatorContext } from '../../records/context.ts';
import { referenceMismatch, type SpecSyncError } from '../../records/index.ts';
import { AGENT_CLUSTER_INSTALL } from '../../records/resources.ts';
import {
  isBeingDeleted,
  keyOf,
  type ReconcileRequest,
  type ReconcileResult,
  removeFinalizer,
  updateStatus,
} from '../../runtime/index.ts';
import type { ClusterControllerDeps } from './deps.ts';
import { teardownClusterInstall } from './teardown.ts';
import { CD_BY_INSTALL_REF_INDEX, isAgentInstallRef } from './watches.ts';

/** Whether the CD's clusterInstallRef names this ACI (then the CD reconciler owns it). */
export function cdManagesAci(cd: ClusterDeployment, aci: AgentClusterInstall): boolean {
  const ref = cd.spec.clusterInstallRef;
  return (
    ref?.group === 'extensions.hive.openshift.io' &&
    ref.kind === 'AgentClusterInstall' &&
    ref.name === aci.metadata.name &&
    cd.metadata.namespace === aci.metadata.namespace
  );
}

export function missingCdMessage(aci: AgentClusterInstall): string {
  return `ClusterDeployment with name '${aci.spec.clusterDeploymentRef.name}' in namespace '${aci.metadata.namespace}' not found. Ensure that the CRD is already applied.`;
}

export async function reconcileAgentClusterInstall(
  ctx: OperatorContext,
  deps: ClusterControllerDeps,
  req: ReconcileRequest,
): Promise<ReconcileResult | undefined> {
  const ns = req.namespace ?? '';
  const aci = ctx.informers.agentClusterInstalls.get(ns, req.name);
  if (!aci) return undefined;
  const cdName = aci.spec?.clusterDeploymentRef?.name ?? '';
  const cd = cdName ? ctx.informers.clusterDeployments.get(ns, cdName) : undefined;
  if (cd && cdManagesAci(cd, aci)) return undefined;
  // Another CD points at this ACI: its reconciler reports the mismatch (one writer per status).
  const claimedBy = ctx.informers.clusterDeployments.store.byIndex(
    CD_BY_INSTALL_REF_INDEX,
    keyOf(ns, req.name),
  );
  if (claimedBy.some((other) => isAgentInstallRef(other))) return undefined;

  if (isBeingDeleted(aci)) {
    // A CD that now manages another install keeps its Agents; only a vanished CD's are released.
    if (cd) {
      await removeFinalizer(ctx.client, AGENT_CLUSTER_INSTALL, aci, AGENTCLUSTERINSTALL_FINALIZER);
      return undefined;
    }
    return teardownClusterInstall(ctx, aci, keyOf(ns, cdName), cd, {
      cluster: undefined,
      writeCancelled: async () => {},
      recordEvents: (events) => deps.events(events, { aci, agents: [] }),
    });
  }

  let error: SpecSyncError;
  if (!cd) error = { kind: 'input', message: missingCdMessage(aci) };
  else {
    // The CD exists but points elsewhere (or nowhere): say so.
    error = { kind: 'input', message: referenceMismatch(cd, aci) ?? missingCdMessage(aci) };
  }
  await updateStatus(
    ctx.client,
    AGENT_CLUSTER_INSTALL,
    aci,
    (current) =>
      computeAciStatus(ctx, {
        cluster: undefined,
        aci: current,
        specSyncError: error,
        hold: false,
        unsyncedAgents: 0,
      }).status,
  );
  return undefined;
}
