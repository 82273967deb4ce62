// Cutting user-provided strings for log lines and event fields: shared by the host API, the
// operator's event writer and anything else that logs what a client sent.

/** Longest user-provided string a log line carries (the rest is counted, not logged). */
export const LOG_STRING_MAX = 256;

/** A user-provided string cut for a log line, saying how much was left out. */
export function capForLog(value: unknown, max = LOG_STRING_MAX): string {
  const text = typeof value === 'string' ? value : String(value);
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length - max} more characters)`;
}
