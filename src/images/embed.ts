// What a discovery ISO carries on top of the base image (agent-api.md §9.3–§9.5), as pure
// functions on Buffers: the ignition archive written into the ignition embed area, the extra
// kernel arguments written into each kargs embed area, and the minimal ISO's ramdisk written into
// its placeholder. Every result is an overlay at a fixed offset: the image never grows or moves,
// which is what keeps its hybrid MBR/GPT boot records valid.
import { gzipSync } from 'node:zlib';
import { MODE_REGULAR, writeNewc } from './cpio.ts';
import type { Overlay } from './iso-stream.ts';
import type { Extent } from './iso9660.ts';

export const IGNITION_FILE_NAME = 'config.ign';

/** A request-level failure: `status` is what the HTTP layer should answer (agent-api.md §9.2). */
export class EmbedError extends Error {
  override name = 'EmbedError';
  readonly status: 400 | 500;
  constructor(message: string, status: 400 | 500 = 500) {
    super(message);
    this.status = status;
  }
}

/**
 * gzip with the header Go's compress/gzip writes (MTIME 0, XFL 0 at the default level, OS 255,
 * no name). Only the OS byte differs from zlib's own header; the header carries no checksum, so
 * it can be set afterwards. The deflate stream itself is zlib's, not Go's (§9.3: byte identity
 * with the Go service is not attainable; the structure is).
 */
export function gzipDeterministic(data: Buffer): Buffer {
  const gz = gzipSync(data, { level: 6 });
  gz[9] = 0xff;
  return gz;
}

/** Appends NUL bytes so the length is a multiple of 4 (the kernel expects aligned archives). */
export function padTo4(data: Buffer): Buffer {
  const pad = (4 - (data.length % 4)) % 4;
  return pad === 0 ? data : Buffer.concat([data, Buffer.alloc(pad)]);
}

/** The ignition archive: gzip'd newc cpio holding only `config.ign` (0644), padded to 4 bytes. */
export function ignitionArchive(ignition: Buffer | string): Buffer {
  const data = typeof ignition === 'string' ? Buffer.from(ignition, 'utf8') : ignition;
  const cpio = writeNewc([{ name: IGNITION_FILE_NAME, mode: MODE_REGULAR | 0o644, data }]);
  return padTo4(gzipDeterministic(cpio));
}

/**
 * The ignition embed area rewritten as a whole: the archive, then zeros to the end of the area,
 * so a config already present in the base image is wiped.
 */
export function ignitionOverlay(area: Extent, archive: Buffer): Overlay {
  if (archive.length > area.length) {
    throw new EmbedError(
      `content length exceeds embed area size (ignition archive ${archive.length} bytes, area ${area.length})`,
    );
  }
  return { offset: area.offset, length: area.length, data: archive };
}

/**
 * The minimal ISO's ramdisk (the service's `minimal-initrd` bytes) over the start of the 1 MiB
 * `images/assisted_installer_custom.img` placeholder; the rest of the placeholder stays zero.
 */
export function ramdiskOverlay(area: Extent, ramdisk: Buffer): Overlay {
  if (ramdisk.length > area.length) {
    throw new EmbedError(`ramdisk of ${ramdisk.length} bytes exceeds its ${area.length}-byte placeholder`);
  }
  return { offset: area.offset, length: area.length, data: ramdisk };
}

/**
 * One kernel-argument embed area in a boot config file (grub.cfg, isolinux.cfg).
 * - `kargs-json`: coreos-installer's description (`kargs.json`): `length` bytes at the file
 *   offset, holding the current arguments, the `end` char and `pad` filler.
 * - `marker`: the image service's method when no offsets are known: the newline plus the run of
 *   `#` in front of `# COREOS_KARG_EMBED_AREA`; arguments are appended to the line above it.
 * Both write the same bytes: `<current> <extra>\n####…`.
 */
export interface KargsArea {
  /** Path of the config file in the ISO, for messages. */
  file: string;
  style: 'kargs-json' | 'marker';
  /** Absolute offset of the area in the image. */
  offset: number;
  length: number;
  /** The arguments the area holds now (kargs-json style only; the marker area holds none). */
  current: string;
  pad: string;
  end: string;
}

/**
 * Parses InfraEnv `kernel_arguments` as the image service receives it: a JSON string of
 * `[{"operation":"append","value":"…"}]`. Empty or absent means no arguments; any other
 * operation is a server error (§9.2 step 4).
 */
export function parseKernelArguments(json: string | undefined | null): string[] {
  if (!json || json.trim() === '') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new EmbedError(`failed to unmarshal kernel arguments: ${(err as Error).message}`);
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) throw new EmbedError('kernel arguments are not a list');
  return parsed.map((item: unknown) => {
    const { operation, value } = (item ?? {}) as { operation?: unknown; value?: unknown };
    if (operation !== 'append') {
      throw new EmbedError(`only 'append' operation is allowed. got ${String(operation)}`);
    }
    return typeof value === 'string' ? value : '';
  });
}

/**
 * Overlays writing `extra` arguments into every kargs area; none when there are no arguments
 * (the base image is served untouched). A newline or other control character inside an argument
 * would end the config line and inject boot-loader commands, so it is refused.
 */
export function kargsOverlays(areas: readonly KargsArea[], extra: readonly string[]): Overlay[] {
  const args = extra.map((a) => a.trim()).filter((a) => a !== '');
  if (args.length === 0) return [];
  for (const a of args) {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
    if (/[\u0000-\u001f\u007f]/.test(a)) {
      throw new EmbedError(`kernel argument ${JSON.stringify(a)} contains a control character`, 400);
    }
  }
  if (areas.length === 0) throw new EmbedError('the base image has no kernel-argument embed area');
  const joined = args.join(' ');
  return areas.map((area) => {
    const text =
      area.style === 'marker'
        ? ` ${joined}${area.end}`
        : `${[area.current, joined].filter((s) => s !== '').join(' ')}${area.end}`;
    const bytes = Buffer.from(text, 'utf8');
    if (bytes.length > area.length) {
      throw new EmbedError(
        `kernel arguments do not fit the embed area in ${area.file} (${bytes.length} > ${area.length} bytes)`,
      );
    }
    const data = Buffer.alloc(area.length, area.pad, 'latin1');
    bytes.copy(data);
    return { offset: area.offset, length: area.length, data };
  });
}
