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
    if (next) e.facts = next as HostRuntimeFacts;
    return next !== undefined;
  }

  delete(hostId: string): void {
    this.byHost.delete(hostId);
  }

  /** Facts of several hosts, for building a cluster record. */
  forHosts(hostIds: Iterable<string>): Map<string, HostRuntimeFacts> {
    const out = new Map<string, HostRuntimeFacts>();
    for (const id of hostIds) {
      const f = this.byHost.get(id)?.facts;
      if (f) out.set(id, f);
    }
    return out;
  }
}
