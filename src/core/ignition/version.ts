// OpenShift version comparison on the numeric major.minor.patch prefix ("4.18.0-ec.2" ≥ "4.18").

function numericParts(version: string): number[] {
  const core = version.trim().replace(/^v/, '').split(/[-+]/)[0] ?? '';
  return core.split('.').map((p) => Number.parseInt(p, 10) || 0);
}

export function compareVersions(a: string, b: string): number {
  const pa = numericParts(a);
  const pb = numericParts(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function versionAtLeast(version: string, minimum: string): boolean {
  return compareVersions(version, minimum) >= 0;
}
