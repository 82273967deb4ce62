// Frequent, low-value host facts kept in memory (docs/design/records.md): last check-in and the
// results of periodic steps. They reach the API only through what they change.
import { jsonEqual } from '../util/json-equal.ts';
import type { HostRuntimeFacts } from './index.ts';

export interface HostFactsEntry {
  facts: HostRuntimeFacts;
  /** When the process first heard from the host (warm-up after a restart). */
  firstSeenAt: number;
}

/** Changes remembered for changedSince: at 10,000 hosts checking in every 10 s, about 4 s of them. */
const RECENT_CHANGES = 4096;

export class HostFactsStore {
  private readonly byHost = new Map<string, HostFactsEntry>();
  private readonly withReport = new Set<string>();
  /** Hosts whose facts changed, the last RECENT_CHANGES of them, by change number modulo. */
  private readonly recent: string[] = [];
  private changes = 0;

  get(hostId: string): HostRuntimeFacts | undefined {
    return this.byHost.get(hostId)?.facts;
  }

  entry(hostId: string): HostFactsEntry | undefined {
    return this.byHost.get(hostId);
  }

  /**
   * Merges `patch` into the host's facts; returns true when a value actually changed. A change
   * replaces the facts object (never edited in place), so a record built from one (records/agent.ts,
   * cachedAgentToHost) stays valid as long as the host's facts are that same object.
   */
  update(hostId: string, patch: HostRuntimeFacts, now: number): boolean {
    let e = this.byHost.get(hostId);
    if (!e) {
      e = { facts: {}, firstSeenAt: now };
      this.byHost.set(hostId, e);
    }
    let next: Record<string, unknown> | undefined;
    for (const [k, v] of Object.entries(patch) as [keyof HostRuntimeFacts, unknown][]) {
      // Compared as values, not as text: a 1,000-host cluster's connectivity report is 0.5 MiB,
      // and serialising the old and the new one cost 4 ms per report (make bench-scale).
      if (!jsonEqual(e.facts[k], v)) {
        next ??= { ...e.facts };
        next[k] = v;
      }
    }
    if (next) {
      e.facts = next as HostRuntimeFacts;
      this.noteChange(hostId);
      if (e.facts.connectivity?.remote_hosts?.length) this.withReport.add(hostId);
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
