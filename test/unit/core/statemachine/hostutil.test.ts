// hostutil helpers (spec §1.9) and registration rules.

import { describe, expect, it } from 'vitest';
import type { Disk } from '../../../../src/core/inventory.ts';
import {
  acceptableDisksWithHints,
  checkHostRegistration,
  effectiveHostname,
  effectiveRole,
  findDiskByPath,
  hasSavePartitionsArgs,
  hostFieldsUpdatable,
  hostnameForMessage,
  hostStatusSeverity,
  ignitionFileName,
  installationDiskLabel,
  installationPath,
  isValidHostname,
  isValidRole,
  newHostRecord,
} from '../../../../src/core/statemachine/index.ts';
import { makeCluster, makeHost, NOW } from './fixtures.ts';

describe('hostutil', () => {
  it('effective role and hostname', () => {
    expect(effectiveRole({ role: 'auto-assign', suggested_role: 'worker' })).toBe('worker');
    expect(effectiveRole({ role: 'auto-assign', suggested_role: '' })).toBe('auto-assign');
    expect(effectiveRole({ role: 'master', suggested_role: 'worker' })).toBe('master');
    expect(effectiveHostname(makeHost({ requested_hostname: 'req' }))).toBe('req');
    expect(effectiveHostname(makeHost())).toBe('node-1');
    expect(hostnameForMessage(makeHost({ inventory: undefined }))).toBe('h1');
  });

  it('hostname rules', () => {
    expect(isValidHostname('node-1.example')).toBe(true);
    for (const bad of ['Node', '-a', 'a_b', 'a'.repeat(64), 'localhost', 'localhost6.localdomain6', 'a..b']) {
      expect([bad, isValidHostname(bad)]).toEqual([bad, false]);
    }
  });

  it('role validity', () => {
    expect(isValidRole('arbiter', false)).toBe(true);
    expect(isValidRole('bootstrap', false)).toBe(true);
    expect(isValidRole('bootstrap', true)).toBe(false);
    expect(isValidRole('boss', false)).toBe(false);
  });

  it('installation path and disk lookup (id, by-path or /dev/<name>)', () => {
    expect(installationPath(makeHost())).toBe('/dev/disk/by-id/wwn-0x1');
    expect(installationPath(makeHost({ installation_disk_id: '' }))).toBe('/dev/sda');
    expect(installationPath(makeHost({ installation_disk_id: '', installation_disk_path: undefined }))).toBe(
      '',
    );
    const disks = makeHost().inventory!.disks!;
    expect(findDiskByPath(disks, '/dev/disk/by-path/pci-0000:00:01.0')?.name).toBe('sda');
    expect(findDiskByPath(disks, '/dev/sda')?.name).toBe('sda');
    expect(findDiskByPath(disks, '')).toBeUndefined();
    expect(installationDiskLabel(makeHost())).toBe('(sda, /dev/disk/by-id/wwn-0x1)');
    expect(installationDiskLabel(makeHost({ installation_disk_id: 'x' }))).toBe('');
    expect(
      installationDiskLabel(
        makeHost({ inventory: { disks: [{ name: 'vda' }] }, installation_disk_id: '/dev/vda' }),
      ),
    ).toBe('(vda, /dev/vda)');
  });

  it('root-device hints', () => {
    const disks: Disk[] = [
      {
        name: 'sda',
        path: '/dev/sda',
        by_path: '/dev/disk/by-path/a',
        hctl: '0:0:0:0',
        model: 'Samsung SSD 860',
        vendor: 'ATA',
        serial: 'S1',
        size_bytes: 500e9,
        wwn: '0x1',
        drive_type: 'SSD',
        installation_eligibility: { eligible: true },
      },
      {
        name: 'sdb',
        path: '/dev/sdb',
        hctl: '1:0:0:0',
        model: 'WD Red',
        vendor: 'WDC',
        serial: 'S2',
        size_bytes: 2000e9,
        wwn: '0x2',
        drive_type: 'HDD',
        installation_eligibility: { eligible: true },
      },
      { name: 'sdc', path: '/dev/sdc', size_bytes: 4000e9, installation_eligibility: { eligible: false } },
    ];
    const names = (hints?: Parameters<typeof acceptableDisksWithHints>[1]) =>
      acceptableDisksWithHints(disks, hints).map((d) => d.name);
    expect(names()).toEqual(['sda', 'sdb']);
    expect(names({ deviceName: '/dev/disk/by-path/a' })).toEqual(['sda']);
    expect(names({ deviceName: '/dev/sdc' })).toEqual([]);
    expect(names({ hctl: '1:0:0:0' })).toEqual(['sdb']);
    expect(names({ model: 'Samsung' })).toEqual(['sda']);
    expect(names({ vendor: 'WD' })).toEqual(['sdb']);
    expect(names({ serialNumber: 'S2' })).toEqual(['sdb']);
    expect(names({ minSizeGigabytes: 500 })).toEqual(['sda', 'sdb']);
    expect(names({ minSizeGigabytes: 501 })).toEqual(['sdb']);
    expect(names({ wwn: '0x1' })).toEqual(['sda']);
    expect(names({ rotational: true })).toEqual(['sdb']);
    expect(names({ rotational: false, model: 'WD' })).toEqual([]);
  });

  it('ignition file name, save-partition args, severities, updatable statuses', () => {
    expect(ignitionFileName(makeHost({ role: 'auto-assign', suggested_role: 'worker' }))).toBe(
      'worker-h1.ign',
    );
    expect(hasSavePartitionsArgs('["--save-partindex","1"]')).toBe(true);
    expect(hasSavePartitionsArgs('["--save-partlabel","data"]')).toBe(true);
    expect(hasSavePartitionsArgs('["--append-karg","x"]')).toBe(false);
    expect(hasSavePartitionsArgs(undefined)).toBe(false);
    expect(
      ['disconnected', 'installing-pending-user-action', 'insufficient', 'error', 'known'].map((s) =>
        hostStatusSeverity(s as never),
      ),
    ).toEqual(['warning', 'warning', 'warning', 'error', 'info']);
    expect(hostFieldsUpdatable('known-unbound')).toBe(true);
    expect(hostFieldsUpdatable('installing')).toBe(false);
  });
});

