// Status writes through the status subresource: compute the desired status from the current object,
// skip the write when nothing changed, and on a resourceVersion conflict re-read and recompute a
// bounded number of times (client-go retry.RetryOnConflict with DefaultRetry: 5 steps, 10 ms, jitter 0.1).
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { isConflict, type KubeClient } from './client.ts';
import type { ApiResource, KubeObject } from './types.ts';

/**
 * Largest object a status write may send. etcd refuses values over 1.5 MiB; a request over that is
 * refused (or worse, poisons the connection) after the fact. Objects are checked before sending.
 */
export const MAX_OBJECT_WRITE_BYTES = 1_280 * 1024;

/** A status write that would make the object larger than MAX_OBJECT_WRITE_BYTES (never sent). */
export class ObjectTooLargeError extends Error {
  readonly bytes: number;
  readonly limit: number;
  constructor(what: string, bytes: number, limit: number) {
    super(`${what} would be ${bytes} bytes, over the limit of ${limit} bytes; the write was not sent`);
    this.name = 'ObjectTooLargeError';
    this.bytes = bytes;
    this.limit = limit;
  }
}

export interface StatusRetryOptions {
  /** Attempts in total. Default 5 (client-go DefaultRetry.Steps). */
  steps?: number;
  /** Pause between attempts. Default 10 ms (client-go DefaultRetry.Duration), plus up to 10 % jitter. */
  intervalMs?: number;
  /** Largest object to send (default MAX_OBJECT_WRITE_BYTES). */
  maxBytes?: number;
}

export interface StatusUpdate<T> {
  /** False when the desired status already matched (no request was sent). */
  written: boolean;
  object: T;
}

/** Drops undefined members and key order, so desired and stored statuses compare as the API would. */
function normalize(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}

const normalizedStored = new WeakMap<object, unknown>();

/**
 * normalize() of a stored status, memoised per object: statuses of cached objects are never
 * changed in place, and the same one is compared on every reconcile of its object.
 */
function normalizeStored(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return normalize(value);
  let n = normalizedStored.get(value);
  if (n === undefined) {
    n = normalize(value);
    normalizedStored.set(value, n);
  }
  return n;
}

/**
 * Writes `compute(current)` as the object's status unless it equals the current status. `compute`
 * must be a pure function of the object it is given (it is called again on a fresh read after a
 * conflict) and must not modify it.
 */
export async function updateStatus<T extends KubeObject & { status?: unknown }>(
  client: KubeClient,
  res: ApiResource,
  obj: T,
  compute: (current: T) => T['status'],
  opts: StatusRetryOptions = {},
): Promise<StatusUpdate<T>> {
  const steps = opts.steps ?? 5;
  const intervalMs = opts.intervalMs ?? 10;
  let current = obj;
  for (let attempt = 1; ; attempt++) {
    const desired = normalize(compute(current)) as T['status'];
    if (isDeepStrictEqual(normalizeStored(current.status), desired))
      return { written: false, object: current };
    const body = { ...current, status: desired };
    const bytes = Buffer.byteLength(JSON.stringify(body));
    const maxBytes = opts.maxBytes ?? MAX_OBJECT_WRITE_BYTES;
    if (bytes > maxBytes) {
      const what = `${res.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
      throw new ObjectTooLargeError(what, bytes, maxBytes);
    }
    try {
      const object = await client.replaceStatus<T>(res, body);
      return { written: true, object };
    } catch (err) {
      if (!isConflict(err) || attempt >= steps) throw err;
    }
    await sleep(intervalMs * (1 + 0.1 * Math.random()));
    // The cache may not have caught up with whoever won the race; read the live object.
    current = await client.get<T>(res, obj.metadata.name ?? '', obj.metadata.namespace);
  }
}
