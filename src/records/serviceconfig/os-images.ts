// The OS images the AgentServiceConfig lists (`spec.osImages`, upstream's OS_IMAGES), and the
// lookups the InfraEnv controller and the image service make on them: which image an InfraEnv
// boots (kubeapi.md §1.2 osImageVersion, §3.3 "OpenShift version"), and which image a download
// URL names (agent-api.md §9.1: `version` may be the OpenShift version key or the RHCOS version).
import type { OSImage } from '../../api/index.ts';
import { compareBaseVersions } from '../../core/version.ts';
import type { OsImage } from '../../images/base-images.ts';

/** `arm64` and `aarch64` name the same machines, as do `amd64` and `x86_64`. */
export function normalizeArch(arch: string | undefined): string {
  const a = (arch || 'x86_64').toLowerCase();
  if (a === 'aarch64') return 'arm64';
  if (a === 'amd64') return 'x86_64';
  return a;
}

/** `4.16.3` → `4.16`. */
function majorMinor(version: string): string {
  const m = /^(\d+)\.(\d+)/.exec(version);
  return m ? `${m[1]}.${m[2]}` : version;
}

/** AgentServiceConfig `spec.osImages` → image cache entries (architecture defaults to x86_64). */
export function osImagesFromSpec(images: readonly OSImage[] | undefined): OsImage[] {
  return (images ?? []).map((i) => ({
    openshiftVersion: i.openshiftVersion,
    cpuArchitecture: i.cpuArchitecture || 'x86_64',
    url: i.url,
    version: i.version || undefined,
    rootFSUrl: i.rootFSUrl || undefined,
  }));
}

export type OsImageSelection =
  | { ok: true; image: OsImage }
  | { ok: false; clientError: boolean; message: string };

export const OS_IMAGE_VERSION_MISSING = 'Specified OSImageVersion is missing from AgentServiceConfig';

export class OsImageCatalog {
  readonly images: readonly OsImage[];

  constructor(images: readonly OsImage[] = []) {
    // The first entry of a version and architecture wins, like upstream's map built in order.
    const seen = new Set<string>();
    this.images = images.filter((i) => {
      const key = `${i.openshiftVersion}|${normalizeArch(i.cpuArchitecture)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
  }

  get empty(): boolean {
    return this.images.length === 0;
  }

  private ofArch(arch: string): OsImage[] {
    const want = normalizeArch(arch);
    return this.images.filter((i) => normalizeArch(i.cpuArchitecture) === want);
  }

  /** The newest OpenShift version for an architecture. */
  latest(arch: string): OsImage | undefined {
    return this.ofArch(arch).reduce<OsImage | undefined>(
      (best, i) => (!best || compareBaseVersions(i.openshiftVersion, best.openshiftVersion) > 0 ? i : best),
      undefined,
    );
  }

  /** Exact OpenShift version, else the same major.minor. */
  byOpenshiftVersion(version: string, arch: string): OsImage | undefined {
    const images = this.ofArch(arch);
    return (
      images.find((i) => i.openshiftVersion === version) ??
      images.find((i) => majorMinor(i.openshiftVersion) === majorMinor(version))
    );
  }

  /** What a download URL names: the OpenShift version key or the RHCOS version, for an arch. */
  forDownload(version: string, arch: string): OsImage | undefined {
    const images = this.ofArch(arch);
    return images.find((i) => i.openshiftVersion === version) ?? images.find((i) => i.version === version);
  }

  /**
   * The image an InfraEnv boots: its `osImageVersion` (must exist), else the bound cluster's
   * version (falling back to the newest when the catalog lacks it), else the newest.
   */
  forInfraEnv(arch: string, osImageVersion?: string, clusterVersion?: string): OsImageSelection {
    if (osImageVersion) {
      const image = this.byOpenshiftVersion(osImageVersion, arch);
      return image
        ? { ok: true, image }
        : { ok: false, clientError: true, message: OS_IMAGE_VERSION_MISSING };
    }
    const image = (clusterVersion && this.byOpenshiftVersion(clusterVersion, arch)) || this.latest(arch);
    if (image) return { ok: true, image };
    return {
      ok: false,
      clientError: true,
      message: this.empty
        ? 'No OS images are available: add osImages to the AgentServiceConfig named agent'
        : `No OS image is available for CPU architecture ${arch}`,
    };
  }
}
