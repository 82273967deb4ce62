// The cluster records host polls choose their steps from (issue 16 item 4). Building a record walks
// every host of the cluster, and every host of it polls every 10 s: in a cluster of n hosts the
// polls alone cost O(n²), 1.6 ms a poll at 1,000 hosts. A poll reuses the record its cluster's last
// poll built while the cached objects it was built from are still the cached ones (the informers
// replace an object on every change, so identity is version) and it is younger than the window.
// The window bounds what identity does not see: other hosts' in-memory facts (check-in times,
// step results) and the referenced Secret and ConfigMaps. Step choice reads none of the first,
// and the polling host's own record is always built fresh from its Agent and facts.

import { performance } from 'node:perf_hooks';
import { sameItems } from '../../util/same-items.ts';

/** How long a poll may reuse a cluster record whose objects have not changed. */
export const POLL_CLUSTER_RECORD_MAX_AGE_MS = 1000;
/** Records kept at most (clusters polled within one window); the oldest go first. */
export const POLL_CLUSTER_RECORDS_MAX = 2000;

interface Entry<R> {
  at: number;
  parts: readonly unknown[];
  record: Promise<R>;
}

export interface PollClusterRecordsOptions {
  maxAgeMs?: number;
  maxEntries?: number;
  /** Monotonic milliseconds (a test's clock). */
  now?: () => number;
}

export class PollClusterRecords<R> {
  private readonly entries = new Map<string, Entry<R>>();
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: PollClusterRecordsOptions = {}) {
    this.maxAgeMs = opts.maxAgeMs ?? POLL_CLUSTER_RECORD_MAX_AGE_MS;
    this.maxEntries = opts.maxEntries ?? POLL_CLUSTER_RECORDS_MAX;
    this.now = opts.now ?? (() => performance.now());
  }

  /**
   * The record of cluster `key` built from `parts` (the cached objects, compared by identity and
   * order): the one built last if `parts` are the same and it is young enough, else `build()`'s.
   * Polls arriving while it is built share that build; a failed build is not kept.
   */
  record(key: string, parts: readonly unknown[], build: () => Promise<R>): Promise<R> {
    const now = this.now();
    this.expire(now);
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.maxAgeMs && sameItems(hit.parts, parts)) return hit.record;
    const record = build();
    const entry: Entry<R> = { at: now, parts, record };
    // Re-inserted, so the map stays in build order and expiry reads it from the front.
    this.entries.delete(key);
    this.entries.set(key, entry);
    record.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return record;
  }

  /** Records held (for tests). */
  get size(): number {
    return this.entries.size;
  }

  private expire(now: number): void {
    // Called before an insert: leaves room for it.
    for (const [key, e] of this.entries) {
      if (now - e.at < this.maxAgeMs && this.entries.size < this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
