import { describe, expect, it } from 'vitest';
import {
  applyIgnitionOverride,
  type IgnitionConfig,
  mergeIgnitionConfigs,
  parseIgnition,
  validateIgnitionOverride,
} from '../../../../src/core/ignition/index.ts';

const v31 = (rest: object = {}) => JSON.stringify({ ignition: { version: '3.1.0' }, ...rest });
const v32 = (rest: object = {}) => JSON.stringify({ ignition: { version: '3.2.0' }, ...rest });
const cfg = (text: string): IgnitionConfig => {
  const p = parseIgnition(text);
  if (!p.ok) throw new Error(`${p.error} ${p.details}`);
  return p.value.config;
};
const merge = (base: string, override: string) => {
  const r = applyIgnitionOverride(base, override);
  if (!r.ok) throw new Error(`${r.error}`);
  return r.value.config;
};

describe('override validation: accepted versions and exact errors', () => {
  const cases: [string, string, string | undefined][] = [
    ['3.1.0', v31(), undefined],
    ['3.2.0', v32(), undefined],
    ['empty text means no override', '', undefined],
    [
      '3.0.0',
      JSON.stringify({ ignition: { version: '3.0.0' } }),
      'error parsing ignition: unsupported config version',
    ],
    [
      '3.3.0',
      JSON.stringify({ ignition: { version: '3.3.0' } }),
      'error parsing ignition: unsupported config version',
    ],
    [
      '3.4.0',
      JSON.stringify({ ignition: { version: '3.4.0' } }),
      'error parsing ignition: unsupported config version',
    ],
    [
      '2.2.0',
      JSON.stringify({ ignition: { version: '2.2.0' } }),
      'error parsing ignition: unsupported config version',
    ],
    ['no version', JSON.stringify({ ignition: {} }), 'error parsing ignition: unsupported config version'],
    ['not JSON', '{"ignition": ', 'error parsing ignition: config is not valid'],
    ['JSON array', '[]', 'error parsing ignition: config is not valid'],
    ['wrong type', v31({ storage: { files: 'x' } }), 'error parsing ignition: config is not valid'],
    [
      'wrong scalar',
      v31({ systemd: { units: [{ name: 'a.service', enabled: 'yes' }] } }),
      'error parsing ignition: config is not valid',
    ],
    [
      'non-integer mode',
      v31({ storage: { files: [{ path: '/a', mode: 1.5 }] } }),
      'error parsing ignition: config is not valid',
    ],
    [
      'relative path',
      v31({ storage: { files: [{ path: 'etc/a' }] } }),
      'error parsing ignition: config is not valid',
    ],
  ];
  it.each(cases)('%s', (_name, text, expected) => {
    expect(validateIgnitionOverride(text)?.error).toBe(expected);
  });

  it('empty text through the parser', () => {
    expect(parseIgnition('')).toEqual({ ok: false, error: 'error parsing ignition: not a config (empty)' });
  });

  const fatal: [string, object, string][] = [
    ['relative path', { storage: { files: [{ path: 'a' }] } }, '$.storage.files.0.path: path not absolute'],
    [
      'duplicate path across lists',
      { storage: { files: [{ path: '/a' }], directories: [{ path: '/a' }] } },
      '$.storage.directories.0.path: duplicate entry for path /a',
    ],
    [
      'illegal mode',
      { storage: { files: [{ path: '/a', mode: 4096 }] } },
      '$.storage.files.0.mode: illegal file mode',
    ],
    [
      'overwrite without source',
      { storage: { files: [{ path: '/a', overwrite: true }] } },
      '$.storage.files.0.overwrite: overwrite must be false if source is unspecified',
    ],
    [
      'bad scheme',
      { storage: { files: [{ path: '/a', contents: { source: 'ftp://x' } }] } },
      '$.storage.files.0.contents.source: invalid url scheme',
    ],
    [
      'bad data url',
      { storage: { files: [{ path: '/a', contents: { source: 'data:;base64,@@@' } }] } },
      '$.storage.files.0.contents.source: invalid data url',
    ],
    [
      'bad compression',
      { storage: { files: [{ path: '/a', contents: { source: 'data:,x', compression: 'xz' } }] } },
      '$.storage.files.0.contents.compression: invalid compression method',
    ],
    [
      'unknown hash',
      {
        storage: {
          files: [{ path: '/a', contents: { source: 'data:,x', verification: { hash: 'md5-00' } } }],
        },
      },
      '$.storage.files.0.contents.verification.hash: unrecognized hash function',
    ],
    [
      'short hash',
      {
        storage: {
          files: [{ path: '/a', contents: { source: 'data:,x', verification: { hash: 'sha256-abc' } } }],
        },
      },
      '$.storage.files.0.contents.verification.hash: malformed hash specifier',
    ],
    [
      'headers on data url',
      {
        storage: {
          files: [{ path: '/a', contents: { source: 'data:,x', httpHeaders: [{ name: 'A', value: 'b' }] } }],
        },
      },
      '$.storage.files.0.contents.httpHeaders: unsupported scheme for http headers',
    ],
    [
      'duplicate header',
      {
        ignition: {
          version: '3.1.0',
          config: {
            merge: [
              {
                source: 'https://x/y',
                httpHeaders: [
                  { name: 'A', value: '1' },
                  { name: 'A', value: '2' },
                ],
              },
            ],
          },
        },
      },
      '$.ignition.config.merge.0.source.httpHeaders.1: duplicate http header',
    ],
    [
      'unit extension',
      { systemd: { units: [{ name: 'foo' }] } },
      '$.systemd.units.0.name: invalid systemd unit extension',
    ],
    [
      'dropin extension',
      { systemd: { units: [{ name: 'a.service', dropins: [{ name: 'x.txt' }] }] } },
      '$.systemd.units.0.dropins.0.name: invalid systemd unit dropin extension',
    ],
    [
      'duplicate unit',
      { systemd: { units: [{ name: 'a.service' }, { name: 'a.service' }] } },
      '$.systemd.units.1.name: duplicate entry a.service',
    ],
    [
      'user without name',
      { passwd: { users: [{ passwordHash: 'x' }] } },
      '$.passwd.users.0.name: field is required',
    ],
    [
      'proxy url',
      { ignition: { version: '3.1.0', proxy: { httpProxy: 'proxy:3128' } } },
      '$.ignition.proxy.httpProxy: invalid url',
    ],
    [
      'link target',
      { storage: { links: [{ path: '/l' }] } },
      '$.storage.links.0.target: link target is required',
    ],
    [
      'filesystem format',
      { storage: { filesystems: [{ device: '/dev/sda', format: 'zfs' }] } },
      '$.storage.filesystems.0.format: invalid filesystem format',
    ],
    [
      'disk device',
      { storage: { disks: [{ device: 'sda' }] } },
      '$.storage.disks.0.device: path not absolute',
    ],
  ];
  it.each(fatal)('fatal: %s', (_name, body, detail) => {
    const text = JSON.stringify({ ignition: { version: '3.1.0' }, ...body });
    const result = validateIgnitionOverride(text);
    expect(result?.error).toBe('error parsing ignition: config is not valid');
    expect(result?.details).toContain(detail.replace('.source.httpHeaders', '.httpHeaders'));
  });

  it('unknown keys and 3.2-only keys in a 3.1 config are warnings, and are dropped', () => {
    const parsed = parseIgnition(v31({ foo: 1, storage: { luks: [{ name: 'root' }] } }));
    expect(parsed.ok && parsed.value.warnings).toEqual(['$.foo: unused key', '$.storage.luks: unused key']);
    expect(parsed.ok && parsed.value.config).toEqual({ ignition: { version: '3.1.0' }, storage: {} });
    const parsed32 = parseIgnition(v32({ storage: { luks: [{ name: 'root', device: '/dev/sda' }] } }));
    expect(parsed32.ok && parsed32.value.config.storage?.luks).toEqual([
      { name: 'root', device: '/dev/sda' },
    ]);
  });

  it('null members mean "not set"', () => {
    const parsed = parseIgnition(
      JSON.stringify({
        ignition: { version: '3.1.0', config: null },
        storage: { files: [null, { path: '/a', mode: null }] },
      }),
    );
    // A null list entry is the zero value: a file with no path, which is then invalid.
    expect(parsed.ok).toBe(false);
    const ok = parseIgnition(JSON.stringify({ ignition: { version: '3.1.0', config: null }, passwd: null }));
    expect(ok.ok && ok.value.config).toEqual({ ignition: { version: '3.1.0' } });
  });
});

