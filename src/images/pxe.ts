// PXE boot (agent-api.md §9.6): the kernel, rootfs and initrd are served straight from the full
// ISO's extents, the initrd with the discovery ignition (and the minimal ISO's ramdisk / nmstate
// image) appended as further compressed cpio archives, which the kernel unpacks in turn. Also
// the iPXE script text the service hands out.
import { ignitionArchive } from './embed.ts';
import { type ByteView, concatView } from './iso-stream.ts';
import type { Extent } from './iso9660.ts';
import type { LiveIsoLayout } from './live-iso.ts';

export type BootArtifact = 'kernel' | 'rootfs' | 'ins-file';

export interface BootArtifactFile {
  extent: Extent;
  /** Sent as `Content-Disposition: attachment; filename=<name>`. */
  filename: string;
}

/**
 * RHEL minor of an RHCOS version (`416.94.202405291527-0` → 94), used to pick the s390x kernel
 * file: images before RHEL 9.6 ship `kernel.img`, later ones `vmlinuz` like other arches.
 */
function rhelMinor(rhcosVersion: string | undefined): number | undefined {
  const m = /^\d+\.(\d+)\./.exec(rhcosVersion ?? '');
  return m ? Number(m[1]) : undefined;
}

/**
 * Which file a `/boot-artifacts/<artifact>` request serves; undefined means 404 (unknown
 * artifact, ins-file on a non-s390x arch, or the file is missing from the image).
 */
export function bootArtifactFile(
  layout: LiveIsoLayout,
  artifact: string,
  arch: string,
  rhcosVersion?: string,
): BootArtifactFile | undefined {
  const pick = (extent: Extent | undefined, filename: string) => (extent ? { extent, filename } : undefined);
  switch (artifact) {
    case 'rootfs':
      return pick(layout.pxe.rootfs, 'rootfs.img');
    case 'kernel': {
      const minor = rhelMinor(rhcosVersion);
      if (arch === 's390x' && (minor === undefined || minor < 96) && layout.pxe.kernelImg) {
        return pick(layout.pxe.kernelImg, 'kernel.img');
      }
      return pick(layout.pxe.vmlinuz, 'vmlinuz');
    }
    case 'ins-file':
      return arch === 's390x' ? pick(layout.pxe.genericIns, 'generic.ins') : undefined;
    default:
      return undefined;
  }
}

/** A boot artifact as a view of the full ISO file. */
export function bootArtifactView(isoPath: string, file: BootArtifactFile): ByteView {
  return concatView(isoPath, [file.extent]);
}

/**
 * `/images/<infra-env>/pxe-initrd`: the ISO's initrd.img, then the ignition archive (gzip'd
 * cpio, 4-byte padded), then the minimal-initrd ramdisk if any, then the nmstate image if any.
 */
export function pxeInitrdView(
  isoPath: string,
  layout: LiveIsoLayout,
  content: { ignition: Buffer | string; ramdisk?: Buffer | undefined; nmstateImage?: Buffer | undefined },
): ByteView {
  if (!layout.pxe.initrd) throw new Error('the base image has no images/pxeboot/initrd.img');
  const parts: Array<Extent | Buffer> = [layout.pxe.initrd, ignitionArchive(content.ignition)];
  if (content.ramdisk && content.ramdisk.length > 0) parts.push(content.ramdisk);
  if (content.nmstateImage && content.nmstateImage.length > 0) parts.push(content.nmstateImage);
  return concatView(isoPath, parts);
}

/** How the initrd URL is signed: local auth → `api_key`, rhsso → `image_token`, none → unsigned. */
export type IpxeInitrdAuth = { kind: 'none' } | { kind: 'api_key' | 'image_token'; token: string };

export interface IpxeScriptParams {
  /** IMAGE_SERVICE_BASE_URL; may carry a path prefix. */
  imageServiceBaseUrl: string;
  infraEnvId: string;
  cpuArchitecture: string;
  /** The OpenShift version key of the infra-env's OS image (`4.16`). */
  openshiftVersion: string;
  auth: IpxeInitrdAuth;
  /** InfraEnv kernel arguments (append values), added at the end of the kernel line. */
  kernelArguments?: readonly string[];
  /** "Insecure iPXE URLs": force http for the kernel, rootfs and initrd URLs. */
  insecureHttp?: boolean;
}

/** Joins a path onto a base URL's path and adds a query with keys in Go's (sorted) order. */
export function imageServiceUrl(
  base: string,
  path: string,
  query: Record<string, string>,
  insecureHttp = false,
): string {
  const u = new URL(base);
  if (insecureHttp) u.protocol = 'http:';
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  const params = new URLSearchParams();
  for (const key of Object.keys(query).sort()) params.set(key, query[key] ?? '');
  u.search = params.toString();
  u.hash = '';
  return u.toString();
}

const IPXE_DEFAULT_KARGS =
  'random.trust_cpu=on rd.luks.options=discard ignition.firstboot ignition.platform.id=metal ' +
  'console=tty1 console=ttyS1,115200n8 coreos.inst.persistent-kargs="console=tty1 console=ttyS1,115200n8"';

/** The `discovery-image-always` iPXE script. */
export function ipxeScript(p: IpxeScriptParams): string {
  const versionQuery = { arch: p.cpuArchitecture, version: p.openshiftVersion };
  const initrdQuery: Record<string, string> = { ...versionQuery };
  if (p.auth.kind !== 'none') initrdQuery[p.auth.kind] = p.auth.token;
  const url = (path: string, q: Record<string, string>) =>
    imageServiceUrl(p.imageServiceBaseUrl, path, q, p.insecureHttp);
  const initrd = url(`images/${p.infraEnvId}/pxe-initrd`, initrdQuery);
  const kernel = url('boot-artifacts/kernel', versionQuery);
  const rootfs = url('boot-artifacts/rootfs', versionQuery);
  const extra = (p.kernelArguments ?? []).filter((a) => a.trim() !== '');
  const kernelLine = [
    `kernel ${kernel} initrd=initrd coreos.live.rootfs_url=${rootfs} ${IPXE_DEFAULT_KARGS}`,
    ...extra,
  ].join(' ');
  return `#!ipxe\ninitrd --name initrd ${initrd}\n${kernelLine}\nboot\n`;
}

/**
 * The `boot-order-control` script for a request without `mac`: chain back to the service with
 * the NIC's MAC so it can decide between booting discovery and falling through to disk.
 * `${net0/mac}` is expanded by iPXE and must stay unescaped.
 */
export function ipxeBootOrderControlScript(p: {
  serviceBaseUrl: string;
  infraEnvId: string;
  apiKey?: string | undefined;
}): string {
  const base = p.serviceBaseUrl.replace(/\/+$/, '');
  const key = p.apiKey ? `api_key=${encodeURIComponent(p.apiKey)}&` : '';
  return (
    `#!ipxe\nchain ${base}/api/assisted-install/v2/infra-envs/${p.infraEnvId}/downloads/files?` +
    `${key}file_name=ipxe-script&mac=\${net0/mac}\n`
  );
}
