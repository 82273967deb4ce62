// Ignition merge rules (core.md §8.2).

import { describe, expect, it } from 'vitest';
import {
  checkOverrideVersion,
  dataUrl,
  decodeDataUrl,
  type IgnitionConfig,
  IgnitionError,
  mergeIgnition,
  parseIgnition,
} from '../../../../src/core/artifacts/index.ts';

const cfg = (rest: Record<string, unknown> = {}, version = '3.2.0'): IgnitionConfig =>
  ({ ignition: { version }, ...rest }) as IgnitionConfig;

describe('mergeIgnition', () => {
  it('takes the child version (3.1.0 child downgrades a 3.2.0 parent)', () => {
    expect(mergeIgnition(cfg(), cfg({}, '3.1.0')).ignition.version).toBe('3.1.0');
  });

  it('merges files by path, field by field; new paths are appended', () => {
    const parent = cfg({
      storage: {
        files: [
          { path: '/a', mode: 420, contents: { source: 'data:,a' } },
          { path: '/b', mode: 420 },
        ],
      },
    });
    const child = cfg({
      storage: {
        files: [
          { path: '/a', mode: 384 },
          { path: '/c', contents: { source: 'data:,c' } },
        ],
      },
    });
    expect(mergeIgnition(parent, child).storage?.files).toEqual([
      { path: '/a', mode: 384, contents: { source: 'data:,a' } },
      { path: '/b', mode: 420 },
      { path: '/c', contents: { source: 'data:,c' } },
    ]);
  });

  it('files, directories and links share one key space', () => {
    const parent = cfg({
      storage: {
        files: [{ path: '/x' }, { path: '/keep' }],
        directories: [{ path: '/d' }],
        links: [{ path: '/l' }],
      },
    });
    const child = cfg({
      storage: { directories: [{ path: '/x' }], links: [{ path: '/d' }], files: [{ path: '/l' }] },
    });
    expect(mergeIgnition(parent, child).storage).toEqual({
      files: [{ path: '/keep' }, { path: '/l' }],
      directories: [{ path: '/x' }],
      links: [{ path: '/d' }],
    });
  });

  it('concatenates files[].append', () => {
    const parent = cfg({ storage: { files: [{ path: '/a', append: [{ source: 'data:,1' }] }] } });
    const child = cfg({
      storage: { files: [{ path: '/a', append: [{ source: 'data:,1' }, { source: 'data:,2' }] }] },
    });
    expect(mergeIgnition(parent, child).storage?.files?.[0]?.append).toEqual([
      { source: 'data:,1' },
      { source: 'data:,1' },
      { source: 'data:,2' },
    ]);
  });

  it('units by name with dropins by name; users by name with key lists as sets', () => {
    const parent = cfg({
      systemd: {
        units: [{ name: 'a.service', enabled: true, dropins: [{ name: '10.conf', contents: 'x' }] }],
      },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k1'], groups: ['sudo'] }] },
    });
    const child = cfg({
      systemd: {
        units: [
          {
            name: 'a.service',
            enabled: false,
            dropins: [{ name: '10.conf', contents: 'y' }, { name: '20.conf' }],
          },
          { name: 'b.service' },
        ],
      },
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k1', 'k2'] }, { name: 'admin' }] },
    });
    const merged = mergeIgnition(parent, child);
    expect(merged.systemd?.units).toEqual([
      {
        name: 'a.service',
        enabled: false,
        dropins: [{ name: '10.conf', contents: 'y' }, { name: '20.conf' }],
      },
      { name: 'b.service' },
    ]);
    expect(merged.passwd?.users).toEqual([
      { name: 'core', sshAuthorizedKeys: ['k1', 'k2'], groups: ['sudo'] },
      { name: 'admin' },
    ]);
  });

  it('merge sources and CAs by source URL, http headers by name', () => {
    const parent = cfg();
    parent.ignition.config = { merge: [{ source: 'https://a', httpHeaders: [{ name: 'X', value: '1' }] }] };
    parent.ignition.security = { tls: { certificateAuthorities: [{ source: 'data:,ca1' }] } };
    const child = cfg();
    child.ignition.config = {
      merge: [
        {
          source: 'https://a',
          httpHeaders: [
            { name: 'X', value: '2' },
            { name: 'Y', value: '3' },
          ],
        },
        { source: 'https://b' },
      ],
    };
    child.ignition.security = {
      tls: { certificateAuthorities: [{ source: 'data:,ca1' }, { source: 'data:,ca2' }] },
    };
    const merged = mergeIgnition(parent, child);
    expect(merged.ignition.config?.merge).toEqual([
      {
        source: 'https://a',
        httpHeaders: [
          { name: 'X', value: '2' },
          { name: 'Y', value: '3' },
        ],
      },
      { source: 'https://b' },
    ]);
    expect(merged.ignition.security?.tls?.certificateAuthorities).toEqual([
      { source: 'data:,ca1' },
      { source: 'data:,ca2' },
    ]);
  });

  it('disks by device with partitions by number or label; filesystems, luks, raid, tang', () => {
    const parent = cfg({
      storage: {
        disks: [
          {
            device: '/dev/sda',
            partitions: [
              { number: 1, sizeMiB: 10 },
              { label: 'data', sizeMiB: 5 },
            ],
          },
        ],
        filesystems: [{ device: '/dev/sda1', format: 'xfs' }],
        luks: [{ name: 'root', clevis: { tang: [{ url: 'http://t1', thumbprint: 'a' }] } }],
        raid: [{ name: 'md0', level: 'raid1' }],
      },
    });
    const child = cfg({
      storage: {
        disks: [
          {
            device: '/dev/sda',
            partitions: [
              { number: 1, sizeMiB: 20 },
              { label: 'data', wipePartitionEntry: true },
            ],
          },
        ],
        filesystems: [{ device: '/dev/sda1', wipeFilesystem: true }],
        luks: [
          { name: 'root', clevis: { tang: [{ url: 'http://t1', thumbprint: 'b' }, { url: 'http://t2' }] } },
        ],
        raid: [{ name: 'md0', level: 'raid0' }],
      },
    });
    expect(mergeIgnition(parent, child).storage).toEqual({
      disks: [
        {
          device: '/dev/sda',
          partitions: [
            { number: 1, sizeMiB: 20 },
            { label: 'data', sizeMiB: 5, wipePartitionEntry: true },
          ],
        },
      ],
      filesystems: [{ device: '/dev/sda1', format: 'xfs', wipeFilesystem: true }],
      luks: [
        { name: 'root', clevis: { tang: [{ url: 'http://t1', thumbprint: 'b' }, { url: 'http://t2' }] } },
      ],
      raid: [{ name: 'md0', level: 'raid0' }],
    });
  });

  it('absent or null child keys keep the parent value; a list replaces a non-list', () => {
    const parent = cfg({
      storage: { files: [{ path: '/a', mode: 420 }] },
      kernelArguments: { shouldExist: ['a'] },
      odd: 'scalar',
    });
    const child = cfg({
      storage: { files: [{ path: '/a', mode: null }] },
      kernelArguments: { shouldExist: ['a', 'b'] },
      odd: ['x'],
    });
    const merged = mergeIgnition(parent, child) as IgnitionConfig & {
      kernelArguments: unknown;
      odd: unknown;
    };
    expect(merged.storage?.files).toEqual([{ path: '/a', mode: 420 }]);
    expect(merged.kernelArguments).toEqual({ shouldExist: ['a', 'b'] });
    expect(merged.odd).toEqual(['x']);
  });

  it('entries without a key are appended', () => {
    const merged = mergeIgnition(
      cfg({ storage: { files: [{ path: '/a' }] } }),
      cfg({ storage: { files: [{ mode: 1 }] } }),
    );
    expect(merged.storage?.files).toEqual([{ path: '/a' }, { mode: 1 }]);
  });

  it('does not modify its inputs', () => {
    const parent = cfg({ storage: { files: [{ path: '/a' }] } });
    const child = cfg({ storage: { files: [{ path: '/a', mode: 1 }] } });
    mergeIgnition(parent, child);
    expect(parent.storage?.files).toEqual([{ path: '/a' }]);
  });
});

