import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbedError } from '../../../src/images/embed.ts';
import { withIsoFile } from '../../../src/images/iso9660.ts';
import { discoveryOverlays, type LiveIsoLayout, readLiveIsoLayout } from '../../../src/images/live-iso.ts';
import { buildTestIso, type TestIso } from '../../harness/iso.ts';
import { makeTempDir } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let withJson: TestIso;
let withoutJson: TestIso;
let layout: LiveIsoLayout;
let markerLayout: LiveIsoLayout;

beforeAll(async () => {
  tmp = await makeTempDir('live-iso');
  withJson = await buildTestIso(tmp.dir, { name: 'json.iso' });
  withoutJson = await buildTestIso(tmp.dir, { name: 'marker.iso', kargsJson: false, igninfo: false });
  layout = await withIsoFile(withJson.path, readLiveIsoLayout);
  markerLayout = await withIsoFile(withoutJson.path, readLiveIsoLayout);
});
afterAll(() => tmp.cleanup());

describe('readLiveIsoLayout', () => {
  it('finds the ignition area through igninfo.json', async () => {
    const ign = await withIsoFile(withJson.path, (iso) => iso.lookup('/images/ignition.img'));
    expect(layout.ignition).toEqual({ offset: ign!.offset, length: withJson.ignitionAreaSize });
    expect(layout.volumeId).toBe(withJson.volumeId);
    expect(layout.problems).toEqual([]);
  });

  it('falls back to images/ignition.img without igninfo.json', async () => {
    const ign = await withIsoFile(withoutJson.path, (iso) => iso.lookup('/images/ignition.img'));
    expect(markerLayout.ignition).toEqual({ offset: ign!.offset, length: withoutJson.ignitionAreaSize });
  });

  it('takes the kargs areas from kargs.json, holding the default arguments', async () => {
    const image = await readFile(withJson.path);
    expect(layout.kargs?.map((a) => [a.file, a.style, a.length, a.current])).toEqual([
      ['EFI/redhat/grub.cfg', 'kargs-json', 1024, withJson.defaultKargs],
      ['isolinux/isolinux.cfg', 'kargs-json', 1024, withJson.defaultKargs],
    ]);
    for (const area of layout.kargs ?? []) {
      const bytes = image.toString('latin1', area.offset, area.offset + area.length);
      expect(bytes).toBe(`${withJson.defaultKargs}\n${'#'.repeat(1024 - withJson.defaultKargs.length - 1)}`);
      expect(image.toString('latin1', area.offset + area.length, area.offset + area.length + 23)).toBe(
        ' COREOS_KARG_EMBED_AREA',
      );
    }
  });

  it('finds the areas by their marker without kargs.json', async () => {
    const image = await readFile(withoutJson.path);
    expect(markerLayout.kargs?.map((a) => [a.file, a.style])).toEqual([
      ['/EFI/redhat/grub.cfg', 'marker'],
      ['/isolinux/isolinux.cfg', 'marker'],
    ]);
    for (const area of markerLayout.kargs ?? []) {
      // The newline ending the kernel line, then all but the last '#'.
      expect(image[area.offset]).toBe(0x0a);
      expect(image.toString('latin1', area.offset + area.length, area.offset + area.length + 24)).toBe(
        '# COREOS_KARG_EMBED_AREA',
      );
      expect(area.length).toBe(1024 - withoutJson.defaultKargs.length - 1);
    }
  });

  it('lists the PXE artifacts and no minimal-ISO placeholder', async () => {
    const image = await readFile(withJson.path);
    const { vmlinuz, initrd, rootfs } = layout.pxe;
    expect(
      image.subarray(vmlinuz!.offset, vmlinuz!.offset + vmlinuz!.length).equals(withJson.files.vmlinuz),
    ).toBe(true);
    expect(
      image.subarray(initrd!.offset, initrd!.offset + initrd!.length).equals(withJson.files.initrd),
    ).toBe(true);
    expect(rootfs?.length).toBe(withJson.files.rootfs.length);
    expect(layout.pxe.kernelImg).toBeUndefined();
    expect(layout.pxe.genericIns).toBeUndefined();
    expect(layout.ramdisk).toBeUndefined();
    expect(layout.hasNmstateImage).toBe(false);
  });
});

describe('discoveryOverlays', () => {
  it('writes the ignition area, then the kargs areas, in offset order', () => {
    const overlays = discoveryOverlays(layout, { ignition: '{}', kernelArguments: ['ip=dhcp'] });
    expect(overlays.map((o) => o.offset)).toEqual(
      [layout.ignition!.offset, ...(layout.kargs ?? []).map((a) => a.offset)].sort((a, b) => a - b),
    );
    expect(overlays.find((o) => o.offset === layout.ignition!.offset)?.length).toBe(
      withJson.ignitionAreaSize,
    );
  });

  it('writes only the ignition area without kernel arguments', () => {
    expect(discoveryOverlays(layout, { ignition: '{}', kernelArguments: [] })).toHaveLength(1);
  });

  it('refuses kernel arguments on s390x with a 400', () => {
    try {
      discoveryOverlays(layout, { ignition: '{}', kernelArguments: ['a'], cpuArchitecture: 's390x' });
      expect.unreachable();
    } catch (err) {
      expect((err as EmbedError).status).toBe(400);
    }
  });

  it('refuses a ramdisk on a full ISO and an oversized ignition', () => {
    expect(() => discoveryOverlays(layout, { ignition: '{}', ramdisk: Buffer.from('x') })).toThrow(
      /no ramdisk placeholder/,
    );
    // Random data does not compress: 300 KiB cannot fit a 256 KiB area.
    const huge = Buffer.from(Array.from({ length: 300 * 1024 }, () => Math.floor(Math.random() * 256)));
    expect(() => discoveryOverlays(layout, { ignition: huge })).toThrow(EmbedError);
  });
});
