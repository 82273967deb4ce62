// Leader election against an in-memory Lease with real optimistic concurrency (resourceVersion
// conflicts), on short real timings. The integration test repeats the take-over against the API server.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/runtime/client.ts';
import { LeaderElector, type Lease, type LeaseClient } from '../../../src/runtime/leader-election.ts';
import { type KubeObject, LeaseResource, type WatchEvent } from '../../../src/runtime/types.ts';
import type { ListWatchClient } from '../../../src/runtime/watcher.ts';

const logger = pino({ level: 'silent' });
// Whole seconds: the Lease stores leaseDurationSeconds.
const TIMING = { leaseDurationMs: 2000, renewDeadlineMs: 1300, retryPeriodMs: 200 };

class LeaseStore {
  lease: Lease | undefined;
  gets = 0;
  replaces = 0;
  private rv = 0;
  readonly watchers = new Set<(ev: WatchEvent<Lease>) => void>();

  /** Writes the Lease as another process would (a holder outside the test's electors). */
  write(spec: Lease['spec']): void {
    this.lease = {
      metadata: { name: 'lease', namespace: 'ns', resourceVersion: String(++this.rv) },
      spec,
    };
    this.emit();
  }

  private emit(): void {
    const object = structuredClone(this.lease!);
    for (const w of this.watchers) w({ type: 'MODIFIED', object });
  }

  /** list + watch on the Lease, events delivered as soon as a write lands. */
  watchClient(): ListWatchClient {
    const store = this;
    return {
      async list<T extends KubeObject>() {
        const items = store.lease ? [structuredClone(store.lease) as unknown as T] : [];
        return { items, metadata: { resourceVersion: String(store.rv) } } as never;
      },
      watch<T extends KubeObject>(_r: unknown, opts: { signal?: AbortSignal }) {
        const queue: WatchEvent<T>[] = [];
        let notify: (() => void) | undefined;
        const push = (ev: WatchEvent<Lease>) => {
          queue.push(ev as unknown as WatchEvent<T>);
          notify?.();
        };
        store.watchers.add(push);
        return (async function* () {
          try {
            while (!opts.signal?.aborted) {
              if (queue.length) yield queue.shift()!;
              else
                await new Promise<void>((r) => {
                  notify = r;
                  opts.signal?.addEventListener('abort', () => r(), { once: true });
                });
            }
          } finally {
            store.watchers.delete(push);
          }
        })();
      },
    };
  }

  client(): LeaseClient & { down: boolean } {
    const store = this;
    const c = {
      down: false,
      async getIfExists<T extends KubeObject>(): Promise<T | undefined> {
        if (c.down) throw new Error('connect ECONNREFUSED');
        store.gets++;
        return store.lease ? (structuredClone(store.lease) as unknown as T) : undefined;
      },
      async create<T extends KubeObject>(_r: unknown, obj: T): Promise<T> {
        if (c.down) throw new Error('connect ECONNREFUSED');
        if (store.lease) throw new ApiError(409, { reason: 'AlreadyExists' }, 'exists');
        store.lease = {
          ...structuredClone(obj),
          metadata: { ...obj.metadata, resourceVersion: String(++store.rv) },
        };
        store.emit();
        return structuredClone(store.lease) as unknown as T;
      },
      async replace<T extends KubeObject>(_r: unknown, obj: T): Promise<T> {
        if (c.down) throw new Error('connect ECONNREFUSED');
        store.replaces++;
        if (obj.metadata.resourceVersion !== store.lease?.metadata.resourceVersion) {
          throw new ApiError(409, { reason: 'Conflict' }, 'conflict');
        }
        store.lease = {
          ...structuredClone(obj),
          metadata: { ...obj.metadata, resourceVersion: String(++store.rv) },
        };
        store.emit();
        return structuredClone(store.lease) as unknown as T;
      },
    };
    return c as LeaseClient & { down: boolean };
  }
}

interface Candidate {
  identity: string;
  elector: LeaderElector;
  client: ReturnType<LeaseStore['client']>;
  intervals: { from: number; to?: number }[];
  outcome: Promise<'lost' | 'stopped'>;
}

