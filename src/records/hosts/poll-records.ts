// The records host polls choose their steps from (issue 16 item 4), reused from one poll to the
// next: their cluster's and their infra-env's. Building a cluster record walks every host of the
// cluster, and every host of it polls: in a cluster of n hosts the polls alone cost O(n²), 1.6 ms a
// poll at 1,000 hosts; and in a hub of single-node clusters the build was a fifth of every poll's
// CPU (the infra-env's, its pull secret decoded, another 4 % in a hub of ZTP sites). A poll reuses
// the record the last poll built while the objects it was built from are still the ones read now:
// the cached CRs and the referenced Secret and ConfigMaps (the informers replace an object on every
// change, so identity is version; one read live is a new object each time and never matches). What
// identity does not see is other hosts' in-memory facts (check-in times, step results) and the time
// of the build, and step choice reads neither: the polling host's own record is always built fresh
// from its Agent and facts. The window is therefore no bound on staleness but on memory: it keeps
// the records of what is polled.

import { performance } from 'node:perf_hooks';
import { sameItems } from '../../util/same-items.ts';

/**
 * How long a record is kept after it was last used. A host is told to poll again within 60 s in every
 * state with steps to run (next_instruction_seconds; 120 s once disconnected or failed), so a
 * one-host cluster's next poll finds its record.
 */
export const POLL_RECORD_MAX_AGE_MS = 75_000;
/** Records kept at most (clusters or infra-envs polled within one window); the oldest go first. */
export const POLL_RECORDS_MAX = 12_000;

interface Entry<R> {
  /** When the record was built or last used. */
  at: number;
  parts: readonly unknown[];
  record: Promise<R>;
}

export interface PollRecordsOptions {
  maxAgeMs?: number;
  maxEntries?: number;
  /** Monotonic milliseconds (a test's clock). */
  now?: () => number;
}

export class PollRecords<R> {
  private readonly entries = new Map<string, Entry<R>>();
  private readonly maxAgeMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: PollRecordsOptions = {}) {
    this.maxAgeMs = opts.maxAgeMs ?? POLL_RECORD_MAX_AGE_MS;
    this.maxEntries = opts.maxEntries ?? POLL_RECORDS_MAX;
    this.now = opts.now ?? (() => performance.now());
  }

  /**
   * The record of `key` (a cluster's or an infra-env's id) built from `parts` (the objects read for
   * it, compared by identity and order): the one built last if `parts` are the same and it was used
   * within the window, else `build()`'s.
   * Polls arriving while it is built share that build; a failed build is not kept.
   */
  record(key: string, parts: readonly unknown[], build: () => Promise<R>): Promise<R> {
    const now = this.now();
    this.expire(now);
    const hit = this.entries.get(key);
    if (hit && now - hit.at < this.maxAgeMs && sameItems(hit.parts, parts)) {
      // Moved to the back as just used: the map stays in order of use and expiry reads the front.
      hit.at = now;
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit.record;
    }
    const record = build();
    const entry: Entry<R> = { at: now, parts, record };
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
    // Called before every lookup: drops the records not used within the window, and leaves room
    // for an insert.
    for (const [key, e] of this.entries) {
      if (now - e.at < this.maxAgeMs && this.entries.size < this.maxEntries) break;
      this.entries.delete(key);
    }
  }
}
