import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HARDWARE_REQUIREMENTS,
  HardwareRequirementsError,
  parseHardwareRequirements,
  type RequirementsEntryInput,
  requirementsForVersion,
} from '../../../../src/core/hardware/requirements.ts';
import { baseVersion, baseVersionAtLeast, compareBaseVersions } from '../../../../src/core/version.ts';

describe('default requirements (§5.1 table)', () => {
  const set = requirementsForVersion(DEFAULT_HARDWARE_REQUIREMENTS, '4.18.3');
  it.each([
    ['master', 4, 16384, 100, 10, 100, 0],
    ['arbiter', 2, 8192, 50, 10, 1000, 0],
    ['worker', 2, 8192, 100, 10, 1000, 10],
    ['sno', 8, 16384, 100, 10, undefined, undefined],
    ['edge-worker', 2, 8192, 15, 10, undefined, undefined],
  ] as const)('%s', (role, cores, ram, disk, speed, latency, loss) => {
    expect(set[role]).toEqual({
      cpu_cores: cores,
      ram_mib: ram,
      disk_size_gb: disk,
      installation_disk_speed_threshold_ms: speed,
      ...(latency === undefined ? {} : { network_latency_threshold_ms: latency }),
      ...(loss === undefined ? {} : { packet_loss_percentage: loss }),
    });
  });
});

describe('version selection: SNO cores drop from 8 to 4 at 4.22 (min_version)', () => {
  it.each([
    ['4.21', 8],
    ['4.21.9', 8],
    ['4.21.99-rc.1', 8],
    ['4.22', 4],
    ['4.22.0', 4],
    ['4.22.0-ec.3', 4],
    ['4.22.1', 4],
    ['4.23.0', 4],
    ['5.0', 4],
    ['4.9', 8],
    ['not-a-version', 8],
    ['', 8],
  ])('%s → %d SNO cores', (version, cores) => {
    expect(requirementsForVersion(DEFAULT_HARDWARE_REQUIREMENTS, version).sno.cpu_cores).toBe(cores);
  });

  it('min_version entries keep the other fields of default', () => {
    const sno = requirementsForVersion(DEFAULT_HARDWARE_REQUIREMENTS, '4.22').sno;
    expect(sno).toEqual({
      cpu_cores: 4,
      ram_mib: 16384,
      disk_size_gb: 100,
      installation_disk_speed_threshold_ms: 10,
    });
  });
});

const role = (cpu_cores: number, ram_mib = 1024, disk_size_gb = 10) => ({
  cpu_cores,
  ram_mib,
  disk_size_gb,
  installation_disk_speed_threshold_ms: 10,
});

