// Pure formatting of a cluster's installation status for `agent-install status` and the progress
// lines of `agent-install wait-for`: cluster state/stateInfo/progress from the AgentClusterInstall
// and a table of the cluster's Agents.

import type { Agent, AgentClusterInstall, ClusterDeployment } from '../api/index.ts';
import { sortedFailingValidationMessages } from '../records/validation-messages.ts';

/** What `status` and `wait-for` read: the cluster's objects at one moment. */
export interface ClusterSnapshot {
  clusterDeployment?: ClusterDeployment;
  agentClusterInstall?: AgentClusterInstall;
  agents: Agent[];
}

const TROUBLE_WHEN_TRUE = new Set(['Failed', 'LastInstallationPreparationFailed']);
const TROUBLE_WHEN_FALSE = new Set(['SpecSynced', 'RequirementsMet', 'Validated']);

/** Validation statuses that are not a problem (as the Agent Validated condition counts them). */
const PASSING_VALIDATIONS = ['success', 'disabled'];

/** `[#######-------------]  35%`; out-of-range values are clamped, missing ones show as 0%. */
export function progressBar(percentage: number | undefined, width = 20): string {
  const pct = Math.max(0, Math.min(100, Math.round(percentage ?? 0)));
  const filled = Math.round((pct / 100) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(pct).padStart(3)}%`;
}

export function agentDisplayName(a: Agent): string {
  return a.spec.hostname || a.status?.inventory?.hostname || a.metadata.name || '';
}

export interface HostRow {
  name: string;
  hostname: string;
  role: string;
  state: string;
  stage: string;
  progress: string;
  failingValidations: string[];
}

export function hostRow(a: Agent): HostRow {
  const role = a.status?.role || a.spec.role || 'auto-assign';
  return {
    name: a.metadata.name ?? '',
    hostname: agentDisplayName(a),
    role: a.status?.bootstrap ? `${role} (bootstrap)` : role,
    state: a.status?.debugInfo?.state ?? '',
    stage: a.status?.progress?.currentStage ?? '',
    progress: progressBar(a.status?.progress?.installationPercentage),
    failingValidations: sortedFailingValidationMessages(a.status?.validationsInfo, PASSING_VALIDATIONS),
  };
}

/** Rows sorted by role (masters first), then hostname, so the table is stable between calls. */
export function hostRows(agents: readonly Agent[]): HostRow[] {
  const rank = (r: string) =>
    r.startsWith('master') ? 0 : r.startsWith('arbiter') ? 1 : r.startsWith('worker') ? 2 : 3;
  return agents
    .map(hostRow)
    .sort(
      (a, b) =>
        rank(a.role) - rank(b.role) || a.hostname.localeCompare(b.hostname) || a.name.localeCompare(b.name),
    );
}

/** Left-aligned text table; the last column is not padded. */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

export function clusterState(aci: AgentClusterInstall | undefined): {
  state: string;
  stateInfo: string;
  percentage: number;
} {
  return {
    state: aci?.status?.debugInfo?.state ?? '',
    stateInfo: aci?.status?.debugInfo?.stateInfo ?? '',
    percentage: aci?.status?.progress?.totalPercentage ?? 0,
  };
}

/** The full `status` output. */
export function formatStatus(name: string, namespace: string, snap: ClusterSnapshot): string {
  const lines: string[] = [];
  const cd = snap.clusterDeployment;
  const aci = snap.agentClusterInstall;
  const cluster = cd ? `${cd.spec.clusterName}.${cd.spec.baseDomain}` : '(ClusterDeployment not found)';
  lines.push(`Cluster:   ${namespace}/${name} (${cluster})`);
  if (!aci) {
    lines.push('Install:   AgentClusterInstall not found');
  } else {
    const { state, stateInfo, percentage } = clusterState(aci);
    lines.push(`State:     ${state || 'unknown'}${stateInfo ? ` - ${stateInfo}` : ''}`);
    lines.push(`Progress:  ${progressBar(percentage)}`);
    const req = aci.spec.provisionRequirements;
    const st = aci.status;
    lines.push(
      `Hosts:     control plane ${st?.controlPlaneAgentsReady ?? 0}/${req.controlPlaneAgents} ready, ` +
        `workers ${st?.workerAgentsReady ?? 0}/${req.workerAgents ?? 0} ready`,
    );
    // Failed and LastInstallationPreparationFailed report trouble when True; SpecSynced,
    // RequirementsMet and Validated when False; Completed and Stopped are progress, not problems.
    const problems = (st?.conditions ?? []).filter((c) =>
      TROUBLE_WHEN_TRUE.has(c.type)
        ? c.status === 'True'
        : TROUBLE_WHEN_FALSE.has(c.type) && c.status === 'False',
    );
    for (const c of problems)
      lines.push(`Condition: ${c.type}=${c.status} ${c.reason ?? ''}: ${c.message ?? ''}`);
  }
  lines.push('');
  if (snap.agents.length === 0) {
    lines.push('No Agents are bound to this cluster yet.');
    return `${lines.join('\n')}\n`;
  }
  const rows = hostRows(snap.agents);
  lines.push(
    table(
      ['NAME', 'HOSTNAME', 'ROLE', 'STATE', 'STAGE', 'PROGRESS'],
      rows.map((r) => [r.name, r.hostname, r.role, r.state, r.stage, r.progress]),
    ),
  );
  const failing = rows.filter((r) => r.failingValidations.length > 0);
  if (failing.length > 0) {
    lines.push('', 'Failing validations:');
    for (const r of failing) {
      for (const m of r.failingValidations) lines.push(`  ${r.hostname || r.name}: ${m}`);
    }
  }
  return `${lines.join('\n')}\n`;
}
