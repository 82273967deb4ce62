// Status writes through the status subresource: compute the desired status from the current object,
// skip the write when nothing changed, and on a resourceVersion conflict re-read and recompute a
// bounded number of times (client-go retry.RetryOnConflict with DefaultRetry: 5 steps, 10 ms, jitter 0.1).
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import { isConflict, type KubeClient } from './client.ts';
import type { ApiResource, KubeObject } from './types.ts';

export interface StatusRetryOptions {
  /** Attempts in total. Default 5 (client-go DefaultRetry.Steps). */
  steps?: number;
  /** Pause between attempts. Default 10 ms (client-go DefaultRetry.Duration), plus up to 10 % jitter. */
  intervalMs?: number;
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
    if (isDeepStrictEqual(normalize(current.status), desired)) return { written: false, object: current };
    try {
      const object = await client.replaceStatus<T>(res, { ...current, status: desired });
      return { written: true, object };
    } catch (err) {
      if (!isConflict(err) || attempt >= steps) throw err;
    }
    await sleep(intervalMs * (1 + 0.1 * Math.random()));
    // The cache may not have caught up with whoever won the race; read the live object.
    current = await client.get<T>(res, obj.metadata.name ?? '', obj.metadata.namespace);
  }
}
