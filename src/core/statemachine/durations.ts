// Durations the way upstream prints and parses them (Go's time.Duration), and elapsed-time helpers.
// Records carry ISO timestamps; a missing one behaves like Go's zero time (infinitely long ago).

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** Milliseconds since the epoch of an ISO timestamp; missing/unparseable → 0 (the distant past). */
export function timeMs(iso: string | undefined | null): number {
  if (!iso) return 0;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
}

/** Whether a timestamp is unset (Go's IsZero on a zero-valued strfmt.DateTime). */
export function isZeroTime(iso: string | undefined | null): boolean {
  return timeMs(iso) <= 0;
}

/** now − t in milliseconds. */
export function elapsedMs(now: Date, iso: string | undefined | null): number {
  return now.getTime() - timeMs(iso);
}

function trimFraction(value: number): string {
  // At most millisecond precision; drop trailing zeros like Go does.
  return value.toFixed(3).replace(/\.?0+$/, '');
}

/** Go's Duration.String() for millisecond inputs: 30m → "30m0s", 1h → "1h0m0s", 1.5s → "1.5s". */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 0) return `-${formatGoDuration(-ms)}`;
  if (ms < SECOND) return `${trimFraction(ms)}ms`;
  const hours = Math.floor(ms / HOUR);
  const minutes = Math.floor((ms % HOUR) / MINUTE);
  const seconds = (ms % MINUTE) / SECOND;
  let out = '';
  if (hours > 0) out += `${hours}h`;
  if (hours > 0 || minutes > 0) out += `${minutes}m`;
  return `${out}${trimFraction(seconds)}s`;
}

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: SECOND,
  m: MINUTE,
  h: HOUR,
};

/** Go's time.ParseDuration ("1h30m", "90m", "1.5h", "300ms"); undefined when malformed. */
export function parseGoDuration(text: string): number | undefined {
  let rest = text.trim();
  if (rest === '') return undefined;
  let sign = 1;
  if (rest[0] === '-' || rest[0] === '+') {
    if (rest[0] === '-') sign = -1;
    rest = rest.slice(1);
  }
  if (rest === '0') return 0;
  if (rest === '') return undefined;
  let total = 0;
  const part = /^(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (rest.length > 0) {
    const m = part.exec(rest);
    if (!m) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
    rest = rest.slice(m[0].length);
  }
  return sign * total;
}

/** Whole minutes of a duration, as upstream prints `int64(d.Minutes())`. */
export function wholeMinutes(ms: number): number {
  return Math.trunc(ms / MINUTE);
}
