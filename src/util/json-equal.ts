// Equality of two values as their JSON would compare, without serialising them. Status writes and
// the state machines compare records on every reconcile; the JSON round trip they used allocated
// about a fifth of the operator's garbage in a 1,000-host registration wave (`make bench-scale`
// with `--heap-profile-wave`), and garbage is what the event loop waits on.

/** An object JSON does not serialise member by member (a Date, a Map, anything with toJSON). */
function isSpecialObject(v: unknown): boolean {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as object | null;
  return proto !== Object.prototype && proto !== null;
}

/**
 * Whether `a` and `b` serialise to the same JSON up to key order: a member holding `undefined` is
 * the same as an absent one, and an `undefined` array element the same as `null`. Objects that are
 * neither arrays nor plain objects (a Date, anything with toJSON) are compared by their JSON text.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isSpecialObject(a) || isSpecialObject(b)) return JSON.stringify(a) === JSON.stringify(b);
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) return Array.isArray(a) && Array.isArray(b) && arraysEqual(a, b);
  return objectsEqual(a as Record<string, unknown>, b as Record<string, unknown>);
}

function arraysEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    if (!jsonEqual(a[i] ?? null, b[i] ?? null)) return false;
  }
  return true;
}

function objectsEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  for (const k in a) {
    if (Object.hasOwn(a, k) && !jsonEqual(a[k], Object.hasOwn(b, k) ? b[k] : undefined)) return false;
  }
  for (const k in b) {
    if (Object.hasOwn(b, k) && !Object.hasOwn(a, k) && b[k] !== undefined) return false;
  }
  return true;
}
