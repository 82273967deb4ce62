// Decision logic of `agent-install wait-for`, as pure functions over snapshots of the cluster's
// AgentClusterInstall and Agents, so the CLI loop only polls, prints and exits.
//
// Exit codes follow `openshift-install agent wait-for`: 0 on success; 5 when the bootstrap did not
// complete (failure or timeout) and 6 when the installation did not complete; 1 for other errors
// (API unreachable, objects missing at the deadline); 2 for usage errors.
//
// bootstrap-complete has no single field in the Assisted Installer API, so it is derived:
// the bootstrap is complete once the bootstrap host's installation stage is past
// "Waiting for controller" (the bootstrap host reboots only after the control plane took over
// from bootkube: stage Rebooting, Configuring, Joined or Done), or once the cluster itself reached
// finalizing/installed (covers single-node clusters, whose only host bootstraps in place).

import type { Agent } from '../api/index.ts';
import { parseGoDuration } from '../core/statemachine/durations.ts';
import { agentDisplayName, type ClusterSnapshot, clusterState } from './status.ts';

export type WaitTarget = 'bootstrap-complete' | 'install-complete';
export const WAIT_TARGETS: readonly WaitTarget[] = ['bootstrap-complete', 'install-complete'];

export const EXIT_CODES = {
  success: 0,
  error: 1,
  usage: 2,
  bootstrapFailed: 5,
  installFailed: 6,
} as const;

/** Bootstrap host stages reached only after the bootstrap control plane handed over. */
export const BOOTSTRAP_DONE_STAGES: readonly string[] = ['Rebooting', 'Configuring', 'Joined', 'Done'];
/** Cluster states in which the bootstrap is over. */
const BOOTSTRAP_DONE_CLUSTER_STATES: readonly string[] = ['finalizing', 'installed', 'adding-hosts'];
const INSTALLED_CLUSTER_STATES: readonly string[] = ['installed', 'adding-hosts'];

export interface WaitDecision {
  done: boolean;
  exitCode: number;
  message: string;
}

function condition(snap: ClusterSnapshot, type: string) {
  return snap.agentClusterInstall?.status?.conditions?.find((c) => c.type === type);
}

export function bootstrapAgent(agents: readonly Agent[]): Agent | undefined {
  return agents.find((a) => a.status?.bootstrap === true);
}

/** Whether the bootstrap is complete (see the file comment for the definition). */
export function bootstrapComplete(snap: ClusterSnapshot): boolean {
  const { state } = clusterState(snap.agentClusterInstall);
  if (BOOTSTRAP_DONE_CLUSTER_STATES.includes(state)) return true;
  const stage = bootstrapAgent(snap.agents)?.status?.progress?.currentStage ?? '';
  return BOOTSTRAP_DONE_STAGES.includes(stage);
}

export function installComplete(snap: ClusterSnapshot): boolean {
  const completed = condition(snap, 'Completed');
  if (completed?.status === 'True') return true;
  return INSTALLED_CLUSTER_STATES.includes(clusterState(snap.agentClusterInstall).state);
}

/**
 * What to do after one poll. `elapsedMs` is the time since waiting started; a timeout of 0 or
 * less waits forever. Failure wins over success (a Failed cluster is not "bootstrapped").
 */
export function decideWait(
  target: WaitTarget,
  snap: ClusterSnapshot,
  elapsedMs: number,
  timeoutMs: number,
): WaitDecision {
  const failCode = target === 'bootstrap-complete' ? EXIT_CODES.bootstrapFailed : EXIT_CODES.installFailed;
  const failed = condition(snap, 'Failed');
  if (failed?.status === 'True') {
    return {
      done: true,
      exitCode: failCode,
      message: `Installation failed: ${failed.message ?? failed.reason ?? ''}`,
    };
  }
  const stopped = condition(snap, 'Stopped');
  if (stopped?.status === 'True' && stopped.reason === 'InstallationCancelled') {
    return { done: true, exitCode: failCode, message: `Installation cancelled: ${stopped.message ?? ''}` };
  }
  if (target === 'install-complete' && installComplete(snap)) {
    return { done: true, exitCode: EXIT_CODES.success, message: 'Cluster is installed' };
  }
  if (target === 'bootstrap-complete' && bootstrapComplete(snap)) {
    return { done: true, exitCode: EXIT_CODES.success, message: 'Cluster bootstrap is complete' };
  }
  if (timeoutMs > 0 && elapsedMs >= timeoutMs) {
    const { state, stateInfo } = clusterState(snap.agentClusterInstall);
    const where = snap.agentClusterInstall
      ? `cluster state ${state || 'unknown'}${stateInfo ? ` (${stateInfo})` : ''}`
      : 'AgentClusterInstall not found';
    return {
      done: true,
      exitCode: snap.agentClusterInstall ? failCode : EXIT_CODES.error,
      message: `Timed out after ${formatDuration(timeoutMs)} waiting for ${target}; ${where}`,
    };
  }
  return { done: false, exitCode: 0, message: '' };
}

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m}m${s % 60}s` : `${m}m`;
  return `${Math.floor(m / 60)}h${m % 60 ? `${m % 60}m` : ''}`;
}

/** Parses a Go duration (`30s`, `90m`, `1h30m`, `500ms`) or plain seconds; no sign, no spaces. */
export function parseDuration(s: string): number | undefined {
  if (/^\d+$/.test(s)) return Number(s) * 1000;
  if (!/^[\d.]/.test(s) || s !== s.trim()) return undefined;
  return parseGoDuration(s);
}

/** One line per fact that a live progress display shows; keyed so changes can be detected. */
export function progressFacts(snap: ClusterSnapshot): Map<string, string> {
  const facts = new Map<string, string>();
  const aci = snap.agentClusterInstall;
  if (aci) {
    const { state, stateInfo, percentage } = clusterState(aci);
    facts.set(
      'cluster',
      `Cluster ${state || 'unknown'}${stateInfo ? `: ${stateInfo}` : ''} (${percentage}%)`,
    );
  } else {
    facts.set('cluster', 'Waiting for the AgentClusterInstall');
  }
  for (const a of snap.agents) {
    const p = a.status?.progress;
    const state = a.status?.debugInfo?.state ?? '';
    const stage = p?.currentStage ? `, ${p.currentStage} (${p.installationPercentage ?? 0}%)` : '';
    facts.set(`agent/${a.metadata.name}`, `Host ${agentDisplayName(a)}: ${state || 'unknown'}${stage}`);
  }
  return facts;
}

/** Lines to print: the facts that changed since `previous`. */
export function changedLines(
  previous: ReadonlyMap<string, string>,
  next: ReadonlyMap<string, string>,
): string[] {
  const out: string[] = [];
  for (const [key, line] of next) if (previous.get(key) !== line) out.push(line);
  return out;
}
