// JSON with object keys sorted, so the same record always gives the same text (the Agent's backup
// annotations are compared with what is stored on every reconcile). The native serialiser does the
// work: an object tree whose keys are already in order (what the API server sends back) is
// serialised as it is, any other with a property list that orders every object's keys. The
// replacer form this replaces built an entries array and a new object for every object, and a
// hand-written serialiser allocated even more (string pieces): ~40–50 KiB of garbage per 5 KB of
// validations, against ~6 KiB now.

/** Array-index keys: an object lists them first, in numeric order, whatever it was built from. */
function isIndexKey(key: string): boolean {
  const c = key.charCodeAt(0);
  if (c < 48 || c > 57) return false;
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 2 ** 32 - 1;
}

/** The order the replacer form gave every object's keys: index keys numerically, then code units. */
function compareKeys(a: string, b: string): number {
  const ai = isIndexKey(a);
  const bi = isIndexKey(b);
  if (ai !== bi) return ai ? -1 : 1;
  if (ai) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

function hasToJson(v: object): boolean {
  return typeof (v as { toJSON?: unknown }).toJSON === 'function';
}

/**
 * Whether every object in `v` already lists its keys in order (index keys come first by
 * themselves), with no toJSON to look behind. Allocates nothing.
 */
function isSorted(v: unknown): boolean {
  if (v === null || typeof v !== 'object') return true;
  if (Array.isArray(v)) {
    for (const item of v) if (!isSorted(item)) return false;
    return true;
  }
  if (hasToJson(v)) return false;
  let previous: string | undefined;
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    if (!isIndexKey(key)) {
      if (previous !== undefined && previous > key) return false;
      previous = key;
    }
    if (!isSorted((v as Record<string, unknown>)[key])) return false;
  }
  return true;
}

/** Every own key of every object in `v` (behind toJSON too). */
function collectKeys(v: unknown, keys: Set<string>): void {
  if (v === null || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const item of v) collectKeys(item, keys);
    return;
  }
  if (hasToJson(v)) {
    collectKeys((v as { toJSON(): unknown }).toJSON(), keys);
    return;
  }
  for (const key in v) {
    if (!Object.hasOwn(v, key)) continue;
    keys.add(key);
    collectKeys((v as Record<string, unknown>)[key], keys);
  }
}

/** JSON.stringify(value) with every object's keys in order (index keys numerically, then code units). */
export function stableJson(value: unknown): string {
  if (isSorted(value)) return JSON.stringify(value);
  const keys = new Set<string>();
  collectKeys(value, keys);
  // A property list orders each object's members as the list does, and leaves out absent keys.
  return JSON.stringify(value, [...keys].sort(compareKeys));
}
