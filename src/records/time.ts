// Timestamps as Kubernetes stores them. metav1.Time serialises with whole seconds in UTC
// (RFC 3339, "2006-01-02T15:04:05Z"); upstream writes every status time that way. Backend facts
// in `status.backend` keep the core's full ISO strings instead.

/** RFC 3339 with whole seconds, as metav1.Time writes it. */
export function metaTime(time: Date | string): string {
  const date = typeof time === 'string' ? new Date(time) : time;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * A status time read back into the core's form (`Date.toISOString()`), so a record read from the
 * API looks like one the core produced. Unparseable text is returned unchanged.
 */
export function coreTime(time: string): string {
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? time : new Date(ms).toISOString();
}
