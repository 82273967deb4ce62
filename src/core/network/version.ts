// Minimal OpenShift version comparison for the network rules. Upstream compares "base versions":
// everything after the first "-" (pre-release, nightly suffix) is dropped, then numeric parts are
// compared, missing parts counting as 0 ("4.12" == "4.12.0").

function baseParts(version: string): number[] {
  const base = version.trim().replace(/^v/, '').split('-')[0] ?? '';
  return base.split('.').map((p) => {
    const n = Number.parseInt(p, 10);
    return Number.isFinite(n) ? n : 0;
  });
}

/** Negative, zero or positive like a comparator: base(a) vs base(b). */
export function compareOpenshiftVersions(a: string, b: string): number {
  const x = baseParts(a);
  const y = baseParts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** base(version) ≥ base(minimum). An empty version never qualifies (upstream fails the parse). */
export function isVersionAtLeast(version: string | undefined, minimum: string): boolean {
  if (!version) return false;
  return compareOpenshiftVersions(version, minimum) >= 0;
}
