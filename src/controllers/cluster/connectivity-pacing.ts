// Connectivity majority groups are computed from every host's connectivity report: O(n²) in a
// cluster of n hosts (about 0.2 s at 1,000 hosts in a full mesh). Upstream's cluster monitor computes
// them once per 10 s cycle; here the cluster pass runs on every change, and a changed report wakes
// it, so a large cluster could spend a core on them (issue 16 item 4). Passes reuse the last
// result while the inputs are the same objects (each host's id, report and inventory), and after
// a costly computation wait PACE_FACTOR times its duration (at most MAX_SPACING_MS, upstream's
// cycle) before the next, asking to be woken then: at most 1/PACE_FACTOR of a core per cluster,
// and results at most one cycle old. Cheap computations (small clusters) are neither paced nor
// remembered.

import { performance } from 'node:perf_hooks';
import type { Host } from '../../core/model.ts';
import {
  computeConnectivity,
  detectIpCollisions,
  formatConnectivity,
  formatIpCollisions,
} from '../../core/network/connectivity.ts';
import { sameItems } from '../../util/same-items.ts';

export interface ConnectivityResult {
  groups: string;
  /** Undefined when no host has a report (the record's value stays). */
  ipCollisions: string | undefined;
}

/** What the cluster monitor stores for these hosts: majority groups and IP collisions. */
export function computedConnectivity(hosts: Host[], minGroupSize: number): ConnectivityResult {
  return {
    groups: formatConnectivity(computeConnectivity(hosts, minGroupSize)),
    ipCollisions: hosts.some((h) => h.connectivity)
      ? formatIpCollisions(detectIpCollisions(hosts))
      : undefined,
  };
}

/** A computation this long or longer is paced and remembered. */
export const PACE_MIN_MS = 1;
export const PACE_FACTOR = 50;
export const MAX_SPACING_MS = 10_000;
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

export interface PacedConnectivity {
  result: ConnectivityResult;
  /** Set when the result is older than the inputs: look again in this many ms. */
  dueInMs?: number;
}

export interface ConnectivityPacingOptions {
  now?: () => number;
  compute?: (hosts: Host[], minGroupSize: number) => ConnectivityResult;
}

export class ConnectivityPacing {
  private readonly remembered = new Map<string, Remembered>();
  private readonly now: () => number;
  private readonly compute: (hosts: Host[], minGroupSize: number) => ConnectivityResult;

  constructor(opts: ConnectivityPacingOptions = {}) {
    this.now = opts.now ?? (() => performance.now());
    this.compute = opts.compute ?? computedConnectivity;
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
    const result = this.compute(hosts, minGroupSize);
    const tookMs = this.now() - now;
    this.remembered.delete(clusterId);
    if (tookMs >= PACE_MIN_MS) this.remembered.set(clusterId, { parts, result, at: now, tookMs, seen: now });
    return { result };
  }

  /** Clusters remembered (for tests). */
  get size(): number {
    return this.remembered.size;
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
