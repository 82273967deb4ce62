// JSON with object keys sorted, so the same record always gives the same text (the Agent's backup
// annotations are compared with what is stored on every reconcile). Written out by hand: the
// replacer-based version built an entries array and a new object for every object it met, about a
// tenth of the operator's garbage in a 1,000-host registration wave.

/** JSON.stringify(value) with every object's keys in code-unit order. */
export function stableJson(value: unknown): string {
  return stable(value) as string;
}

function stable(v: unknown): string | undefined {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i > 0 ? ',' : '') + (stable(v[i]) ?? 'null');
    return `${out}]`;
  }
  const toJSON = (v as { toJSON?: unknown }).toJSON;
  if (typeof toJSON === 'function') return stable(toJSON.call(v));
  const obj = v as Record<string, unknown>;
  let out = '{';
  for (const k of sortedKeys(obj)) {
    const member = stable(obj[k]);
    if (member === undefined) continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${member}`;
  }
  return `${out}}`;
}

/** Array-index keys matter: an object lists them first, in numeric order, whatever it was built from. */
const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;

/**
 * The keys in the order an object built from its sorted entries would list them (what the stored
 * annotations were written with): array-index keys first, numerically, which is how Object.keys
 * already gives them, then the rest sorted.
 */
function sortedKeys(obj: object): string[] {
  const keys = Object.keys(obj);
  let indices = 0;
  while (indices < keys.length && INDEX_KEY.test(keys[indices]!) && Number(keys[indices]) < 2 ** 32 - 1)
    indices++;
  if (indices === 0) return keys.sort();
  return [...keys.slice(0, indices), ...keys.slice(indices).sort()];
}
