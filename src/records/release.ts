// The OpenShift release of a ClusterImageSet (kubeapi.md §3.1.5). Upstream pulls the release
// image to read its version and architecture. This layer does no I/O: it takes what the caller
// resolved, or reads both from a release tag such as `…/ocp-release:4.16.3-x86_64`. A
// digest-only reference carries neither, so the error says how to fix it.

export interface ReleaseInfo {
  version: string;
  /** x86_64, aarch64, arm64, ppc64le, s390x or multi. */
  cpuArchitecture: string;
}

const ARCH_SUFFIXES = ['x86_64', 'aarch64', 'arm64', 'ppc64le', 's390x', 'multi'];

/** The tag of an image reference, or undefined for a digest-only or untagged reference. */
export function imageTag(image: string): string | undefined {
  const withoutDigest = image.split('@')[0] ?? '';
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  return colon >= 0 ? withoutDigest.slice(colon + 1) || undefined : undefined;
}

/**
 * Version and architecture from a release tag: `<version>[-<arch>]`, where the version starts
 * with `<major>.<minor>`. No architecture suffix means x86_64 (CI and nightly tags).
 */
export function releaseFromImageTag(image: string): ReleaseInfo | undefined {
  const tag = imageTag(image);
  if (!tag || !/^\d+\.\d+/.test(tag)) return undefined;
  for (const arch of ARCH_SUFFIXES) {
    if (tag.endsWith(`-${arch}`)) return { version: tag.slice(0, -(arch.length + 1)), cpuArchitecture: arch };
  }
  return { version: tag, cpuArchitecture: 'x86_64' };
}

/** Upstream's release-resolution error text. */
export function releaseImageError(releaseImage: string, imageSetName: string, cause: string): string {
  return `failed to get release image '${releaseImage}'. Please ensure the releaseImage field in ClusterImageSet '${imageSetName}' is valid (error: ${cause}).`;
}

/** Why a release cannot be derived without pulling the image. */
export const RELEASE_VERSION_NOT_DERIVABLE =
  'the OpenShift version cannot be derived from the image reference; use a tag that starts with the version, e.g. 4.16.3-x86_64';
