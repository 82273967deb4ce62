// Admission of connectivity checks in large clusters (core.md §9.3): above 150 hosts every host
// probing every other one is quadratic work for the agents and for the service that stores the
// results, so each cluster admits at most 150 checks per minute, in the order hosts asked.
//
// A sliding one-minute window counts admissions; a host refused joins the cluster's waiting queue.
// With k slots free, the first k hosts in line may take them, and anyone else only once everyone
// in line fits: no host starves behind faster pollers. (Letting only the head of the line in, as
// this did first, admitted one host per poll of whoever was first: hosts poll every 10 s at their
// own moments, so `make bench-scale` saw 3 admissions per 10 s at 1,000 hosts, not 25.) A queued
// host that stops asking (rebooted, deleted) leaves the queue after two windows, so it cannot
// block the others. Clusters left with neither are forgotten, swept at most once a window from
// admit(), so deleted clusters do not stay in memory.
//
// Slots also come paced, `limit` per window at an even rate with at most `burst` saved up: the
// whole minute's 150 admitted in the first 1.5 s meant 150 reports of up to 0.5 MiB arriving
// together, each waiting about 1 s behind the others for its answer, and polls behind them
// (`make bench-scale`, 1,000 hosts). The rate over a minute stays 150.

/**
 * Whether `hostId` is among the first `n` waiting. Reads at most `n` entries (n ≤ the limit), and
 * only when a slot is free.
 */
function firstInLine(queue: Map<string, number>, hostId: string, n: number): boolean {
  let seen = 0;
  for (const id of queue.keys()) {
    if (id === hostId) return true;
    if (++seen >= n) return false;
  }
  return false;
}

export interface ConnectivityAdmissionOptions {
  limit?: number;
  windowMs?: number;
  /** Slots saved up while nobody in line asks (default: the smaller of the limit and 50). */
  burst?: number;
  now?: () => number;
}

/**
 * Saved-up slots at most, by default. The line is ordered by when hosts first asked, so its front
 * is hosts that poll at about the same moment of their 10 s interval: slots saved up between two
 * of their polls (25 at 150 a minute) go together. With room for 50, none are lost while the
 * front skips a beat (with 30, a seeded 1,000-host run lost 17 in one minute).
 */
const DEFAULT_BURST = 50;

interface ClusterState {
  admitted: number[];
  /** Paced slots saved up, as of `pacedAt`. */
  paced: number;
  pacedAt: number;
  /** Host ids waiting, oldest first, with when each last asked. */
  queue: Map<string, number>;
}

export class ConnectivityAdmission {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly burst: number;
  private readonly now: () => number;
  private readonly clusters = new Map<string, ClusterState>();
  private lastSweep = 0;

  constructor(opts: ConnectivityAdmissionOptions = {}) {
    this.limit = opts.limit ?? 150;
    this.windowMs = opts.windowMs ?? 60_000;
    this.burst = Math.max(1, opts.burst ?? Math.min(this.limit, DEFAULT_BURST));
    this.now = opts.now ?? Date.now;
  }

  /** Whether the host may run a connectivity check now; a refused host keeps its place in line. */
  admit(clusterId: string, hostId: string): boolean {
    const now = this.now();
    if (now - this.lastSweep >= this.windowMs) this.sweep(now);
    let state = this.clusters.get(clusterId);
    if (!state) {
      state = { admitted: [], queue: new Map(), paced: this.burst, pacedAt: now };
      this.clusters.set(clusterId, state);
    }
    this.expireAdmitted(state, now);
    this.expireHead(state, now);
    const free = Math.min(this.limit - state.admitted.length, Math.floor(this.refill(state, now)));
    if (free > 0 && (state.queue.size < free || firstInLine(state.queue, hostId, free))) {
      state.admitted.push(now);
      state.paced--;
      state.queue.delete(hostId);
      return true;
    }
    // Keep the original place: a Map keeps insertion order when an existing key is updated.
    state.queue.set(hostId, now);
    return false;
  }

  /** The paced slots saved up by `now`. */
  private refill(state: ClusterState, now: number): number {
    const earned = ((now - state.pacedAt) * this.limit) / this.windowMs;
    state.paced = Math.min(this.burst, state.paced + Math.max(0, earned));
    state.pacedAt = now;
    return state.paced;
  }

  /** Clusters with state (for tests and metrics). */
  get trackedClusters(): number {
    this.sweep(this.now());
    return this.clusters.size;
  }

  /** Drops the clusters with no admission in the window and no host waiting. */
  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [id, state] of this.clusters) {
      this.expire(state, now);
      if (state.admitted.length === 0 && state.queue.size === 0) this.clusters.delete(id);
    }
  }

  private expire(state: ClusterState, now: number): void {
    this.expireAdmitted(state, now);
    for (const [host, lastAsked] of state.queue) {
      if (lastAsked <= now - 2 * this.windowMs) state.queue.delete(host);
    }
  }

  private expireAdmitted(state: ClusterState, now: number): void {
    const since = now - this.windowMs;
    let drop = 0;
    while (drop < state.admitted.length && (state.admitted[drop] ?? 0) <= since) drop++;
    if (drop > 0) state.admitted.splice(0, drop);
  }

  /**
   * Only the head of the line can block the others, so a poll drops stale hosts from the front
   * alone: walking the whole line on every poll cost O(n) in a cluster of n hosts (issue 16).
   * The rest go at the sweep.
   */
  private expireHead(state: ClusterState, now: number): void {
    for (const [host, lastAsked] of state.queue) {
      if (lastAsked > now - 2 * this.windowMs) return;
      state.queue.delete(host);
    }
  }
}
