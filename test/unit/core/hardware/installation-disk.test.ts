import { describe, expect, it } from 'vitest';
import {
  acceptableDisksWithHints,
  compareDisksForInstallation,
  deviceIdentifier,
  diskMatchesPath,
  disksToFormat,
  installationDisk,
  installationPath,
  isDiskToFormat,
  REQUESTED_DISK_NOT_ELIGIBLE,
  resolveRequestedInstallationDisk,
  selectInstallationDisk,
  skippedFormattingDisks,
  sortedEligibleDisks,
} from '../../../../src/core/hardware/installation-disk.ts';
import type { Disk, Inventory } from '../../../../src/core/inventory.ts';

const GB = 1_000_000_000;
const disk = (name: string, o: Partial<Disk> = {}): Disk => ({
  name,
  id: `/dev/disk/by-id/wwn-${name}`,
  by_path: `/dev/disk/by-path/pci-${name}`,
  drive_type: 'HDD',
  size_bytes: 200 * GB,
  installation_eligibility: { eligible: true },
  ...o,
});
const names = (disks: Disk[]) => disks.map((d) => d.name);

describe('installation disk ordering', () => {
  it.each([
    ['bootable first', [disk('a'), disk('b', { bootable: true })], ['b', 'a']],
    ['non-NVMe first', [disk('nvme0n1'), disk('sdb')], ['sdb', 'nvme0n1']],
    [
      'bootable NVMe before non-bootable SATA',
      [disk('sdb'), disk('nvme0n1', { bootable: true })],
      ['nvme0n1', 'sdb'],
    ],
    [
      'drive type in byte order',
      [
        disk('1', { drive_type: 'iSCSI' }),
        disk('2', { drive_type: 'SSD' }),
        disk('3', { drive_type: 'RAID' }),
        disk('4', { drive_type: 'Multipath' }),
        disk('5', { drive_type: 'HDD' }),
        disk('6', { drive_type: 'FC' }),
        disk('7', { drive_type: 'FBA' }),
        disk('8', { drive_type: 'ECKD (ESE)' }),
        disk('9', { drive_type: 'ECKD' }),
      ],
      ['9', '8', '7', '6', '5', '4', '3', '2', '1'],
    ],
    ['smaller first', [disk('a', { size_bytes: 300 * GB }), disk('b', { size_bytes: 150 * GB })], ['b', 'a']],
    ['then HCTL', [disk('a', { hctl: '1:0:0:0' }), disk('b', { hctl: '0:0:0:0' })], ['b', 'a']],
    [
      'ineligible disks dropped',
      [disk('a', { installation_eligibility: { eligible: false } }), disk('b')],
      ['b'],
    ],
  ])('%s', (_name, disks, want) => {
    expect(names(sortedEligibleDisks({ disks }))).toEqual(want);
  });

  it('equal disks compare equal', () => {
    expect(compareDisksForInstallation(disk('a'), disk('a'))).toBe(0);
    expect(compareDisksForInstallation({}, {})).toBe(0);
  });
});

describe('selectInstallationDisk', () => {
  const inv: Inventory = {
    disks: [
      disk('sda', { size_bytes: 500 * GB }),
      disk('sdb'),
      disk('sdc', { installation_eligibility: { eligible: false } }),
    ],
  };

  it('defaults to the first disk in preference order', () => {
    expect(selectInstallationDisk(inv)).toEqual({
      installation_disk_id: '/dev/disk/by-id/wwn-sdb',
      installation_disk_path: '/dev/sdb',
    });
  });

  it.each([
    ['id', { installation_disk_id: '/dev/disk/by-id/wwn-sda' }],
    ['by-path', { installation_disk_id: '/dev/disk/by-path/pci-sda' }],
    ['/dev/<name>', { installation_disk_id: '/dev/sda' }],
    ['legacy path', { installation_disk_path: '/dev/sda' }],
  ])('keeps the current choice matched by %s', (_how, current) => {
    expect(selectInstallationDisk(inv, current)).toEqual({
      installation_disk_id: '/dev/disk/by-id/wwn-sda',
      installation_disk_path: '/dev/sda',
    });
  });

  it('drops a choice that is no longer eligible', () => {
    expect(selectInstallationDisk(inv, { installation_disk_id: '/dev/sdc' }).installation_disk_path).toBe(
      '/dev/sdb',
    );
    expect(selectInstallationDisk(inv, { installation_disk_id: '/dev/gone' }).installation_disk_path).toBe(
      '/dev/sdb',
    );
  });

  it('clears both fields without eligible disks', () => {
    expect(selectInstallationDisk({ disks: [] }, { installation_disk_id: 'x' })).toEqual({
      installation_disk_id: '',
      installation_disk_path: '',
    });
    expect(selectInstallationDisk(undefined)).toEqual({
      installation_disk_id: '',
      installation_disk_path: '',
    });
  });

  it('stores /dev/<name> as id when the disk has no id', () => {
    expect(selectInstallationDisk({ disks: [{ name: 'vda', drive_type: 'HDD' }] })).toEqual({
      installation_disk_id: '/dev/vda',
      installation_disk_path: '/dev/vda',
    });
  });
});

