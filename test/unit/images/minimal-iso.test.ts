import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MODE_REGULAR, readNewc, writeNewc } from '../../../src/images/cpio.ts';
import { gzipDeterministic } from '../../../src/images/embed.ts';
import { serveIso } from '../../../src/images/iso-stream.ts';
import { withIsoFile } from '../../../src/images/iso9660.ts';
import { discoveryOverlays, readLiveIsoLayout } from '../../../src/images/live-iso.ts';
import {
  applySplices,
  bootConfigSplices,
  buildMinimalIsoTemplate,
  mapOffset,
  minimalDefaultKargs,
  minimalRootfsUrl,
  RAMDISK_PLACEHOLDER_SIZE,
} from '../../../src/images/minimal-iso.ts';
import { buildTestIso, extractWithXorriso, runXorriso, type TestIso } from '../../harness/iso.ts';
import { makeTempDir } from './helpers.ts';

const rootfsUrl = minimalRootfsUrl('https://images.example.com/prefix/', 'x86_64', '416.94.202405291527-0');

describe('boot config edits', () => {
  it('builds the rootfs URL from the image service base URL and the RHCOS version', () => {
    expect(rootfsUrl).toBe(
      'https://images.example.com/prefix/boot-artifacts/rootfs?arch=x86_64&version=416.94.202405291527-0',
    );
  });

  it('edits the grub kernel and initrd lines', () => {
    const grub =
      "menuentry 'Live' {\n\tlinux /images/pxeboot/vmlinuz random.trust_cpu=on coreos.liveiso=rhcos-1 ignition.firstboot\n" +
      '####### COREOS_KARG_EMBED_AREA\n\tinitrd /images/pxeboot/initrd.img /images/ignition.img\n}\n';
    const out = applySplices(
      grub,
      bootConfigSplices(grub, 'grub', { rootfsUrl, extraInitrds: ['/images/assisted_installer_custom.img'] }),
    );
    expect(out).toBe(
      "menuentry 'Live' {\n" +
        `\tlinux /images/pxeboot/vmlinuz random.trust_cpu=on ignition.firstboot coreos.live.rootfs_url="${rootfsUrl}"\n` +
        '####### COREOS_KARG_EMBED_AREA\n' +
        '\tinitrd /images/pxeboot/initrd.img /images/ignition.img /images/assisted_installer_custom.img\n}\n',
    );
  });

  it('edits the isolinux append line, adding initrds after initrd=', () => {
    const cfg =
      'label linux\n  kernel /images/pxeboot/vmlinuz\n' +
      '  append initrd=/images/pxeboot/initrd.img,/images/ignition.img coreos.liveiso=rhcos-1 quiet\r\n#### COREOS_KARG_EMBED_AREA\n';
    const out = applySplices(
      cfg,
      bootConfigSplices(cfg, 'isolinux', {
        rootfsUrl,
        extraInitrds: ['/images/assisted_installer_custom.img', '/images/nmstate.img'],
      }),
    );
    expect(out).toBe(
      'label linux\n  kernel /images/pxeboot/vmlinuz\n' +
        '  append initrd=/images/pxeboot/initrd.img,/images/ignition.img,/images/assisted_installer_custom.img,' +
        `/images/nmstate.img quiet coreos.live.rootfs_url="${rootfsUrl}"\r\n#### COREOS_KARG_EMBED_AREA\n`,
    );
  });

  it('removes coreos.liveiso with one separating space wherever it is', () => {
    expect(minimalDefaultKargs('coreos.liveiso=x a b', 'U')).toBe('a b coreos.live.rootfs_url="U"');
    expect(minimalDefaultKargs('a coreos.liveiso=x', 'U')).toBe('a coreos.live.rootfs_url="U"');
    expect(minimalDefaultKargs('a coreos.liveiso=x b', 'U')).toBe('a b coreos.live.rootfs_url="U"');
    expect(minimalDefaultKargs('a notcoreos.liveiso=x', 'U')).toBe(
      'a notcoreos.liveiso=x coreos.live.rootfs_url="U"',
    );
  });

  it('maps offsets past earlier splices only', () => {
    const splices = [
      { at: 5, remove: 0, insert: 'abc' },
      { at: 20, remove: 4, insert: '' },
    ];
    expect(mapOffset(4, splices)).toBe(4);
    expect(mapOffset(5, splices)).toBe(8);
    expect(mapOffset(21, splices)).toBe(24);
    expect(mapOffset(24, splices)).toBe(23);
  });
});

