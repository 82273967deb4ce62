// Connectivity-check admission in large clusters: 150 a minute per cluster, in the order hosts asked.
import { describe, expect, it } from 'vitest';
import { ConnectivityAdmission } from '../../../../src/server/hosts/connectivity-admission.ts';

function clock(start = 0) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('ConnectivityAdmission', () => {
  it('admits up to the limit per window, per cluster', () => {
    const c = clock();
    const a = new ConnectivityAdmission({ limit: 3, windowMs: 60_000, now: c.now });
    expect(['h1', 'h2', 'h3', 'h4'].map((h) => a.admit('c1', h))).toEqual([true, true, true, false]);
    // Another cluster has its own budget.
    expect(a.admit('c2', 'x1')).toBe(true);
    c.advance(59_999);
    expect(a.admit('c1', 'h4')).toBe(false);
    c.advance(1);
    expect(a.admit('c1', 'h4')).toBe(true);
  });

  it('lets refused hosts through in the order they first asked', () => {
    const c = clock();
    const a = new ConnectivityAdmission({ limit: 2, windowMs: 1000, now: c.now });
    a.admit('c', 'a');
    a.admit('c', 'b');
    expect(a.admit('c', 'late-1')).toBe(false);
    expect(a.admit('c', 'late-2')).toBe(false);
    c.advance(1000);
    // A slot is free, but late-1 is first in line: a fast poller cannot jump it.
    expect(a.admit('c', 'late-2')).toBe(false);
    expect(a.admit('c', 'fresh')).toBe(false);
    expect(a.admit('c', 'late-1')).toBe(true);
    expect(a.admit('c', 'late-2')).toBe(true);
    expect(a.admit('c', 'fresh')).toBe(false);
  });

  it('drops a queued host that stopped asking, so it blocks nobody', () => {
    const c = clock();
    const a = new ConnectivityAdmission({ limit: 1, windowMs: 1000, now: c.now });
    a.admit('c', 'a');
    expect(a.admit('c', 'gone')).toBe(false);
    c.advance(1000);
    expect(a.admit('c', 'b')).toBe(false); // 'gone' is still first in line
    c.advance(1000);
    expect(a.admit('c', 'b')).toBe(true); // 'gone' last asked two windows ago
  });

  it('forgets idle clusters', () => {
    const c = clock();
    const a = new ConnectivityAdmission({ limit: 1, windowMs: 1000, now: c.now });
    a.admit('c1', 'a');
    a.admit('c2', 'a');
    expect(a.trackedClusters).toBe(2);
    c.advance(1000);
    expect(a.trackedClusters).toBe(0);
  });
});

describe('ConnectivityAdmission in a large cluster', () => {
  it('a poll walks only the stale front of the line; the sweep clears the rest', () => {
    const c = clock();
    const a = new ConnectivityAdmission({ limit: 1, windowMs: 1000, now: c.now });
    a.admit('c', 'first');
    const hosts = Array.from({ length: 1000 }, (_, i) => `h${i}`);
    for (const h of hosts) expect(a.admit('c', h)).toBe(false);
    // h0 keeps asking; everyone behind it stops. A full walk per poll would read all 1,000.
    let reads = 0;
    const queue = (a as unknown as { clusters: Map<string, { queue: Map<string, number> }> }).clusters.get(
      'c',
    )!.queue;
    const iterate = queue[Symbol.iterator].bind(queue);
    (queue as { [Symbol.iterator]: () => Iterator<[string, number]> })[Symbol.iterator] = function* () {
      for (const e of iterate()) {
        reads++;
        yield e;
      }
    };
    c.advance(999);
    expect(a.admit('c', 'h0')).toBe(false);
    expect(reads).toBeLessThanOrEqual(1);
    c.advance(1);
    expect(a.admit('c', 'h0')).toBe(true);
    // Two windows after they last asked, the others are gone at the next sweep (and so the cluster).
    expect(queue.size).toBe(999);
    c.advance(1000);
    expect(a.trackedClusters).toBe(0);
    expect(queue.size).toBe(0);
  });
});
