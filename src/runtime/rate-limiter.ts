// Rate limiters for the work queue (client-go util/workqueue default_rate_limiters.go semantics) and
// the token bucket that sits in front of every API request.
import { setTimeout as sleep } from 'node:timers/promises';

export type Clock = () => number;

/**
 * A token bucket that hands out reservations: a caller that finds it empty still gets a token, in
 * the future, and is told how long to wait (golang.org/x/time/rate `Reserve` semantics). Waiting
 * callers therefore queue up fairly instead of polling. qps <= 0 disables limiting.
 */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  private readonly now: Clock;
  private tokens: number;
  private last: number;

  constructor(qps: number, burst: number, now: Clock = Date.now) {
    this.qps = qps;
    this.burst = Math.max(1, burst);
    this.now = now;
    this.tokens = this.burst;
    this.last = now();
  }

  /** Takes one token and returns the delay in ms until it may be used (0 = now). */
  reserve(): number {
    if (this.qps <= 0) return 0;
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.qps) * 1000);
  }

  /** Takes a token only if one is available now (for callers that drop rather than wait). */
  tryTake(): boolean {
    if (this.qps <= 0) return true;
    const now = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.qps);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Resolves when a token is available; returns the ms waited. */
  async take(signal?: AbortSignal): Promise<number> {
    const delay = this.reserve();
    if (delay > 0) await sleep(delay, undefined, { signal });
    return delay;
  }
}

/** Decides how long a key waits before it is retried (client-go `TypedRateLimiter`). */
export interface RateLimiter {
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

/** Per-key exponential backoff: base · 2^failures, capped (client-go ItemExponentialFailureRateLimiter). */
export class ItemExponentialRateLimiter implements RateLimiter {
  private readonly baseMs: number;
  private readonly maxMs: number;
  private readonly failures = new Map<string, number>();

  constructor(baseMs: number, maxMs: number) {
    this.baseMs = baseMs;
    this.maxMs = maxMs;
  }

  when(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    // 2^n overflows to Infinity long before it matters; the cap keeps the result finite.
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  retries(key: string): number {
    return this.failures.get(key) ?? 0;
  }
}

/** Adapts a TokenBucket to the RateLimiter interface: one shared bucket for all keys. */
export class BucketRateLimiter implements RateLimiter {
  private readonly bucket: TokenBucket;

  constructor(bucket: TokenBucket) {
    this.bucket = bucket;
  }

  when(): number {
    return this.bucket.reserve();
  }

  forget(): void {}

  retries(): number {
    return 0;
  }
}

/** The slowest of several limiters wins (client-go MaxOfRateLimiter). */
export class MaxOfRateLimiter implements RateLimiter {
  private readonly limiters: RateLimiter[];

  constructor(...limiters: RateLimiter[]) {
    this.limiters = limiters;
  }

  when(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.when(key));
    return max;
  }

  forget(key: string): void {
    for (const l of this.limiters) l.forget(key);
  }

  retries(key: string): number {
    let max = 0;
    for (const l of this.limiters) max = Math.max(max, l.retries(key));
    return max;
  }
}

/**
 * client-go DefaultControllerRateLimiter: per-key 5 ms doubling to 1000 s, combined with a global
 * bucket of 10 qps / burst 100 so that a mass failure cannot spin the whole fleet.
 */
export function defaultControllerRateLimiter(now: Clock = Date.now): RateLimiter {
  return new MaxOfRateLimiter(
    new ItemExponentialRateLimiter(5, 1000 * 1000),
    new BucketRateLimiter(new TokenBucket(10, 100, now)),
  );
}
