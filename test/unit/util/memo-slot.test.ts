import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { memoSlot } from '../../../src/util/memo-slot.ts';

describe('memoSlot', () => {
  it('keeps one value per owner and slot, replaced by a later set', () => {
    const names = memoSlot<object, string>('name');
    const sizes = memoSlot<object, number>('size');
    const a = {};
    const b = {};
    expect(names.get(a)).toBeUndefined();
    names.set(a, 'first');
    sizes.set(a, 3);
    expect([names.get(a), sizes.get(a), names.get(b), sizes.get(b)]).toEqual([
      'first',
      3,
      undefined,
      undefined,
    ]);
    names.set(a, 'second');
    expect(names.get(a)).toBe('second');
  });

  it('holds the value on the owner itself (an ordinary edge for the collector, not a WeakMap entry)', () => {
    const slot = memoSlot<object, { big: number[] }>('record');
    const owner = { id: 1 };
    const value = { big: [1, 2, 3] };
    slot.set(owner, value);
    const symbols = Object.getOwnPropertySymbols(owner);
    expect(symbols).toHaveLength(1);
    expect((owner as Record<symbol, { value: unknown }>)[symbols[0] as symbol]?.value).toBe(value);
  });

  it('is invisible to JSON, keys, spreads, clones and deep equality', () => {
    const slot = memoSlot<{ metadata: { name: string } }, string>('yaml');
    const cached = { metadata: { name: 'a' } };
    slot.set(cached, 'memo');
    expect(JSON.stringify(cached)).toBe('{"metadata":{"name":"a"}}');
    expect(Object.keys(cached)).toEqual(['metadata']);
    const spread = { ...cached };
    expect(slot.get(spread)).toBeUndefined();
    expect(slot.get(structuredClone(cached))).toBeUndefined();
    expect(cached).toStrictEqual({ metadata: { name: 'a' } });
    expect(isDeepStrictEqual(cached, { metadata: { name: 'a' } })).toBe(true);
  });

  it('keeps values for owners frozen before or after their first set', () => {
    const slot = memoSlot<readonly number[], string>('index');
    const frozenFirst = Object.freeze([1, 2]);
    slot.set(frozenFirst, 'a');
    slot.set(frozenFirst, 'b');
    expect(slot.get(frozenFirst)).toBe('b');
    expect(Object.getOwnPropertySymbols(frozenFirst)).toHaveLength(0);

    const setFirst = [3, 4];
    slot.set(setFirst, 'c');
    Object.freeze(setFirst);
    slot.set(setFirst, 'd');
    expect(slot.get(setFirst)).toBe('d');
  });
});
