import { describe, expect, it } from 'vitest';
import { formatGoFloat, formatGoTimeUTC, toMillis } from '../../../../src/core/validations/format.ts';

describe('formatGoFloat (Go %.Nf: exact ties round half to even)', () => {
  it.each([
    [0.125, 2, '0.12'],
    [0.375, 2, '0.38'],
    [-0.125, 2, '-0.12'],
    [2.5, 0, '2'],
    [3.5, 0, '4'],
    [0.5, 0, '0'],
    [1.005, 2, '1.00'],
    [100, 2, '100.00'],
    [12.3456, 2, '12.35'],
    [Number.POSITIVE_INFINITY, 2, 'Infinity'],
  ])('%d with %d digits → %s', (v, d, want) => expect(formatGoFloat(v, d)).toBe(want));
});

describe('formatGoTimeUTC (Go time.Time.String())', () => {
  it.each([
    [Date.UTC(2024, 0, 2, 3, 4, 5, 0), '2024-01-02 03:04:05 +0000 UTC'],
    [Date.UTC(2024, 0, 2, 3, 4, 5, 120), '2024-01-02 03:04:05.12 +0000 UTC'],
    [Date.UTC(2024, 11, 31, 23, 59, 59, 1), '2024-12-31 23:59:59.001 +0000 UTC'],
  ])('%d → %s', (ms, want) => expect(formatGoTimeUTC(ms)).toBe(want));
});

it('toMillis', () => {
  expect(toMillis(5)).toBe(5);
  expect(toMillis(new Date(7))).toBe(7);
  expect(toMillis('1970-01-01T00:00:01.000Z')).toBe(1000);
});
