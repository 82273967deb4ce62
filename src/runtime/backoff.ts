// Exponential backoff with jitter that forgets its history after a healthy period. Used by the
// watcher between failed list/watch attempts (client-go reflector / kube-rs DefaultBackoff).
import type { Clock } from './rate-limiter.ts';

export interface BackoffOptions {
  /** First delay. Default 800 ms (client-go reflector, kube-rs DefaultBackoff). */
  initialMs?: number;
  /** Ceiling. Default 30 s (same sources). */
  maxMs?: number;
  /** Default 2. */
  factor?: number;
  /** Fraction of the delay added at random, 0..jitter. Default 1.0 (client-go reflector uses 1.0). */
  jitter?: number;
  /** History is forgotten when no failure happened for this long. Default 120 s (same sources). */
  resetAfterMs?: number;
  now?: Clock;
  random?: () => number;
}

export class Backoff {
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly factor: number;
  private readonly jitter: number;
  private readonly resetAfterMs: number;
  private readonly now: Clock;
  private readonly random: () => number;
  private attempt = 0;
  private lastFailureAt = Number.NEGATIVE_INFINITY;

  constructor(opts: BackoffOptions = {}) {
    this.initialMs = opts.initialMs ?? 800;
    this.maxMs = opts.maxMs ?? 30_000;
    this.factor = opts.factor ?? 2;
    this.jitter = opts.jitter ?? 1;
    this.resetAfterMs = opts.resetAfterMs ?? 120_000;
    this.now = opts.now ?? Date.now;
    this.random = opts.random ?? Math.random;
  }

  /** Records a failure and returns how long to wait before the next attempt. */
  next(): number {
    const now = this.now();
    if (now - this.lastFailureAt >= this.resetAfterMs) this.attempt = 0;
    this.lastFailureAt = now;
    const base = Math.min(this.maxMs, this.initialMs * this.factor ** this.attempt);
    this.attempt++;
    // Jitter may push a capped delay above max; cap again so max really is the ceiling.
    return Math.min(this.maxMs, Math.round(base * (1 + this.jitter * this.random())));
  }

  reset(): void {
    this.attempt = 0;
    this.lastFailureAt = Number.NEGATIVE_INFINITY;
  }
}
