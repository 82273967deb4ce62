import { describe, expect, it } from 'vitest';
import {
  leadingNumber,
  type Sample,
  skipField,
  startLoopBreakdown,
  summariseIntervals,
  TickLog,
} from '../../../bench/loop-breakdown.ts';

const MS = 1e6;

type Extra = { ms: number; runMs: number; waitMs: number };
type Long = { count: number; waitMs: number; runMs: number; idleMs: number };

/** Samples 10 ms apart with 1 ms of run each, then the given intervals appended. */
function series(extra: Extra[], quiet = 200): Sample[] {
  const out: Sample[] = [{ at: 0, runNs: 0, waitNs: 0 }];
  const push = (ms: number, runMs: number, waitMs: number) => {
    const last = out.at(-1)!;
    out.push({ at: last.at + ms, runNs: last.runNs + runMs * MS, waitNs: last.waitNs + waitMs * MS });
  };
  for (let i = 0; i < quiet; i++) push(10, 1, 0);
  for (const e of extra) push(e.ms, e.runMs, e.waitMs);
  return out;
}

const thrice = (x: Extra): Extra[] => [x, x, x];
const long = (count: number, waitMs: number, runMs: number, idleMs: number): Long => ({
  count,
  waitMs,
  runMs,
  idleMs,
});

/** The longest stall the sampler lists around a loop blocked for 150 ms. */
async function stallOfBlockedLoop(options: { schedstat: boolean }) {
  const breakdown = startLoopBreakdown(options);
  await new Promise((r) => setTimeout(r, 30));
  const until = performance.now() + 150;
  while (performance.now() < until);
  await new Promise((r) => setTimeout(r, 30));
  return breakdown.stop().stalls[0];
}

describe('summariseIntervals', () => {
  // name, extra intervals, p99, p99 without wait, wait seconds, long intervals' parts
  it.each<[string, Extra[], number, number, number, Long]>([
    ['a quiet thread: nothing waits', [], 10, 10, 0, { count: 200, waitMs: 0, runMs: 1, idleMs: 9 }],
    ['mostly run-queue wait', thrice({ ms: 40, runMs: 12, waitMs: 25 }), 40, 15, 0.075, long(3, 25, 12, 3)],
    ['the thread’s own work', thrice({ ms: 35, runMs: 33, waitMs: 0 }), 35, 35, 0, long(3, 0, 33, 2)],
  ])('%s', (_name, extra, p99, withoutWaitP99, waitSeconds, parts) => {
    const b = summariseIntervals(series(extra), []);
    expect(b.ticks).toBe(200 + extra.length);
    expect(b.intervalP99Ms).toBeCloseTo(p99, 6);
    expect(b.withoutWaitP99Ms).toBeCloseTo(withoutWaitP99, 6);
    expect(b.waitSeconds).toBeCloseTo(waitSeconds, 9);
    expect(b.longIntervals.count).toBe(parts.count);
    expect(b.longIntervals.waitMs).toBeCloseTo(parts.waitMs, 6);
    expect(b.longIntervals.runMs).toBeCloseTo(parts.runMs, 6);
    expect(b.longIntervals.idleMs).toBeCloseTo(parts.idleMs, 6);
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

  it('lists the intervals of 100 ms or more, longest first, at their end in epoch ms', () => {
    const samples = series([
      { ms: 99, runMs: 90, waitMs: 0 },
      { ms: 150, runMs: 20, waitMs: 120 },
      { ms: 400, runMs: 380, waitMs: 10 },
    ]);
    const end = samples.at(-1)!.at;
    const b = summariseIntervals(samples, [], 1_000_000);
    expect(b.stalls.map((s) => s.ms)).toEqual([400, 150]);
    expect(b.stalls[0]).toMatchObject({ at: 1_000_000 + end, waitMs: 10, runMs: 380 });
    expect(b.stalls[1]).toMatchObject({ at: 1_000_000 + end - 400, waitMs: 120, runMs: 20 });
  });

  it('without scheduler counters (a worker) still lists a blocked loop as a stall, wait and run NaN', async () => {
    const stall = await stallOfBlockedLoop({ schedstat: false });
    expect(stall?.ms).toBeGreaterThanOrEqual(150);
    expect(stall?.waitMs).toBeNaN();
    expect(stall?.runMs).toBeNaN();
    expect(Number.isFinite(stall?.gcMs)).toBe(true);
  });

  it.each<[string, number, number]>([
    ['1234567890123 987654321 42\n', 1234567890123, 987654321],
    ['0 0 0\n', 0, 0],
    ['', Number.NaN, Number.NaN],
  ])('reads schedstat %j without making strings', (text, run, wait) => {
    const buf = Buffer.from(text, 'latin1');
    expect(leadingNumber(buf, 0, buf.length)).toBe(run);
    expect(leadingNumber(buf, skipField(buf, 0, buf.length), buf.length)).toBe(wait);
  });

  it('keeps every tick, in order, past its first columns', () => {
    const log = new TickLog();
    for (let i = 0; i < 20_000; i++) log.push(i * 10, i * 2, i * 3);
    const samples = log.samples();
    expect(samples).toHaveLength(20_000);
    expect(samples[0]).toEqual({ at: 0, runNs: 0, waitNs: 0 });
    expect(samples[19_999]).toEqual({ at: 199_990, runNs: 39_998, waitNs: 59_997 });
    expect(samples.every((s, i) => s.at === i * 10)).toBe(true);
  });

  it.runIf(process.platform === 'linux')('with scheduler counters, a busy loop counts as run', async () => {
    const stall = await stallOfBlockedLoop({ schedstat: true });
    expect(stall?.ms).toBeGreaterThanOrEqual(150);
    // Run plus wait is the busy loop's time on or waiting for a core.
    expect((stall?.runMs ?? 0) + (stall?.waitMs ?? 0)).toBeGreaterThan(100);
  });
});
