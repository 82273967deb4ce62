// OpenShift version thresholds. Upstream compares "base versions" (major.minor) for feature gates;
// an unparseable version counts as older than any threshold, as upstream's helpers report an error
// that callers treat as "less than".

interface BaseVersion {
  major: number;
  minor: number;
}

function parseBase(version: string | undefined): BaseVersion | undefined {
  const m = /^v?(\d+)\.(\d+)/.exec((version ?? '').trim());
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]) };
}

function compareBase(a: BaseVersion, b: BaseVersion): number {
  return a.major !== b.major ? a.major - b.major : a.minor - b.minor;
}

/** `version`'s major.minor is at least `threshold` ("4.14"). */
export function versionAtLeast(version: string | undefined, threshold: string): boolean {
  const v = parseBase(version);
  const t = parseBase(threshold);
  if (!v || !t) return false;
  return compareBase(v, t) >= 0;
}

/** `version`'s major.minor is below `threshold`; unparseable versions count as below. */
export function versionBelow(version: string | undefined, threshold: string): boolean {
  return !versionAtLeast(version, threshold);
}

/** `version`'s major.minor equals `base` ("4.19" matches 4.19.0, 4.19.3-rc.1, ...). */
export function baseVersionEquals(version: string | undefined, base: string): boolean {
  const v = parseBase(version);
  const b = parseBase(base);
  return !!v && !!b && compareBase(v, b) === 0;
}