describe('requested installation disk', () => {
  const inv: Inventory = {
    disks: [disk('sda'), disk('sdb', { installation_eligibility: { eligible: false } })],
  };
  it('accepts an eligible disk by any of its names', () => {
    expect(resolveRequestedInstallationDisk(inv, '/dev/sda')).toEqual({
      choice: { installation_disk_id: '/dev/disk/by-id/wwn-sda', installation_disk_path: '/dev/sda' },
    });
  });
  it.each(['/dev/sdb', '/dev/nope', ''])('rejects %j', (id) => {
    expect(resolveRequestedInstallationDisk(inv, id)).toEqual({ error: REQUESTED_DISK_NOT_ELIGIBLE });
    expect(REQUESTED_DISK_NOT_ELIGIBLE).toBe(
      "Requested installation disk is not part of the host's valid disks",
    );
  });
});

describe('paths and lookups', () => {
  it('installationPath prefers the id', () => {
    expect(installationPath({ installation_disk_id: 'id', installation_disk_path: '/dev/sda' })).toBe('id');
    expect(installationPath({ installation_disk_path: '/dev/sda' })).toBe('/dev/sda');
    expect(installationPath({})).toBe('');
  });
  it('diskMatchesPath never matches the empty path', () => {
    expect(diskMatchesPath({ name: '' }, '')).toBe(false);
  });
  it('installationDisk finds the disk in the inventory', () => {
    const inv = { disks: [disk('sda')] };
    expect(installationDisk({ inventory: inv, installation_disk_id: '/dev/sda' })?.name).toBe('sda');
    expect(installationDisk({ inventory: inv })).toBeUndefined();
  });
  it('deviceIdentifier falls back to /dev/<name>', () => {
    expect(deviceIdentifier({ name: 'sda', id: '' })).toBe('/dev/sda');
    expect(deviceIdentifier({})).toBe('/dev/');
  });
});

describe('disks to format', () => {
  it.each([
    ['bootable local disk', { bootable: true }, true],
    ['not bootable', { bootable: false }, false],
    ['removable', { bootable: true, removable: true }, false],
    [
      'mmcblk by-path counts as removable',
      { bootable: true, by_path: '/dev/disk/by-path/platform-mmcblk0' },
      false,
    ],
    ['FC', { bootable: true, drive_type: 'FC' }, false],
    ['iSCSI', { bootable: true, drive_type: 'iSCSI' }, false],
    ['LVM', { bootable: true, drive_type: 'LVM' }, false],
    ['Multipath', { bootable: true, drive_type: 'Multipath' }, false],
    ['installation media', { bootable: true, is_installation_media: true }, false],
  ])('%s → %s', (_name, o, want) => expect(isDiskToFormat(disk('sda', o))).toBe(want));

  it('skip_formatting_disks removes ids', () => {
    const inv = { disks: [disk('sda', { bootable: true }), disk('sdb', { bootable: true }), disk('sdc')] };
    expect(disksToFormat(inv)).toEqual(['/dev/disk/by-id/wwn-sda', '/dev/disk/by-id/wwn-sdb']);
    expect(disksToFormat(inv, { skip_formatting_disks: ' /dev/disk/by-id/wwn-sda ,' })).toEqual([
      '/dev/disk/by-id/wwn-sdb',
    ]);
    expect(disksToFormat(undefined)).toEqual([]);
    expect(skippedFormattingDisks({ skip_formatting_disks: 'a,,b' })).toEqual(['a', 'b']);
  });
});

describe('root device hints', () => {
  const inv: Inventory = {
    disks: [
      disk('sda', {
        path: '/dev/sda',
        hctl: '0:0:0:0',
        model: 'PERC H730',
        vendor: 'DELL',
        serial: 'S1',
        wwn: 'w1',
        size_bytes: 100 * GB,
        drive_type: 'HDD',
      }),
      disk('sdb', {
        path: '/dev/sdb',
        hctl: '1:0:0:0',
        model: 'Samsung SSD',
        vendor: 'ATA',
        serial: 'S2',
        wwn: 'w2',
        size_bytes: 480 * GB,
        drive_type: 'SSD',
      }),
      disk('sdc', { path: '/dev/sdc', installation_eligibility: { eligible: false } }),
    ],
  };
  it.each([
    [undefined, ['sda', 'sdb']],
    [{}, ['sda', 'sdb']],
    [{ deviceName: '/dev/sdb' }, ['sdb']],
    [{ deviceName: '/dev/disk/by-path/pci-sda' }, ['sda']],
    [{ deviceName: '/dev/sdc' }, []],
    [{ hctl: '1:0:0:0' }, ['sdb']],
    [{ model: 'SSD' }, ['sdb']],
    [{ vendor: 'DEL' }, ['sda']],
    [{ serialNumber: 'S1' }, ['sda']],
    [{ minSizeGigabytes: 100 }, ['sda', 'sdb']],
    [{ minSizeGigabytes: 101 }, ['sdb']],
    [{ minSizeGigabytes: 480 }, ['sdb']],
    [{ minSizeGigabytes: 481 }, []],
    [{ wwn: 'w2' }, ['sdb']],
    [{ rotational: true }, ['sda']],
    [{ rotational: false }, ['sdb']],
    [{ model: 'SSD', rotational: true }, []],
  ])('%j', (hints, want) => expect(names(acceptableDisksWithHints(inv, hints))).toEqual(want));

  it('no inventory → none', () => expect(acceptableDisksWithHints(undefined, {})).toEqual([]));
});
