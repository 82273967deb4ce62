// The AgentClusterInstall as the Agent reconciler reads it (issue 16). The cluster reconciler
// rewrites the ACI status on every host that registers: the cluster validations, the conditions
// built from them and the host counts change each time. None of these are inputs of an Agent's
// reconcile (what its validations read of the other hosts, their number included, comes from the
// Agents: controllers/agent/peers.ts), yet each write woke every Agent of the cluster, and each of
// those reconciles builds the cluster record from all its Agents: in a 1,000-host wave into
// clusters of 100 hosts, 16 Agent reconciles per registration instead of 2. The Agent reconciler
// builds its cluster view from this projection, and its AgentClusterInstall watch passes only
// changes to it, so what the filter drops cannot change what a reconcile computes.
import type { AgentClusterInstall } from '../../api/index.ts';
import { changedAsRead } from '../../runtime/index.ts';

/** The one condition the cluster record reads back (isClusterInstalled). */
const READ_CONDITION = 'Completed';

/**
 * The ACI less what the cluster reconciler derives for people: validationsInfo, the conditions
 * other than Completed, the host counts, and debugInfo's URLs (its state is the record's fallback
 * state). Every other field, and any field added later, stays in.
 */
export function aciAsAgentsRead(aci: AgentClusterInstall): AgentClusterInstall {
  const status = aci.status;
  if (!status) return aci;
  const {
    validationsInfo: _validations,
    conditions,
    controlPlaneAgentsDiscovered: _cpDiscovered,
    controlPlaneAgentsReady: _cpReady,
    workerAgentsDiscovered: _workersDiscovered,
    workerAgentsReady: _workersReady,
    debugInfo,
    ...kept
  } = status;
  const read = conditions?.filter((c) => c.type === READ_CONDITION);
  // The URLs name the service and carry tokens that are re-issued; nothing reads them back.
  const { eventsURL: _events, logsURL: _logs, ...state } = debugInfo ?? {};
  return {
    ...aci,
    status: {
      ...kept,
      ...(read?.length ? { conditions: read } : {}),
      debugInfo: { eventsURL: '', logsURL: '', ...state },
    },
  };
}

/** What every Agent of the cluster reads: the read projection less the majority groups. */
function aciAsAllAgentsRead(aci: AgentClusterInstall): AgentClusterInstall {
  const read = aciAsAgentsRead(aci);
  if (!read.status?.connectivityMajorityGroups) return read;
  const { connectivityMajorityGroups: _groups, ...status } = read.status;
  return { ...read, status };
}

/**
 * Whether an ACI update changes what every Agent of the cluster reads (the watch that wakes them
 * all). A change of the majority groups alone reaches only the hosts it concerns
 * (majorityGroupsOf, core's hostsWhoseGroupsChanged).
 */
export function aciChangeReachesAllAgents(o: AgentClusterInstall, n: AgentClusterInstall): boolean {
  return changedAsRead(aciAsAllAgentsRead, o, n);
}

/** The stored majority groups as the cluster record reads them (empty is none). */
export function majorityGroupsOf(aci: AgentClusterInstall): string | undefined {
  return aci.status?.connectivityMajorityGroups || undefined;
}

/**
 * Whether an ACI update changes the majority groups (the watch that wakes the hosts concerned).
 * With aciChangeReachesAllAgents it passes every change to what the Agent reconciler reads
 * (aciAsAgentsRead).
 */
export function majorityGroupsChanged(o: AgentClusterInstall, n: AgentClusterInstall): boolean {
  return majorityGroupsOf(o) !== majorityGroupsOf(n);
}
