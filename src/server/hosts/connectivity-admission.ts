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
  now?: () => number;
}

interface ClusterState {
  admitted: number[];
  /** Host ids waiting, oldest first, with when each last asked. */
  queue: Map<string, number>;
}

export class ConnectivityAdmission {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly clusters = new Map<string, ClusterState>();
  private lastSweep = 0;

  constructor(opts: ConnectivityAdmissionOptions = {}) {
    this.limit = opts.limit ?? 150;
    this.windowMs = opts.windowMs ?? 60_000;
    this.now = opts.now ?? Date.now;
  }

  /** Whether the host may run a connectivity check now; a refused host keeps its place in line. */
  admit(clusterId: string, hostId: string): boolean {
    const now = this.now();
    if (now - this.lastSweep >= this.windowMs) this.sweep(now);
    let state = this.clusters.get(clusterId);
    if (!state) {
      state = { admitted: [], queue: new Map() };
      this.clusters.set(clusterId, state);
    }
    this.expireAdmitted(state, now);
    this.expireHead(state, now);
    const free = this.limit - state.admitted.length;
    if (free > 0 && (state.queue.size < free || firstInLine(state.queue, hostId, free))) {
      state.admitted.push(now);
      state.queue.delete(hostId);
      return true;
    }
    // Keep the original place: a Map keeps insertion order when an existing key is updated.
    state.queue.set(hostId, now);
    return false;
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
