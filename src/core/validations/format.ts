// Formatting helpers that reproduce Go's output where messages embed it.

/**
 * Go's "%.<digits>f": the exact binary value rounded half to even (JS toFixed rounds exact ties
 * up, e.g. 0.125 → "0.13" where Go prints "0.12").
 */
export function formatGoFloat(value: number, digits: number): string {
  const fixed = value.toFixed(digits);
  if (!Number.isFinite(value)) return fixed;
  // An exact tie shows as "...5" followed only by zeros in a much wider (exact) expansion.
  const wider = value.toFixed(digits + 30);
  if (!wider.endsWith(`5${'0'.repeat(29)}`)) return fixed;
  if (Number(fixed.at(-1)) % 2 === 0) return fixed;
  // toFixed rounded the tie away from zero to an odd digit; the even neighbour is the truncation.
  const truncated = wider.slice(0, -30);
  return truncated.endsWith('.') ? truncated.slice(0, -1) : truncated;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** Go's time.Time.String() of a UTC time: "2006-01-02 15:04:05.999999999 +0000 UTC". */
export function formatGoTimeUTC(ms: number): string {
  const d = new Date(ms);
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  const fraction = pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '');
  return `${date} ${time}${fraction === '' ? '' : `.${fraction}`} +0000 UTC`;
}

export function toMillis(time: Date | number | string): number {
  if (typeof time === 'number') return time;
  if (typeof time === 'string') return Date.parse(time);
  return time.getTime();
}
