import { describe, expect, it } from 'vitest';
import { Backoff } from '../../../src/runtime/backoff.ts';
import { TokenBucket } from '../../../src/runtime/rate-limiter.ts';

function clock(start = 0) {
  const c = { t: start, now: () => c.t };
  return c;
}

describe('TokenBucket', () => {
  it('serves a burst at once, then spaces reservations at 1/qps', () => {
    const c = clock();
    const b = new TokenBucket(10, 3, c.now);
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 0]);
    expect(b.reserve()).toBe(100);
    expect(b.reserve()).toBe(200);
    c.t += 200; // the two reserved tokens have now matured, the bucket is empty
    expect(b.reserve()).toBe(100);
  });

  it('refills up to the burst, not beyond', () => {
    const c = clock();
    const b = new TokenBucket(10, 2, c.now);
    b.reserve();
    b.reserve();
    c.t += 60_000;
    expect([b.reserve(), b.reserve(), b.reserve()]).toEqual([0, 0, 100]);
  });

  it('tryTake refuses instead of going into debt', () => {
    const c = clock();
    const b = new TokenBucket(1, 2, c.now);
    expect([b.tryTake(), b.tryTake(), b.tryTake()]).toEqual([true, true, false]);
    c.t += 1000;
    expect(b.tryTake()).toBe(true);
  });

  it('qps <= 0 disables limiting', () => {
    const b = new TokenBucket(0, 1);
    for (let i = 0; i < 1000; i++) expect(b.reserve()).toBe(0);
  });

  it('take() waits for the reservation', async () => {
    const b = new TokenBucket(50, 1);
    await b.take();
    const started = Date.now();
    const waited = await b.take();
    expect(waited).toBeGreaterThan(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(waited - 2);
  });
});

describe('Backoff', () => {
  it('doubles from 800 ms to a 30 s ceiling (no jitter)', () => {
    const c = clock();
    const b = new Backoff({ jitter: 0, now: c.now });
    const delays = Array.from({ length: 8 }, () => {
      c.t += 10;
      return b.next();
    });
    expect(delays).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000]);
  });

  it('adds jitter within [base, 2·base] and never exceeds the ceiling', () => {
    const c = clock();
    let r = 0;
    const b = new Backoff({ now: c.now, random: () => r });
    r = 0.5;
    expect(b.next()).toBe(1200);
    r = 0.999;
    expect(b.next()).toBe(Math.round(1600 * 1.999));
    for (let i = 0; i < 10; i++) expect(b.next()).toBeLessThanOrEqual(30_000);
  });

  it('forgets its history after a healthy period of 120 s', () => {
    const c = clock();
    const b = new Backoff({ jitter: 0, now: c.now });
    b.next();
    b.next();
    c.t += 119_000;
    expect(b.next()).toBe(3200); // still within the window
    c.t += 120_000;
    expect(b.next()).toBe(800);
  });
});
