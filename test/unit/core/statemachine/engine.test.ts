import { describe, expect, it } from 'vitest';
import {
  And,
  type Condition,
  ENGINE_ERRORS,
  If,
  isConditionError,
  Not,
  Or,
  RuleEngine,
  When,
} from '../../../../src/core/statemachine/index.ts';

interface Args {
  conditions: Record<string, boolean>;
  calls: string[];
}

/** A condition that records that it was evaluated. */
function probe(name: string, value: boolean): Condition<Args> {
  return (a) => {
    a.calls.push(name);
    return value;
  };
}

function args(conditions: Record<string, boolean> = {}): Args {
  return { conditions, calls: [] };
}

type S = 'a' | 'b' | 'c';

function engine() {
  const sm = new RuleEngine<'T' | 'U', S, Args, string>();
  sm.add('T', {
    id: 'first',
    sources: ['a'],
    condition: If('x'),
    destination: 'b',
    apply: (_a, f, t) => `first ${f}->${t}`,
  });
  sm.add('T', { id: 'second', sources: ['a', 'b'], destination: 'c', apply: () => 'second' });
  sm.add('U', { id: 'u', sources: ['c'], destination: 'c', apply: () => 'u' });
  return sm;
}

describe('RuleEngine', () => {
  it('fires the first matching rule in registration order', () => {
    const r = engine().run('T', 'a', args({ x: true }));
    expect(r).toMatchObject({ ok: true, output: 'first a->b' });
    if (r.ok) expect(r.rule.id).toBe('first');
  });

  it('falls through to a later rule when an earlier condition is false', () => {
    const r = engine().run('T', 'a', args({ x: false }));
    expect(r.ok && r.rule.id).toBe('second');
  });

  it('only considers rules listing the current state (nil condition = true)', () => {
    expect(engine().run('T', 'b', args()).ok && 'second').toBe('second');
  });

  it('reports "no condition found to run transition" when nothing matches', () => {
    expect(engine().run('T', 'c', args())).toEqual({
      ok: false,
      kind: 'no-rule',
      error: ENGINE_ERRORS.noRule,
    });
    expect(ENGINE_ERRORS.noRule).toBe('no condition found to run transition');
  });

  it('reports "no match for transition type" for an unknown type', () => {
    const sm = new RuleEngine<'T' | 'V', S, Args, string>();
    sm.add('T', { id: 't', sources: ['a'], destination: 'a', apply: () => '' });
    expect(sm.run('V', 'a', args())).toEqual({
      ok: false,
      kind: 'unknown-type',
      error: 'no match for transition type',
    });
  });

  it('aborts with the condition error when an If id is missing', () => {
    expect(engine().run('T', 'a', args())).toEqual({
      ok: false,
      kind: 'condition',
      error: 'If(x) no such condition',
    });
  });

  it('match() finds the rule without applying it', () => {
    const sm = engine();
    const m = sm.match('T', 'a', args({ x: true }));
    expect(m.ok && m.rule.id).toBe('first');
    expect(sm.rules('T').map((r) => r.id)).toEqual(['first', 'second']);
    expect(sm.rules('V' as never)).toEqual([]);
    expect(sm.types()).toEqual(['T', 'U']);
  });
});

describe('condition combinators', () => {
  it('And short-circuits on the first false, left to right', () => {
    const a = args();
    expect(And(probe('p', true), probe('q', false), probe('r', true))(a)).toBe(false);
    expect(a.calls).toEqual(['p', 'q']);
    expect(And<Args>()(args())).toBe(true);
  });

  it('Or short-circuits on the first true, left to right', () => {
    const a = args();
    expect(Or(probe('p', false), probe('q', true), probe('r', false))(a)).toBe(true);
    expect(a.calls).toEqual(['p', 'q']);
    expect(Or<Args>()(args())).toBe(false);
  });

  it('Not negates; errors pass through every combinator', () => {
    expect(Not(probe('p', true))(args())).toBe(false);
    const missing = If<Args>('nope');
    for (const c of [Not(missing), And(probe('p', true), missing), Or(probe('p', false), missing)]) {
      const v = c(args());
      expect(isConditionError(v) && v.conditionError).toBe('If(nope) no such condition');
    }
  });

  it('an error after a deciding value is never evaluated', () => {
    const missing = If<Args>('nope');
    expect(And(probe('p', false), missing)(args())).toBe(false);
    expect(Or(probe('p', true), missing)(args())).toBe(true);
  });

  it('If reads the map and When lifts predicates', () => {
    expect(If<Args>('x')(args({ x: false }))).toBe(false);
    expect(When<Args>((a) => a.calls.length === 0)(args())).toBe(true);
  });
});
