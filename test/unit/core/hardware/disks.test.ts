import { describe, expect, it } from 'vitest';
import {
  AGENT_DISK_REASONS,
  allowedDriveTypes,
  type DiskEligibilityContext,
  diskEligibility,
  iscsiNetworkReasons,
  isDiskEligible,
  isServiceDiskReason,
  listEligibleDisks,
  SERVICE_DISK_REASONS,
  serviceDiskReasons,
  updateDisksEligibility,
} from '../../../../src/core/hardware/disks.ts';
import type { Disk, Inventory } from '../../../../src/core/inventory.ts';

const GB = 1_000_000_000;
const ssd = (overrides: Partial<Disk> = {}): Disk => ({
  name: 'sda',
  drive_type: 'SSD',
  size_bytes: 200 * GB,
  ...overrides,
});
const ctx = (
  inventory: Inventory,
  overrides: Partial<DiskEligibilityContext> = {},
): DiskEligibilityContext => ({
  minDiskSizeGb: 100,
  openshiftVersion: '4.18.0',
  inventory: { cpu: { architecture: 'x86_64' }, ...inventory },
  ...overrides,
});
const reasonsOf = (disk: Disk, inv: Inventory = { disks: [disk] }, o: Partial<DiskEligibilityContext> = {}) =>
  serviceDiskReasons(disk, ctx(inv, o));

describe('size threshold (Total.disk_size_gb × 10^9 bytes)', () => {
  it.each([
    [99_999_999_999, ['Disk is too small (disk only has 100 GB (short by 1 B), but 100 GB are required)']],
    [100_000_000_000, []],
    [100_000_000_001, []],
    [99_000_000_000, ['Disk is too small (disk only has 99 GB, but 100 GB are required)']],
    [99_999_000_000, ['Disk is too small (disk only has 99.999 GB, but 100 GB are required)']],
    [99_999_500_000, ['Disk is too small (disk only has 100 GB (short by 500 KB), but 100 GB are required)']],
    [0, ['Disk is too small (disk only has 0 B, but 100 GB are required)']],
  ])('%d bytes', (size, want) => {
    expect(reasonsOf(ssd({ size_bytes: size }))).toEqual(want);
  });

  it.each([
    [49_999_999_999, 1],
    [50_000_000_000, 0],
  ])('unbound (arbiter, 50 GB): %d bytes → %d reasons', (size, n) => {
    expect(reasonsOf(ssd({ size_bytes: size }), undefined, { minDiskSizeGb: 50 })).toHaveLength(n);
  });

  it('a disk without size is too small', () => {
    expect(reasonsOf({ name: 'sdz', drive_type: 'SSD' })).toEqual([
      'Disk is too small (disk only has 0 B, but 100 GB are required)',
    ]);
  });
});

describe('allowed drive types', () => {
  it.each([
    ['4.13', 'x86_64', ['HDD', 'SSD', 'Multipath', 'FC']],
    ['4.14.0-rc.1', 'x86_64', ['HDD', 'SSD', 'Multipath', 'RAID', 'FC']],
    ['4.15', 'x86_64', ['HDD', 'SSD', 'Multipath', 'RAID', 'iSCSI', 'FC']],
    ['4.15', 'amd64', ['HDD', 'SSD', 'Multipath', 'RAID', 'iSCSI', 'FC']],
    ['4.15', 'aarch64', ['HDD', 'SSD', 'Multipath', 'RAID', 'iSCSI']],
    ['4.15', 'arm64', ['HDD', 'SSD', 'Multipath', 'RAID', 'iSCSI']],
    ['4.15', 'ppc64le', ['HDD', 'SSD', 'Multipath', 'RAID', 'iSCSI']],
    ['4.15', 's390x', ['HDD', 'SSD', 'Multipath', 'RAID', 'iSCSI', 'FC', 'ECKD (ESE)', 'ECKD', 'FBA']],
    ['4.12', undefined, ['HDD', 'SSD', 'Multipath']],
  ])('%s on %s', (version, arch, want) => expect(allowedDriveTypes(version, arch)).toEqual(want));

  it.each(['Unknown', 'ODD', 'FDD', 'virtual', 'LVM', 'ECKD', 'RAID', ''])(
    '%s on 4.13 x86_64 is rejected',
    (type) => {
      expect(reasonsOf(ssd({ drive_type: type }), undefined, { openshiftVersion: '4.13' })).toEqual([
        `Drive type is ${type}, it must be one of HDD, SSD, Multipath, FC.`,
      ]);
    },
  );

  it('RAID is accepted from 4.14', () => {
    expect(reasonsOf(ssd({ drive_type: 'RAID' }), undefined, { openshiftVersion: '4.14' })).toEqual([]);
  });

  it('a too-small disk of a bad type gets both reasons, size first', () => {
    expect(reasonsOf(ssd({ drive_type: 'ODD', size_bytes: 10 * GB }))).toEqual([
      'Disk is too small (disk only has 10 GB, but 100 GB are required)',
      'Drive type is ODD, it must be one of HDD, SSD, Multipath, RAID, iSCSI, FC.',
    ]);
  });
});

