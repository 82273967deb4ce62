// jsonEqual must answer what comparing the two values' JSON (keys sorted) answers: that round trip
// is what it replaces in status writes and the state machines, so it is the oracle here.
import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../../src/util/json-equal.ts';
import { sortedJsonOracle as sortedJson } from './sorted-json-oracle.ts';

const viaJson = (a: unknown, b: unknown) =>
  sortedJson(JSON.parse(JSON.stringify({ v: a }))) === sortedJson(JSON.parse(JSON.stringify({ v: b })));

const rows: { name: string; a: unknown; b: unknown }[] = [
  { name: 'same primitives', a: 1, b: 1 },
  { name: 'different primitives', a: 'x', b: 'y' },
  { name: 'number and its string', a: 1, b: '1' },
  { name: 'null and undefined', a: null, b: undefined },
  { name: 'null and null', a: null, b: null },
  { name: 'key order', a: { x: 1, y: [1, 2] }, b: { y: [1, 2], x: 1 } },
  { name: 'undefined member and absent member', a: { x: 1, y: undefined }, b: { x: 1 } },
  { name: 'absent member and undefined member', a: { x: 1 }, b: { x: 1, y: undefined } },
  { name: 'null member and absent member', a: { x: null }, b: {} },
  { name: 'undefined and null array elements', a: [undefined, 1], b: [null, 1] },
  { name: 'array lengths', a: [1, 2], b: [1, 2, 3] },
  { name: 'array and object with index keys', a: [1], b: { 0: 1 } },
  { name: 'empty array and empty object', a: [], b: {} },
  { name: 'nested difference', a: { s: { c: [{ t: 'a', m: 'x' }] } }, b: { s: { c: [{ t: 'a', m: 'y' }] } } },
  { name: 'nested equality', a: { s: { c: [{ t: 'a', m: 'x' }] } }, b: { s: { c: [{ m: 'x', t: 'a' }] } } },
  { name: 'different Dates', a: { d: new Date(0) }, b: { d: new Date(1000) } },
  { name: 'a Date and its JSON text', a: { d: new Date(0) }, b: { d: new Date(0).toJSON() } },
  { name: 'same Dates', a: { d: new Date(5) }, b: { d: new Date(5) } },
  { name: 'boolean and number', a: { f: true }, b: { f: 1 } },
  { name: 'object and null', a: { o: {} }, b: { o: null } },
];

describe('jsonEqual', () => {
  it.each(rows)('agrees with comparing the JSON: $name', ({ a, b }) => {
    expect(jsonEqual(a, b)).toBe(viaJson(a, b));
    expect(jsonEqual(b, a)).toBe(viaJson(b, a));
  });

  it('tells apart the rows that differ and matches the rows that do not', () => {
    // Guards the oracle itself: a table where every row agreed one way would prove little.
    const answers = rows.map(({ a, b }) => jsonEqual(a, b));
    expect(answers.filter(Boolean).length).toBeGreaterThan(3);
    expect(answers.filter((x) => !x).length).toBeGreaterThan(3);
  });
});
