// What a simulation reports: a typed event stream (for progress lines and tests) and aggregated
// counters (for load runs, where per-event output would be noise).

import type { HostStage } from '../core/model.ts';

export type SimEvent =
  | { type: 'registered'; host: string; hostId: string; count: number }
  | { type: 'gave-up'; host: string; hostId: string; reason: string }
  | { type: 'step'; host: string; hostId: string; stepType: string; exitCode: number; posted: boolean }
  | { type: 'runner-exit'; host: string; hostId: string; reason: string }
  | {
      type: 'stage';
      host: string;
      hostId: string;
      stage: HostStage;
      info: string;
      /** Who reported it: the host's installer, or the in-cluster controller it runs. */
      by: 'installer' | 'controller';
      /** Set when the stage was reported for another host (bootstrap duties, controller). */
      forHostId?: string;
    }
  | { type: 'rebooted'; host: string; hostId: string }
  | { type: 'logs-uploaded'; host: string; hostId: string; logsType: 'host' | 'controller' }
  | { type: 'cluster'; host: string; clusterId: string; action: string; detail?: string }
  | { type: 'error'; host: string; hostId: string; op: string; status: number; message: string };

export interface SimStats {
  hosts: number;
  /** Hosts that registered at least once. */
  registered: number;
  registrations: number;
  polls: number;
  /** Step replies posted (each accepted POST). */
  stepsAnswered: number;
  /** Replies not posted because the output equalled the cached one (the runner's dedup). */
  repliesDeduplicated: number;
  stepsByType: Record<string, number>;
  progressUpdates: number;
  /** Hosts whose installer reached Rebooting (the install step finished). */
  rebooted: number;
  /** Hosts whose installer reported Failed. */
  failed: number;
  /** Hosts that stopped for good where the real agent does (401/403/404/409). */
  gaveUp: number;
  /** complete-installation calls made by controllers. */
  clustersCompleted: number;
  /** HTTP exchanges by outcome: non-2xx statuses and "network" (no response). */
  errorsByStatus: Record<string, number>;
  requests: number;
}

export function emptyStats(hosts = 0): SimStats {
  return {
    hosts,
    registered: 0,
    registrations: 0,
    polls: 0,
    stepsAnswered: 0,
    repliesDeduplicated: 0,
    stepsByType: {},
    progressUpdates: 0,
    rebooted: 0,
    failed: 0,
    gaveUp: 0,
    clustersCompleted: 0,
    errorsByStatus: {},
    requests: 0,
  };
}

/** Folds one HTTP exchange into the counters. */
export function countResult(stats: SimStats, outcome: number | 'network'): void {
  stats.requests++;
  if (outcome === 'network' || outcome >= 300) {
    const key = String(outcome);
    stats.errorsByStatus[key] = (stats.errorsByStatus[key] ?? 0) + 1;
  }
}

/** One line for logs: "registered 998/1000 steps 2431 …". */
export function formatStats(s: SimStats): string {
  const errors = Object.entries(s.errorsByStatus)
    .map(([k, v]) => `${k}:${v}`)
    .join(',');
  return [
    `registered ${s.registered}/${s.hosts}`,
    `polls ${s.polls}`,
    `steps ${s.stepsAnswered} (dedup ${s.repliesDeduplicated})`,
    `progress ${s.progressUpdates}`,
    `rebooted ${s.rebooted}`,
    `failed ${s.failed}`,
    `gave-up ${s.gaveUp}`,
    `clusters-done ${s.clustersCompleted}`,
    `requests ${s.requests}`,
    `errors ${errors || '-'}`,
  ].join(' | ');
}
