import { describe, expect, it } from 'vitest';
import {
  clusterHostRequirements,
  clusterMinimumRequirements,
  effectiveRole,
  infraEnvHostRequirements,
  infraEnvMinimumRequirements,
  isEdgeWorker,
  requirementRoleFor,
  smallestDiskRole,
  totalRequirements,
} from '../../../../src/core/hardware/host-requirements.ts';
import {
  DEFAULT_HARDWARE_REQUIREMENTS,
  parseHardwareRequirements,
  requirementsForVersion,
} from '../../../../src/core/hardware/requirements.ts';
import type { Inventory } from '../../../../src/core/inventory.ts';
import type { HostRole } from '../../../../src/core/model.ts';

const bluefield: Inventory = {
  cpu: { architecture: 'aarch64', count: 8 },
  system_vendor: { product_name: 'BlueField SoC' },
};

describe('effectiveRole', () => {
  it.each([
    ['auto-assign', 'master', 'master'],
    ['auto-assign', '', 'auto-assign'],
    ['auto-assign', undefined, 'auto-assign'],
    ['worker', 'master', 'worker'],
    ['master', 'worker', 'master'],
  ] as const)('role %s, suggested %s → %s', (role, suggested, want) => {
    expect(effectiveRole({ role, suggested_role: suggested })).toBe(want);
  });
});

describe('isEdgeWorker', () => {
  it.each([
    [bluefield, undefined, true],
    [{ ...bluefield, system_vendor: { product_name: 'bluefieldsoc' } }, undefined, true],
    [{ ...bluefield, system_vendor: { product_name: 'Blue Field SOC' } }, undefined, true],
    [{ ...bluefield, cpu: { architecture: 'x86_64' } }, undefined, false],
    [{ ...bluefield, system_vendor: { product_name: 'Other' } }, undefined, false],
    [{ ...bluefield, system_vendor: {} }, undefined, false],
    [{ ...bluefield, system_vendor: { product_name: 'Other Box' } }, 'BlueField SoC, Other Box', true],
    [undefined, undefined, false],
  ] as const)('%# → %s', (inv, names, want) => expect(isEdgeWorker(inv, names)).toBe(want));
});

describe('role → requirement set', () => {
  it.each([
    ['master', 3, undefined, 'master'],
    ['master', 1, undefined, 'sno'],
    ['master', 3, bluefield, 'master'],
    ['bootstrap', 1, undefined, 'sno'],
    ['arbiter', 2, bluefield, 'arbiter'],
    ['worker', 3, bluefield, 'edge-worker'],
    ['auto-assign', 3, bluefield, 'edge-worker'],
    ['worker', 3, undefined, 'worker'],
    ['auto-assign', 3, undefined, 'worker'],
  ] as const)('%s with %d cp nodes (%#)', (role, cp, inv, want) => {
    expect(requirementRoleFor({ role: role as HostRole, inventory: inv }, { control_plane_count: cp })).toBe(
      want,
    );
  });

  it('uses the suggested role of an auto-assign host', () => {
    const r = clusterHostRequirements(
      { openshift_version: '4.18', control_plane_count: 3 },
      { role: 'auto-assign', suggested_role: 'master' },
    );
    expect(r.role).toBe('master');
    expect(r.total.cpu_cores).toBe(4);
  });

  it('SNO master on 4.22 needs 4 cores, on 4.21 8', () => {
    const sno = (v: string) =>
      clusterHostRequirements({ openshift_version: v, control_plane_count: 1 }, { role: 'master' }).total
        .cpu_cores;
    expect(sno('4.21.5')).toBe(8);
    expect(sno('4.22.0')).toBe(4);
  });
});