describe('buildMinimalIsoTemplate', () => {
  let tmp: Awaited<ReturnType<typeof makeTempDir>>;
  let fixture: TestIso;
  let minimal: string;

  beforeAll(async () => {
    tmp = await makeTempDir('minimal-iso');
    fixture = await buildTestIso(tmp.dir);
    minimal = join(tmp.dir, 'rhcos-minimal-iso-test-x86_64.iso');
    await buildMinimalIsoTemplate({
      fullIsoPath: fixture.path,
      outputPath: minimal,
      rootfsUrl,
      cpuArchitecture: 'x86_64',
      workDir: tmp.dir,
    });
  });
  afterAll(() => tmp.cleanup());

  it('drops the rootfs, adds the 1 MiB ramdisk placeholder and keeps everything else', async () => {
    await withIsoFile(minimal, async (iso) => {
      expect(iso.volumeId).toBe(fixture.volumeId);
      expect(await iso.lookup('/images/pxeboot/rootfs.img')).toBeUndefined();
      const placeholder = await iso.lookup('/images/assisted_installer_custom.img');
      expect(placeholder?.length).toBe(RAMDISK_PLACEHOLDER_SIZE);
      expect((await iso.readFile(placeholder!)).every((b) => b === 0)).toBe(true);
      expect(await iso.lookup('/images/nmstate.img')).toBeUndefined();
      const vmlinuz = await iso.lookup('/images/pxeboot/vmlinuz');
      expect((await iso.readFile(vmlinuz!)).equals(fixture.files.vmlinuz)).toBe(true);
      // coreos-installer's upper-case 8.3 names are still there.
      expect((await iso.lookup('COREOS/IGNINFO.JSO'))?.isoName).toBe('IGNINFO.JSO;1');
      expect((await iso.lookup('IMAGES/IGNITION.IMG'))?.length).toBe(fixture.ignitionAreaSize);
    });
    expect((await readFile(minimal)).length).toBeLessThan((await readFile(fixture.path)).length);
  });

  it('points the boot configs at the rootfs URL and the placeholder', async () => {
    const grub = (await extractWithXorriso(minimal, '/EFI/redhat/grub.cfg', tmp.dir)).toString();
    const kargs = minimalDefaultKargs(fixture.defaultKargs, rootfsUrl);
    expect(kargs).not.toContain('coreos.liveiso');
    expect(grub).toContain(`\tlinux /images/pxeboot/vmlinuz ${kargs}\n#`);
    expect(grub).toContain(
      '\tinitrd /images/pxeboot/initrd.img /images/ignition.img /images/assisted_installer_custom.img\n',
    );
    const isolinux = (await extractWithXorriso(minimal, '/isolinux/isolinux.cfg', tmp.dir)).toString();
    expect(isolinux).toContain(
      `append initrd=/images/pxeboot/initrd.img,/images/ignition.img,/images/assisted_installer_custom.img ${kargs}\n#`,
    );
  });

  it('rewrites kargs.json to match the edited configs', async () => {
    const info = JSON.parse((await extractWithXorriso(minimal, '/coreos/kargs.json', tmp.dir)).toString());
    const kargs = minimalDefaultKargs(fixture.defaultKargs, rootfsUrl);
    expect(info.default).toBe(kargs);
    expect(info.size).toBe(fixture.kargsAreaSize + kargs.length - fixture.defaultKargs.length);
    const layout = await withIsoFile(minimal, readLiveIsoLayout);
    expect(layout.problems).toEqual([]);
    expect(layout.kargs?.map((a) => [a.style, a.current])).toEqual([
      ['kargs-json', kargs],
      ['kargs-json', kargs],
    ]);
    expect(layout.ramdisk?.length).toBe(RAMDISK_PLACEHOLDER_SIZE);
    expect(layout.pxe.rootfs).toBeUndefined();
  });

  it('keeps the El Torito boot images and the hybrid MBR/GPT layout', async () => {
    const report = async (path: string) => {
      const { stdout, stderr } = await runXorriso([
        '-indev',
        path,
        '-report_el_torito',
        'plain',
        '-report_system_area',
        'plain',
      ]);
      return stdout + stderr;
    };
    const after = await report(minimal);
    expect(after).toMatch(/El Torito img path : +1 +\/isolinux\/isolinux.bin/);
    expect(after).toMatch(/El Torito img opts : +1 +boot-info-table/);
    expect(after).toMatch(/El Torito img path : +2 +\/images\/efiboot.img/);
    expect(after).toMatch(/System area summary: .*GPT/);
    // The image is a plain single session starting at LBA 0.
    const toc = await runXorriso(['-indev', minimal, '-toc']);
    expect(toc.stdout + toc.stderr).toMatch(/ISO session\s+:\s+1\s+,\s+0\s+,/);
    if (fixture.isohybrid) {
      const summary = (s: string) => /System area summary: (.*)/.exec(s)?.[1];
      expect(summary(after)).toBe(summary(await report(fixture.path)));
    }
  });

  it('serves a discovery ISO with the ramdisk, ignition and kernel arguments in place', async () => {
    const layout = await withIsoFile(minimal, readLiveIsoLayout);
    const ramdisk = gzipDeterministic(
      writeNewc([
        {
          name: 'etc/assisted/network/host0/eth0.nmconnection',
          mode: MODE_REGULAR | 0o600,
          data: Buffer.from('x'),
        },
      ]),
    );
    const ignition = '{"ignition":{"version":"3.1.0"}}';
    const res = await serveIso({
      method: 'GET',
      isoPath: minimal,
      overlays: discoveryOverlays(layout, {
        ignition,
        ramdisk,
        kernelArguments: ['rd.net.timeout.carrier=60'],
      }),
    });
    const served = join(tmp.dir, 'served-minimal.iso');
    await pipeline(res.body!, createWriteStream(served));

    const placeholder = await extractWithXorriso(served, '/images/assisted_installer_custom.img', tmp.dir);
    expect(placeholder.length).toBe(RAMDISK_PLACEHOLDER_SIZE);
    expect(placeholder.subarray(0, ramdisk.length).equals(ramdisk)).toBe(true);
    expect(placeholder.subarray(ramdisk.length).every((b) => b === 0)).toBe(true);
    const ign = readNewc(gunzipSync(await extractWithXorriso(served, '/images/ignition.img', tmp.dir)));
    expect(ign[0]?.data.toString()).toBe(ignition);
    const grub = (await extractWithXorriso(served, '/EFI/redhat/grub.cfg', tmp.dir)).toString();
    expect(grub).toContain(`coreos.live.rootfs_url="${rootfsUrl}" rd.net.timeout.carrier=60\n#`);
  });

  it('adds the nmstate image when given one', async () => {
    const out = join(tmp.dir, 'with-nmstate.iso');
    const nmstate = gzipDeterministic(
      writeNewc([{ name: 'usr/bin/nmstatectl', mode: MODE_REGULAR | 0o755, data: Buffer.from('binary') }]),
    );
    await buildMinimalIsoTemplate({
      fullIsoPath: fixture.path,
      outputPath: out,
      rootfsUrl,
      cpuArchitecture: 'x86_64',
      workDir: tmp.dir,
      nmstateImage: nmstate,
    });
    expect((await extractWithXorriso(out, '/images/nmstate.img', tmp.dir)).equals(nmstate)).toBe(true);
    const grub = (await extractWithXorriso(out, '/EFI/redhat/grub.cfg', tmp.dir)).toString();
    expect(grub).toContain(
      '/images/ignition.img /images/assisted_installer_custom.img /images/nmstate.img\n',
    );
    expect((await withIsoFile(out, readLiveIsoLayout)).hasNmstateImage).toBe(true);
  });

  it('fails cleanly on an image without a rootfs', async () => {
    const out = join(tmp.dir, 'twice.iso');
    await expect(
      buildMinimalIsoTemplate({
        fullIsoPath: minimal,
        outputPath: out,
        rootfsUrl,
        cpuArchitecture: 'x86_64',
        workDir: tmp.dir,
      }),
    ).rejects.toThrow(/has no \/images\/pxeboot\/rootfs.img/);
  });
});
