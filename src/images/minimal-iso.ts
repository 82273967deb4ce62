// The minimal ISO template (agent-api.md §9.5), built once per base image: the full ISO without
// `images/pxeboot/rootfs.img`, with a 1 MiB zero placeholder `images/assisted_installer_custom.img`
// (where each download's ramdisk goes), optionally `images/nmstate.img`, and boot configs that
// fetch the rootfs from the image service instead of the medium.
//
// How: the boot configs and kargs.json are edited here (pure functions below), and xorriso
// writes a new image from the full one, replaying its El Torito boot catalog and hybrid MBR/GPT
// system area (`-boot_image any replay`), removing the rootfs and mapping in the edited files.
// Everything else (volume id, Rock Ridge names, Joliet, other files) carries over.
// `-compliance no_emul_toc` makes xorriso write a plain single-session image starting at LBA 0
// instead of its multi-session emulation at LBA 32; `iso_9660_level=1` keeps the 8.3 plain names
// (`COREOS/IGNINFO.JSO;1`) coreos-installer looks up, as in the full image.
// xorriso must be installed where this runs.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type IsoImage, withIsoFile } from './iso9660.ts';
import { KARGS_INFO_PATH, NMSTATE_IMAGE_PATH, RAMDISK_PLACEHOLDER_PATH } from './live-iso.ts';
import { imageServiceUrl } from './pxe.ts';

const execFileAsync = promisify(execFile);

export const RAMDISK_PLACEHOLDER_SIZE = 1024 * 1024;
const ROOTFS_PATH = '/images/pxeboot/rootfs.img';
/** First one present is edited, in this order (as the image service does). */
export const GRUB_CONFIG_PATHS = [
  '/EFI/redhat/grub.cfg',
  '/EFI/fedora/grub.cfg',
  '/boot/grub/grub.cfg',
  '/EFI/centos/grub.cfg',
];
export const ISOLINUX_CONFIG_PATH = '/isolinux/isolinux.cfg';

/** `<IMAGE_SERVICE_BASE_URL>/boot-artifacts/rootfs?arch=<arch>&version=<RHCOS version>`. */
export function minimalRootfsUrl(imageServiceBaseUrl: string, arch: string, rhcosVersion: string): string {
  return imageServiceUrl(imageServiceBaseUrl, 'boot-artifacts/rootfs', { arch, version: rhcosVersion });
}

/** A replacement in the original text: `remove` characters at `at` become `insert`. */
export interface Splice {
  at: number;
  remove: number;
  insert: string;
}

export function applySplices(text: string, splices: readonly Splice[]): string {
  let out = '';
  let pos = 0;
  for (const s of [...splices].sort((a, b) => a.at - b.at)) {
    out += text.slice(pos, s.at) + s.insert;
    pos = s.at + s.remove;
  }
  return out + text.slice(pos);
}

/** Where a position of the original text ends up after the splices that precede it. */
export function mapOffset(offset: number, splices: readonly Splice[]): number {
  let shift = 0;
  for (const s of splices) if (s.at + s.remove <= offset) shift += s.insert.length - s.remove;
  return offset + shift;
}

function rootfsKarg(rootfsUrl: string): string {
  return ` coreos.live.rootfs_url="${rootfsUrl}"`;
}

/**
 * Removes every `coreos.liveiso=<label>` argument with one separating space: the one after it,
 * or the one before it when it is the last argument. Used on kernel lines and on kargs.json's
 * default alike, so both change in the same way.
 */
function liveisoSplices(text: string, base = 0): Splice[] {
  const splices: Splice[] = [];
  for (const m of text.matchAll(/(?<=^|\s)coreos\.liveiso=\S+/g)) {
    const at = m.index ?? 0;
    const end = at + m[0].length;
    if (text[end] === ' ') splices.push({ at: base + at, remove: m[0].length + 1, insert: '' });
    else if (text[at - 1] === ' ') splices.push({ at: base + at - 1, remove: m[0].length + 1, insert: '' });
    else splices.push({ at: base + at, remove: m[0].length, insert: '' });
  }
  return splices;
}

/** The default kernel arguments of the template: no `coreos.liveiso=`, the rootfs URL added. */
export function minimalDefaultKargs(defaultKargs: string, rootfsUrl: string): string {
  return applySplices(defaultKargs, liveisoSplices(defaultKargs)) + rootfsKarg(rootfsUrl);
}

/**
 * Splices for a boot config: on each kernel line (grub `linux`/`linuxefi`, isolinux `append`)
 * drop ` coreos.liveiso=…` and append the rootfs URL; add the extra initrds to grub's `initrd`
 * lines (space-separated) and to isolinux's `initrd=` list (comma-separated).
 * The config text must be decoded as latin1 so that indices are byte offsets.
 */
