// Frequent, low-value host facts kept in memory (docs/design/records.md): last check-in and the
// results of periodic steps. They reach the API only through what they change.
import type { HostRuntimeFacts } from './index.ts';

export interface HostFactsEntry {
  facts: HostRuntimeFacts;
  /** When the process first heard from the host (warm-up after a restart). */
  firstSeenAt: number;
}

export class HostFactsStore {
  private readonly byHost = new Map<string, HostFactsEntry>();
  private readonly withReport = new Set<string>();

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
      if (JSON.stringify(e.facts[k]) !== JSON.stringify(v)) {
        next ??= { ...e.facts };
        next[k] = v;
      }
    }
    if (next) {
      e.facts = next as HostRuntimeFacts;
      if (e.facts.connectivity?.remote_hosts?.length) this.withReport.add(hostId);
      else this.withReport.delete(hostId);
    }
    return next !== undefined;
  }

  delete(hostId: string): void {
    this.byHost.delete(hostId);
    this.withReport.delete(hostId);
  }

  /** The hosts whose connectivity report names at least one host (a cluster's peers look them up). */
  get reporters(): ReadonlySet<string> {
    return this.withReport;
  }
}
