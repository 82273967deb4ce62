// A value memoised per object, kept on the object itself under a symbol, for objects that are
// replaced, never edited (the informers' cached objects, the records and inventories built from
// them).
//
// Not a WeakMap: V8 traces a WeakMap's entries as ephemerons, and what is reachable only through
// one (a memoised host record and its inventory) is in part left to the end of a full
// collection, inside its pause. With 10,000 idle hosts closing them took 36-42 ms of a 59-73 ms
// pause, and 1.0 ms of a 31.5 ms one with the memos here (make bench-scale --trace-gc-idle,
// issue 16). A property is an ordinary edge, marked with the rest of the heap, concurrently.

export interface MemoSlot<K extends object, V> {
  /** The value memoised for `owner`, or undefined. */
  get(owner: K): V | undefined;
  /** Memoises `value` for `owner` (replacing any earlier one). */
  set(owner: K, value: V): void;
}

/** The slot's box: set once per owner, so an owner frozen after its first set still takes new values. */
interface Box<V> {
  value: V;
}

export function memoSlot<K extends object, V>(description: string): MemoSlot<K, V> {
  const slot = Symbol(description);
  // Owners that could take no property when first set (frozen, sealed): rare, so a WeakMap.
  const closed = new WeakMap<K, V>();
  const boxOf = (owner: K) => (owner as unknown as Record<symbol, Box<V> | undefined>)[slot];
  return {
    get(owner) {
      const box = boxOf(owner);
      return box ? box.value : closed.get(owner);
    },
    set(owner, value) {
      const box = boxOf(owner);
      if (box) box.value = value;
      else if (Object.isExtensible(owner)) {
        // Not enumerable: JSON, spreads, Object.keys and deep-equality checks do not see it.
        Object.defineProperty(owner, slot, { value: { value }, configurable: true });
      } else closed.set(owner, value);
    },
  };
}
