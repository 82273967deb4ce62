// A Map used as a least-recently-used cache: reading or writing a key moves it to the end, and the
// oldest keys go once there are more than `maxEntries`, or, when entries are weighed, once their
// weights add up to more than `maxWeight` (an entry heavier than that alone is not kept).

export interface LruOptions<K, V> {
  maxEntries: number;
  maxWeight?: number;
  weightOf?: (key: K, value: V) => number;
}

export class Lru<K, V> {
  private readonly map = new Map<K, V>();
  private readonly opts: LruOptions<K, V>;
  private weight = 0;

  constructor(opts: LruOptions<K, V>) {
    this.opts = opts;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: K, v: V): void {
    this.delete(key);
    const w = this.opts.weightOf?.(key, v) ?? 0;
    if (w > (this.opts.maxWeight ?? Number.POSITIVE_INFINITY)) return;
    this.map.set(key, v);
    this.weight += w;
    while (
      this.map.size > this.opts.maxEntries ||
      this.weight > (this.opts.maxWeight ?? Number.POSITIVE_INFINITY)
    ) {
      this.delete(this.map.keys().next().value as K);
    }
  }

  delete(key: K): void {
    if (!this.map.has(key)) return;
    this.weight -= this.opts.weightOf?.(key, this.map.get(key) as V) ?? 0;
    this.map.delete(key);
  }

  get size(): number {
    return this.map.size;
  }
}
