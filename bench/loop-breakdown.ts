// Where the operator thread's long event-loop intervals go (issue 16, "Event-loop delay p99").
// monitorEventLoopDelay says how late the loop was, not why. This sampler ticks on a 10 ms timer
// of its own and, at every tick, reads the thread's scheduler counters from Linux's
// /proc/<pid>/task/<tid>/schedstat (nanoseconds on a CPU, nanoseconds runnable but waiting for
// one) and the main-thread GC pauses a PerformanceObserver reports. Each interval splits into:
//   wait - the thread was ready to run and every core was busy with other threads (on the bench's
//          2-core box: kube-apiserver, etcd, the host driver);
//   run  - the thread was on a core: its JavaScript, syscalls and GC pauses (gc: the observer's
//          pauses, wall time, so a pause can overlap a wait);
//   idle - the rest: the timer's own 10 ms, or the thread blocked in the kernel.
// Reported: the p99 interval (close to monitorEventLoopDelay's, not equal: another timer), the
// p99 of the interval without its wait (the delay had the thread never waited for a core), the
// phase's whole wait, and for the intervals at or above the p99 the mean of each part. One pread
// of a /proc file per tick (a few microseconds).
import { closeSync, openSync, readSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { pct } from './percentile.ts';
import type { LongInterval } from './slow-polls.ts';

const TICK_MS = 10;

export interface LoopBreakdown {
  ticks: number;
  /** p99 of the intervals between ticks, ms (compare monitorEventLoopDelay at 10 ms resolution). */
  intervalP99Ms: number;
  /** p99 of (interval − run-queue wait): the thread's own share. */
  withoutWaitP99Ms: number;
  /** Run-queue wait over the whole phase, and as a share of its wall time. */
  waitSeconds: number;
  waitShare: number;
  /** Mean parts of the intervals at or above intervalP99Ms. */
  longIntervals: {
    count: number;
    meanMs: number;
    waitMs: number;
    runMs: number;
    gcMs: number;
    idleMs: number;
  };
  /** The intervals of STALL_MS or more, longest first (at most MAX_STALLS), `at` in epoch ms. */
  stalls: LongInterval[];
}

/** An interval this long is listed on its own, to set beside slow requests. */
const STALL_MS = 100;
const MAX_STALLS = 50;

export interface Sample {
  at: number;
  runNs: number;
  waitNs: number;
}

/** The main thread's schedstat, or undefined where the kernel has none (the parts then read NaN). */
function openSchedstat(): number | undefined {
  try {
    return openSync(`/proc/${process.pid}/task/${process.pid}/schedstat`, 'r');
  } catch {
    return undefined;
  }
}

/**
 * Starts sampling the calling thread. `schedstat` (the default) reads the main thread's counters
 * (its tid is the pid); a worker passes false, and its wait and run read NaN.
 */
export function startLoopBreakdown({ schedstat = true } = {}): { stop(): LoopBreakdown } {
  const fd = schedstat ? openSchedstat() : undefined;
  const buf = Buffer.alloc(128);
  const ticks = new TickLog();
  const read = () => {
    if (fd === undefined) return ticks.push(performance.now(), Number.NaN, Number.NaN);
    const n = readSync(fd, buf, 0, buf.length, 0);
    ticks.push(performance.now(), leadingNumber(buf, 0, n), leadingNumber(buf, skipField(buf, 0, n), n));
  };
  read();
  const pauses: { start: number; end: number }[] = [];
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ start: e.startTime, end: e.startTime + e.duration });
  });
  gc.observe({ entryTypes: ['gc'] });
  const timer = setInterval(read, TICK_MS);
  return {
    stop() {
      clearInterval(timer);
      gc.disconnect();
      if (fd !== undefined) closeSync(fd);
      return summariseIntervals(ticks.samples(), pauses, performance.timeOrigin);
    },
  };
}