export function bootConfigSplices(
  text: string,
  kind: 'grub' | 'isolinux',
  opts: { rootfsUrl: string; extraInitrds: readonly string[] },
): Splice[] {
  const splices: Splice[] = [];
  const kernelLine = kind === 'grub' ? /^\s*linux(efi)?\s/ : /^\s*append\s/i;
  let lineStart = 0;
  for (const rawLine of text.split('\n')) {
    const line = rawLine.endsWith('\r') ? rawLine.slice(0, -1) : rawLine;
    const lineEnd = lineStart + line.length;
    if (kernelLine.test(line)) {
      splices.push(...liveisoSplices(line, lineStart));
      splices.push({ at: lineEnd, remove: 0, insert: rootfsKarg(opts.rootfsUrl) });
      if (kind === 'isolinux' && opts.extraInitrds.length > 0) {
        const m = /initrd=\S+/i.exec(line);
        if (m)
          splices.push({
            at: lineStart + m.index + m[0].length,
            remove: 0,
            insert: `,${opts.extraInitrds.join(',')}`,
          });
      }
    } else if (kind === 'grub' && opts.extraInitrds.length > 0 && /^\s*initrd(efi)?\s/.test(line)) {
      splices.push({ at: lineEnd, remove: 0, insert: ` ${opts.extraInitrds.join(' ')}` });
    }
    lineStart += rawLine.length + 1;
  }
  return splices.sort((a, b) => a.at - b.at);
}

interface KargsJson {
  default?: string;
  size?: number;
  files?: Array<{ path?: string; offset?: number; [k: string]: unknown }>;
  [k: string]: unknown;
}

function normalizeIsoPath(p: string): string {
  return `/${p.replace(/^\/+/, '')}`.toLowerCase();
}

/**
 * kargs.json after the config edits: each area's offset moves with the splices in front of it,
 * and since the rootfs URL is appended inside the area (to the default arguments), the default
 * changes and every area grows by the same amount, keeping its free space.
 */
export function updatedKargsInfo(
  info: KargsJson,
  splicesByFile: ReadonlyMap<string, readonly Splice[]>,
  rootfsUrl: string,
): KargsJson {
  if (typeof info.default !== 'string' || typeof info.size !== 'number') return info;
  const newDefault = minimalDefaultKargs(info.default, rootfsUrl);
  const growth = newDefault.length - info.default.length;
  return {
    ...info,
    default: newDefault,
    size: info.size + growth,
    files: (info.files ?? []).map((f) => {
      const splices = typeof f.path === 'string' ? splicesByFile.get(normalizeIsoPath(f.path)) : undefined;
      if (typeof f.offset !== 'number' || !splices) return f;
      return { ...f, offset: mapOffset(f.offset, splices) };
    }),
  };
}

export interface MinimalTemplateOptions {
  fullIsoPath: string;
  /** Written atomically (temporary file in the same directory, then rename). */
  outputPath: string;
  /** Baked into the boot configs; see minimalRootfsUrl. */
  rootfsUrl: string;
  cpuArchitecture: string;
  /** Scratch directory for the edited files. */
  workDir: string;
  /** Compressed cpio with nmstatectl (OCP ≥ 4.18); added as images/nmstate.img when given. */
  nmstateImage?: Buffer | undefined;
  xorrisoPath?: string | undefined;
  signal?: AbortSignal | undefined;
}

interface PlannedEdit {
  isoPath: string;
  content: Buffer;
}

async function readText(iso: IsoImage, path: string): Promise<string | undefined> {
  const entry = await iso.lookup(path);
  return entry && !entry.isDirectory ? (await iso.readFile(entry)).toString('latin1') : undefined;
}