describe('parseHardwareRequirements', () => {
  const doc: RequirementsEntryInput[] = [
    {
      version: 'default',
      master: role(4),
      worker: role(2),
      sno: role(8),
      arbiter: role(3),
      'edge-worker': role(1),
    },
    { version: '4.18.3', master: { cpu_cores: 6 } },
    { version: '4.16', match_type: 'min_version', worker: { cpu_cores: 5 } },
    { version: '4.20', match_type: 'min_version', worker: { cpu_cores: 7 } },
  ];
  const config = parseHardwareRequirements(JSON.stringify(doc));

  it('exact key match on the full version string wins, merged over default', () => {
    const set = requirementsForVersion(config, '4.18.3');
    expect(set.master.cpu_cores).toBe(6);
    expect(set.master.ram_mib).toBe(1024);
    // Exact entries merge over default only, never over a min_version entry.
    expect(set.worker.cpu_cores).toBe(2);
  });

  it.each([
    ['4.15.9', 2],
    ['4.16', 5],
    ['4.16.0-rc.0', 5],
    ['4.19.5', 5],
    ['4.20.0', 7],
    ['4.21', 7],
  ])('highest min_version ≤ %s → worker %d cores', (version, cores) => {
    expect(requirementsForVersion(config, version).worker.cpu_cores).toBe(cores);
  });

  it('the default entry gets arbiter and edge-worker from worker when absent', () => {
    const c = parseHardwareRequirements([
      { version: 'default', master: role(4), worker: role(2, 2048, 33), sno: role(8) },
    ]);
    const set = requirementsForVersion(c, '4.18');
    expect(set.arbiter).toEqual(role(2, 2048, 33));
    expect(set['edge-worker']).toEqual(role(2, 2048, 33));
  });

  it('without default, an unknown version is not found', () => {
    const c = parseHardwareRequirements([
      {
        version: '4.18',
        master: role(4),
        worker: role(2),
        sno: role(8),
        arbiter: role(2),
        'edge-worker': role(2),
      },
    ]);
    expect(requirementsForVersion(c, '4.18').master.cpu_cores).toBe(4);
    expect(() => requirementsForVersion(c, '4.19')).toThrow('requirements for version 4.19 not found');
  });

  it('the service default "[]" fails every lookup', () => {
    expect(() => requirementsForVersion(parseHardwareRequirements('[]'), '4.18')).toThrow(
      'requirements for version 4.18 not found',
    );
  });

  const full = { master: role(4), worker: role(2), sno: role(8) };
  it.each([
    ['not an array', '{}', 'must be a JSON array'],
    ['no version', [{ ...full }], 'without a version'],
    [
      'duplicate versions',
      [
        { version: 'default', ...full },
        { version: 'default', ...full },
      ],
      'duplicate',
    ],
    [
      'bad match_type',
      [
        { version: 'default', ...full },
        { version: '4.1', match_type: 'fuzzy' },
      ],
      'invalid match_type',
    ],
    [
      'min_version without default',
      [{ version: '4.1', match_type: 'min_version', ...full }],
      'requires a default',
    ],
    [
      'bad min_version',
      [
        { version: 'default', ...full },
        { version: 'x', match_type: 'min_version' },
      ],
      'invalid min_version',
    ],
    ['zero cores', [{ version: 'default', ...full, master: role(0) }], 'cpu_cores must be a positive number'],
    ['zero RAM', [{ version: 'default', ...full, worker: role(1, 0) }], 'ram_mib must be a positive number'],
    [
      'negative disk',
      [{ version: 'default', ...full, sno: role(1, 1, -1) }],
      'disk_size_gb must be a positive number',
    ],
    [
      'negative disk speed',
      [{ version: 'default', ...full, sno: { ...role(1), installation_disk_speed_threshold_ms: -1 } }],
      'must not be negative',
    ],
    ['missing role', [{ version: 'default', master: role(4), worker: role(2) }], 'role sno: cpu_cores'],
  ])('rejects %s', (_name, input, message) => {
    expect(() => parseHardwareRequirements(input as never)).toThrow(HardwareRequirementsError);
    expect(() => parseHardwareRequirements(input as never)).toThrow(message);
  });

  it('accepts a zero disk-speed threshold', () => {
    const c = parseHardwareRequirements([
      { version: 'default', ...full, sno: { ...role(8), installation_disk_speed_threshold_ms: 0 } },
    ]);
    expect(requirementsForVersion(c, '4.1').sno.installation_disk_speed_threshold_ms).toBe(0);
  });
});

describe('version helpers', () => {
  it.each([
    ['4.14.0-rc.1', '4.14.0'],
    ['4.14', '4.14'],
    ['4.14.0-0.nightly-2023', '4.14.0'],
  ])('baseVersion(%s) = %s', (v, b) => expect(baseVersion(v)).toBe(b));

  it.each([
    ['4.9', '4.10', -1],
    ['4.10', '4.9', 1],
    ['4.14', '4.14.0', 0],
    ['4.14.0-rc.1', '4.14', 0],
    ['v4.15', '4.15.0', 0],
    ['x', '4.1', -1],
    ['4.1', 'x', 1],
    ['x', 'y', 0],
  ])('compareBaseVersions(%s, %s) = %d', (a, b, r) => expect(compareBaseVersions(a, b)).toBe(r));

  it.each([
    ['4.13.99', '4.14', false],
    ['4.14.0-ec.1', '4.14', true],
    ['4.14', '4.14', true],
    [undefined, '4.14', false],
    ['bogus', '4.14', false],
  ])('baseVersionAtLeast(%s, %s) = %s', (v, min, r) => expect(baseVersionAtLeast(v, min)).toBe(r));
});
