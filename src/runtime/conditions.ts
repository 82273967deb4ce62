// Status conditions without per-write timestamps (apimachinery meta.SetStatusCondition semantics).
// lastTransitionTime moves only when status changes; reason/message/observedGeneration are updated in
// place. There is deliberately no heartbeat/probe time: a timestamp that changes on every write makes
// every status write a change, and every change a new event (assisted-service MGMT-5268 loop).

export type ConditionStatus = 'True' | 'False' | 'Unknown';

export interface Condition {
  type: string;
  status: ConditionStatus;
  reason?: string;
  message?: string;
  /** RFC 3339, whole seconds (metav1.Time), so a value read back compares equal. */
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export type NewCondition<C extends Condition> = Omit<C, 'lastTransitionTime'> & {
  lastTransitionTime?: string;
};

/** metav1.Time wire format: RFC 3339 in UTC with whole seconds. */
export function formatTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

export function findCondition<C extends Condition>(
  conditions: readonly C[] | undefined,
  type: string,
): C | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isConditionTrue(conditions: readonly Condition[] | undefined, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/**
 * Returns a new list with `next` set. The input is not modified (it may be a cached object's).
 * An unchanged condition yields a list deep-equal to the input, so the status write is skipped.
 */
export function setCondition<C extends Condition>(
  conditions: readonly C[] | undefined,
  next: NewCondition<C>,
  now: Date = new Date(),
): C[] {
  const list = [...(conditions ?? [])];
  const i = list.findIndex((c) => c.type === next.type);
  const existing = i >= 0 ? list[i] : undefined;
  const transitioned = !existing || existing.status !== next.status;
  const lastTransitionTime = transitioned
    ? (next.lastTransitionTime ?? formatTime(now))
    : (existing.lastTransitionTime ?? next.lastTransitionTime ?? formatTime(now));
  // Fields the caller did not give (reason, message) are cleared, not inherited from the old value.
  const updated = { ...existing, reason: undefined, message: undefined, ...next, lastTransitionTime } as C;
  for (const k of Object.keys(updated) as (keyof C)[]) if (updated[k] === undefined) delete updated[k];
  if (i >= 0) list[i] = updated;
  else list.push(updated);
  return list;
}

export function removeCondition<C extends Condition>(
  conditions: readonly C[] | undefined,
  type: string,
): C[] {
  return (conditions ?? []).filter((c) => c.type !== type);
}
