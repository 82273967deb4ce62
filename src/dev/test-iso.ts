// A small, real ISO9660 image laid out like an RHCOS live ISO (agent-api.md §9.3–§9.6), built
// with xorriso for the tests and for `make demo`, where no real base image can be downloaded:
//   coreos/igninfo.json      → {"file": "images/ignition.img"}
//   images/ignition.img      → the ignition embed area (zeros, 256 KiB by default)
//   coreos/kargs.json        → default kargs, size, and the area offsets in both boot configs
//   EFI/redhat/grub.cfg      → `linux …vmlinuz <kargs>` + `\n###…### COREOS_KARG_EMBED_AREA`
//   isolinux/isolinux.cfg    → `append initrd=… <kargs>` + the same embed area
//   images/pxeboot/{vmlinuz,initrd.img,rootfs.img} → small pseudo-random content
//   El Torito: BIOS isolinux/isolinux.bin (boot info table, catalog isolinux/boot.cat) and
//   EFI images/efiboot.img; hybrid MBR/GPT like the real image.
// When syslinux's isolinux.bin / isohdpfx.bin are installed they are used (then the image is a
// true isohybrid image); otherwise small stand-ins are (El Torito and GPT still work).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

export const XORRISO_MISSING = 'xorriso is required: apt-get install xorriso';
const SYSLINUX_ISOLINUX_BIN = '/usr/lib/ISOLINUX/isolinux.bin';
const SYSLINUX_ISOHYBRID_MBR = '/usr/lib/ISOLINUX/isohdpfx.bin';

export interface TestIsoOptions {
  /** File name inside `dir`; default `rhcos-test.iso`. */
  name?: string;
  rhcosVersion?: string;
  /** Size of images/ignition.img; default 256 KiB. */
  ignitionAreaSize?: number;
  /** Size of each kernel-argument embed area; default 1024 (as RHCOS). */
  kargsAreaSize?: number;
  rootfsSize?: number;
  /** Size of images/pxeboot/initrd.img (what a minimal ISO carries); default about 150 KB. */
  initrdSize?: number;
  /** Write coreos/kargs.json (default true); without it the marker method is used. */
  kargsJson?: boolean;
  /** Write coreos/igninfo.json (default true). */
  igninfo?: boolean;
  /** Seed of the pseudo-random file contents. */
  seed?: number;
}

export interface TestIso {
  path: string;
  volumeId: string;
  rhcosVersion: string;
  defaultKargs: string;
  kargsAreaSize: number;
  ignitionAreaSize: number;
  files: {
    vmlinuz: Buffer;
    initrd: Buffer;
    rootfs: Buffer;
    grubCfg: string;
    isolinuxCfg: string;
    kargsJson?: string;
  };
  /** A real syslinux isohybrid MBR was used. */
  isohybrid: boolean;
}

/** Runs xorriso, failing with an installation hint when it is missing. */
export async function runXorriso(args: string[]): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync('xorriso', args, { maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error(XORRISO_MISSING);
    throw new Error(`xorriso ${args.join(' ')} failed: ${e.stderr ?? e.message}`);
  }
}

/** Extracts one file of an image with xorriso (an independent reader for cross-checks). */
export async function extractWithXorriso(
  isoPath: string,
  pathInIso: string,
  outDir: string,
): Promise<Buffer> {
  const out = join(outDir, `extract-${Date.now()}-${Math.random().toString(16).slice(2)}`);
  await runXorriso(['-osirrox', 'on', '-indev', isoPath, '-extract', pathInIso, out]);
  try {
    return await readFile(out);
  } finally {
    await rm(out, { force: true });
  }
}

/** Deterministic bytes (xorshift32), so content mismatches are reproducible. */
export function pseudoRandomBytes(length: number, seed: number): Buffer {
  const words = Math.ceil(length / 4);
  const buf = Buffer.alloc(words * 4);
  let x = seed >>> 0 || 0x9e3779b9;
  for (let w = 0; w < words; w++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    buf.writeUInt32LE(x, w * 4);
  }
  return buf.subarray(0, length);
}

function embedArea(kargs: string, size: number): string {
  // `<kargs>\n####…####` fills exactly `size` bytes; the marker follows (coreos-assembler layout).
  return `${kargs}\n${'#'.repeat(size - kargs.length - 1)} COREOS_KARG_EMBED_AREA`;
}

