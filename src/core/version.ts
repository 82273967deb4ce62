// The one place OpenShift versions are compared. Upstream applies two rules:
//  - "base version" (feature gates, hardware and network rules, install-config): everything after
//    the first "-" is dropped ("4.14.0-rc.1" counts as 4.14.0), missing parts are 0, and a version
//    that does not parse never satisfies a threshold;
//  - "release" (the converged-flow gate against 4.12.0-0.alpha): semver ordering with pre-release,
//    so 4.12.0-rc.1 sorts below 4.12.0.
// Both accept a leading "v" and 1 to 3 numeric parts ("4.12" is 4.12.0).
import semver from 'semver';

const BASE = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/;
const RELEASE = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;

/** "4.14.0-rc.1" → "4.14.0"; "4.14" stays "4.14". */
export function baseVersion(version: string): string {
  const dash = version.indexOf('-');
  return (dash < 0 ? version : version.slice(0, dash)).trim();
}

function parseBase(version: string | undefined): semver.SemVer | undefined {
  const m = BASE.exec(baseVersion(version ?? '').split('+')[0] ?? '');
  if (!m) return undefined;
  return new semver.SemVer(`${Number(m[1])}.${Number(m[2] ?? 0)}.${Number(m[3] ?? 0)}`);
}

/** Whether the string parses as a version once any pre-release suffix is dropped. */
export function isVersion(version: string): boolean {
  return parseBase(version) !== undefined;
}

/** -1 / 0 / 1 on base versions; an unparseable version sorts before every parseable one. */
export function compareBaseVersions(a: string, b: string): -1 | 0 | 1 {
  const x = parseBase(a);
  const y = parseBase(b);
  if (!x || !y) return Math.sign((x ? 1 : 0) - (y ? 1 : 0)) as -1 | 0 | 1;
  return semver.compare(x, y);
}

/** base(version) ≥ base(minimum); false when either does not parse (upstream's parse error). */
export function baseVersionAtLeast(version: string | undefined, minimum: string): boolean {
  const v = parseBase(version);
  const min = parseBase(minimum);
  return !!v && !!min && semver.gte(v, min);
}

/** Negation of baseVersionAtLeast: an unparseable version counts as below every threshold. */
export function baseVersionBelow(version: string | undefined, threshold: string): boolean {
  return !baseVersionAtLeast(version, threshold);
}

/** Same major.minor ("4.19" matches 4.19.0 and 4.19.3-rc.1). */
export function majorMinorEquals(version: string | undefined, base: string): boolean {
  const v = parseBase(version);
  const b = parseBase(base);
  return !!v && !!b && v.major === b.major && v.minor === b.minor;
}

function parseRelease(version: string): semver.SemVer | undefined {
  const m = RELEASE.exec(version.trim());
  if (!m) return undefined;
  const core = `${Number(m[1])}.${Number(m[2] ?? 0)}.${Number(m[3] ?? 0)}`;
  return semver.parse(`${core}${m[4] ?? ''}${m[5] ?? ''}`) ?? undefined;
}

/** -1 / 0 / 1 with semver pre-release ordering (build metadata ignored); undefined if unparseable. */
export function compareReleaseVersions(a: string, b: string): -1 | 0 | 1 | undefined {
  const x = parseRelease(a);
  const y = parseRelease(b);
  return x && y ? semver.compare(x, y) : undefined;
}
