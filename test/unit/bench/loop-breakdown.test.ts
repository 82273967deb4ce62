import { describe, expect, it } from 'vitest';
import { type Sample, summariseIntervals } from '../../../bench/loop-breakdown.ts';

const MS = 1e6;

/** Samples 10 ms apart with 1 ms of run each, then the given intervals appended. */
function series(extra: { ms: number; runMs: number; waitMs: number }[], quiet = 200): Sample[] {
  const out: Sample[] = [{ at: 0, runNs: 0, waitNs: 0 }];
  const push = (ms: number, runMs: number, waitMs: number) => {
    const last = out.at(-1)!;
    out.push({ at: last.at + ms, runNs: last.runNs + runMs * MS, waitNs: last.waitNs + waitMs * MS });
  };
  for (let i = 0; i < quiet; i++) push(10, 1, 0);
  for (const e of extra) push(e.ms, e.runMs, e.waitMs);
  return out;
}

describe('summariseIntervals', () => {
  it.each([
    {
      name: 'a quiet thread: every interval is the timer period, nothing waits',
      extra: [],
      p99: 10,
      withoutWaitP99: 10,
      waitSeconds: 0,
      long: { count: 200, waitMs: 0, runMs: 1, idleMs: 9 },
    },
    {
      name: 'long intervals that are mostly run-queue wait: the p99 without wait is short',
      extra: [
        { ms: 40, runMs: 12, waitMs: 25 },
        { ms: 40, runMs: 12, waitMs: 25 },
        { ms: 40, runMs: 12, waitMs: 25 },
      ],
      p99: 40,
      withoutWaitP99: 15,
      waitSeconds: 0.075,
      long: { count: 3, waitMs: 25, runMs: 12, idleMs: 3 },
    },
    {
      name: 'long intervals of the thread’s own work: the wait takes nothing off',
      extra: [
        { ms: 35, runMs: 33, waitMs: 0 },
        { ms: 35, runMs: 33, waitMs: 0 },
        { ms: 35, runMs: 33, waitMs: 0 },
      ],
      p99: 35,
      withoutWaitP99: 35,
      waitSeconds: 0,
      long: { count: 3, waitMs: 0, runMs: 33, idleMs: 2 },
    },
  ])('$name', ({ extra, p99, withoutWaitP99, waitSeconds, long }) => {
    const b = summariseIntervals(series(extra), []);
    expect(b.ticks).toBe(200 + extra.length);
    expect(b.intervalP99Ms).toBeCloseTo(p99, 6);
    expect(b.withoutWaitP99Ms).toBeCloseTo(withoutWaitP99, 6);
    expect(b.waitSeconds).toBeCloseTo(waitSeconds, 9);
    expect(b.longIntervals.count).toBe(long.count);
    expect(b.longIntervals.waitMs).toBeCloseTo(long.waitMs, 6);
    expect(b.longIntervals.runMs).toBeCloseTo(long.runMs, 6);
    expect(b.longIntervals.idleMs).toBeCloseTo(long.idleMs, 6);
  });

  it('counts only the part of a GC pause that falls inside each long interval', () => {
    const samples = series([{ ms: 40, runMs: 30, waitMs: 0 }], 99);
    const end = samples.at(-1)!.at; // the long interval is [end - 40, end]
    const pauses = [
      { start: end - 45, end: end - 35 }, // 5 ms inside
      { start: end - 10, end: end - 2 }, // 8 ms inside
      { start: 0, end: 3 }, // in the first quiet interval only
    ];
    const b = summariseIntervals(samples, pauses);
    expect(b.longIntervals.count).toBe(1);
    expect(b.longIntervals.gcMs).toBeCloseTo(13, 6);
  });

  it('reads NaN parts, not zeros, where the kernel gave no scheduler counters', () => {
    const samples: Sample[] = [0, 10, 20, 45].map((at) => ({ at, runNs: Number.NaN, waitNs: Number.NaN }));
    const b = summariseIntervals(samples, []);
    expect(b.intervalP99Ms).toBe(25);
    expect(b.withoutWaitP99Ms).toBeNaN();
    expect(b.waitSeconds).toBeNaN();
  });
});