export async function buildTestIso(dir: string, opts: TestIsoOptions = {}): Promise<TestIso> {
  const rhcosVersion = opts.rhcosVersion ?? '416.94.202405291527-0';
  const volumeId = `rhcos-${rhcosVersion}`;
  const ignitionAreaSize = opts.ignitionAreaSize ?? 256 * 1024;
  const kargsAreaSize = opts.kargsAreaSize ?? 1024;
  const seed = opts.seed ?? 1;
  const defaultKargs = `random.trust_cpu=on coreos.liveiso=${volumeId} ignition.firstboot ignition.platform.id=metal`;

  const grubHead = [
    'set default="1"',
    '',
    'function load_video {',
    '  insmod efi_gop',
    '  insmod all_video',
    '}',
    '',
    'load_video',
    'set timeout=5',
    `search --label ${volumeId} --set root --no-floppy`,
    '',
    "menuentry 'RHEL CoreOS (Live)' --class fedora --class gnu-linux --class gnu --class os {",
    '\tlinux /images/pxeboot/vmlinuz ',
  ].join('\n');
  const grubCfg = `${grubHead}${embedArea(defaultKargs, kargsAreaSize)}\n\tinitrd /images/pxeboot/initrd.img /images/ignition.img\n}\n`;
  const isolinuxHead = [
    'serial 0',
    'default vesamenu.c32',
    'timeout 600',
    'menu title RHEL CoreOS',
    '',
    'label linux',
    '  menu label ^RHEL CoreOS (Live)',
    '  menu default',
    '  kernel /images/pxeboot/vmlinuz',
    '  append initrd=/images/pxeboot/initrd.img,/images/ignition.img ',
  ].join('\n');
  const isolinuxCfg = `${isolinuxHead}${embedArea(defaultKargs, kargsAreaSize)}\n\nmenu end\n`;
  const kargsJson =
    opts.kargsJson === false
      ? undefined
      : `${JSON.stringify(
          {
            default: defaultKargs,
            files: [
              { path: 'EFI/redhat/grub.cfg', offset: grubHead.length },
              { path: 'isolinux/isolinux.cfg', offset: isolinuxHead.length },
            ],
            size: kargsAreaSize,
          },
          null,
          2,
        )}\n`;

  const files = {
    vmlinuz: pseudoRandomBytes(40_000 + 123, seed),
    initrd: pseudoRandomBytes(opts.initrdSize ?? 150_000 + 7, seed + 1),
    rootfs: pseudoRandomBytes(opts.rootfsSize ?? 1_500_000 + 3, seed + 2),
    grubCfg,
    isolinuxCfg,
    ...(kargsJson ? { kargsJson } : {}),
  };

  const work = await mkdtemp(join(dir, 'iso-root-'));
  const root = join(work, 'root');
  const put = async (rel: string, content: Buffer | string) => {
    const full = join(root, rel);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, content);
  };
  const isohybrid = existsSync(SYSLINUX_ISOHYBRID_MBR) && existsSync(SYSLINUX_ISOLINUX_BIN);
  await put('images/pxeboot/vmlinuz', files.vmlinuz);
  await put('images/pxeboot/initrd.img', files.initrd);
  await put('images/pxeboot/rootfs.img', files.rootfs);
  await put('images/ignition.img', Buffer.alloc(ignitionAreaSize));
  await put('images/efiboot.img', pseudoRandomBytes(64 * 1024, seed + 3));
  await put('EFI/redhat/grub.cfg', grubCfg);
  await put('isolinux/isolinux.cfg', isolinuxCfg);
  await put(
    'isolinux/isolinux.bin',
    isohybrid ? await readFile(SYSLINUX_ISOLINUX_BIN) : pseudoRandomBytes(4096, seed + 4),
  );
  if (opts.igninfo !== false) await put('coreos/igninfo.json', '{"file": "images/ignition.img"}\n');
  if (kargsJson) await put('coreos/kargs.json', kargsJson);
  const mbr = isohybrid ? SYSLINUX_ISOHYBRID_MBR : join(work, 'mbr.bin');
  if (!isohybrid) await writeFile(mbr, Buffer.alloc(432));

  const path = join(dir, opts.name ?? 'rhcos-test.iso');
  try {
    // The options coreos-assembler uses for the live ISO, minus what needs real boot binaries.
    await runXorriso([
      '-as',
      'mkisofs',
      '-quiet',
      '-V',
      volumeId,
      '-volset',
      volumeId,
      '-rational-rock',
      '-J',
      '-joliet-long',
      '-eltorito-boot',
      'isolinux/isolinux.bin',
      '-eltorito-catalog',
      'isolinux/boot.cat',
      '-no-emul-boot',
      '-boot-load-size',
      '4',
      '-boot-info-table',
      '-eltorito-alt-boot',
      '-e',
      'images/efiboot.img',
      '-no-emul-boot',
      '-isohybrid-mbr',
      mbr,
      '-isohybrid-gpt-basdat',
      '-o',
      path,
      root,
    ]);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return {
    path,
    volumeId,
    rhcosVersion,
    defaultKargs,
    kargsAreaSize,
    ignitionAreaSize,
    files,
    isohybrid,
  };
}
