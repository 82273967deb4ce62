import { describe, expect, it } from 'vitest';
import { findEntry, readNewc, writeNewc } from '../../../src/images/cpio.ts';

// The simulator reads discovery archives as the kernel would: the CRC variant too.
const parseNewc = (archive: Uint8Array) => readNewc(archive, { acceptCrc: true });

describe('newc cpio', () => {
  it('writes the image-service layout (agent-api.md §9.3) and reads it back', () => {
    const ign = Buffer.from('{"ignition":{"version":"3.1.0"}}');
    const archive = writeNewc([{ name: 'config.ign', data: ign }]);
    const header = archive.toString('latin1', 0, 110);
    expect(header).toBe(
      `070701000000010000${'81A4'}${'00000000'.repeat(2)}00000001${'00000000'}${ign.length.toString(16).toUpperCase().padStart(8, '0')}${'00000000'.repeat(4)}0000000B00000000`,
    );
    expect(archive.toString('latin1', 110, 121)).toBe('config.ign\0');
    // 110 + 11 = 121 → 3 pad bytes; data at 124.
    expect(archive.subarray(124, 124 + ign.length)).toEqual(ign);
    expect(archive.length % 4).toBe(0);
    expect(archive.toString('latin1', archive.length - 124 + 110, archive.length - 124 + 120)).toBe(
      'TRAILER!!!',
    );
    const entries = parseNewc(archive);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ name: 'config.ign', mode: 0o100644 });
    expect(findEntry(entries, 'config.ign')!.data).toEqual(ign);
  });

  it('finds ./-prefixed names and reads several entries with odd sizes', () => {
    const entries = parseNewc(
      writeNewc([
        { name: './etc/a', data: Buffer.from('x') },
        { name: './config.ign', data: Buffer.from('hello world') },
      ]),
    );
    expect(entries.map((e) => e.name)).toEqual(['./etc/a', './config.ign']);
    expect(findEntry(entries, 'config.ign')!.data.toString()).toBe('hello world');
  });

  it('rejects garbage and truncation', () => {
    expect(() => parseNewc(Buffer.from('not a cpio archive at all, definitely not'.repeat(4)))).toThrow(
      /magic/,
    );
    const archive = writeNewc([{ name: 'config.ign', data: Buffer.alloc(100, 1) }]);
    expect(() => parseNewc(archive.subarray(0, 150))).toThrow(/truncated/);
  });

  it('reads the CRC variant (070702) only when asked', () => {
    const archive = writeNewc([{ name: 'config.ign', data: Buffer.from('{}') }]);
    const crc = Buffer.concat([Buffer.from('070702'), archive.subarray(6)]);
    expect(findEntry(parseNewc(crc), 'config.ign')!.data.toString()).toBe('{}');
    expect(() => readNewc(crc)).toThrow(/magic/);
  });
});