async function planEdits(
  iso: IsoImage,
  opts: MinimalTemplateOptions,
  extraInitrds: string[],
): Promise<PlannedEdit[]> {
  const edits: PlannedEdit[] = [];
  const splicesByFile = new Map<string, Splice[]>();
  const edit = (path: string, text: string, kind: 'grub' | 'isolinux') => {
    const splices = bootConfigSplices(text, kind, { rootfsUrl: opts.rootfsUrl, extraInitrds });
    splicesByFile.set(normalizeIsoPath(path), splices);
    edits.push({ isoPath: path, content: Buffer.from(applySplices(text, splices), 'latin1') });
  };

  let grubPath: string | undefined;
  for (const p of GRUB_CONFIG_PATHS) {
    const text = await readText(iso, p);
    if (text !== undefined) {
      edit(p, text, 'grub');
      grubPath = p;
      break;
    }
  }
  if (!grubPath) throw new Error(`no grub.cfg found, looked for ${GRUB_CONFIG_PATHS.join(', ')}`);
  if (opts.cpuArchitecture !== 'ppc64le') {
    const text = await readText(iso, ISOLINUX_CONFIG_PATH);
    if (text !== undefined) edit(ISOLINUX_CONFIG_PATH, text, 'isolinux');
  }

  const kargsText = await readText(iso, KARGS_INFO_PATH);
  if (kargsText !== undefined) {
    const info = updatedKargsInfo(JSON.parse(kargsText) as KargsJson, splicesByFile, opts.rootfsUrl);
    // The edited configs must hold the new default arguments exactly where kargs.json now says.
    for (const f of info.files ?? []) {
      if (typeof f.offset !== 'number' || typeof f.path !== 'string') continue;
      const edited = edits.find((e) => normalizeIsoPath(e.isoPath) === normalizeIsoPath(f.path ?? ''));
      const text = edited?.content.toString('latin1');
      if (text === undefined || !text.startsWith(`${info.default ?? ''}\n`, f.offset)) {
        throw new Error(`kernel arguments in ${f.path} are not where kargs.json says after editing`);
      }
    }
    edits.push({ isoPath: KARGS_INFO_PATH, content: Buffer.from(`${JSON.stringify(info, null, 2)}\n`) });
  }
  return edits;
}

export async function buildMinimalIsoTemplate(opts: MinimalTemplateOptions): Promise<void> {
  const extraInitrds = [RAMDISK_PLACEHOLDER_PATH, ...(opts.nmstateImage ? [NMSTATE_IMAGE_PATH] : [])];
  const plan = await withIsoFile(opts.fullIsoPath, async (iso) => {
    if (!(await iso.lookup(ROOTFS_PATH))) throw new Error(`${opts.fullIsoPath} has no ${ROOTFS_PATH}`);
    return { volumeId: iso.volumeId, joliet: iso.hasJoliet, edits: await planEdits(iso, opts, extraInitrds) };
  });

  const scratch = await mkdtemp(join(opts.workDir, 'minimal-iso-'));
  const tmpOutput = `${opts.outputPath}.${randomBytes(6).toString('hex')}.part`;
  try {
    const maps: string[] = [];
    let fileNumber = 0;
    const addFile = async (isoPath: string, content: Buffer) => {
      const local = join(scratch, `${fileNumber++}-${isoPath.split('/').pop()}`);
      await writeFile(local, content);
      maps.push('-map', local, isoPath);
    };
    for (const e of plan.edits) await addFile(e.isoPath, e.content);
    await addFile(RAMDISK_PLACEHOLDER_PATH, Buffer.alloc(RAMDISK_PLACEHOLDER_SIZE));
    if (opts.nmstateImage) await addFile(NMSTATE_IMAGE_PATH, opts.nmstateImage);

    const args = [
      '-no_rc',
      '-indev',
      opts.fullIsoPath,
      '-outdev',
      tmpOutput,
      '-compliance',
      'no_emul_toc:iso_9660_level=1',
      '-boot_image',
      'any',
      'replay',
      ...(plan.joliet ? ['-joliet', 'on'] : []),
      '-rm',
      ROOTFS_PATH,
      '--',
      ...maps,
      '-end',
    ];
    try {
      await execFileAsync(opts.xorrisoPath ?? 'xorriso', args, {
        maxBuffer: 16 * 1024 * 1024,
        signal: opts.signal,
      });
    } catch (err) {
      const e = err as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') throw new Error('xorriso is required to build minimal ISO templates');
      throw new Error(
        `xorriso failed to build the minimal ISO: ${(e.stderr ?? e.message).trim().slice(-2000)}`,
      );
    }

    await withIsoFile(tmpOutput, async (iso) => {
      if (iso.volumeId !== plan.volumeId) {
        throw new Error(`minimal ISO has volume id ${iso.volumeId}, expected ${plan.volumeId}`);
      }
      if (await iso.lookup(ROOTFS_PATH)) throw new Error('minimal ISO still contains the rootfs');
      const placeholder = await iso.lookup(RAMDISK_PLACEHOLDER_PATH);
      if (placeholder?.length !== RAMDISK_PLACEHOLDER_SIZE)
        throw new Error('minimal ISO lacks the ramdisk placeholder');
    });
    await rename(tmpOutput, opts.outputPath);
  } finally {
    await rm(tmpOutput, { force: true });
    await rm(scratch, { recursive: true, force: true });
  }
}