function candidate(store: LeaseStore, identity: string): Candidate {
  const client = store.client();
  const intervals: { from: number; to?: number }[] = [];
  const elector = new LeaderElector({
    client,
    namespace: 'ns',
    name: 'lease',
    identity,
    ...TIMING,
    logger,
    onStartedLeading: () => intervals.push({ from: Date.now() }),
    onStoppedLeading: () => {
      intervals.at(-1)!.to = Date.now();
    },
  });
  return { identity, elector, client, intervals, outcome: elector.run() };
}

async function until(fn: () => boolean, timeoutMs = 5000): Promise<number> {
  const start = Date.now();
  while (!fn()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
  return Date.now() - start;
}

function overlaps(a: Candidate, b: Candidate, until: number): boolean {
  return a.intervals.some((x) =>
    b.intervals.some((y) => x.from < (y.to ?? until) && y.from < (x.to ?? until)),
  );
}

describe('LeaderElector', () => {
  it('exactly one of several candidates leads; a graceful stop hands over at once', async () => {
    const store = new LeaseStore();
    const cs = ['a', 'b', 'c'].map((id) => candidate(store, id));
    await until(() => cs.some((c) => c.elector.isLeader));
    await new Promise((r) => setTimeout(r, 500)); // several renew rounds
    expect(cs.filter((c) => c.elector.isLeader)).toHaveLength(1);
    const leader = cs.find((c) => c.elector.isLeader)!;
    const lease = store.lease!;
    expect(lease.spec).toMatchObject({
      holderIdentity: leader.identity,
      leaseDurationSeconds: 2,
      leaseTransitions: 0,
    });
    expect(lease.spec!.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    await leader.elector.stop({ release: true });
    expect(store.lease!.spec!.holderIdentity).toBe('');
    const others = cs.filter((c) => c !== leader);
    // Released: a successor takes it at its next retry, well before leaseDuration.
    const took = await until(() => others.some((c) => c.elector.isLeader));
    expect(took).toBeLessThan(TIMING.leaseDurationMs);
    expect(store.lease!.spec!.leaseTransitions).toBe(1);
    for (const c of others) await c.elector.stop({ release: false });
    expect(await leader.outcome).toBe('stopped');
  });

  it('releases even when its last view of the lease is stale (a renewal landed after it stopped looking)', async () => {
    const store = new LeaseStore();
    const a = candidate(store, 'a');
    await until(() => a.elector.isLeader);
    // Same content, new resourceVersion: what an aborted-but-applied renewal leaves behind.
    const rewrite = store.client();
    await rewrite.replace(LeaseResource, structuredClone(store.lease!));
    await a.elector.stop({ release: true });
    expect(store.lease!.spec!.holderIdentity).toBe('');
  });

  it('a leader renews without reading the Lease, and reads it when someone else wrote it', async () => {
    const store = new LeaseStore();
    const a = candidate(store, 'a');
    await until(() => a.elector.isLeader);
    const [gets, replaces] = [store.gets, store.replaces];
    await until(() => store.replaces >= replaces + 3);
    expect(store.gets).toBe(gets);
    expect(a.elector.isLeader).toBe(true);
    // Another holder overwrites it: the fast renewal conflicts, the read shows it held → lost.
    const other = store.client();
    await other.replace(LeaseResource, {
      ...structuredClone(store.lease!),
      spec: { ...store.lease!.spec, holderIdentity: 'z', renewTime: store.lease!.spec!.renewTime },
    });
    expect(await a.outcome).toBe('lost');
    expect(store.gets).toBeGreaterThan(gets);
    expect(store.lease!.spec!.holderIdentity).toBe('z');
  });

  it('a leader that cannot renew steps down before anyone else can take over', async () => {
    const store = new LeaseStore();
    const a = candidate(store, 'a');
    await until(() => a.elector.isLeader);
    const b = candidate(store, 'b');
    await new Promise((r) => setTimeout(r, 300));
    expect(b.elector.isLeader).toBe(false);
    const cut = Date.now();
    a.client.down = true; // partitioned from the API server
    expect(await a.outcome).toBe('lost');
    const lostAfter = Date.now() - cut;
    expect(lostAfter).toBeLessThan(TIMING.renewDeadlineMs + 2 * TIMING.retryPeriodMs + 200);
    await until(() => b.elector.isLeader);
    const takeover = Date.now() - cut;
    // b waits for the lease to expire on its own clock.
    expect(takeover).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - TIMING.retryPeriodMs);
    expect(overlaps(a, b, Date.now())).toBe(false);
    await b.elector.stop({ release: true });
  });

  it('a crashed leader (no release, no renewals) is replaced within about one lease duration', async () => {
    const store = new LeaseStore();
    const a = candidate(store, 'a');
    await until(() => a.elector.isLeader);
    const b = candidate(store, 'b');
    await new Promise((r) => setTimeout(r, 200));
    const crash = Date.now();
    a.client.down = true;
    await a.elector.stop({ release: false }); // the process is gone: nothing more from a
    await until(() => b.elector.isLeader);
    const took = Date.now() - crash;
    expect(took).toBeLessThan(TIMING.leaseDurationMs + 3 * TIMING.retryPeriodMs + 300);
    await b.elector.stop({ release: true });
  });

  // A holder outside the test ('ghost') that the candidate can only poll slowly: retries 10 s apart.
  const slowCandidate = (store: LeaseStore, watch: boolean) => {
    let leadingAt: number | undefined;
    const elector = new LeaderElector({
      client: store.client(),
      ...(watch ? { watchClient: store.watchClient() } : {}),
      namespace: 'ns',
      name: 'lease',
      identity: 'b',
      leaseDurationMs: 2000,
      renewDeadlineMs: 1500,
      retryPeriodMs: 10_000,
      logger,
      onStartedLeading: () => {
        leadingAt = Date.now();
      },
    });
    void elector.run();
    return { elector, leadingAt: () => leadingAt };
  };
  const ghostSpec = () => ({
    holderIdentity: 'ghost',
    leaseDurationSeconds: 2,
    renewTime: new Date().toISOString(),
  });

  it('a candidate tries again when the Lease it observed expires, not at its next retry', async () => {
    const store = new LeaseStore();
    store.write(ghostSpec());
    const b = slowCandidate(store, false);
    await until(() => store.gets > 0);
    const observed = Date.now();
    // The ghost never renews: b may take it one lease duration after it looked, and does then.
    await until(() => b.elector.isLeader, 8000);
    expect(b.leadingAt()! - observed).toBeGreaterThanOrEqual(1990);
    expect(b.leadingAt()! - observed).toBeLessThan(6000);
    await b.elector.stop({ release: true });
  });

  it('a watching candidate reckons expiry from the last renewal it saw written, and takes a released Lease at once', async () => {
    const store = new LeaseStore();
    store.write(ghostSpec());
    const b = slowCandidate(store, true);
    await until(() => store.gets > 0 && store.watchers.size > 0);
    let lastRenewal = 0;
    // The ghost holder renews every 300 ms for 1.5 s: pacing the simulated holder, not waiting
    // for the elector (what the test checks is measured from the last renewal).
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 300));
      store.write(ghostSpec());
      lastRenewal = Date.now();
    }
    await until(() => b.elector.isLeader, 8000);
    // Never before one lease duration after the last renewal (the safety rule), and about then.
    expect(b.leadingAt()! - lastRenewal).toBeGreaterThanOrEqual(1990);
    expect(b.leadingAt()! - lastRenewal).toBeLessThan(6000);
    await b.elector.stop({ release: false });

    const again = new LeaseStore();
    again.write(ghostSpec());
    const c = slowCandidate(again, true);
    // The fake replays nothing from a resourceVersion: write once the watch is open.
    await until(() => again.gets > 0 && again.watchers.size > 0);
    again.write({ holderIdentity: '', leaseDurationSeconds: 1, renewTime: new Date().toISOString() });
    const released = Date.now();
    await until(() => c.elector.isLeader, 8000);
    // Well before both the ghost's lease duration and the 10 s retry.
    expect(c.leadingAt()! - released).toBeLessThan(1000);
    await c.elector.stop({ release: true });
  });

  it('rejects a renew deadline that is not below the lease duration', () => {
    expect(
      () =>
        new LeaderElector({
          client: new LeaseStore().client(),
          namespace: 'ns',
          name: 'l',
          identity: 'x',
          leaseDurationMs: 1000,
          renewDeadlineMs: 1000,
          logger,
          onStartedLeading: () => undefined,
        }),
    ).toThrow(/renewDeadline/);
  });
});
