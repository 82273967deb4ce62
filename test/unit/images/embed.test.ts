import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MODE_DIRECTORY, MODE_REGULAR, MODE_SYMLINK, readNewc, writeNewc } from '../../../src/images/cpio.ts';
import {
  EmbedError,
  gzipDeterministic,
  ignitionArchive,
  ignitionOverlay,
  type KargsArea,
  kargsOverlays,
  padTo4,
  parseKernelArguments,
  ramdiskOverlay,
} from '../../../src/images/embed.ts';

const hex8 = (n: number) => n.toString(16).toUpperCase().padStart(8, '0');

describe('newc cpio', () => {
  it('writes the ignition entry and trailer byte for byte as the recipe says', () => {
    const cpio = writeNewc([{ name: 'config.ign', mode: MODE_REGULAR | 0o644, data: Buffer.from('{}') }]);
    const entryHeader =
      '070701' +
      ['1', '81A4', '0', '0', '1', '0', '2', '0', '0', '0', '0', 'B', '0']
        .map((f) => f.padStart(8, '0'))
        .join('');
    const trailerHeader =
      '070701' +
      ['0', '0', '0', '0', '1', '0', '0', '0', '0', '0', '0', 'B', '0']
        .map((f) => f.padStart(8, '0'))
        .join('');
    const expected = Buffer.concat([
      Buffer.from(entryHeader, 'latin1'),
      Buffer.from('config.ign\0', 'latin1'),
      Buffer.alloc(3), // 110 + 11 = 121 → 124
      Buffer.from('{}'),
      Buffer.alloc(2), // data padded to 4
      Buffer.from(trailerHeader, 'latin1'),
      Buffer.from('TRAILER!!!\0', 'latin1'),
      Buffer.alloc(3),
    ]);
    expect(cpio.toString('latin1')).toBe(expected.toString('latin1'));
    expect(cpio.length % 4).toBe(0);
  });

  it('uses upper-case hex for sizes', () => {
    const data = Buffer.alloc(0xabc, 'x');
    const cpio = writeNewc([{ name: 'f', mode: MODE_REGULAR | 0o600, data }]);
    expect(cpio.toString('latin1', 6 + 6 * 8, 6 + 7 * 8)).toBe(hex8(0xabc));
    expect(cpio.toString('latin1', 6 + 8, 6 + 16)).toBe('00008180');
  });

  it('round-trips through the reader, with every padding case', () => {
    const entries = [
      { name: 'etc', mode: MODE_DIRECTORY | 0o755, data: Buffer.alloc(0) },
      { name: 'etc/a', mode: MODE_REGULAR | 0o600, data: Buffer.from('1') },
      { name: 'etc/bb', mode: MODE_REGULAR | 0o600, data: Buffer.from('22') },
      { name: 'etc/ccc', mode: MODE_REGULAR | 0o600, data: Buffer.from('333') },
      { name: 'etc/dddd', mode: MODE_REGULAR | 0o600, data: Buffer.from('4444') },
      { name: 'etc/link', mode: MODE_SYMLINK | 0o777, data: Buffer.from('a') },
    ];
    expect(readNewc(writeNewc(entries))).toEqual(entries);
  });

  it('rejects damaged archives', () => {
    const cpio = writeNewc([{ name: 'x', mode: MODE_REGULAR | 0o644, data: Buffer.from('abc') }]);
    expect(() => readNewc(cpio.subarray(0, 50))).toThrow(/trailer/);
    expect(() => readNewc(Buffer.concat([Buffer.from('070702'), cpio.subarray(6)]))).toThrow(/magic/);
  });
});

