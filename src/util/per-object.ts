// State kept per owner object, usually an operator context: made on first use and dropped with
// its owner, so two operators in one process (or two tests) never share it.
// For memos per cached object (thousands of owners) use memo-slot.ts: a WeakMap entry per owner
// is an ephemeron, closed inside V8's full-collection pause.

export interface PerObject<K extends object, V> {
  /** The owner's value, made on first use. */
  of(owner: K): V;
  /** Replaces the owner's value (tests: a stand-in). */
  set(owner: K, value: V): void;
}

export function perObject<K extends object, V>(create: (owner: K) => V): PerObject<K, V> {
  const values = new WeakMap<K, V>();
  return {
    of(owner) {
      let value = values.get(owner);
      if (value === undefined) {
        value = create(owner);
        values.set(owner, value);
      }
      return value;
    },
    set(owner, value) {
      values.set(owner, value);
    },
  };
}

/** A warning logged once per key: a lookup that keeps failing is reported when it starts to. */
export class WarnOnce {
  private readonly warned = new Set<string>();
  private readonly logger: { warn(fields: object, msg: string): void };

  constructor(logger: { warn(fields: object, msg: string): void }) {
    this.logger = logger;
  }

  warn(key: string, msg: string, err?: unknown): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(err ? { err: err instanceof Error ? err.message : String(err) } : {}, msg);
  }
}
