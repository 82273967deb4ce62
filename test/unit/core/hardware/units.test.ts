import { describe, expect, it } from 'vitest';
import {
  bytesToString,
  formatSiBytes,
  GIB,
  KIB,
  MIB,
  PIB,
  TIB,
} from '../../../../src/core/hardware/units.ts';

describe('bytesToString (binary units, as in RAM messages)', () => {
  it.each([
    [1, '1 bytes'],
    [KIB - 1, '1023 bytes'],
    [KIB, '1 KiB'],
    [MIB - 1, '1023 KiB'],
    [MIB, '1 MiB'],
    [GIB - 1, '1023 MiB'],
    [GIB, '1.00 GiB'],
    [16384 * MIB, '16.00 GiB'],
    [8092 * MIB, '7.90 GiB'],
    [Math.round(1.28 * GIB), '1.28 GiB'],
    [1.125 * GIB, '1.12 GiB'], // exact tie: half to even, as Go
    [1.375 * GIB, '1.38 GiB'],
    [TIB, '1.00 TiB'],
    [Math.round(4.25 * TIB), '4.25 TiB'],
    [PIB, '1.00 PiB'],
  ])('%d → %s', (bytes, text) => expect(bytesToString(bytes)).toBe(text));
});

describe('formatSiBytes (SI units rounded up to 3 decimals, as in disk reasons)', () => {
  it.each([
    [0, '0 B'],
    [999, '999 B'],
    [1000, '1 KB'],
    [1001, '1.001 KB'],
    [1_000_001, '1.001 MB'],
    [100_000_000_000, '100 GB'],
    [99_999_999_999, '100 GB'],
    [99_000_000_001, '99.001 GB'],
    [99_900_000_000, '99.9 GB'],
    [20_000_000_000, '20 GB'],
    [1_100_000_000, '1.1 GB'],
    [1_500_000_000_000, '1.5 TB'],
    [999_999_999, '1000 MB'],
  ])('%d → %s', (bytes, text) => expect(formatSiBytes(bytes)).toBe(text));
});
