// Status writes through the status subresource: compute the desired status from the current object,
// skip the write when nothing changed, and on a resourceVersion conflict re-read and recompute a
// bounded number of times (client-go retry.RetryOnConflict with DefaultRetry: 5 steps, 10 ms, jitter 0.1).
import { setTimeout as sleep } from 'node:timers/promises';
import { jsonEqual } from '../util/json-equal.ts';
import { isConflict, type KubeClient, serialiseWithTypeMeta } from './client.ts';
import type { OwnWriteEchoes } from './echoes.ts';
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

export interface StatusRetryOptions<T extends KubeObject & { status?: unknown } = KubeObject> {
  /** Attempts in total. Default 5 (client-go DefaultRetry.Steps). */
  steps?: number;
  /** Pause between attempts. Default 10 ms (client-go DefaultRetry.Duration), plus up to 10 % jitter. */
  intervalMs?: number;
  /** Largest object to send (default MAX_OBJECT_WRITE_BYTES). */
  maxBytes?: number;
  /** Writes whose watch event the writer need not see: those `when` says so of, before sending. */
  echoes?: { tracker: OwnWriteEchoes; when: (current: T, desired: T['status']) => boolean };
}

export interface StatusUpdate<T> {
  /** False when the desired status already matched (no request was sent). */
  written: boolean;
  object: T;
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
  opts: StatusRetryOptions<T> = {},
): Promise<StatusUpdate<T>> {
  const steps = opts.steps ?? 5;
  const intervalMs = opts.intervalMs ?? 10;
  let current = obj;
  for (let attempt = 1; ; attempt++) {
    const desired = compute(current);
    // Compared as the API server would store them: key order and undefined members do not count.
    if (jsonEqual(current.status, desired)) return { written: false, object: current };
    const body = { ...current, status: desired };
    // Serialised once: measured here, sent as it is (a large status costs a stringify per pass).
    const json = serialiseWithTypeMeta(res, body);
    const bytes = Buffer.byteLength(json);
    const maxBytes = opts.maxBytes ?? MAX_OBJECT_WRITE_BYTES;
    if (bytes > maxBytes) {
      const what = `${res.kind} ${obj.metadata.namespace ?? ''}/${obj.metadata.name ?? ''}`;
      throw new ObjectTooLargeError(what, bytes, maxBytes);
    }
    const echo = opts.echoes?.when(current, desired) ? opts.echoes.tracker.begin(current) : undefined;
    try {
      const object = await client.replaceStatus<T>(res, body, { json });
      echo?.settle(object);
      return { written: true, object };
    } catch (err) {
      echo?.settle(undefined);
      if (!isConflict(err) || attempt >= steps) throw err;
    }
    await sleep(intervalMs * (1 + 0.1 * Math.random()));
    // The cache may not have caught up with whoever won the race; read the live object.
    current = await client.get<T>(res, obj.metadata.name ?? '', obj.metadata.namespace);
  }
}