describe('merge rules', () => {
  it('version comes from the override (upgrade and downgrade)', () => {
    expect(merge(v31(), v32()).ignition.version).toBe('3.2.0');
    expect(merge(v32(), v31()).ignition.version).toBe('3.1.0');
  });

  it('files merge by path field by field; new files are appended', () => {
    const base = v31({
      storage: {
        files: [
          { path: '/a', mode: 420, overwrite: true, contents: { source: 'data:,a' }, user: { name: 'root' } },
          { path: '/b', contents: { source: 'data:,b' } },
        ],
      },
    });
    const override = v31({
      storage: {
        files: [
          { path: '/c', contents: { source: 'data:,c' } },
          { path: '/a', mode: 384, overwrite: false },
        ],
      },
    });
    expect(merge(base, override).storage?.files).toEqual([
      { path: '/a', mode: 384, overwrite: false, contents: { source: 'data:,a' }, user: { name: 'root' } },
      { path: '/b', contents: { source: 'data:,b' } },
      { path: '/c', contents: { source: 'data:,c' } },
    ]);
  });

  it('files, directories and links share one key space', () => {
    const base = v31({
      storage: {
        files: [{ path: '/x', contents: { source: 'data:,x' } }, { path: '/keep' }],
        links: [{ path: '/l', target: '/t' }],
      },
    });
    const override = v31({ storage: { directories: [{ path: '/x', mode: 493 }], files: [{ path: '/l' }] } });
    const merged = merge(base, override);
    expect(merged.storage?.files).toEqual([{ path: '/keep' }, { path: '/l' }]);
    expect(merged.storage?.directories).toEqual([{ path: '/x', mode: 493 }]);
    expect(merged.storage?.links).toBeUndefined();
  });

  it('files[].append concatenates without de-duplication', () => {
    const base = v31({ storage: { files: [{ path: '/a', append: [{ source: 'data:,1' }] }] } });
    const override = v31({
      storage: { files: [{ path: '/a', append: [{ source: 'data:,1' }, { source: 'data:,2' }] }] },
    });
    expect(merge(base, override).storage?.files?.[0]?.append).toEqual([
      { source: 'data:,1' },
      { source: 'data:,1' },
      { source: 'data:,2' },
    ]);
  });

  it('units merge by name; pointer fields only replace when set; dropins by name', () => {
    const base = v31({
      systemd: {
        units: [
          { name: 'a.service', enabled: true, contents: 'A', dropins: [{ name: '1.conf', contents: 'one' }] },
          { name: 'b.service', enabled: true },
        ],
      },
    });
    const override = v31({
      systemd: {
        units: [
          {
            name: 'a.service',
            enabled: false,
            dropins: [
              { name: '2.conf', contents: 'two' },
              { name: '1.conf', contents: 'uno' },
            ],
          },
          { name: 'c.service', mask: true },
        ],
      },
    });
    expect(merge(base, override).systemd?.units).toEqual([
      {
        name: 'a.service',
        enabled: false,
        contents: 'A',
        dropins: [
          { name: '1.conf', contents: 'uno' },
          { name: '2.conf', contents: 'two' },
        ],
      },
      { name: 'b.service', enabled: true },
      { name: 'c.service', mask: true },
    ]);
  });

  it('users by name; primitive lists keyed by value', () => {
    const base = v31({
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k1', 'k2'], groups: ['sudo'] }] },
    });
    const override = v31({
      passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['k2', 'k3'] }, { name: 'other' }] },
    });
    expect(merge(base, override).passwd?.users).toEqual([
      { name: 'core', sshAuthorizedKeys: ['k1', 'k2', 'k3'], groups: ['sudo'] },
      { name: 'other' },
    ]);
  });

  it('proxy noProxy merges by value; httpProxy replaced only when set', () => {
    const base = JSON.stringify({
      ignition: { version: '3.1.0', proxy: { httpProxy: 'http://a', noProxy: ['x', 'y'] } },
    });
    const override = JSON.stringify({ ignition: { version: '3.1.0', proxy: { noProxy: ['y', 'z'] } } });
    expect(merge(base, override).ignition.proxy).toEqual({ httpProxy: 'http://a', noProxy: ['x', 'y', 'z'] });
  });

  it('merge resources and TLS CAs by source; headers by name, a value-less header removes it', () => {
    const base = JSON.stringify({
      ignition: {
        version: '3.2.0',
        config: {
          merge: [
            {
              source: 'https://mcs/config/worker',
              httpHeaders: [
                { name: 'Authorization', value: 'Bearer a' },
                { name: 'X-Drop', value: '1' },
              ],
            },
          ],
        },
        security: { tls: { certificateAuthorities: [{ source: 'data:,ca1' }] } },
      },
    });
    const override = JSON.stringify({
      ignition: {
        version: '3.2.0',
        config: {
          merge: [
            {
              source: 'https://mcs/config/worker',
              httpHeaders: [
                { name: 'X-Drop' },
                { name: 'Authorization', value: 'Bearer b' },
                { name: 'X-New', value: 'n' },
              ],
            },
          ],
        },
        security: { tls: { certificateAuthorities: [{ source: 'data:,ca1' }, { source: 'data:,ca2' }] } },
      },
    });
    const merged = merge(base, override);
    expect(merged.ignition.config?.merge).toEqual([
      {
        source: 'https://mcs/config/worker',
        httpHeaders: [
          { name: 'Authorization', value: 'Bearer b' },
          { name: 'X-New', value: 'n' },
        ],
      },
    ]);
    expect(merged.ignition.security?.tls?.certificateAuthorities).toEqual([
      { source: 'data:,ca1' },
      { source: 'data:,ca2' },
    ]);
  });

  it('storage keyed lists: disks by device, partitions by number or label, raid, luks, filesystems', () => {
    const base = v32({
      storage: {
        disks: [
          {
            device: '/dev/sda',
            wipeTable: true,
            partitions: [
              { number: 1, sizeMiB: 10 },
              { label: 'data', sizeMiB: 5 },
            ],
          },
        ],
        filesystems: [{ device: '/dev/sda1', format: 'xfs', options: ['-f'] }],
        raid: [{ name: 'md0', level: 'raid1', devices: ['/dev/sdb'] }],
        luks: [{ name: 'root', device: '/dev/sda4', clevis: { tpm2: true, tang: [{ url: 'http://t1' }] } }],
      },
    });
    const override = v32({
      storage: {
        disks: [{ device: '/dev/sda', partitions: [{ label: 'data', sizeMiB: 7 }, { number: 2 }] }],
        filesystems: [{ device: '/dev/sda1', path: '/var' }],
        raid: [{ name: 'md0', devices: ['/dev/sdc'] }],
        luks: [{ name: 'root', clevis: { tang: [{ url: 'http://t2' }] } }],
      },
    });
    const s = merge(base, override).storage;
    expect(s?.disks).toEqual([
      {
        device: '/dev/sda',
        wipeTable: true,
        partitions: [{ number: 1, sizeMiB: 10 }, { label: 'data', sizeMiB: 7 }, { number: 2 }],
      },
    ]);
    expect(s?.filesystems).toEqual([{ device: '/dev/sda1', format: 'xfs', options: ['-f'], path: '/var' }]);
    // `level` is a value field: an override that leaves it out clears it (coreos/ignition semantics).
    expect(s?.raid).toEqual([{ name: 'md0', devices: ['/dev/sdb', '/dev/sdc'] }]);
    // `clevis` is a pointer-to-struct: the override's object replaces the parent's whole.
    expect(s?.luks).toEqual([
      { name: 'root', device: '/dev/sda4', clevis: { tang: [{ url: 'http://t2' }] } },
    ]);
  });

  it('merged config must still be valid', () => {
    // Each side is valid; merged, the data: source carries the base's HTTP headers.
    const base = v31({
      storage: {
        files: [
          { path: '/a', contents: { source: 'https://h/x', httpHeaders: [{ name: 'A', value: 'b' }] } },
        ],
      },
    });
    const override = v31({ storage: { files: [{ path: '/a', contents: { source: 'data:,x' } }] } });
    const result = applyIgnitionOverride(base, override);
    expect(result).toEqual({
      ok: false,
      error:
        'merged ignition config is invalid: config is not valid; $.storage.files.0.contents.httpHeaders: unsupported scheme for http headers',
      details: ['$.storage.files.0.contents.httpHeaders: unsupported scheme for http headers'],
    });
  });

  it('errors in base or override text propagate', () => {
    expect(applyIgnitionOverride('{', v31()).ok).toBe(false);
    expect(applyIgnitionOverride(v31(), '{"ignition":{"version":"3.0.0"}}')).toEqual({
      ok: false,
      error: 'error parsing ignition: unsupported config version',
    });
  });

  it('mergeIgnitionConfigs is pure and accepts parsed configs', () => {
    const a = cfg(v31({ systemd: { units: [{ name: 'a.service' }] } }));
    const b = cfg(v32({ systemd: { units: [{ name: 'b.service' }] } }));
    const before = JSON.stringify(a);
    expect(mergeIgnitionConfigs(a, b).systemd?.units?.map((u) => u.name)).toEqual(['a.service', 'b.service']);
    expect(JSON.stringify(a)).toBe(before);
    expect(applyIgnitionOverride(a, v32()).ok).toBe(true);
  });

  it('merged JSON is canonical (sorted keys)', () => {
    const r = applyIgnitionOverride(
      v31({ systemd: { units: [{ name: 'z.service', enabled: true }] } }),
      v31(),
    );
    expect(r.ok && r.value.json).toBe(
      '{"ignition":{"version":"3.1.0"},"systemd":{"units":[{"enabled":true,"name":"z.service"}]}}',
    );
  });
});