describe('multipath', () => {
  const mpath = ssd({ name: 'dm-0', drive_type: 'Multipath' });
  const path = (name: string, type: string, extra: Partial<Disk> = {}) =>
    ssd({ name, drive_type: type, holders: 'dm-0', ...extra });

  it('FC member of a multipath device', () => {
    const fc = path('sdb', 'FC');
    expect(reasonsOf(fc, { disks: [mpath, fc] })).toEqual([
      'Disk is a member of multipath device dm-0 and is not eligible for installation. Use the multipath device instead.',
    ]);
  });

  it('holders naming a non-multipath device do not count', () => {
    const fc = ssd({ name: 'sdb', drive_type: 'FC', holders: 'dm-5' });
    expect(reasonsOf(fc, { disks: [mpath, fc] })).toEqual([]);
  });

  it('FC paths only → eligible', () => {
    const inv = { disks: [mpath, path('sdb', 'FC'), path('sdc', 'FC')] };
    expect(reasonsOf(mpath, inv)).toEqual([]);
  });

  it.each([
    ['no paths', [], [SERVICE_DISK_REASONS.multipathUnsupportedPathType]],
    ['only HDD paths', [path('sdb', 'HDD')], [SERVICE_DISK_REASONS.multipathUnsupportedPathType]],
    [
      'FC + iSCSI',
      [path('sdb', 'FC'), path('sdc', 'iSCSI', { iscsi: { host_ip_address: '10.0.0.9' } })],
      [SERVICE_DISK_REASONS.multipathMixedPathTypes],
    ],
    ['FC + HDD', [path('sdb', 'FC'), path('sdc', 'HDD')], [SERVICE_DISK_REASONS.multipathMixedPathTypes]],
    ['iSCSI path without host IP', [path('sdb', 'iSCSI')], [SERVICE_DISK_REASONS.multipathIscsiErrors]],
  ])('%s', (_name, paths, want) => {
    expect(reasonsOf(mpath, { disks: [mpath, ...paths] })).toEqual(want);
  });

  it('iSCSI paths on OCP < 4.15 (iSCSI not allowed) break the multipath device', () => {
    const p = path('sdb', 'iSCSI', { iscsi: { host_ip_address: '10.0.0.9' } });
    expect(reasonsOf(mpath, { disks: [mpath, p] }, { openshiftVersion: '4.14' })).toEqual([
      SERVICE_DISK_REASONS.multipathIscsiErrors,
    ]);
  });
});

describe('iSCSI networking', () => {
  const iscsi = (ip?: string): Disk =>
    ssd({ name: 'sdb', drive_type: 'iSCSI', ...(ip ? { iscsi: { host_ip_address: ip } } : {}) });
  const base: Inventory = {
    interfaces: [
      { name: 'eth0', ipv4_addresses: ['192.168.1.10/24'], ipv6_addresses: ['fd00::10/64'] },
      { name: 'eth1', ipv4_addresses: ['10.0.0.10/24'] },
    ],
    routes: [
      { destination: '0.0.0.0', gateway: '192.168.1.1', interface: 'eth0', family: 2, metric: 100 },
      { destination: '0.0.0.0', gateway: '10.0.0.1', interface: 'eth1', family: 2, metric: 50 },
      { destination: '::', gateway: 'fd00::1', interface: 'eth0', family: 10, metric: 1 },
      { destination: '10.0.0.0', gateway: '0.0.0.0', interface: 'eth1', family: 2, metric: 1 },
    ],
  };
  it.each([
    ['no host IP', undefined, base, ['Host IP address is not available']],
    ['unparsable', 'abc', base, ['Cannot parse iSCSI host IP abc: ParseAddr("abc"): unable to parse IP']],
    [
      'same as the lowest-metric default route NIC',
      '10.0.0.10',
      base,
      ['iSCSI host IP 10.0.0.10 is the same as host IP, they must be different'],
    ],
    ['on another NIC', '192.168.1.10', base, []],
    [
      'IPv6 default route NIC',
      'fd00::10',
      base,
      ['iSCSI host IP fd00::10 is the same as host IP, they must be different'],
    ],
    [
      'no default route of that family',
      'fd01::5',
      { ...base, routes: base.routes!.filter((r) => r.family === 2) },
      [],
    ],
    [
      'default route NIC missing',
      '10.0.0.10',
      { ...base, interfaces: [base.interfaces![0]!] },
      ['Cannot find the network interface behind the default route'],
    ],
    ['no routes at all', '10.0.0.10', { interfaces: base.interfaces }, []],
    [
      'family inferred from destination',
      '10.0.0.10',
      { ...base, routes: [{ destination: '0.0.0.0', gateway: '10.0.0.1', interface: 'eth1' }] },
      ['iSCSI host IP 10.0.0.10 is the same as host IP, they must be different'],
    ],
  ])('%s', (_name, ip, inv, want) => {
    expect(iscsiNetworkReasons(iscsi(ip), inv)).toEqual(want);
  });

  it('iSCSI disk reasons include networking ones', () => {
    const d = iscsi();
    expect(reasonsOf(d, { ...base, disks: [d] })).toEqual(['Host IP address is not available']);
  });
});