describe('registration rules', () => {
  it('refuses disconnected-iso infra-envs', () => {
    expect(checkHostRegistration({ infraEnv: { type: 'disconnected-iso' as never }, isNew: true })).toEqual({
      code: 400,
      message: 'Cannot register a host to an InfraEnv with disconnected-iso type',
    });
  });

  it('new hosts need a cluster that accepts them', () => {
    for (const status of ['insufficient', 'ready', 'pending-for-input', 'adding-hosts'] as const) {
      expect(checkHostRegistration({ cluster: { status }, isNew: true })).toBeUndefined();
    }
    expect(checkHostRegistration({ cluster: { status: 'installing' }, isNew: true })).toEqual({
      code: 409,
      message:
        'Host can register only in one of the following states: [insufficient ready pending-for-input adding-hosts]',
    });
    expect(checkHostRegistration({ cluster: { status: 'installed' }, isNew: true })?.message).toBe(
      'Cannot add hosts to an existing cluster using the original Discovery ISO.',
    );
    expect(
      checkHostRegistration({ cluster: { status: 'installed' }, isNew: true, saas: true })?.message,
    ).toBe(
      'Cannot add hosts to an existing cluster using the original Discovery ISO. Try to add new hosts by using the Discovery ISO that can be found in console.redhat.com under your cluster “Add hosts“ tab.',
    );
    expect(checkHostRegistration({ cluster: { status: 'installing' }, isNew: false })).toBeUndefined();
    expect(checkHostRegistration({ isNew: true })).toBeUndefined();
  });

  it('new host records: day-1, day-2 and SNO defaults', () => {
    const day1 = newHostRecord({
      id: 'a',
      infraEnvId: 'ie',
      cluster: makeCluster(),
      now: NOW,
      discoveryAgentVersion: 'v1',
    });
    expect(day1).toMatchObject({
      kind: 'Host',
      role: 'auto-assign',
      suggested_role: 'auto-assign',
      cluster_id: 'c1',
      checked_in_at: NOW.toISOString(),
      registered_at: NOW.toISOString(),
      discovery_agent_version: 'v1',
    });
    expect(day1.bootstrap).toBeUndefined();
    const day2 = newHostRecord({
      id: 'b',
      infraEnvId: 'ie',
      cluster: makeCluster({ kind: 'AddHostsCluster' }),
      now: NOW,
    });
    expect(day2).toMatchObject({
      kind: 'AddToExistingClusterHost',
      role: 'worker',
      machine_config_pool_name: 'worker',
    });
    const sno = newHostRecord({
      id: 'c',
      infraEnvId: 'ie',
      cluster: makeCluster({ control_plane_count: 1 }),
      now: NOW,
    });
    expect(sno).toMatchObject({ role: 'master', suggested_role: 'master', bootstrap: true });
    expect(newHostRecord({ id: 'd', infraEnvId: 'ie', now: NOW }).cluster_id).toBeNull();
  });
});