describe('totals with operators', () => {
  const ocp = requirementsForVersion(DEFAULT_HARDWARE_REQUIREMENTS, '4.18').master;
  it('cores, RAM and disk add up; thresholds take the strictest', () => {
    const total = totalRequirements(ocp, [
      {
        operator_name: 'odf',
        requirements: {
          cpu_cores: 6,
          ram_mib: 19456,
          disk_size_gb: 25,
          installation_disk_speed_threshold_ms: 5,
        },
      },
      {
        operator_name: 'cnv',
        requirements: {
          cpu_cores: 4,
          ram_mib: 150,
          network_latency_threshold_ms: 50,
          packet_loss_percentage: 5,
        },
      },
      {
        operator_name: 'x',
        requirements: { installation_disk_speed_threshold_ms: 0, network_latency_threshold_ms: -1 },
      },
    ]);
    expect(total).toEqual({
      cpu_cores: 14,
      ram_mib: 16384 + 19456 + 150,
      disk_size_gb: 125,
      installation_disk_speed_threshold_ms: 5,
      network_latency_threshold_ms: 50,
      packet_loss_percentage: 0,
    });
  });

  it('no thresholds anywhere → none in the total', () => {
    const sno = requirementsForVersion(DEFAULT_HARDWARE_REQUIREMENTS, '4.18').sno;
    const total = totalRequirements({ ...sno, installation_disk_speed_threshold_ms: 0 }, []);
    expect(total.network_latency_threshold_ms).toBeUndefined();
    expect(total.packet_loss_percentage).toBeUndefined();
    expect(total.installation_disk_speed_threshold_ms).toBe(0);
  });

  it('clusterHostRequirements passes operator requirements through', () => {
    const r = clusterHostRequirements(
      { openshift_version: '4.18', control_plane_count: 3 },
      { role: 'worker' },
      { operators: [{ operator_name: 'mce', requirements: { cpu_cores: 4, ram_mib: 16384 } }] },
    );
    expect(r.ocp.cpu_cores).toBe(2);
    expect(r.total.cpu_cores).toBe(6);
    expect(r.total.ram_mib).toBe(8192 + 16384);
    expect(r.operators).toHaveLength(1);
  });
});

describe('unbound hosts: the smallest-disk set', () => {
  it('defaults → arbiter (2 cores, 8 GiB, 50 GB)', () => {
    const r = infraEnvHostRequirements({ openshift_version: '4.18' });
    expect(r.role).toBe('arbiter');
    expect(r.total).toMatchObject({ cpu_cores: 2, ram_mib: 8192, disk_size_gb: 50 });
  });

  it.each([
    [120, 100, 110, 'master'],
    [100, 100, 100, 'worker'],
    [100, 90, 80, 'arbiter'],
    [100, 101, 99, 'arbiter'],
  ])('worker %d / master %d / arbiter %d GB → %s', (w, m, a, want) => {
    const r = (disk: number) => ({
      cpu_cores: 1,
      ram_mib: 1,
      disk_size_gb: disk,
      installation_disk_speed_threshold_ms: 1,
    });
    const config = parseHardwareRequirements([
      { version: 'default', worker: r(w), master: r(m), arbiter: r(a), sno: r(1) },
    ]);
    expect(smallestDiskRole(requirementsForVersion(config, ''))).toBe(want);
  });

  it('works without an infra-env', () => {
    expect(infraEnvHostRequirements(undefined).role).toBe('arbiter');
  });
});

describe('"any role" minimum', () => {
  it.each([
    [3, '4.18', 2, 8192],
    [1, '4.18', 2, 8192],
    [1, '4.22', 2, 8192],
  ])('cp %d, %s → %d cores / %d MiB', (cp, v, cores, ram) => {
    expect(clusterMinimumRequirements({ control_plane_count: cp, openshift_version: v })).toEqual({
      cpu_cores: cores,
      ram_mib: ram,
    });
  });

  it('takes the smaller of master-or-SNO and worker', () => {
    const r = (c: number, m: number) => ({
      cpu_cores: c,
      ram_mib: m,
      disk_size_gb: 1,
      installation_disk_speed_threshold_ms: 1,
    });
    const config = parseHardwareRequirements([
      { version: 'default', master: r(3, 9000), worker: r(6, 4000), sno: r(1, 20000) },
    ]);
    expect(clusterMinimumRequirements({ control_plane_count: 3, openshift_version: '4.18' }, config)).toEqual(
      {
        cpu_cores: 3,
        ram_mib: 4000,
      },
    );
    expect(clusterMinimumRequirements({ control_plane_count: 1, openshift_version: '4.18' }, config)).toEqual(
      {
        cpu_cores: 1,
        ram_mib: 4000,
      },
    );
    expect(infraEnvMinimumRequirements({ openshift_version: '4.18' }, config)).toEqual({
      cpu_cores: 3,
      ram_mib: 4000,
    });
    expect(infraEnvMinimumRequirements(undefined)).toEqual({ cpu_cores: 2, ram_mib: 8192 });
  });
});
