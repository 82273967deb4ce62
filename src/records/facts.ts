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

/**
 * One host's facts. The host's clock (CLOCK_FACTS) is kept apart from the rest: every poll moves
 * it, and at 10,000 hosts polling every 10 s the young generation is collected every 1.2 s, so
 * whatever a poll leaves for the next poll is copied into the old generation. A poll's check-in
 * time is therefore a number written over in place (checkIn), and the facts object with the
 * clock in it is made only when someone reads it (HostFactsStore.get).
 */
interface HostFactsEntry {
  /**
   * The facts less the host's clock: a new object only when another fact changes. A poll's host
   * record is built from it (records/agent.ts, cachedAgentToHost), and one rebuilt from new facts
   * on every poll was 0.55 of the 1.23 KB a poll promoted at 1,000 hosts polling every 10 s.
   */
  steady: HostRuntimeFacts;
  /** checked_in_at as update() was given it; undefined when checkIn set it last, or never set. */
  checkedInText: string | undefined;
  /** checked_in_at as checkIn set it (epoch ms); NaN when update() set it last, or never set. */
  checkedInMs: number;
  /** The host's own clock (`timestamp`, epoch seconds); NaN when unknown. */
  hostClock: number;
  /** What get() handed out, until a fact or the clock changes. */
  facts: HostRuntimeFacts | undefined;
}

/** The facts every poll may change; read by validations, never by the choice of next steps. */
const CLOCK_FACTS: readonly (keyof HostRuntimeFacts)[] = ['checked_in_at', 'timestamp'];

function newEntry(): HostFactsEntry {
  return {
    steady: {},
    checkedInText: undefined,
    checkedInMs: Number.NaN,
    hostClock: Number.NaN,
    facts: undefined,
  };
}

function withoutClock(facts: HostRuntimeFacts): HostRuntimeFacts {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(facts)) {
    if (!CLOCK_FACTS.includes(k as keyof HostRuntimeFacts)) out[k] = v;
  }
  return out as HostRuntimeFacts;
}

/** The entry's facts with its clock, as one object. */
function withClock(e: HostFactsEntry): HostRuntimeFacts {
  const out: HostRuntimeFacts = { ...e.steady };
  const checkedIn =
    e.checkedInText ?? (Number.isNaN(e.checkedInMs) ? undefined : new Date(e.checkedInMs).toISOString());
  if (checkedIn !== undefined) out.checked_in_at = checkedIn;
  if (!Number.isNaN(e.hostClock)) out.timestamp = e.hostClock;
  return out;
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

  /**
   * The host's facts, clock included; the same object until one of them changes (a change makes
   * a new one, never edits it), so a record built from it (records/agent.ts, cachedAgentToHost)
   * stays valid as long as this returns that object.
   */
  get(hostId: string): HostRuntimeFacts | undefined {
    const e = this.byHost.get(hostId);
    if (!e) return undefined;
    e.facts ??= withClock(e);
    return e.facts;
  }

  /** Whether the process has heard anything of the host since it started. */
  has(hostId: string): boolean {
    return this.byHost.has(hostId);
  }

  /** Whether the host has told its clock (`timestamp`) to this process. */
  knowsHostClock(hostId: string): boolean {
    const e = this.byHost.get(hostId);
    return e !== undefined && !Number.isNaN(e.hostClock);
  }

  /** The host's facts less its clock, the same object while only the clock moves (HostFactsEntry.steady). */
  steady(hostId: string): HostRuntimeFacts | undefined {
    return this.byHost.get(hostId)?.steady;
  }

  /**
   * A poll: the host checked in at `nowMs` and said its clock reads `hostClock`. Written over in
   * place, so a poll of a host that only moves the clock allocates nothing that outlives it.
   */
  checkIn(hostId: string, nowMs: number, hostClock?: number): void {
    const e = this.entryOf(hostId);
    const clock = hostClock ?? e.hostClock;
    if (e.checkedInText === undefined && e.checkedInMs === nowMs && Object.is(clock, e.hostClock)) return;
    e.checkedInText = undefined;
    e.checkedInMs = nowMs;
    e.hostClock = clock;
    e.facts = undefined;
    this.noteChange(hostId);
  }

  /** Merges `patch` into the host's facts (undefined clears one); returns true when a value actually changed. */
  update(hostId: string, patch: HostRuntimeFacts): boolean {
    const was = this.get(hostId) ?? {};
    const e = this.entryOf(hostId);
    let next: Record<string, unknown> | undefined;
    let steadyChanged = false;
    for (const [k, given] of Object.entries(patch) as [keyof HostRuntimeFacts, unknown][]) {
      // Compared as values, not as text: a 1,000-host cluster's connectivity report is 0.5 MiB,
      // and serialising the old and the new one cost 4 ms per report (make bench-scale).
      const v =
        k === 'connectivity' && given ? storedReport(this.pool, given as StoredConnectivityReport) : given;
      const same =
        k === 'connectivity'
          ? sameReport(was.connectivity, v as StoredConnectivityReport | undefined)
          : jsonEqual(was[k], v);
      if (!same) {
        next ??= { ...was };
        next[k] = v;
        steadyChanged ||= !CLOCK_FACTS.includes(k);
      }
    }
    if (!next) return false;
    const facts = next as HostRuntimeFacts;
    e.checkedInText = facts.checked_in_at;
    e.checkedInMs = Number.NaN;
    e.hostClock = facts.timestamp ?? Number.NaN;
    if (steadyChanged) e.steady = withoutClock(facts);
    // Handed out as built, keys as given (an undefined one included).
    e.facts = facts;
    this.noteChange(hostId);
    if (namesRemoteHosts(facts.connectivity)) this.withReport.add(hostId);
    else this.withReport.delete(hostId);
    return true;
  }

  private entryOf(hostId: string): HostFactsEntry {
    let e = this.byHost.get(hostId);
    if (!e) {
      e = newEntry();
      this.byHost.set(hostId, e);
    }
    return e;
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
