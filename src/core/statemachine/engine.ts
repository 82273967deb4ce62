// A tiny rule engine with the semantics of filanov/stateswitch, which both upstream state machines
// are built on: rules are kept per transition type in registration order, and a run fires the FIRST
// rule whose source states contain the current state and whose condition holds. Errors are values.

/** A condition that could not be evaluated (e.g. a missing id in the conditions map). */
export interface ConditionError {
  readonly conditionError: string;
}

export type ConditionValue = boolean | ConditionError;
export type Condition<A> = (args: A) => ConditionValue;

export function isConditionError(v: ConditionValue): v is ConditionError {
  return typeof v === 'object';
}

/** Reads a precomputed condition; a missing id is an error, exactly as upstream's `If`. */
export function If<A extends { readonly conditions: Readonly<Record<string, boolean>> }>(
  id: string,
): Condition<A> {
  return (args) => {
    const value = args.conditions[id];
    if (value === undefined) return { conditionError: `If(${id}) no such condition` };
    return value;
  };
}

/** Left-to-right, short-circuits on the first false; an error aborts. Empty And is true. */
export function And<A>(...conditions: Condition<A>[]): Condition<A> {
  return (args) => {
    for (const c of conditions) {
      const v = c(args);
      if (v !== true) return v;
    }
    return true;
  };
}

/** Left-to-right, short-circuits on the first true; an error aborts. Empty Or is false. */
export function Or<A>(...conditions: Condition<A>[]): Condition<A> {
  return (args) => {
    for (const c of conditions) {
      const v = c(args);
      if (v !== false) return v;
    }
    return false;
  };
}

export function Not<A>(condition: Condition<A>): Condition<A> {
  return (args) => {
    const v = condition(args);
    return isConditionError(v) ? v : !v;
  };
}

/** Lifts a plain predicate (facts computed from the records) into a condition. */
export function When<A>(predicate: (args: A) => boolean): Condition<A> {
  return (args) => predicate(args);
}

export interface Rule<S extends string, A, R> {
  /** Stable identifier (the spec's row id, e.g. "R13"); several entries may share one. */
  readonly id: string;
  readonly sources: readonly S[];
  /** Absent = always true. */
  readonly condition?: Condition<A>;
  readonly destination: S;
  /** What firing the rule produces (the new record, or an error value). */
  readonly apply: (args: A, from: S, to: S) => R;
}

export const ENGINE_ERRORS = {
  noRule: 'no condition found to run transition',
  unknownType: 'no match for transition type',
} as const;

export type EngineFailureKind = 'no-rule' | 'unknown-type' | 'condition';

export type EngineResult<S extends string, A, R> =
  | { readonly ok: true; readonly rule: Rule<S, A, R>; readonly output: R }
  | { readonly ok: false; readonly kind: EngineFailureKind; readonly error: string };

export class RuleEngine<T extends string, S extends string, A, R> {
  readonly #rules = new Map<T, Rule<S, A, R>[]>();

  add(type: T, rule: Rule<S, A, R>): this {
    const list = this.#rules.get(type);
    if (list) list.push(rule);
    else this.#rules.set(type, [rule]);
    return this;
  }

  /** The rules of one type, in registration (= evaluation) order. */
  rules(type: T): readonly Rule<S, A, R>[] {
    return this.#rules.get(type) ?? [];
  }

  types(): T[] {
    return [...this.#rules.keys()];
  }

  /** Finds the first matching rule without applying it. */
  match(type: T, state: S, args: A): EngineResult<S, A, undefined> {
    const list = this.#rules.get(type);
    if (!list) return { ok: false, kind: 'unknown-type', error: ENGINE_ERRORS.unknownType };
    for (const rule of list) {
      if (!rule.sources.includes(state)) continue;
      const v = rule.condition ? rule.condition(args) : true;
      if (isConditionError(v)) return { ok: false, kind: 'condition', error: v.conditionError };
      if (v) return { ok: true, rule: rule as unknown as Rule<S, A, undefined>, output: undefined };
    }
    return { ok: false, kind: 'no-rule', error: ENGINE_ERRORS.noRule };
  }

  run(type: T, state: S, args: A): EngineResult<S, A, R> {
    const found = this.match(type, state, args);
    if (!found.ok) return found;
    const rule = found.rule as unknown as Rule<S, A, R>;
    return { ok: true, rule, output: rule.apply(args, state, rule.destination) };
  }
}
