// What the API client has recently experienced, for honest probes. Two streaks are tracked:
//   failing:     no request has succeeded since the first failure (a failure is no HTTP answer at
//                all, or a 5xx); /readyz turns false when this lasts longer than its window.
//   unreachable: no HTTP answer of any kind since the first request that got none (connection
//                refused, reset, timeout, HTTP/2 session error); with a fresh connection answering
//                meanwhile, this is what /healthz treats as a process that cannot recover by itself.
// Any HTTP answer below 500 (404, 409 and 429 included: the server is there and working) ends both.
import type { Clock } from './rate-limiter.ts';

export class ApiHealth {
  private readonly now: Clock;
  private failingSince: number | undefined;
  private unreachableSince: number | undefined;
  private lastProblem = '';

  constructor(now: Clock = Date.now) {
    this.now = now;
  }

  /** The server answered with this HTTP status. */
  answered(statusCode: number): void {
    this.unreachableSince = undefined;
    if (statusCode < 500) {
      this.failingSince = undefined;
      return;
    }
    this.failingSince ??= this.now();
    this.lastProblem = `HTTP ${statusCode}`;
  }

  /** The request got no HTTP answer (transport failure). Caller-cancelled requests are not reported. */
  unanswered(detail: string): void {
    const now = this.now();
    this.failingSince ??= now;
    this.unreachableSince ??= now;
    this.lastProblem = detail;
  }

  /** How long every request has failed (0 when the last one succeeded). */
  failingForMs(): number {
    return this.failingSince === undefined ? 0 : this.now() - this.failingSince;
  }

  /** How long no request has had any HTTP answer (0 when the last one had one). */
  unreachableForMs(): number {
    return this.unreachableSince === undefined ? 0 : this.now() - this.unreachableSince;
  }

  /** The most recent failure, for probe output and logs (never contains credentials). */
  get lastFailure(): string {
    return this.lastProblem;
  }
}
