// The project's one jq (src/core/jq) on the shared query table: what compiles evaluates as gojq
// would; what does not compile is refused with gojq's reason; nothing runs without bound.
import { describe, expect, it } from 'vitest';
import { classify, compileJq, JqError, JqSyntaxError, jqQueryError } from '../../../../src/core/jq/index.ts';
import { inventory, QUERIES } from './queries.ts';

const run = (q: string) => [...compileJq(q).outputs(inventory)];

describe('jq on the shared query table', () => {
  it.each(QUERIES.filter((r) => r.outputs))('$query evaluates', ({ query, outputs }) => {
    expect(jqQueryError(query)).toBeUndefined();
    expect(run(query)).toEqual(outputs);
  });

  it.each(QUERIES.filter((r) => r.runtimeError))(
    '$query compiles, then fails at run time',
    ({ query, runtimeError }) => {
      expect(jqQueryError(query)).toBeUndefined();
      expect(() => run(query)).toThrow(runtimeError);
      expect(classify(query, inventory).kind).toBe('error');
    },
  );

  it.each(QUERIES.filter((r) => r.refused))('$query is refused: $refused', ({ query, refused }) => {
    expect(jqQueryError(query)?.message).toBe(refused);
    expect(classify(query, inventory).kind).toBe('error');
  });
});

describe('jq compile errors', () => {
  it('tells syntax errors from compile errors and reports where', () => {
    const syntax = jqQueryError('.a | .b +* 2');
    expect(syntax).toBeInstanceOf(JqSyntaxError);
    expect(syntax?.offset).toBe(9);
    const compile = jqQueryError('.a | nosuch(1)');
    expect(compile).toBeInstanceOf(JqError);
    expect(compile).not.toBeInstanceOf(JqSyntaxError);
    expect(compile?.offset).toBe(5);
  });

  it('does not overflow on deep nesting', () => {
    expect(jqQueryError(`${'('.repeat(5000)}.${')'.repeat(5000)}`)?.message).toBe(
      'query is nested too deeply',
    );
    expect(jqQueryError(`${'['.repeat(100)}1${']'.repeat(100)}`)).toBeUndefined();
  });
});

describe('jq evaluation is lazy and bounded', () => {
  it('stops a generator once enough outputs are read', () => {
    const outputs = compileJq('range(1e12)').outputs(null);
    expect([outputs.next().value, outputs.next().value]).toEqual([0, 1]);
    const counting = compileJq('1 | repeat(. + 1)').outputs(null);
    expect([counting.next().value, counting.next().value, counting.next().value]).toEqual([1, 2, 3]);
    expect(classify('true, repeat(true)', null)).toEqual({
      kind: 'error',
      message: 'Expected one value, found more',
    });
  });

  it('honours a smaller budget', () => {
    const limits = { maxSteps: 1000, maxDepth: 50 };
    expect(() => [...compileJq('[range(10000)]').outputs(null, limits)]).toThrow(/budget of 1000/);
    expect(classify('def f: if . > 0 then . - 1 | f else true end; 100 | f', null, limits)).toMatchObject({
      kind: 'error',
      message: expect.stringMatching(/budget/),
    });
    expect(classify('def f: if . > 0 then . - 1 | f else true end; 10 | f', null, limits)).toEqual({
      kind: 'match',
    });
  });

  it('does not let try swallow an exhausted budget', () => {
    expect(() => [...compileJq('try last(range(1e12)) catch "caught"').outputs(null)]).toThrow(/budget/);
  });
});

describe('classify', () => {
  it('matches exactly one true; false or a non-boolean does not match; else an error', () => {
    expect(classify('.cpu.count >= 8', inventory)).toEqual({ kind: 'match' });
    expect(classify('.cpu.count > 100', inventory)).toEqual({ kind: 'no-match' });
    expect(classify('.cpu.count', inventory)).toEqual({ kind: 'no-match' });
    expect(classify('empty', inventory)).toEqual({
      kind: 'error',
      message: 'Expected boolean, found no values',
    });
    expect(classify('.disks[] | .sizeBytes > 1', inventory).kind).toBe('error');
    expect(classify('repeat(true)', inventory).kind).toBe('error');
    expect(classify('.a |', inventory).kind).toBe('error');
  });
});