describe('ignition archive', () => {
  const ignition = JSON.stringify({ ignition: { version: '3.1.0' }, storage: { files: [] } });

  it('is a 4-byte padded gzip of the cpio holding config.ign', () => {
    const archive = ignitionArchive(ignition);
    expect(archive.length % 4).toBe(0);
    // gzip header as Go writes it: magic, deflate, no flags, MTIME 0, XFL 0, OS 255.
    expect([...archive.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    const entries = readNewc(gunzipSync(archive));
    expect(entries).toEqual([{ name: 'config.ign', mode: 0o100644, data: Buffer.from(ignition) }]);
  });

  it('is deterministic', () => {
    expect(ignitionArchive(ignition).equals(ignitionArchive(Buffer.from(ignition)))).toBe(true);
    expect(gzipDeterministic(Buffer.from('x')).equals(gzipDeterministic(Buffer.from('x')))).toBe(true);
  });

  it('pads only when needed', () => {
    expect(padTo4(Buffer.alloc(8)).length).toBe(8);
    expect(padTo4(Buffer.from([1, 2, 3, 4, 5]))).toEqual(Buffer.from([1, 2, 3, 4, 5, 0, 0, 0]));
  });

  it('fills the whole embed area, or fails when it does not fit', () => {
    const archive = ignitionArchive(ignition);
    const overlay = ignitionOverlay({ offset: 4096, length: 8192 }, archive);
    expect(overlay).toEqual({ offset: 4096, length: 8192, data: archive });
    expect(() => ignitionOverlay({ offset: 0, length: archive.length - 4 }, archive)).toThrow(
      /content length exceeds embed area size/,
    );
  });

  it('puts the ramdisk at the start of its placeholder and refuses oversized ones', () => {
    const ramdisk = Buffer.from('ramdisk');
    expect(ramdiskOverlay({ offset: 10, length: 100 }, ramdisk)).toEqual({
      offset: 10,
      length: 100,
      data: ramdisk,
    });
    expect(() => ramdiskOverlay({ offset: 0, length: 4 }, ramdisk)).toThrow(EmbedError);
  });
});

describe('kernel arguments', () => {
  // The same config bytes, described once by kargs.json and once by the marker.
  const defaults = 'random.trust_cpu=on ignition.firstboot ignition.platform.id=metal';
  const size = 128;
  const fileStart = 1000;
  const prefix = '\tlinux /images/pxeboot/vmlinuz ';
  const config = `${prefix}${defaults}\n${'#'.repeat(size - defaults.length - 1)} COREOS_KARG_EMBED_AREA\n`;
  const jsonArea: KargsArea = {
    file: 'EFI/redhat/grub.cfg',
    style: 'kargs-json',
    offset: fileStart + prefix.length,
    length: size,
    current: defaults,
    pad: '#',
    end: '\n',
  };
  const markerIndex = config.indexOf('\n#');
  const markerArea: KargsArea = {
    file: 'EFI/redhat/grub.cfg',
    style: 'marker',
    offset: fileStart + markerIndex,
    length: config.indexOf('# COREOS') - markerIndex,
    current: '',
    pad: '#',
    end: '\n',
  };
  const write = (area: KargsArea, args: string[]) => {
    const image = Buffer.concat([Buffer.alloc(fileStart), Buffer.from(config), Buffer.alloc(100)]);
    for (const o of kargsOverlays([area], args)) {
      image.fill(0, o.offset, o.offset + o.length);
      o.data.copy(image, o.offset);
    }
    return image.toString('latin1', fileStart, fileStart + config.length);
  };

  it('appends to the kernel line and keeps the marker as a comment', () => {
    const out = write(jsonArea, ['ip=dhcp', 'console=ttyS0']);
    expect(out).toBe(
      `${prefix}${defaults} ip=dhcp console=ttyS0\n${'#'.repeat(size - defaults.length - 1 - 22)} COREOS_KARG_EMBED_AREA\n`,
    );
    expect(out.length).toBe(config.length);
  });

  it('writes the same bytes with the kargs.json and the marker method', () => {
    expect(write(markerArea, ['a=1', 'b'])).toBe(write(jsonArea, ['a=1', 'b']));
  });

  it('writes nothing without arguments', () => {
    expect(kargsOverlays([jsonArea], [])).toEqual([]);
    expect(kargsOverlays([jsonArea], ['  ', ''])).toEqual([]);
  });

  it('fails when the arguments do not fit, by exactly one byte', () => {
    const room = size - defaults.length - 1 - 1; // minus the end char and the separating space
    expect(() => kargsOverlays([jsonArea], ['x'.repeat(room)])).not.toThrow();
    expect(() => kargsOverlays([jsonArea], ['x'.repeat(room + 1)])).toThrow(/do not fit the embed area/);
    expect(() => kargsOverlays([markerArea], ['x'.repeat(markerArea.length - 2)])).not.toThrow();
    expect(() => kargsOverlays([markerArea], ['x'.repeat(markerArea.length - 1)])).toThrow(EmbedError);
  });

  it('refuses arguments that would break out of the config line', () => {
    try {
      kargsOverlays([jsonArea], ['a\ninitrd /evil']);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(EmbedError);
      expect((err as EmbedError).status).toBe(400);
    }
  });

  it('fails when the image has no area', () => {
    expect(() => kargsOverlays([], ['a'])).toThrow(/no kernel-argument embed area/);
  });

  it('parses InfraEnv kernel_arguments', () => {
    expect(parseKernelArguments(undefined)).toEqual([]);
    expect(parseKernelArguments('')).toEqual([]);
    expect(parseKernelArguments('null')).toEqual([]);
    expect(
      parseKernelArguments(
        '[{"operation":"append","value":"ip=dhcp"},{"operation":"append","value":"quiet"}]',
      ),
    ).toEqual(['ip=dhcp', 'quiet']);
    expect(() => parseKernelArguments('[{"operation":"delete","value":"quiet"}]')).toThrow(
      "only 'append' operation is allowed. got delete",
    );
    expect(() => parseKernelArguments('{')).toThrow(EmbedError);
  });
});
