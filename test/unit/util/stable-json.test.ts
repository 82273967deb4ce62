// stableJson must give exactly what JSON.stringify gives with every object's keys sorted: the
// backup annotations it writes are compared with the stored text, so one differing byte would be
// a write on every reconcile. The oracle is the replacer form it replaced.
import { describe, expect, it } from 'vitest';
import { stableJson } from '../../../src/util/stable-json.ts';

const viaReplacer = (value: unknown) =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );

const rows: { name: string; value: unknown }[] = [
  { name: 'primitives', value: [1, 'a', true, null, -0, 1.5e300] },
  { name: 'keys out of order, nested', value: { b: { z: 1, a: [{ y: 2, x: 1 }] }, a: 'x' } },
  {
    name: 'undefined, functions and symbols',
    value: { u: undefined, f: () => 1, s: Symbol('s'), a: [undefined, () => 1] },
  },
  { name: 'strings that need escaping', value: { 'q"k': 'line\nbreak "quoted" \u2028 \\ \u0001' } },
  { name: 'keys that sort by code unit', value: { b: 1, B: 2, ä: 3, a: 4 } },
  { name: 'array-index keys', value: { b: 1, '10': 5, '9': 6, '01': 7, '4294967295': 8, '4294967294': 9 } },
  { name: 'non-finite numbers', value: { n: Number.NaN, i: Number.POSITIVE_INFINITY } },
  { name: 'a Date', value: { d: new Date(0), e: [new Date(1000)] } },
  { name: 'empty containers', value: { o: {}, a: [], n: { m: {} } } },
  {
    name: 'an inventory-shaped record',
    value: {
      disks: [{ path: '/dev/sda', size_bytes: 1e11, id: 'x' }],
      cpu: { count: 4, flags: ['vmx'] },
      hostname: 'h',
    },
  },
];

describe('stableJson', () => {
  it.each(rows)('matches the sorted JSON.stringify: $name', ({ value }) => {
    expect(stableJson(value)).toBe(viaReplacer(value));
  });

  it('sorts: two orders of the same keys give one text', () => {
    expect(stableJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });
});
