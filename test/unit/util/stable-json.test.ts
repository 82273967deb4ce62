// stableJson must give exactly what JSON.stringify gives with every object's keys sorted: the
// backup annotations it writes are compared with the stored text, so one differing byte would be
// a write on every reconcile. The oracle is the replacer form it replaced.
import { describe, expect, it } from 'vitest';
import { stableJson } from '../../../src/util/stable-json.ts';
import { sortedJsonOracle as viaReplacer } from './sorted-json-oracle.ts';

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
  { name: 'already sorted, index keys included', value: { '2': 1, a: { b: [{ c: 1, d: 2 }] }, z: null } },
  { name: 'sorted at the top, not deep down', value: { a: [{ y: 1, x: 2 }], b: 1 } },
  { name: 'toJSON giving an unsorted object', value: { v: { toJSON: () => ({ b: 1, a: { d: 1, c: 2 } }) } } },
  { name: 'a key only some objects have', value: [{ b: 1 }, { a: 1, b: 2 }, { c: 3, a: 4 }] },
];

/** Random JSON-like trees from a seeded generator (mulberry32), keys drawn from a small pool. */
function randomTrees(seed: number, count: number): unknown[] {
  let t = seed;
  const rand = () => {
    t = (t + 0x6d2b79f5) | 0;
    let r = Math.imul(t ^ (t >>> 15), 1 | t);
    r = (r + Math.imul(r ^ (r >>> 7), 61 | r)) ^ r;
    return ((r ^ (r >>> 14)) >>> 0) / 4294967296;
  };
  const KEYS = ['a', 'b', 'B', 'z', 'id', 'status', 'message', '0', '7', '10', '01', 'ä', '__x'];
  const tree = (depth: number): unknown => {
    const kind = depth > 3 ? rand() * 3 : rand() * 5;
    if (kind < 1) return rand() < 0.5 ? Math.floor(rand() * 100) : `s${Math.floor(rand() * 10)}`;
    if (kind < 2) return rand() < 0.5 ? null : rand() < 0.5 ? undefined : true;
    if (kind < 3) return rand() * 1e6;
    if (kind < 4) return Array.from({ length: Math.floor(rand() * 4) }, () => tree(depth + 1));
    const obj: Record<string, unknown> = {};
    for (let i = Math.floor(rand() * 6); i > 0; i--)
      obj[KEYS[Math.floor(rand() * KEYS.length)]!] = tree(depth + 1);
    return obj;
  };
  return Array.from({ length: count }, () => tree(0));
}

describe('stableJson', () => {
  it('matches the sorted JSON.stringify on 500 random trees', () => {
    const seed = 20261127;
    for (const [i, value] of randomTrees(seed, 500).entries()) {
      expect(stableJson(value), `seed ${seed}, tree ${i}`).toBe(viaReplacer(value));
    }
  });

  it.each(rows)('matches the sorted JSON.stringify: $name', ({ value }) => {
    expect(stableJson(value)).toBe(viaReplacer(value));
  });

  it('sorts: two orders of the same keys give one text', () => {
    expect(stableJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
  });
});
