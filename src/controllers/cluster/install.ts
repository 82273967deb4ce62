// Starting installations (kubeapi.md §3.1.8, §3.1.10; core.md §2.5), as pure functions of the
// cluster record: when a day-1 cluster may start, the start itself (roles → ready check →
// preparing + bootstrap), and which day-2 hosts to install. The reconciler writes the results.

import type { MonitoredOperator } from '../../core/model.ts';
import {
  assignRolesForInstall,
  installHost,
  isDay2Host,
  type RoleFitness,
  type SmContext,
  type SmEvent,
  startInstallation,
} from '../../core/statemachine/index.ts';
import {
  type AgentCluster,
  type AgentHost,
  aciConditionValues,
  type ProvisionCounts,
} from '../../records/index.ts';

/** Builtin operators every day-1 cluster monitors (upstream: console and cvo). */
export function defaultMonitoredOperators(): MonitoredOperator[] {
  return [
    { name: 'console', operator_type: 'builtin', namespace: 'openshift-console', timeout_seconds: 3600 },
    {
      name: 'cvo',
      operator_type: 'builtin',
      namespace: 'openshift-cluster-version',
      timeout_seconds: 3600,
    },
  ];
}

export interface InstallGate {
  cluster: AgentCluster;
  requirements: ProvisionCounts;
  /** holdInstallation or the reconcile-pause annotation. */
  held: boolean;
  /** Agents of this ClusterDeployment whose SpecSynced is False. */
  unsyncedAgents: number;
}

/**
 * Why a day-1 installation does not start now, or undefined when it should (§3.1.8): the cluster
 * is ready, not held, exactly the required number of known and approved hosts, suggested roles
 * matching the requirements, and no Agent with a spec error.
 */
export function installBlocker(gate: InstallGate): string | undefined {
  const { cluster, requirements } = gate;
  if (cluster.kind !== 'Cluster') return `cluster kind is ${cluster.kind}`;
  if (cluster.status !== 'ready') return `cluster status is ${cluster.status}`;
  if (gate.held) return 'installation is held';
  const expected = requirements.controlPlane + requirements.arbiters + requirements.workers;
  const known = cluster.hosts.filter((h) => h.status === 'known');
  if (known.length !== expected) return `${known.length} hosts are known, ${expected} are required`;
  const condition = aciConditionValues({
    cluster,
    requirements,
    hold: false,
    unsyncedAgents: gate.unsyncedAgents,
  }).find((c) => c.type === 'RequirementsMet');
  if (condition?.reason !== 'ClusterIsReady') return condition?.message ?? 'requirements are not met';
  return undefined;
}

export type InstallStart =
  | { ok: true; cluster: AgentCluster; changedHostIds: string[]; events: SmEvent[] }
  | { ok: false; code: number; message: string };

/**
 * Upstream's InstallClusterInternal (core.md §2.5 steps 1–4): auto-assign roles, insist on a
 * ready cluster, then move it to preparing-for-installation and choose the bootstrap host. The
 * re-validation after auto-assignment (step 2) happens on the hosts' next refresh: a host that no
 * longer qualifies leaves `known`, and the preparing cluster then falls back (CR8).
 */
export function startDay1Installation(cluster: AgentCluster, fits: RoleFitness, sm: SmContext): InstallStart {
  const roles = assignRolesForInstall(cluster, fits);
  if (!roles.ok) return { ok: false, code: roles.error.code, message: roles.error.message };
  const started = startInstallation(roles.cluster, sm);
  if (!started.ok) return { ok: false, code: started.error.code, message: started.error.message };
  const changed = new Set([...roles.changedHostIds, ...started.changedHostIds]);
  return {
    ok: true,
    cluster: started.cluster as AgentCluster,
    changedHostIds: [...changed],
    events: started.events,
  };
}

/** Day-2 hosts to install now: known and approved (§3.1.10 installDay2Hosts). */
export function day2HostsToInstall(cluster: AgentCluster): AgentHost[] {
  if (cluster.kind !== 'AddHostsCluster') return [];
  return cluster.hosts.filter((h) => isDay2Host(h) && h.status === 'known' && h.approved);
}

/** InstallHost (known → installing) for one day-2 host. */
export function installDay2Host(
  host: AgentHost,
  sm: SmContext,
): { ok: true; host: AgentHost; events: SmEvent[] } | { ok: false; message: string } {
  const r = installHost(host, {}, sm);
  if (!r.ok) return { ok: false, message: r.error.message };
  return { ok: true, host: { ...(r.host as AgentHost), approved: host.approved }, events: r.events };
}
