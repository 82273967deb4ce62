// Connectivity majority groups are computed from every host's connectivity report: O(n²) in a
// cluster of n hosts (about 0.2 s at 1,000 hosts in a full mesh). Upstream's cluster monitor computes
// them once per 10 s cycle; here the cluster pass runs on every change, and a changed report wakes
// it, so a large cluster could spend a core on them (issue 16 item 4). Passes reuse the last
// result while the inputs are the same objects (each host's id, report and inventory), and after
// a costly computation wait PACE_FACTOR times its duration (at most MAX_SPACING_MS, upstream's
// cycle) before the next, asking to be woken then: at most 1/PACE_FACTOR of a core per cluster,
// and results at most one cycle old. Cheap computations (small clusters) are neither paced nor
// remembered. In clusters of BACKGROUND_FROM_HOSTS hosts or more a computation (0.2 s at 1,000
// hosts) runs in slices of SLICE_MS between other work instead of blocking the event loop; the
// passes meanwhile keep what the record holds and look again every BACKGROUND_POLL_MS.

import { performance } from 'node:perf_hooks';
import type { Host } from '../../core/model.ts';
import {
  connectivitySteps,
  detectIpCollisions,
  formatConnectivity,
  formatIpCollisions,
} from '../../core/network/connectivity.ts';
import { sameItems } from '../../util/same-items.ts';
import { finish, type Steps } from '../../util/steps.ts';

export interface ConnectivityResult {
  groups: string;
  /** Undefined when no host has a report (the record's value stays). */
  ipCollisions: string | undefined;
}

/** What the cluster monitor stores for these hosts: majority groups and IP collisions. */
export function computedConnectivity(hosts: Host[], minGroupSize: number): ConnectivityResult {
  return finish(connectivityResultSteps(hosts, minGroupSize));
}

function* connectivityResultSteps(hosts: Host[], minGroupSize: number): Steps<ConnectivityResult> {
  const groups = yield* connectivitySteps(hosts, minGroupSize);
  return {
    groups: formatConnectivity(groups),
    ipCollisions: hosts.some((h) => h.connectivity)
      ? formatIpCollisions(detectIpCollisions(hosts))
      : undefined,
  };
}

/** A computation this long or longer is paced and remembered. */
export const PACE_MIN_MS = 1;
/**
 * Clusters smaller than this are never paced: they compute in well under a millisecond (100
 * hosts: about 5 ms), so only a pause that hit one (a GC, the process descheduled) reaches
 * PACE_MIN_MS, and pacing it requeued a one-host cluster's pass for no change of its own.
 */
export const PACE_MIN_HOSTS = 50;
export const PACE_FACTOR = 50;
export const MAX_SPACING_MS = 10_000;
/** Clusters this large compute in slices between other work (100 hosts: about 5 ms at once). */
export const BACKGROUND_FROM_HOSTS = 200;
/** Longest a slice runs before it gives the event loop back. */
export const SLICE_MS = 8;
/** How soon a pass looks again while a computation is running. */
export const BACKGROUND_POLL_MS = 100;
/** Results of clusters not looked at for this long are dropped (deleted clusters included). */
const FORGET_AFTER_MS = 3_600_000;

interface Remembered {
  parts: unknown[];
  result: ConnectivityResult;
  at: number;
  tookMs: number;
  /** Last asked for (a deleted cluster's result goes once it has not been asked for a while). */
  seen: number;
}

/** A computation in slices; `failed` keeps its inputs from being tried again. */
interface Running {
  parts: unknown[];
  startedAt: number;
  busyMs: number;
  failed?: boolean;
}

export interface PacedConnectivity {
  /** Undefined while a first computation runs: keep what the record holds. */
  result: ConnectivityResult | undefined;
  /** Set when the result is older than the inputs: look again in this many ms. */
  dueInMs?: number;
}

export interface ConnectivityPacingOptions {
  now?: () => number;
  steps?: (hosts: Host[], minGroupSize: number) => Steps<ConnectivityResult>;
  /** Runs the next slice of a background computation (default: setImmediate). */
  schedule?: (slice: () => void) => void;
  /** Clusters smaller than this are never paced (default PACE_MIN_HOSTS). */
  minHosts?: number;
}

