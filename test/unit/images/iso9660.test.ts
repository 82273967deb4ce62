import { mkdir, open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bufferSource,
  fileHandleSource,
  type IsoEntry,
  IsoFormatError,
  IsoImage,
  withIsoFile,
} from '../../../src/images/iso9660.ts';
import { buildTestIso, runXorriso, type TestIso } from '../../harness/iso.ts';
import { makeTempDir } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let fixture: TestIso;
let image: Buffer;

beforeAll(async () => {
  tmp = await makeTempDir('iso9660');
  fixture = await buildTestIso(tmp.dir);
  image = await readFile(fixture.path);
});
afterAll(() => tmp.cleanup());

function slice(e: IsoEntry | undefined): Buffer {
  if (!e) throw new Error('entry missing');
  return image.subarray(e.offset, e.offset + e.length);
}

describe('IsoImage on a CoreOS-like live ISO', () => {
  it('reads the primary volume descriptor', async () => {
    await withIsoFile(fixture.path, async (iso) => {
      expect(iso.volumeId).toBe(fixture.volumeId);
      expect(iso.blockSize).toBe(2048);
      expect(iso.hasJoliet).toBe(true);
      expect(iso.volumeBytes).toBeLessThanOrEqual(image.length);
      expect(iso.root.isDirectory).toBe(true);
    });
  });

  it('finds files by their Rock Ridge names and returns their extents', async () => {
    await withIsoFile(fixture.path, async (iso) => {
      expect(slice(await iso.lookup('/images/pxeboot/vmlinuz')).equals(fixture.files.vmlinuz)).toBe(true);
      expect(slice(await iso.lookup('/images/pxeboot/initrd.img')).equals(fixture.files.initrd)).toBe(true);
      expect(slice(await iso.lookup('images/pxeboot/rootfs.img')).equals(fixture.files.rootfs)).toBe(true);
      expect(slice(await iso.lookup('/EFI/redhat/grub.cfg')).toString()).toBe(fixture.files.grubCfg);
      expect(slice(await iso.lookup('/isolinux/isolinux.cfg')).toString()).toBe(fixture.files.isolinuxCfg);
      const ign = await iso.lookup('/images/ignition.img');
      expect(ign?.length).toBe(fixture.ignitionAreaSize);
      expect(ign!.offset % 2048).toBe(0);
      expect(slice(ign).every((b) => b === 0)).toBe(true);
      const info = await iso.lookup('/coreos/igninfo.json');
      expect(JSON.parse((await iso.readFile(info!)).toString())).toEqual({ file: 'images/ignition.img' });
      expect((await iso.readFile((await iso.lookup('/coreos/kargs.json'))!)).toString()).toBe(
        fixture.files.kargsJson,
      );
    });
  });

  it('also finds files by the upper-case 8.3 names coreos-installer uses', async () => {
    await withIsoFile(fixture.path, async (iso) => {
      const rr = await iso.lookup('/coreos/igninfo.json');
      const plain = await iso.lookup('COREOS/IGNINFO.JSO');
      expect(plain).toEqual(rr);
      expect(rr?.isoName).toBe('IGNINFO.JSO;1');
      expect((await iso.lookup('/COREOS/KARGS.JSO'))?.name).toBe('kargs.json');
      expect((await iso.lookup('/IMAGES/IGNITION.IMG'))?.name).toBe('ignition.img');
    });
  });

  it('lists directories without . and ..', async () => {
    await withIsoFile(fixture.path, async (iso) => {
      const images = await iso.lookup('/images');
      const names = (await iso.list(images!)).map((e) => e.name).sort();
      expect(names).toEqual(['efiboot.img', 'ignition.img', 'pxeboot']);
      expect((await iso.list(iso.root)).map((e) => e.name).sort()).toEqual([
        'EFI',
        'coreos',
        'images',
        'isolinux',
      ]);
    });
  });

  it('answers undefined for missing paths and paths through files', async () => {
    await withIsoFile(fixture.path, async (iso) => {
      expect(await iso.lookup('/coreos/nothing.json')).toBeUndefined();
      expect(await iso.lookup('/nothing/at/all')).toBeUndefined();
      expect(await iso.lookup('/images/ignition.img/x')).toBeUndefined();
      expect(await iso.lookup('/')).toEqual(iso.root);
    });
  });

  it('refuses to read a big file whole', async () => {
    await withIsoFile(fixture.path, async (iso) => {
      const rootfs = await iso.lookup('/images/pxeboot/rootfs.img');
      await expect(iso.readFile(rootfs!, 1024)).rejects.toThrow(IsoFormatError);
    });
  });

  it('gives the same answers from an in-memory image', async () => {
    const iso = await IsoImage.open(bufferSource(image));
    expect(iso.volumeId).toBe(fixture.volumeId);
    expect(slice(await iso.lookup('/images/pxeboot/vmlinuz')).equals(fixture.files.vmlinuz)).toBe(true);
  });

  it('rejects files that are not ISO9660 images', async () => {
    await expect(IsoImage.open(bufferSource(Buffer.alloc(64 * 1024)))).rejects.toThrow(IsoFormatError);
    await expect(IsoImage.open(bufferSource(Buffer.alloc(1000)))).rejects.toThrow(/image ends/);
    const notIso = join(tmp.dir, 'not-an.iso');
    await writeFile(notIso, 'definitely not an ISO');
    const fh = await open(notIso, 'r');
    try {
      await expect(IsoImage.open(fileHandleSource(fh))).rejects.toThrow(IsoFormatError);
    } finally {
      await fh.close();
    }
  });
});

describe('IsoImage on directories spanning several sectors', () => {
  it('reads every record, skipping sector padding, and long Rock Ridge names', async () => {
    const root = join(tmp.dir, 'many');
    const names: string[] = [];
    await mkdir(join(root, 'dir'), { recursive: true });
    for (let i = 0; i < 150; i++)
      names.push(`file-number-${String(i).padStart(3, '0')}-with-a-longish-name.txt`);
    await Promise.all(names.map((name, i) => writeFile(join(root, 'dir', name), `content ${i}\n`)));
    // Long enough that Rock Ridge must continue the name outside the directory record.
    const longName = `${'n'.repeat(240)}.json`;
    names.push(longName);
    await writeFile(join(root, 'dir', longName), '{"long": true}');
    const isoPath = join(tmp.dir, 'many.iso');
    await runXorriso(['-as', 'mkisofs', '-quiet', '-R', '-V', 'MANY', '-o', isoPath, root]);

    await withIsoFile(isoPath, async (iso) => {
      const dir = await iso.lookup('/dir');
      expect(dir!.length).toBeGreaterThan(2048);
      const listed = (await iso.list(dir!)).map((e) => e.name).sort();
      expect(listed).toEqual([...names].sort());
      const f = await iso.lookup('/dir/file-number-149-with-a-longish-name.txt');
      expect((await iso.readFile(f!)).toString()).toBe('content 149\n');
      const long = await iso.lookup(`/dir/${longName}`);
      expect((await iso.readFile(long!)).toString()).toBe('{"long": true}');
    });
  });
});
