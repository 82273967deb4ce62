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
  /** When the entry took its place at the back of the map: inserted, or moved (placeAtBack). */
  placedAt: number;
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
      hit.at = now;
      return hit.record;
    }
    const record = build();
    const entry: Entry<R> = { at: now, placedAt: now, parts, record };
    this.entries.delete(key);
    this.makeRoom(now);
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

  /**
   * The map is in order of placement, not of use: a hit only notes its time, and an entry used
   * since it was placed goes to the back when it comes to the front, at most once a window. A
   * move on every hit (a delete and a set per poll) left the map's table full of holes, and the
   * table each rehash made, every capacity's worth of polls, outlived the polls that filled it
   * and was promoted to the old generation (docs/operations.md, "Twenty-eighth round").
   */
  private expire(now: number): void {
    for (const [key, e] of this.entries) {
      // Everything behind was placed later, so used within the window too.
      if (now - e.placedAt < this.maxAgeMs) break;
      this.entries.delete(key);
      if (now - e.at < this.maxAgeMs) this.placeAtBack(key, e, now);
    }
  }

  /**
   * Below maxEntries before an insert: the front entry goes if it was not used since it was
   * placed, else it moves to the back (a second chance, the clock approximation of least recently
   * used). Ends: a moved entry counts as unused until its next hit.
   */
  private makeRoom(now: number): void {
    for (const [key, e] of this.entries) {
      if (this.entries.size < this.maxEntries) break;
      this.entries.delete(key);
      if (e.at > e.placedAt) this.placeAtBack(key, e, now);
    }
  }

  private placeAtBack(key: string, e: Entry<R>, now: number): void {
    e.placedAt = now;
    this.entries.set(key, e);
  }
}
