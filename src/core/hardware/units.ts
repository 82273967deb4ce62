// Size formatting used in messages: binary units for RAM (validation messages) and SI units for
// disk sizes (disk eligibility reasons).

export const KIB = 1024;
export const MIB = 1024 * KIB;
export const GIB = 1024 * MIB;
export const TIB = 1024 * GIB;
export const PIB = 1024 * TIB;

export const GB = 1_000_000_000;

export function mibToBytes(mib: number): number {
  return mib * MIB;
}

export function gbToBytes(gb: number): number {
  return gb * GB;
}

/** bytes / unit with two decimals, ties to even (as Go's %.2f on an exact binary fraction). */
function fixed2(bytes: number, unit: number): string {
  const n = BigInt(Math.trunc(bytes)) * 100n;
  const u = BigInt(unit);
  let q = n / u;
  const twiceRemainder = (n % u) * 2n;
  if (twiceRemainder > u || (twiceRemainder === u && q % 2n === 1n)) q += 1n;
  return `${q / 100n}.${(q % 100n).toString().padStart(2, '0')}`;
}

/** Binary units: "%.2f PiB/TiB/GiB", whole "MiB"/"KiB", else "<n> bytes". */
export function bytesToString(bytes: number): string {
  if (bytes >= PIB) return `${fixed2(bytes, PIB)} PiB`;
  if (bytes >= TIB) return `${fixed2(bytes, TIB)} TiB`;
  if (bytes >= GIB) return `${fixed2(bytes, GIB)} GiB`;
  if (bytes >= MIB) return `${Math.trunc(bytes / MIB)} MiB`;
  if (bytes >= KIB) return `${Math.trunc(bytes / KIB)} KiB`;
  return `${Math.trunc(bytes)} bytes`;
}

const SI_UNITS: readonly [string, bigint][] = [
  ['TB', 1_000_000_000_000n],
  ['GB', 1_000_000_000n],
  ['MB', 1_000_000n],
  ['KB', 1_000n],
];

/**
 * SI units (B/KB/MB/GB/TB), rounded up to 3 decimals, trailing zeros trimmed: "100 GB",
 * "99.001 GB", "512 B". Integer arithmetic, so no floating-point drift.
 */
export function formatSiBytes(bytes: number): string {
  const n = BigInt(Math.max(0, Math.ceil(bytes)));
  for (const [unit, size] of SI_UNITS) {
    if (n < size) continue;
    const thousandths = (n * 1000n + size - 1n) / size;
    const whole = thousandths / 1000n;
    const fraction = (thousandths % 1000n).toString().padStart(3, '0').replace(/0+$/, '');
    return `${whole}${fraction === '' ? '' : `.${fraction}`} ${unit}`;
  }
  return `${n} B`;
}
