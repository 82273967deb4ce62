// Where the writable areas and boot artifacts of a CoreOS live ISO are (agent-api.md §9.3–§9.6),
// read once per base image, and the overlays that turn it into one infra-env's discovery ISO.
import {
  EmbedError,
  ignitionArchive,
  ignitionOverlay,
  type KargsArea,
  kargsOverlays,
  ramdiskOverlay,
} from './embed.ts';
import type { Overlay } from './iso-stream.ts';
import type { Extent, IsoEntry, IsoImage } from './iso9660.ts';

export const IGNINFO_PATH = '/coreos/igninfo.json';
export const KARGS_INFO_PATH = '/coreos/kargs.json';
export const DEFAULT_IGNITION_IMAGE_PATH = '/images/ignition.img';
/** Used when an image has no kargs.json (older ISOs), as the image service does. */
export const DEFAULT_KARGS_FILES = ['/EFI/redhat/grub.cfg', '/isolinux/isolinux.cfg'];
export const RAMDISK_PLACEHOLDER_PATH = '/images/assisted_installer_custom.img';
export const NMSTATE_IMAGE_PATH = '/images/nmstate.img';
const KARGS_MARKER = /(\n#*)# COREOS_KARG_EMBED_AREA/;

export interface LiveIsoLayout {
  volumeId: string;
  /** The ignition embed area; undefined (with a reason in `problems`) when it cannot be found. */
  ignition: Extent | undefined;
  /** The kernel-argument areas; undefined (with a reason in `problems`) when they cannot be found. */
  kargs: KargsArea[] | undefined;
  /** Minimal ISO templates only: the 1 MiB ramdisk placeholder. */
  ramdisk: Extent | undefined;
  /** Minimal ISO templates for OCP ≥ 4.18 carry `images/nmstate.img`. */
  hasNmstateImage: boolean;
  /** Boot artifacts under `images/pxeboot` (and `generic.ins` at the root on s390x). */
  pxe: {
    vmlinuz?: Extent;
    kernelImg?: Extent;
    initrd?: Extent;
    rootfs?: Extent;
    genericIns?: Extent;
  };
  problems: string[];
}

function extentOf(e: IsoEntry | undefined): Extent | undefined {
  return e && !e.isDirectory ? { offset: e.offset, length: e.length } : undefined;
}

export async function readLiveIsoLayout(iso: IsoImage): Promise<LiveIsoLayout> {
  const problems: string[] = [];
  const ignition = await findIgnitionArea(iso).catch((err: Error) => {
    problems.push(`ignition embed area: ${err.message}`);
    return undefined;
  });
  const kargs = await findKargsAreas(iso).catch((err: Error) => {
    problems.push(`kernel-argument embed area: ${err.message}`);
    return undefined;
  });
  const file = async (path: string) => extentOf(await iso.lookup(path));
  return {
    volumeId: iso.volumeId,
    ignition,
    kargs,
    ramdisk: await file(RAMDISK_PLACEHOLDER_PATH),
    hasNmstateImage: (await file(NMSTATE_IMAGE_PATH)) !== undefined,
    pxe: {
      vmlinuz: await file('/images/pxeboot/vmlinuz'),
      kernelImg: await file('/images/pxeboot/kernel.img'),
      initrd: await file('/images/pxeboot/initrd.img'),
      rootfs: await file('/images/pxeboot/rootfs.img'),
      genericIns: await file('/generic.ins'),
    },
    problems,
  };
}

async function readJson(iso: IsoImage, entry: IsoEntry): Promise<unknown> {
  const text = (await iso.readFile(entry, 64 * 1024)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`${entry.name} is not valid JSON: ${(err as Error).message}`);
  }
}

function optionalNumber(value: unknown, what: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new Error(`${what} must be a non-negative integer`);
  }
  return value;
}

/**
 * `/coreos/igninfo.json` names the file and optionally an offset/length inside it; without it
 * the whole of `/images/ignition.img` is the area.
 */
export async function findIgnitionArea(iso: IsoImage): Promise<Extent> {
  const info = await iso.lookup(IGNINFO_PATH);
  let path = DEFAULT_IGNITION_IMAGE_PATH;
  let offset = 0;
  let length: number | undefined;
  if (info) {
    const json = (await readJson(iso, info)) as { file?: unknown; offset?: unknown; length?: unknown };
    if (typeof json.file !== 'string' || json.file === '') throw new Error('igninfo.json has no "file"');
    path = json.file;
    offset = optionalNumber(json.offset, 'igninfo.json offset') ?? 0;
    length = optionalNumber(json.length, 'igninfo.json length');
  }
  const file = await iso.lookup(path);
  if (!file || file.isDirectory) throw new Error(`${path} not found in the image`);
  const areaLength = length ?? file.length - offset;
  if (offset + areaLength > file.length || areaLength <= 0) {
    throw new Error(`area ${offset}+${areaLength} does not fit in ${path} (${file.length} bytes)`);
  }
  return { offset: file.offset + offset, length: areaLength };
}

