// Frequent, low-value host facts kept in memory (docs/design/records.md): last check-in and the
// results of periodic steps. They reach the API only through what they change.
import type { ConnectivityReport } from '../core/model.ts';
import {
  CompactConnectivityReport,
  namesRemoteHosts,
  type StoredConnectivityReport,
} from '../core/network/connectivity-report.ts';
import { jsonEqual } from '../util/json-equal.ts';
import type { HostRuntimeFacts } from './index.ts';

export interface HostFactsEntry {
  facts: HostRuntimeFacts;
  /**
   * The facts less the host's clock (CLOCK_FACTS): a new object only when another fact changes.
   * Every poll moves the clock, and a poll's host record rebuilt from new facts lived until the
   * next poll, so it went to the old generation: 0.55 of the 1.23 KB a poll promoted at 1,000
   * hosts polling every 10 s, and at 10,000 hosts the old generation needed a full collection
   * every 45 s (make bench-scale --trace-gc-idle).
   */
  steady: HostRuntimeFacts;
  /** When the process first heard from the host (warm-up after a restart). */
  firstSeenAt: number;
}

/** The facts every poll may change; read by validations, never by the choice of next steps. */
const CLOCK_FACTS: readonly (keyof HostRuntimeFacts)[] = ['checked_in_at', 'timestamp'];

function withoutClock(facts: HostRuntimeFacts): HostRuntimeFacts {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(facts)) {
    if (!CLOCK_FACTS.includes(k as keyof HostRuntimeFacts)) out[k] = v;
  }
  return out as HostRuntimeFacts;
}

/** Changes remembered for changedSince: at 10,000 hosts checking in every 10 s, about 4 s of them. */
const RECENT_CHANGES = 4096;

/** Strings kept for reports to share, at most: cleared when full (the hub's ids and addresses). */
const POOL_MAX = 200_000;

/**
 * One string object per value for the strings reports repeat: every report of a cluster names
 * the others' ids, addresses, MACs and NICs, and each parsed report had its own copies (a
 * 1,000-host cluster's parsed report held 0.66 MiB of heap, 0.45 MiB with the pool). The pool is
 * bounded: when full it starts again, and reports stored before keep the strings they have.
 */
class StringPool {
  private readonly strings = new Map<string, string>();

  intern(s: string): string {
    const known = this.strings.get(s);
    if (known !== undefined) return known;
    if (this.strings.size >= POOL_MAX) this.strings.clear();
    this.strings.set(s, s);
    return s;
  }
}

/**
 * A report as kept: compact (core/network/connectivity-report.ts) with its strings pooled, or,
 * when it has keys or values the compact form does not keep, the parsed tree as it came.
 */
function storedReport(pool: StringPool, report: StoredConnectivityReport): StoredConnectivityReport {
  if (report instanceof CompactConnectivityReport) return report;
  return CompactConnectivityReport.of(report as ConnectivityReport, (v) => pool.intern(v)) ?? report;
}

/** Whether two kept reports say the same (compared as values: a 1,000-host report is 0.5 MiB of text). */
function sameReport(
  a: StoredConnectivityReport | undefined,
  b: StoredConnectivityReport | undefined,
): boolean {
  if (a instanceof CompactConnectivityReport && b instanceof CompactConnectivityReport) return a.equals(b);
  if (a === undefined || b === undefined) return a === b;
  const tree = (r: StoredConnectivityReport | undefined) =>
    r instanceof CompactConnectivityReport ? r.toJSON() : r;
  return jsonEqual(tree(a), tree(b));
}

export class HostFactsStore {
  private readonly byHost = new Map<string, HostFactsEntry>();
  private readonly withReport = new Set<string>();
  private readonly pool = new StringPool();
  /** Hosts whose facts changed, the last RECENT_CHANGES of them, by change number modulo. */
  private readonly recent: string[] = [];
  private changes = 0;

  get(hostId: string): HostRuntimeFacts | undefined {
    return this.byHost.get(hostId)?.facts;
  }

  entry(hostId: string): HostFactsEntry | undefined {
    return this.byHost.get(hostId);
  }

  /** The host's facts less its clock, the same object while only the clock moves (HostFactsEntry.steady). */
  steady(hostId: string): HostRuntimeFacts | undefined {
    return this.byHost.get(hostId)?.steady;
  }

  /**
   * Merges `patch` into the host's facts; returns true when a value actually changed. A change
   * replaces the facts object (never edited in place), so a record built from one (records/agent.ts,
   * cachedAgentToHost) stays valid as long as the host's facts are that same object.
   */
  update(hostId: string, patch: HostRuntimeFacts, now: number): boolean {
    let e = this.byHost.get(hostId);
    if (!e) {
      e = { facts: {}, steady: {}, firstSeenAt: now };
      this.byHost.set(hostId, e);
    }
    let next: Record<string, unknown> | undefined;
    let steadyChanged = false;
    for (const [k, given] of Object.entries(patch) as [keyof HostRuntimeFacts, unknown][]) {
      // Compared as values, not as text: a 1,000-host cluster's connectivity report is 0.5 MiB,
      // and serialising the old and the new one cost 4 ms per report (make bench-scale).
      const v =
        k === 'connectivity' && given ? storedReport(this.pool, given as StoredConnectivityReport) : given;
      const same =
        k === 'connectivity'
          ? sameReport(e.facts.connectivity, v as StoredConnectivityReport | undefined)
          : jsonEqual(e.facts[k], v);
      if (!same) {
        next ??= { ...e.facts };
        next[k] = v;
        steadyChanged ||= !CLOCK_FACTS.includes(k);
      }
    }
    if (next) {
      e.facts = next as HostRuntimeFacts;
      if (steadyChanged) e.steady = withoutClock(e.facts);
      this.noteChange(hostId);
      if (namesRemoteHosts(e.facts.connectivity)) this.withReport.add(hostId);
      else this.withReport.delete(hostId);
    }
    return next !== undefined;
  }

  delete(hostId: string): void {
    if (!this.byHost.delete(hostId)) return;
    this.withReport.delete(hostId);
    this.noteChange(hostId);
  }

  /** A mark to pass to changedSince later. */
  get changeMark(): number {
    return this.changes;
  }

  /**
   * The hosts whose facts changed since `mark` (repeats possible), or undefined when that is no
   * longer known: a reader that kept facts since then refreshes only these.
   */
  changedSince(mark: number): string[] | undefined {
    if (mark > this.changes || this.changes - mark > RECENT_CHANGES) return undefined;
    const out: string[] = [];
    for (let n = mark; n < this.changes; n++) out.push(this.recent[n % RECENT_CHANGES] as string);
    return out;
  }

  private noteChange(hostId: string): void {
    this.recent[this.changes % RECENT_CHANGES] = hostId;
    this.changes++;
  }

  /** The hosts whose connectivity report names at least one host (a cluster's peers look them up). */
  get reporters(): ReadonlySet<string> {
    return this.withReport;
  }
}