describe('override versions', () => {
  for (const version of ['3.1.0', '3.2.0']) {
    it(`accepts ${version}`, () =>
      expect(() => checkOverrideVersion(cfg({}, version), 'override')).not.toThrow());
  }
  for (const version of ['3.0.0', '3.3.0', '3.4.0', '2.2.0']) {
    it(`rejects ${version}`, () =>
      expect(() => checkOverrideVersion(cfg({}, version), 'override')).toThrow(
        new IgnitionError(`override uses ignition version "${version}"; only 3.1.0 and 3.2.0 are accepted`),
      ));
  }
});

describe('ignition helpers', () => {
  it('parseIgnition errors', () => {
    expect(() => parseIgnition('{', 'x.ign')).toThrow(/^x\.ign is not valid JSON: /);
    expect(() => parseIgnition('{"ignition":{}}', 'x.ign')).toThrow('x.ign has no ignition.version');
    expect(() => parseIgnition('null', 'x.ign')).toThrow('x.ign has no ignition.version');
  });
  it('data URLs round-trip', () => {
    expect(dataUrl('a b')).toBe('data:text/plain;charset=utf-8;base64,YSBi');
    expect(decodeDataUrl(dataUrl('héllo'))?.toString()).toBe('héllo');
    expect(decodeDataUrl('data:,a%20b')?.toString()).toBe('a b');
    expect(decodeDataUrl('data:,%E0%A4%A')).toBeUndefined();
    expect(decodeDataUrl('https://x')).toBeUndefined();
  });
});

describe('setFile / setUnit', () => {
  it('replace entries with the same key and append others', async () => {
    const { setFile, setUnit, inlineFile, emptyIgnition } = await import(
      '../../../../src/core/artifacts/index.ts'
    );
    const c = emptyIgnition('3.1.0');
    setFile(c, inlineFile('/a', 'one'));
    setFile(c, inlineFile('/b', 'two', 493, false));
    setFile(c, inlineFile('/a', 'three'));
    setUnit(c, { name: 'x.service', enabled: true });
    setUnit(c, { name: 'y.service' });
    setUnit(c, { name: 'x.service', enabled: false });
    expect(c.ignition.version).toBe('3.1.0');
    expect(
      c.storage?.files?.map((f) => [
        f.path,
        decodeDataUrl(f.contents?.source ?? '')?.toString(),
        f.mode,
        f.overwrite,
      ]),
    ).toEqual([
      ['/a', 'three', 420, true],
      ['/b', 'two', 493, false],
    ]);
    expect(c.systemd?.units).toEqual([{ name: 'x.service', enabled: false }, { name: 'y.service' }]);
  });
});
