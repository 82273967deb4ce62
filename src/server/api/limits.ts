// Size and concurrency bounds of the REST API (docs/operations.md "Request limits and timeouts").
// Every body kind has its own limit, chosen from what real hosts send with head-room; large
// bodies share a byte budget so many concurrent maximum-size requests wait instead of growing the
// heap; log uploads and downloads have their own small concurrency limits.

/** Per-kind request body limits, in bytes. */
export interface BodyLimits {
  /** Ceiling for every JSON body (routes without a kind of their own get this). */
  jsonBodyBytes: number;
  /** A step reply (POST …/instructions): inventories, connectivity reports of large clusters. */
  stepReplyBytes: number;
  /**
   * An inventory step output. The Agent keeps it twice: in status.inventory and, raw, in an
   * annotation (upstream's backup), and annotations may not exceed 256 KiB in all.
   */
  inventoryBytes: number;
  /** A posted event (POST /v2/events), message and props included. */
  eventBytes: number;
  /** Small JSON bodies: registration, install progress, logs progress. */
  smallBodyBytes: number;
  /** A whole multipart log upload: swagger's 250 MiB file limit plus framing. */
  logsUploadBytes: number;
}

export const MiB = 1024 * 1024;

export const DEFAULT_BODY_LIMITS: BodyLimits = {
  // A real inventory is 10–60 KiB; connectivity reports of a 200-host cluster ~300 KiB.
  jsonBodyBytes: 2 * MiB,
  stepReplyBytes: 2 * MiB,
  inventoryBytes: 192 * 1024,
  eventBytes: 64 * 1024,
  smallBodyBytes: 64 * 1024,
  logsUploadBytes: 262_144_000 + MiB,
};

/** The body kinds a route can declare (each names its limit in BodyLimits). */
export type BodyKind = 'stepReply' | 'event' | 'small';

export function bodyLimitOf(limits: BodyLimits, kind: BodyKind | undefined): number {
  const own =
    kind === 'stepReply'
      ? limits.stepReplyBytes
      : kind === 'event'
        ? limits.eventBytes
        : kind === 'small'
          ? limits.smallBodyBytes
          : limits.jsonBodyBytes;
  return Math.min(own, limits.jsonBodyBytes);
}

/** Nesting deeper than this is refused (400): no request or step output of ours nests past ~8. */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays/objects deeper than `max`. A linear scan that skips strings, run
 * before JSON.parse: V8 parses any depth, but walking the result (validation, JSON.stringify)
 * recurses and overflows the stack.
 */
export function jsonTooDeep(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * A counting budget shared by concurrent requests (bytes of large bodies, or slots). Waiters are
 * served in arrival order; one request asking for more than the whole budget takes all of it.
 */
export class Budget {
  readonly capacity: number;
  private used = 0;
  private readonly waiting: { amount: number; grant: () => void }[] = [];

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get inUse(): number {
    return this.used;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves with a release function once `amount` fits (released at most once). */
  async acquire(amount: number): Promise<() => void> {
    const take = Math.min(Math.max(amount, 0), this.capacity);
    if (this.waiting.length === 0 && this.used + take <= this.capacity) this.used += take;
    else await new Promise<void>((grant) => this.waiting.push({ amount: take, grant }));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used -= take;
      this.drain();
    };
  }

  private drain(): void {
    while (this.waiting.length > 0 && this.used + this.waiting[0]!.amount <= this.capacity) {
      const next = this.waiting.shift()!;
      this.used += next.amount;
      next.grant();
    }
  }
}

/**
 * Bodies and replies above this many bytes are heavy work: parsing a 0.5 MiB connectivity report,
 * or serialising a connectivity-check step that lists every other host of a 1,000-host cluster,
 * takes several milliseconds each.
 */
export const HEAVY_WORK_BYTES = 64 * 1024;

/**
 * Grants heavy pieces of work one per turn of the event loop, in arrival order. Requests whose
 * bodies arrive together are otherwise handled in one turn: 25–50 admitted connectivity checks'
 * reports and steps in a 1,000-host cluster held the loop for 0.15–0.3 s, every poll waiting
 * behind them (make bench-scale). Between two grants, timers and I/O run.
 */
export class LoopTurns {
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

  get queued(): number {
    return this.waiting.length;
  }

  /** Resolves in a turn of its own: a later one than the work granted before it. */
  take(): Promise<void> {
    return new Promise<void>((grant) => {
      this.waiting.push(grant);
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.waiting.length === 0) return;
    this.scheduled = true;
    // An immediate queued from an immediate runs in the next turn, after timers and I/O.
    setImmediate(() => {
      this.scheduled = false;
      this.waiting.shift()?.();
      this.schedule();
    });
  }
}

/** Concurrency bounds of the memory-heavy operations. */
export interface ConcurrencyLimits {
  /** Bytes of large JSON bodies held at once (read, parsed and handled). */
  largeBodyBytes: number;
  /** Bodies up to this size skip the budget: polls and small replies never wait behind large ones. */
  largeBodyThreshold: number;
  /** Log uploads streamed to disk at once. */
  logUploads: number;
  /** File downloads (logs, ignition, cluster files) served at once. */
  downloads: number;
}

export const DEFAULT_CONCURRENCY: ConcurrencyLimits = {
  largeBodyBytes: 32 * MiB,
  largeBodyThreshold: 256 * 1024,
  logUploads: 8,
  downloads: 8,
};