/**
 * The ticks as numbers in one typed array. The sampler runs in the thread it measures: an object and
 * three boxed numbers per tick, kept to the end, were 8 KB a second promoted into that thread's
 * old generation (a tenth of what 1,000 hosts' polls every 10 s promote), and were counted as the
 * operator's in `--trace-gc-idle`.
 */
export class TickLog {
  /** at, runNs, waitNs of each tick in turn. */
  private columns = new Float64Array(3 * 8192);
  private n = 0;

  push(at: number, runNs: number, waitNs: number): void {
    if (3 * this.n === this.columns.length) {
      const grown = new Float64Array(this.columns.length * 2);
      grown.set(this.columns);
      this.columns = grown;
    }
    const i = 3 * this.n++;
    this.columns[i] = at;
    this.columns[i + 1] = runNs;
    this.columns[i + 2] = waitNs;
  }

  samples(): Sample[] {
    const c = this.columns;
    return Array.from({ length: this.n }, (_, i) => ({
      at: c[3 * i]!,
      runNs: c[3 * i + 1]!,
      waitNs: c[3 * i + 2]!,
    }));
  }
}

/** The decimal number at `from` in `buf` (schedstat's fields), read without making a string. */
export function leadingNumber(buf: Uint8Array, from: number, end: number): number {
  let v = 0;
  let digits = 0;
  for (let i = from; i < end; i++) {
    const d = (buf[i] as number) - 48;
    if (d < 0 || d > 9) break;
    v = v * 10 + d;
    digits++;
  }
  return digits > 0 ? v : Number.NaN;
}

/** Where the field after the one at `from` starts (after its space). */
export function skipField(buf: Uint8Array, from: number, end: number): number {
  let i = from;
  while (i < end && buf[i] !== 32) i++;
  return i + 1;
}

function gcWithin(pauses: { start: number; end: number }[], from: number, to: number): number {
  let ms = 0;
  for (const p of pauses) ms += Math.max(0, Math.min(p.end, to) - Math.max(p.start, from));
  return ms;
}

/**
 * The breakdown of the intervals between consecutive samples; `pauses` are GC pauses (ms, same
 * clock); `origin` turns that clock into epoch ms for the stalls.
 */
export function summariseIntervals(
  samples: Sample[],
  pauses: { start: number; end: number }[],
  origin = 0,
): LoopBreakdown {
  const rows: LongInterval[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    rows.push({
      at: origin + b.at,
      ms: b.at - a.at,
      waitMs: (b.waitNs - a.waitNs) / 1e6,
      runMs: (b.runNs - a.runNs) / 1e6,
      gcMs: gcWithin(pauses, a.at, b.at),
    });
  }
  const p99 = pct(
    rows.map((r) => r.ms).sort((x, y) => x - y),
    99,
  );
  const long = rows.filter((r) => r.ms >= p99);
  const mean = (f: (r: (typeof rows)[number]) => number) =>
    long.length ? long.reduce((s, r) => s + f(r), 0) / long.length : Number.NaN;
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const waitSeconds = (last.waitNs - first.waitNs) / 1e9;
  return {
    ticks: rows.length,
    intervalP99Ms: p99,
    withoutWaitP99Ms: pct(
      rows.map((r) => r.ms - r.waitMs).sort((x, y) => x - y),
      99,
    ),
    waitSeconds,
    waitShare: waitSeconds / ((last.at - first.at) / 1000),
    longIntervals: {
      count: long.length,
      meanMs: mean((r) => r.ms),
      waitMs: mean((r) => r.waitMs),
      runMs: mean((r) => r.runMs),
      gcMs: mean((r) => r.gcMs),
      idleMs: mean((r) => r.ms - r.waitMs - r.runMs),
    },
    stalls: rows
      .filter((r) => r.ms >= STALL_MS)
      .sort((x, y) => y.ms - x.ms)
      .slice(0, MAX_STALLS),
  };
}