export class ConnectivityPacing {
  private readonly remembered = new Map<string, Remembered>();
  private readonly running = new Map<string, Running>();
  private readonly now: () => number;
  private readonly steps: (hosts: Host[], minGroupSize: number) => Steps<ConnectivityResult>;
  private readonly schedule: (slice: () => void) => void;
  private readonly minHosts: number;

  constructor(opts: ConnectivityPacingOptions = {}) {
    this.now = opts.now ?? (() => performance.now());
    this.steps = opts.steps ?? connectivityResultSteps;
    this.schedule = opts.schedule ?? ((slice) => setImmediate(slice));
    this.minHosts = opts.minHosts ?? PACE_MIN_HOSTS;
  }

  /** The connectivity of `clusterId`'s hosts: computed now, the last result, or the last one paced. */
  of(clusterId: string, hosts: Host[], minGroupSize: number): PacedConnectivity {
    const now = this.now();
    this.forget(now);
    const parts = inputsOf(hosts, minGroupSize);
    const last = this.remembered.get(clusterId);
    if (last) {
      // Last asked goes last: the map stays in that order, and forgetting reads it from the front.
      last.seen = now;
      this.remembered.delete(clusterId);
      this.remembered.set(clusterId, last);
      if (sameItems(last.parts, parts)) return { result: last.result };
      const due = last.at + Math.min(MAX_SPACING_MS, last.tookMs * PACE_FACTOR) - now;
      if (due > 0) return { result: last.result, dueInMs: Math.ceil(due) };
    }
    if (hosts.length >= BACKGROUND_FROM_HOSTS)
      return this.inBackground(clusterId, hosts, minGroupSize, parts);
    const result = finish(this.steps(hosts, minGroupSize));
    const tookMs = this.now() - now;
    this.remembered.delete(clusterId);
    if (tookMs >= PACE_MIN_MS && hosts.length >= this.minHosts)
      this.remembered.set(clusterId, { parts, result, at: now, tookMs, seen: now });
    return { result };
  }

  /**
   * The last result while a computation runs in slices; one is started unless one is running
   * (a running one finishes with its inputs, and the spacing then applies to the next).
   */
  private inBackground(clusterId: string, hosts: Host[], minGroupSize: number, parts: unknown[]) {
    const last = this.remembered.get(clusterId)?.result;
    const job = this.running.get(clusterId);
    if (job?.failed && sameItems(job.parts, parts)) return { result: last };
    if (!job || job.failed) this.start(clusterId, this.steps(hosts, minGroupSize), parts);
    return { result: last, dueInMs: BACKGROUND_POLL_MS };
  }

  private start(clusterId: string, steps: Steps<ConnectivityResult>, parts: unknown[]): void {
    const job: Running = { parts, startedAt: this.now(), busyMs: 0 };
    this.running.set(clusterId, job);
    const slice = () => {
      const from = this.now();
      try {
        for (let r = steps.next(); ; r = steps.next()) {
          if (r.done) return this.finished(clusterId, job, r.value, from);
          if (this.now() - from >= SLICE_MS) break;
        }
      } catch {
        // The core does not throw; were it to, these inputs are not tried again and passes keep
        // the record's groups, rather than an exception escaping a timer and ending the process.
        job.failed = true;
        return;
      }
      job.busyMs += this.now() - from;
      this.schedule(slice);
    };
    this.schedule(slice);
  }

  private finished(clusterId: string, job: Running, result: ConnectivityResult, sliceFrom: number): void {
    const now = this.now();
    this.running.delete(clusterId);
    this.remembered.delete(clusterId);
    const tookMs = job.busyMs + (now - sliceFrom);
    this.remembered.set(clusterId, { parts: job.parts, result, at: job.startedAt, tookMs, seen: now });
  }

  /** Clusters remembered (for tests). */
  get size(): number {
    return this.remembered.size;
  }

  /** Computations in slices not yet done (for tests). */
  get inProgress(): number {
    let n = 0;
    for (const job of this.running.values()) if (!job.failed) n++;
    return n;
  }

  private forget(now: number): void {
    for (const [id, r] of this.remembered) {
      if (now - r.seen < FORGET_AFTER_MS) break;
      this.remembered.delete(id);
    }
  }
}

/** What the computation reads of the hosts, as the objects themselves (records are replaced on change). */
function inputsOf(hosts: Host[], minGroupSize: number): unknown[] {
  const parts: unknown[] = [minGroupSize];
  for (const h of hosts) parts.push(h.id, h.connectivity, h.inventory);
  return parts;
}