describe('eligibility: agent reasons kept, service reasons recomputed', () => {
  it('every agent reason is kept and makes the disk ineligible', () => {
    for (const reason of Object.values(AGENT_DISK_REASONS)) {
      const d = ssd({ installation_eligibility: { eligible: false, not_eligible_reasons: [reason] } });
      expect(isServiceDiskReason(reason)).toBe(false);
      expect(diskEligibility(d, ctx({ disks: [d] }))).toEqual({
        eligible: false,
        not_eligible_reasons: [reason],
      });
    }
  });

  it('stale service reasons are purged (requirements changed)', () => {
    const d = ssd({
      size_bytes: 60 * GB,
      installation_eligibility: {
        eligible: false,
        not_eligible_reasons: [
          AGENT_DISK_REASONS.removable,
          'Disk is too small (disk only has 60 GB, but 100 GB are required)',
          'Drive type is SSD, it must be one of HDD.',
        ],
      },
    });
    expect(diskEligibility(d, ctx({ disks: [d] }, { minDiskSizeGb: 50 }))).toEqual({
      eligible: false,
      not_eligible_reasons: [AGENT_DISK_REASONS.removable],
    });
    const clean = {
      ...d,
      installation_eligibility: {
        eligible: false,
        not_eligible_reasons: [d.installation_eligibility!.not_eligible_reasons![1]!],
      },
    };
    expect(diskEligibility(clean, ctx({ disks: [clean] }, { minDiskSizeGb: 50 }))).toEqual({
      eligible: true,
      not_eligible_reasons: [],
    });
  });

  it.each([
    'Disk is a member of multipath device dm-1 and is not eligible for installation. Use the multipath device instead.',
    'Cannot parse iSCSI host IP x: y',
    'iSCSI host IP 1.2.3.4 is the same as host IP, they must be different',
    ...Object.values(SERVICE_DISK_REASONS),
  ])('recognised as a service reason: %s', (r) => expect(isServiceDiskReason(r)).toBe(true));

  it('updateDisksEligibility recomputes every disk and leaves the input untouched', () => {
    const inv: Inventory = {
      cpu: { architecture: 'x86_64' },
      disks: [ssd(), ssd({ name: 'sdb', size_bytes: GB })],
    };
    const updated = updateDisksEligibility(ctx(inv));
    expect(updated.disks!.map((d) => d.installation_eligibility?.eligible)).toEqual([true, false]);
    expect(inv.disks![0]!.installation_eligibility).toBeUndefined();
    expect(updateDisksEligibility(ctx({ disks: null }))).toEqual({
      cpu: { architecture: 'x86_64' },
      disks: null,
    });
  });

  it.each([
    [undefined, true],
    [{}, true],
    [{ eligible: true }, true],
    [{ eligible: false }, false],
    [{ not_eligible_reasons: ['x'] }, false],
    [{ not_eligible_reasons: [] }, true],
  ])('isDiskEligible(%j) = %s (old agents without data count as eligible)', (e, want) => {
    expect(isDiskEligible({ installation_eligibility: e })).toBe(want);
  });

  it('listEligibleDisks', () => {
    expect(listEligibleDisks(undefined)).toEqual([]);
    expect(
      listEligibleDisks({ disks: [ssd(), ssd({ installation_eligibility: { eligible: false } })] }).map(
        (d) => d.name,
      ),
    ).toEqual(['sda']);
  });
});
