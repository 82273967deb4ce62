import { describe, expect, it } from 'vitest';
import {
  applyInventoryUpdate,
  eligibilityVersion,
  filterInterfaces,
} from '../../../../src/core/hardware/inventory-update.ts';
import type { Inventory } from '../../../../src/core/inventory.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';

const GB = 1_000_000_000;
const inventory: Inventory = {
  cpu: { architecture: 'x86_64', count: 8 },
  memory: { physical_bytes: 32 * 1024 ** 3 },
  interfaces: [
    { name: 'eth0', type: 'physical' },
    { name: 'bond0', type: 'bond' },
    { name: 'eth0.10', type: 'vlan' },
    { name: 'old' },
    { name: 'br0', type: 'bridge' },
    { name: 'veth1', type: 'veth' },
  ],
  disks: [
    { id: 'wwn-small', name: 'sda', drive_type: 'SSD', size_bytes: 60 * GB, bootable: true },
    { id: 'wwn-big', name: 'sdb', drive_type: 'HDD', size_bytes: 500 * GB, bootable: true },
    { id: 'wwn-raid', name: 'sdc', drive_type: 'RAID', size_bytes: 500 * GB },
    {
      id: 'wwn-usb',
      name: 'sdd',
      drive_type: 'SSD',
      size_bytes: 500 * GB,
      removable: true,
      installation_eligibility: { eligible: false, not_eligible_reasons: ['Disk is removable'] },
    },
  ],
};
const host = (o: Partial<Host> = {}): Host => ({
  id: 'h',
  infra_env_id: 'i',
  cluster_id: 'c',
  kind: 'Host',
  status: 'discovering',
  status_info: '',
  role: 'auto-assign',
  ...o,
});
const cluster = (o: Partial<Cluster> = {}) =>
  ({
    id: 'c',
    kind: 'Cluster',
    openshift_version: '4.18.0',
    control_plane_count: 3,
    hosts: [],
    ...o,
  }) as Cluster;

describe('applyInventoryUpdate', () => {
  it('bound host: 100 GB requirement, RAID allowed on 4.18, biggest-first rules applied', () => {
    const r = applyInventoryUpdate({ host: host(), inventory, cluster: cluster() });
    expect(r.inventory.disks!.map((d) => [d.name, d.installation_eligibility])).toEqual([
      [
        'sda',
        {
          eligible: false,
          not_eligible_reasons: ['Disk is too small (disk only has 60 GB, but 100 GB are required)'],
        },
      ],
      ['sdb', { eligible: true, not_eligible_reasons: [] }],
      ['sdc', { eligible: true, not_eligible_reasons: [] }],
      ['sdd', { eligible: false, not_eligible_reasons: ['Disk is removable'] }],
    ]);
    expect(r.installation_disk_id).toBe('wwn-big');
    expect(r.installation_disk_path).toBe('/dev/sdb');
    expect(r.disks_to_be_formatted).toEqual(['wwn-small', 'wwn-big']);
    expect(r.inventory.interfaces!.map((i) => i.name)).toEqual(['eth0', 'bond0', 'eth0.10', 'old']);
  });

  it('unbound host: 50 GB (arbiter set), the small disk becomes eligible and preferred', () => {
    const r = applyInventoryUpdate({
      host: host({ cluster_id: null }),
      inventory,
      infraEnv: { id: 'i', name: 'i', openshift_version: '4.13' },
    });
    expect(r.inventory.disks!.map((d) => d.installation_eligibility?.eligible)).toEqual([
      true,
      true,
      false,
      false,
    ]);
    expect(r.inventory.disks![2]!.installation_eligibility!.not_eligible_reasons).toEqual([
      'Drive type is RAID, it must be one of HDD, SSD, Multipath, FC.',
    ]);
    expect(r.installation_disk_path).toBe('/dev/sdb');
  });

  it('keeps the user choice and honours skip_formatting_disks', () => {
    const r = applyInventoryUpdate({
      host: host({ installation_disk_id: 'wwn-raid', skip_formatting_disks: 'wwn-small' }),
      inventory,
      cluster: cluster(),
      enableVirtualInterfaces: true,
      operatorRequirements: [{ operator_name: 'x', requirements: { disk_size_gb: 0 } }],
      edgeWorkerProductNames: 'Nothing',
    });
    expect(r.installation_disk_id).toBe('wwn-raid');
    expect(r.disks_to_be_formatted).toEqual(['wwn-big']);
    expect(r.inventory.interfaces).toHaveLength(6);
  });

  it('operator disk requirements raise the threshold', () => {
    const r = applyInventoryUpdate({
      host: host(),
      inventory,
      cluster: cluster(),
      operatorRequirements: [{ operator_name: 'odf', requirements: { disk_size_gb: 400 } }],
    });
    expect(r.installation_disk_id).toBe('wwn-big');
    expect(r.inventory.disks![0]!.installation_eligibility!.not_eligible_reasons).toEqual([
      'Disk is too small (disk only has 60 GB, but 500 GB are required)',
    ]);
    const r2 = applyInventoryUpdate({
      host: host(),
      inventory,
      cluster: cluster(),
      operatorRequirements: [{ operator_name: 'odf', requirements: { disk_size_gb: 401 } }],
    });
    expect([r2.installation_disk_id, r2.installation_disk_path]).toEqual(['', '']);
  });

  it('filterInterfaces without interfaces', () => {
    expect(filterInterfaces({ interfaces: null })).toEqual({ interfaces: null });
  });

  it.each([
    [undefined, '4.16', '4.16'],
    [undefined, undefined, ''],
    [cluster(), '4.16', '4.18.0'],
    [cluster({ kind: 'AddHostsCluster', openshift_version: '4.14' }), '4.16', '4.16'],
    [cluster({ kind: 'AddHostsCluster', openshift_version: '4.14' }), undefined, '4.14'],
  ])('eligibilityVersion %#', (cl, infraVersion, want) => {
    expect(
      eligibilityVersion(
        cl,
        infraVersion === undefined ? undefined : { id: 'i', name: 'i', openshift_version: infraVersion },
      ),
    ).toBe(want);
  });
});
