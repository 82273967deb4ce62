// Connectivity-check admission in large clusters: 150 a minute per cluster, in the order hosts asked.
import { describe, expect, it } from 'vitest';
import { ConnectivityAdmission } from '../../../../src/server/hosts/connectivity-admission.ts';
import { seededUint32 } from '../../../../src/sim/prng.ts';

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
    expect(a.admit('c', 'late-3')).toBe(false);
    c.advance(1000);
    // Two slots are free: they are late-1's and late-2's, whichever asks first; a host further
    // back or new cannot jump them.
    expect(a.admit('c', 'late-2')).toBe(true);
    expect(a.admit('c', 'late-3')).toBe(false);
    expect(a.admit('c', 'fresh')).toBe(false);
    expect(a.admit('c', 'late-1')).toBe(true);
    expect(a.admit('c', 'late-3')).toBe(false);
    c.advance(1000);
    // The two slots are late-3's and fresh's, in line before newest asked.
    expect(a.admit('c', 'newest')).toBe(false);
    expect(a.admit('c', 'fresh')).toBe(true);
    expect(a.admit('c', 'late-3')).toBe(true);
  });

  it('with polls arriving a little out of order, fills every window and reaches every host', () => {
    // 1,000 hosts poll every 10 s, each poll up to 50 ms late (network, a busy process), so hosts
    // close in line arrive in either order. Before, only the first in line could enter, and one
    // arriving behind the next cost a whole 10 s poll interval: a few hosts per minute, not 150.
    const seed = 20261127;
    const rand = seededUint32(seed);
    const c = clock();
    const a = new ConnectivityAdmission({ limit: 150, windowMs: 60_000, now: c.now });
    const phases = Array.from({ length: 1000 }, (_, i) => ({ host: `h${i}`, phase: (i * 10_000) / 1000 }));
    const perMinute = Array.from({ length: 8 }, () => 0);
    const reached = new Set<string>();
    for (let cycle = 0; cycle < 48; cycle++) {
      const polls = phases.map((p) => ({ host: p.host, at: cycle * 10_000 + p.phase + (rand() % 50) }));
      for (const p of polls.sort((x, y) => x.at - y.at)) {
        c.advance(p.at - c.now());
        if (!a.admit('c', p.host)) continue;
        perMinute[Math.floor(p.at / 60_000)]! += 1;
        reached.add(p.host);
      }
    }
    expect(perMinute, `seed ${seed}`).toEqual(Array.from({ length: 8 }, () => 150));
    expect(reached.size, `seed ${seed}`).toBe(1000);
  });

  it("paces a large cluster's admissions through the minute", () => {
    // All 150 slots of a minute used to come free together (a sliding window refills as the last
    // one's admissions expire), so 150 reports of 0.5 MiB arrived within about 1.5 s and waited
    // about 1 s each for their answer in make bench-scale. Now at most the 50 saved up (and one
    // earned meanwhile) go together.
    const seed = 20261128;
    const rand = seededUint32(seed);
    const c = clock();
    const a = new ConnectivityAdmission({ limit: 150, windowMs: 60_000, now: c.now });
    const admittedAt: number[] = [];
    for (let cycle = 0; cycle < 30; cycle++) {
      const polls = Array.from({ length: 1000 }, (_, i) => ({
        host: `h${i}`,
        at: cycle * 10_000 + i * 10 + (rand() % 50),
      }));
      for (const p of polls.sort((x, y) => x.at - y.at)) {
        c.advance(p.at - c.now());
        if (a.admit('c', p.host)) admittedAt.push(p.at);
      }
    }
    let most = 0;
    for (let i = 0, j = 0; i < admittedAt.length; i++) {
      while (admittedAt[i]! - admittedAt[j]! >= 10_000) j++;
      most = Math.max(most, i - j + 1);
    }
    expect(most, `seed ${seed}: most admitted in any 10 s`).toBeLessThanOrEqual(51);
    expect(admittedAt.filter((t) => t >= 60_000 && t < 240_000).length, `seed ${seed}`).toBe(450);
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