interface KargsInfo {
  default?: unknown;
  size?: unknown;
  files?: Array<{ path?: unknown; offset?: unknown; pad?: unknown; end?: unknown }>;
}

/**
 * Every kernel-argument area. `kargs.json` (coreos-installer's description) gives exact offsets;
 * a listed file without an offset, or an image without kargs.json, falls back to the marker.
 */
export async function findKargsAreas(iso: IsoImage): Promise<KargsArea[]> {
  const infoEntry = await iso.lookup(KARGS_INFO_PATH);
  if (!infoEntry) {
    const areas: KargsArea[] = [];
    for (const path of DEFAULT_KARGS_FILES) {
      const entry = await iso.lookup(path);
      // Not every architecture has both boot loaders (ppc64le has no isolinux).
      if (entry && !entry.isDirectory) areas.push(markerArea(path, entry, await iso.readFile(entry)));
    }
    if (areas.length === 0) throw new Error(`none of ${DEFAULT_KARGS_FILES.join(', ')} found`);
    return areas;
  }
  const info = (await readJson(iso, infoEntry)) as KargsInfo;
  if (!Array.isArray(info.files) || info.files.length === 0) throw new Error('kargs.json lists no files');
  const size = optionalNumber(info.size, 'kargs.json size');
  const areas: KargsArea[] = [];
  for (const f of info.files) {
    if (typeof f.path !== 'string') throw new Error('kargs.json has a file without a path');
    const entry = await iso.lookup(f.path);
    if (!entry || entry.isDirectory) throw new Error(`${f.path} (listed in kargs.json) not found`);
    const content = await iso.readFile(entry);
    const pad = typeof f.pad === 'string' && f.pad.length === 1 ? f.pad : '#';
    const end = typeof f.end === 'string' && f.end.length === 1 ? f.end : '\n';
    const offset = optionalNumber(f.offset, `kargs.json offset of ${f.path}`);
    if (offset === undefined || size === undefined) {
      areas.push(markerArea(f.path, entry, content, pad, end));
      continue;
    }
    if (size === 0 || offset + size > content.length) {
      throw new Error(`area ${offset}+${size} does not fit in ${f.path} (${content.length} bytes)`);
    }
    areas.push({
      file: f.path,
      style: 'kargs-json',
      offset: entry.offset + offset,
      length: size,
      current: currentKargs(content.subarray(offset, offset + size), pad),
      pad,
      end,
    });
  }
  return areas;
}

/** coreos-installer's reading of an area: strip the pad filler, then surrounding whitespace. */
function currentKargs(area: Buffer, pad: string): string {
  let text = area.toString('utf8');
  while (text.endsWith(pad)) text = text.slice(0, -1);
  return text.trim();
}

function markerArea(path: string, entry: IsoEntry, content: Buffer, pad = '#', end = '\n'): KargsArea {
  // latin1 keeps one character per byte, so string indices are file offsets.
  const m = KARGS_MARKER.exec(content.toString('latin1'));
  if (!m?.[1]) throw new Error(`failed to find COREOS_KARG_EMBED_AREA in ${path}`);
  return {
    file: path,
    style: 'marker',
    offset: entry.offset + m.index,
    length: m[1].length,
    current: '',
    pad,
    end,
  };
}

export interface DiscoveryContent {
  /** The discovery ignition (JSON bytes), as served by `…/downloads/files?file_name=discovery.ign`. */
  ignition: Buffer | string;
  /** Extra kernel arguments (already parsed from the InfraEnv, see parseKernelArguments). */
  kernelArguments?: readonly string[];
  /** Minimal ISO only: the service's `minimal-initrd` bytes (absent or empty when it answered 204). */
  ramdisk?: Buffer;
  cpuArchitecture?: string;
}

/** The overlays that make a base image one infra-env's discovery ISO, sorted by offset. */
export function discoveryOverlays(layout: LiveIsoLayout, content: DiscoveryContent): Overlay[] {
  if (!layout.ignition) {
    throw new EmbedError(`the base image has no ignition embed area: ${layout.problems.join('; ')}`);
  }
  const overlays = [ignitionOverlay(layout.ignition, ignitionArchive(content.ignition))];
  if (content.ramdisk && content.ramdisk.length > 0) {
    if (!layout.ramdisk)
      throw new EmbedError('the base image has no ramdisk placeholder (not a minimal ISO)');
    overlays.push(ramdiskOverlay(layout.ramdisk, content.ramdisk));
  }
  const kargs = (content.kernelArguments ?? []).filter((a) => a.trim() !== '');
  if (kargs.length > 0) {
    if (content.cpuArchitecture === 's390x') {
      throw new EmbedError('kernel arguments cannot be embedded in s390x images', 400);
    }
    if (!layout.kargs) {
      throw new EmbedError(`the base image has no kernel-argument embed area: ${layout.problems.join('; ')}`);
    }
    overlays.push(...kargsOverlays(layout.kargs, kargs));
  }
  return overlays.sort((a, b) => a.offset - b.offset);
}
