import { describe, expect, it } from 'vitest';
import { diffJson, formatDiffs, formatDiffValue } from '../../../src/webhooks/diff.ts';
import { isEmptyValue, jsonEqual } from '../../../src/webhooks/types.ts';

describe('diffJson', () => {
  it('reports leaf paths in sorted order', () => {
    expect(diffJson({ b: 1, a: { y: 'p', x: 'q' } }, { b: 2, a: { y: 'p', x: 'r' } })).toEqual([
      { path: 'a.x', old: 'q', new: 'r' },
      { path: 'b', old: 1, new: 2 },
    ]);
  });

  it('treats empty and unset as equal, zero values too except on pointer paths', () => {
    expect(diffJson({ a: '', b: [], c: {}, d: null, e: false, f: 0 }, {})).toEqual([]);
    expect(diffJson({ n: { u: false } }, {}, { pointerPaths: new Set(['n.u']) })).toEqual([
      { path: 'n.u', old: false, new: undefined },
    ]);
  });

  it('compares arrays element-wise when the lengths match, whole otherwise', () => {
    expect(diffJson({ l: [{ c: 'a' }, { c: 'b' }] }, { l: [{ c: 'a' }, { c: 'x' }] })).toEqual([
      { path: 'l[1].c', old: 'b', new: 'x' },
    ]);
    expect(diffJson({ l: ['a'] }, { l: ['a', 'b'] })).toEqual([{ path: 'l', old: ['a'], new: ['a', 'b'] }]);
  });

  it('formats values', () => {
    expect(formatDiffValue(undefined)).toBe('<nil>');
    expect(formatDiffValue('s')).toBe('s');
    expect(formatDiffValue(true)).toBe('true');
    expect(formatDiffValue(['a'])).toBe('["a"]');
    expect(formatDiffs([{ path: 'p', old: undefined, new: { a: 1 } }])).toBe('\tp: (<nil> => {"a":1})');
  });
});

describe('jsonEqual', () => {
  it('equates empty values but not false or 0', () => {
    expect(isEmptyValue({ a: [], b: { c: '' } })).toBe(true);
    expect(jsonEqual({ a: [] }, undefined)).toBe(true);
    expect(jsonEqual({ a: false }, {})).toBe(false);
    expect(jsonEqual([1, 2], [1, 2])).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
  });
});
