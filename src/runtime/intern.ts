// One copy of each repeated string in the informer caches. JSON.parse gives every object its own
// copy of every string value, and the fleet's objects repeat most of theirs: condition types,
// reasons and messages, validation messages, API versions, namespaces, labels. Sharing them took
// the operator's heap with 10,000 ZTP sites and their hosts from 912 to 615 MiB (docs/operations.md,
// "Twenty-third round"). Property names need nothing: V8 shares those itself.

/**
 * A bounded pool of strings, kept in two generations: a string is looked up in the young one, then
 * in the old one (and moved up), and when the young one is full it becomes the old one and the old
 * one is dropped. Strings every object repeats stay; a string one object holds (a uid, a
 * timestamp) falls out within two generations, so the pool never holds more than
 * 2 × `generationSize` strings of at most `maxLength` characters. Not util/lru.ts: every string
 * value of every watched object comes through here, and a hit costs one Map read instead of the
 * LRU's read, delete and insert.
 */
export class StringPool {
  private young = new Map<string, string>();
  private old = new Map<string, string>();
  readonly generationSize: number;
  readonly maxLength: number;

  constructor(generationSize = 16_384, maxLength = 1024) {
    this.generationSize = generationSize;
    this.maxLength = maxLength;
  }

  /** The pool's copy of `s` (equal to it), or `s` itself, pooled from now on. */
  intern(s: string): string {
    if (s.length > this.maxLength) return s;
    const young = this.young.get(s);
    if (young !== undefined) return young;
    const shared = this.old.get(s) ?? s;
    if (this.young.size >= this.generationSize) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(shared, shared);
    return shared;
  }

  /** Whether `s` is pooled now (tests; never needed to use the pool). */
  has(s: string): boolean {
    return this.young.has(s) || this.old.has(s);
  }

  get size(): number {
    return this.young.size + this.old.size;
  }
}

/** The pool the informer caches share (records.md: one process, one pool). */
export const cacheStringPool = new StringPool();

type Json = Record<string, unknown> | unknown[];

/**
 * Replaces every string value inside `value` (a parsed JSON tree, changed in place) with the
 * pool's copy. Iterative: a deeply nested object from the API server must not overflow the stack.
 */
export function internStrings<T>(value: T, pool: StringPool = cacheStringPool): T {
  if (typeof value !== 'object' || value === null) return value;
  const stack: Json[] = [value as Json];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        const v = node[i];
        if (typeof v === 'string') node[i] = pool.intern(v);
        else if (typeof v === 'object' && v !== null) stack.push(v as Json);
      }
    } else {
      for (const key in node) {
        const v = node[key];
        if (typeof v === 'string') node[key] = pool.intern(v);
        else if (typeof v === 'object' && v !== null) stack.push(v as Json);
      }
    }
  }
  return value;
}
