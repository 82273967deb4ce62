// OpenShift version comparison as the hardware rules need it: on the base version (everything
// after the first "-" dropped), numerically per dot-separated segment, missing segments = 0.

/** "4.14.0-rc.1" → "4.14.0". */
export function baseVersion(version: string): string {
  const dash = version.indexOf('-');
  return (dash < 0 ? version : version.slice(0, dash)).trim();
}

function segments(version: string): number[] | undefined {
  const base = baseVersion(version).replace(/^v/, '');
  if (!/^[0-9]+(\.[0-9]+)*$/.test(base)) return undefined;
  return base.split('.').map(Number);
}

/** Whether the string parses as a version (after dropping any pre-release suffix). */
export function isVersion(version: string): boolean {
  return segments(version) !== undefined;
}

/**
 * Compares two versions by their base versions: negative / 0 / positive. Unparseable versions
 * sort before every parseable one (and equal to each other).
 */
export function compareVersions(a: string, b: string): number {
  const x = segments(a);
  const y = segments(b);
  if (!x || !y) return (x ? 1 : 0) - (y ? 1 : 0);
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** `version` ≥ `min` on base versions; false when `version` does not parse. */
export function isVersionAtLeast(version: string | undefined, min: string): boolean {
  if (version === undefined || !isVersion(version)) return false;
  return compareVersions(version, min) >= 0;
}
