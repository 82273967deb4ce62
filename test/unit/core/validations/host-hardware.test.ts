import { describe, expect, it } from 'vitest';
import type { Disk } from '../../../../src/core/inventory.ts';
import type { Host } from '../../../../src/core/model.ts';
import {
  HOSTNAME_PATTERN,
  isAgentCompatible,
  shareHostnameIds,
} from '../../../../src/core/validations/host-hardware.ts';
import { seededUint32 } from '../../../../src/sim/prng.ts';
import { bound, cluster, GIB, host, inventory, NOW, unbound } from './host-fixtures.ts';
import { condition, outcome } from './host-helpers.ts';

const MIB = 1024 * 1024;
const noInventory = host({ inventory: undefined });

describe('has-inventory', () => {
  it('success / failure', () => {
    expect(outcome(bound(), 'has-inventory')).toEqual(['success', 'Valid inventory exists for the host']);
    expect(outcome(bound(noInventory), 'has-inventory')).toEqual([
      'failure',
      'Inventory has not been received for the host',
    ]);
  });
});

describe('inventory truncation', () => {
  const withTruncation = (truncation: unknown) =>
    bound(host({ inventory: inventory({ truncation } as never) }));
  it.each([
    [undefined, ['success', 'Inventory is not truncated'], ['success', 'Inventory is not truncated']],
    [
      { type: 'partial', reasons: ['disks dropped', 'gpus dropped'] },
      ['failure', 'Inventory is truncated (partial): disks dropped; gpus dropped'],
      ['success', 'Inventory is partially truncated'],
    ],
    [
      { type: 'partial' },
      ['failure', 'Inventory is truncated (partial)'],
      ['success', 'Inventory is partially truncated'],
    ],
    [
      { type: 'full', reasons: ['too big'] },
      ['success', 'Inventory is not partially truncated (inventory fully truncated)'],
      ['failure', 'Inventory is truncated (full): too big'],
    ],
    [
      { type: 'full', reasons: [] },
      ['success', 'Inventory is not partially truncated (inventory fully truncated)'],
      ['failure', 'Inventory is truncated (full)'],
    ],
    [
      { type: 'weird' },
      ['error', 'Unexpected inventory truncation type'],
      ['error', 'Unexpected inventory truncation type'],
    ],
  ])('%j', (truncation, partial, full) => {
    expect(outcome(withTruncation(truncation), 'inventory-not-partially-truncated')).toEqual(partial);
    expect(outcome(withTruncation(truncation), 'inventory-not-fully-truncated')).toEqual(full);
  });
  it('pending without inventory', () => {
    expect(outcome(bound(noInventory), 'inventory-not-partially-truncated')).toEqual([
      'pending',
      'Missing inventory',
    ]);
    expect(outcome(bound(noInventory), 'inventory-not-fully-truncated')).toEqual([
      'pending',
      'Missing inventory',
    ]);
  });
});

const withCpu = (count: number, o: Partial<Host> = {}) =>
  host({ inventory: inventory({ cpu: { count, architecture: 'x86_64' } }), ...o });
const withRam = (bytes: number, method?: 'meminfo' | 'dmidecode', o: Partial<Host> = {}) =>
  host({
    inventory: inventory({
      memory: { physical_bytes: bytes, ...(method ? { physical_bytes_method: method } : {}) },
    }),
    ...o,
  });

describe('has-min-cpu-cores (any role: 2 cores with defaults)', () => {
  it.each([
    [
      1,
      'failure',
      'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
    ],
    [2, 'success', 'Sufficient CPU cores'],
    [3, 'success', 'Sufficient CPU cores'],
  ])('%d cores', (count, status, message) => {
    expect(outcome(bound(withCpu(count)), 'has-min-cpu-cores')).toEqual([status, message]);
  });
  it('SNO clusters also use the 2-core minimum', () => {
    const sno = bound(withCpu(2), {
      control_plane_count: 1,
      user_managed_networking: true,
      platform: { type: 'none' },
    });
    expect(outcome(sno, 'has-min-cpu-cores')[0]).toBe('success');
  });
  it('pending without inventory', () => {
    expect(outcome(bound(noInventory), 'has-min-cpu-cores')).toEqual(['pending', 'Missing inventory']);
  });
  it('unbound hosts use the infra-env minimum', () => {
    expect(outcome(unbound({ inventory: inventory({ cpu: { count: 1 } }) }), 'has-min-cpu-cores')[0]).toBe(
      'failure',
    );
  });
});

describe('has-min-memory (8192 MiB − 100 MiB tolerance, − 2% more for meminfo)', () => {
  const fail = (found: string) =>
    `The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only ${found}`;
  it.each([
    [8092 * MIB - 1, undefined, 'failure', fail('7.90 GiB')],
    [8092 * MIB, undefined, 'success', 'Sufficient minimum RAM'],
    [8092 * MIB + 1, undefined, 'success', 'Sufficient minimum RAM'],
    [8092 * MIB - 1, 'dmidecode', 'failure', fail('7.90 GiB')],
    [7929 * MIB - 1, 'meminfo', 'failure', fail('7.74 GiB')],
    [7929 * MIB, 'meminfo', 'success', 'Sufficient minimum RAM'],
    [512 * MIB, undefined, 'failure', fail('512 MiB')],
  ] as const)('%d bytes (%s)', (bytes, method, status, message) => {
    expect(outcome(bound(withRam(bytes, method)), 'has-min-memory')).toEqual([status, message]);
  });
  it('pending without inventory', () => {
    expect(outcome(bound(noInventory), 'has-min-memory')).toEqual(['pending', 'Missing inventory']);
  });
});

describe('has-min-valid-disks', () => {
  const withDisks = (disks: Disk[] | null) => bound(host({ inventory: inventory({ disks }) }));
  it.each([
    [[{ name: 'sda', installation_eligibility: { eligible: true } }], 'success', 'Sufficient disk capacity'],
    [[{ name: 'sda' }], 'success', 'Sufficient disk capacity'],
    [
      [
        {
          name: 'sda',
          installation_eligibility: { eligible: false, not_eligible_reasons: ['Disk is removable'] },
        },
      ],
      'failure',
      'No eligible disks were found, please check specific disks to see why they are not eligible',
    ],
    [[], 'error', 'Failed to detected disks'],
    [null, 'error', 'Failed to detected disks'],
  ] as const)('%j', (disks, status, message) => {
    expect(outcome(withDisks(disks as Disk[] | null), 'has-min-valid-disks')).toEqual([status, message]);
  });
  it('pending without inventory', () => {
    expect(outcome(bound(noInventory), 'has-min-valid-disks')).toEqual(['pending', 'Missing inventory']);
  });
});

describe('has-cpu-cores-for-role', () => {
  it.each([
    ['master', 3, 3, 'failure', 'Require at least 4 CPU cores for master role, found only 3'],
    ['master', 3, 4, 'success', 'Sufficient CPU cores for role master'],
    ['master', 3, 5, 'success', 'Sufficient CPU cores for role master'],
    ['worker', 3, 1, 'failure', 'Require at least 2 CPU cores for worker role, found only 1'],
    ['worker', 3, 2, 'success', 'Sufficient CPU cores for role worker'],
    ['arbiter', 2, 1, 'failure', 'Require at least 2 CPU cores for arbiter role, found only 1'],
    ['master', 1, 7, 'failure', 'Require at least 8 CPU cores for master role, found only 7'],
    ['master', 1, 8, 'success', 'Sufficient CPU cores for role master'],
  ] as const)('%s in a %d-cp cluster with %d cores', (role, cp, count, status, message) => {
    const h = withCpu(count, { role, suggested_role: role });
    expect(outcome(bound(h, { control_plane_count: cp }), 'has-cpu-cores-for-role')).toEqual([
      status,
      message,
    ]);
  });
  it('SNO on 4.22 needs 4', () => {
    const h = withCpu(4);
    expect(
      outcome(bound(h, { control_plane_count: 1, openshift_version: '4.22.0' }), 'has-cpu-cores-for-role')[0],
    ).toBe('success');
  });
  it('operator requirements add up', () => {
    const input = bound(
      withCpu(5),
      {},
      { operatorRequirements: [{ operator_name: 'cnv', requirements: { cpu_cores: 2 } }] },
    );
    expect(outcome(input, 'has-cpu-cores-for-role')).toEqual([
      'failure',
      'Require at least 6 CPU cores for master role, found only 5',
    ]);
  });
  it('pending without inventory', () => {
    expect(outcome(bound(noInventory), 'has-cpu-cores-for-role')).toEqual([
      'pending',
      'Missing inventory or role',
    ]);
  });
});

describe('has-memory-for-role (Total − 100 MiB)', () => {
  it.each([
    [16284 * MIB - 1, 'failure', 'Require at least 16.00 GiB RAM for role master, found only 15.90 GiB'],
    [16284 * MIB, 'success', 'Sufficient RAM for role master'],
    [16 * GIB, 'success', 'Sufficient RAM for role master'],
  ])('%d bytes', (bytes, status, message) => {
    expect(outcome(bound(withRam(bytes)), 'has-memory-for-role')).toEqual([status, message]);
  });
  it('meminfo gets no extra tolerance here', () => {
    expect(outcome(bound(withRam(16284 * MIB - 1, 'meminfo')), 'has-memory-for-role')[0]).toBe('failure');
  });
  it('pending without inventory', () => {
    expect(outcome(bound(noInventory), 'has-memory-for-role')).toEqual([
      'pending',
      'Missing inventory or role',
    ]);
  });
});

describe('hostname-unique', () => {
  it('unique / not unique (requested hostname counts)', () => {
    expect(outcome(bound(), 'hostname-unique')).toEqual([
      'success',
      'Hostname master-0 is unique in cluster',
    ]);
    const dup = host({ requested_hostname: 'master-1' });
    expect(outcome(bound(dup), 'hostname-unique')).toEqual([
      'failure',
      'Hostname master-1 is not unique in cluster',
    ]);
  });
  it('other hosts without inventory do not count', () => {
    const h = host();
    const other = host({ id: 'host-9', inventory: undefined, requested_hostname: 'master-0' });
    expect(outcome(bound(h, { hosts: [h, other] }), 'hostname-unique')[0]).toBe('success');
  });
  it('every host validated against one shared hosts array gets the verdict of a walk (seeded)', () => {
    // The names are counted once per array; a cluster-wide change validates all hosts with one.
    const seed = 1127;
    const rand = seededUint32(seed);
    for (let round = 0; round < 20; round++) {
      const hosts = Array.from({ length: 40 }, (_, i) => {
        const name = `node-${rand() % 12}`;
        const kind = rand() % 4;
        return host({
          id: `host-${String(i).padStart(2, '0')}`,
          requested_hostname: kind === 0 ? `node-${rand() % 12}` : undefined,
          inventory: kind === 1 ? undefined : inventory({ hostname: name }),
        });
      });
      const shared = Object.freeze([...hosts]) as Host[];
      for (const h of hosts) {
        const name = h.requested_hostname || h.inventory?.hostname || '';
        const walk = hosts.some(
          (o) => o.id !== h.id && o.inventory && (o.requested_hostname || o.inventory.hostname) === name,
        );
        // The host validated may be a newer record of itself than the array holds.
        const renamed = { ...h, requested_hostname: rand() % 5 === 0 ? 'node-0' : h.requested_hostname };
        const newName = renamed.requested_hostname || renamed.inventory?.hostname || '';
        const walkRenamed = hosts.some(
          (o) => o.id !== h.id && o.inventory && (o.requested_hostname || o.inventory.hostname) === newName,
        );
        const expected = (clash: boolean) => (h.inventory ? (clash ? 'failure' : 'success') : 'pending');
        expect(outcome(bound(h, { hosts: shared }), 'hostname-unique')[0], `seed ${seed}`).toBe(
          expected(walk),
        );
        expect(outcome(bound(renamed, { hosts: shared }), 'hostname-unique')[0], `seed ${seed}`).toBe(
          expected(walkRenamed),
        );
        // A copy with a newer record of h in place, named as the next host, borrows the shared
        // index for h; the next host validated against the copy gets the copy's own (h counts).
        const other = hosts[(hosts.indexOf(h) + 1) % hosts.length] as Host;
        const otherName = other.requested_hostname || other.inventory?.hostname || '';
        const named = { ...h, requested_hostname: otherName };
        const copy = shared.map((o) => (o.id === h.id ? named : o));
        shareHostnameIds(shared, copy, h.id);
        const verdict = (of: Host, list: readonly Host[]) => {
          const n = of.requested_hostname || of.inventory?.hostname || '';
          const clash = list.some(
            (o) => o.id !== of.id && o.inventory && (o.requested_hostname || o.inventory.hostname) === n,
          );
          return of.inventory ? (clash ? 'failure' : 'success') : 'pending';
        };
        expect(outcome(bound(named, { hosts: copy }), 'hostname-unique')[0], `seed ${seed}`).toBe(
          verdict(named, copy),
        );
        expect(outcome(bound(other, { hosts: copy }), 'hostname-unique')[0], `seed ${seed}`).toBe(
          verdict(other, copy),
        );
      }
    }
  });
  it('pending without inventory; suppressed for unbound hosts', () => {
    expect(outcome(bound(noInventory), 'hostname-unique')).toEqual(['pending', 'Missing inventory']);
    expect(outcome(unbound(), 'hostname-unique')[0]).toBe('success-suppress-output');
  });
});

describe('hostname-valid', () => {
  const pattern = `should match pattern ${HOSTNAME_PATTERN}`;
  it.each([
    ['master-0', 'success', 'Hostname master-0 is allowed'],
    ['a.b-c.d', 'success', 'Hostname a.b-c.d is allowed'],
    ['a'.repeat(63), 'success', `Hostname ${'a'.repeat(63)} is allowed`],
    ['a'.repeat(64), 'failure', `Hostname ${'a'.repeat(64)} is forbidden, hostname ${pattern}`],
    ['Master-0', 'failure', `Hostname Master-0 is forbidden, hostname ${pattern}`],
    ['-master', 'failure', `Hostname -master is forbidden, hostname ${pattern}`],
    ['a..b', 'failure', `Hostname a..b is forbidden, hostname ${pattern}`],
    ['', 'failure', `Hostname  is forbidden, hostname ${pattern}`],
    ['localhost', 'failure', 'The host name localhost is forbidden'],
    ['localhost.localdomain', 'failure', 'The host name localhost.localdomain is forbidden'],
    ['localhost4', 'failure', 'The host name localhost4 is forbidden'],
    ['localhost4.localdomain4', 'failure', 'The host name localhost4.localdomain4 is forbidden'],
    ['localhost6', 'failure', 'The host name localhost6 is forbidden'],
    ['localhost6.localdomain6', 'failure', 'The host name localhost6.localdomain6 is forbidden'],
  ])('%j', (name, status, message) => {
    expect(
      outcome(
        bound(host({ requested_hostname: name, inventory: inventory({ hostname: name }) })),
        'hostname-valid',
      ),
    ).toEqual([status, message]);
  });
  it('no inventory is a failure, bound or not', () => {
    expect(outcome(bound(noInventory), 'hostname-valid')).toEqual(['failure', 'Missing inventory']);
    expect(outcome(unbound({ inventory: undefined }), 'hostname-valid')).toEqual([
      'failure',
      'Missing inventory',
    ]);
  });
  it('pattern text', () => {
    expect(HOSTNAME_PATTERN).toBe('^[a-z0-9][a-z0-9-]{0,62}(?:[.][a-z0-9-]{1,63})*$');
  });
});

describe('sufficient-installation-disk-speed', () => {
  const speed = (disk_speed: unknown, o: Partial<Host> = {}) =>
    bound(host({ disks_info: { 'wwn-0x1111': { disk_speed, path: 'wwn-0x1111' } } as never, ...o }));
  it.each([
    [undefined, 'success', 'Speed of installation disk has not yet been measured'],
    [{ tested: false }, 'success', 'Speed of installation disk has not yet been measured'],
    [{ tested: true, exit_code: 0, speed_ms: 50 }, 'success', 'Speed of installation disk is sufficient'],
    [
      { tested: true, exit_code: 1 },
      'failure',
      'While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient',
    ],
  ])('%j', (s, status, message) =>
    expect(outcome(speed(s), 'sufficient-installation-disk-speed')).toEqual([status, message]),
  );
  it('no installation path → error (blocks)', () => {
    const input = speed(undefined, { installation_disk_id: '', installation_disk_path: '' });
    expect(outcome(input, 'sufficient-installation-disk-speed')).toEqual(['error', 'Validation error']);
    expect(condition(input, 'sufficient-installation-disk-speed')).toBe(false);
  });
  it('disks_info entry found by its path field', () => {
    const input = bound(
      host({ disks_info: { other: { path: 'wwn-0x1111', disk_speed: { tested: true, exit_code: 2 } } } }),
    );
    expect(outcome(input, 'sufficient-installation-disk-speed')[0]).toBe('failure');
  });
});

describe('compatible-with-cluster-platform', () => {
  const vendor = (manufacturer: string) =>
    host({ inventory: inventory({ system_vendor: { manufacturer, product_name: 'x' } }) });
  it.each([
    ['baremetal', undefined, 'Dell Inc.', 'success'],
    ['none', undefined, 'Dell Inc.', 'success'],
    ['external', 'generic', 'Dell Inc.', 'success'],
    ['vsphere', undefined, 'VMware, Inc.', 'success'],
    ['vsphere', undefined, 'Dell Inc.', 'failure'],
    ['nutanix', undefined, 'Nutanix', 'success'],
    ['nutanix', undefined, 'VMware, Inc.', 'failure'],
    ['external', 'oci', 'OracleCloud.com', 'success'],
    ['external', 'oci', 'Dell Inc.', 'failure'],
  ] as const)('%s (%s) on %s → %s', (type, name, manufacturer, status) => {
    const platform = { type, ...(name ? { external: { platform_name: name } } : {}) };
    const [s, m] = outcome(bound(vendor(manufacturer), { platform }), 'compatible-with-cluster-platform');
    expect(s).toBe(status);
    expect(m).toBe(
      status === 'success'
        ? `Host is compatible with cluster platform ${type}`
        : `Host is not compatible with cluster platform ${type}; either disable this host or discover a new compatible host.`,
    );
  });
  it('pending without inventory or platform', () => {
    expect(outcome(bound(noInventory), 'compatible-with-cluster-platform')).toEqual([
      'pending',
      "Missing inventory or platform isn't set",
    ]);
    expect(outcome(bound(host(), { platform: {} as never }), 'compatible-with-cluster-platform')[0]).toBe(
      'pending',
    );
  });
  it('day-2 clusters always pass; unbound hosts are suppressed', () => {
    const d2 = bound(vendor('Dell Inc.'), { kind: 'AddHostsCluster', platform: { type: 'vsphere' } });
    expect(outcome(d2, 'compatible-with-cluster-platform')).toEqual([
      'success',
      'Host is compatible with cluster platform vsphere',
    ]);
    expect(outcome(unbound(), 'compatible-with-cluster-platform')[0]).toBe('success-suppress-output');
  });
});

describe('vsphere-disk-uuid-enabled', () => {
  const vmware = (disks: Disk[] | null) =>
    host({ inventory: inventory({ system_vendor: { manufacturer: 'VMware, Inc.' }, disks }) });
  const d = (o: Partial<Disk>): Disk => ({
    name: 'sda',
    drive_type: 'HDD',
    installation_eligibility: { eligible: true },
    ...o,
  });
  it.each([
    [[d({ has_uuid: true })], 'success', 'VSphere disk.EnableUUID is enabled for this virtual machine'],
    [
      [d({ has_uuid: false })],
      'failure',
      "VSphere disk.EnableUUID isn't enabled for this virtual machine, it's necessary for disks to be mounted properly",
    ],
    [
      [d({ has_uuid: false, installation_eligibility: { eligible: false } })],
      'success',
      'VSphere disk.EnableUUID is enabled for this virtual machine',
    ],
    [
      [d({ has_uuid: false, drive_type: 'ODD' })],
      'success',
      'VSphere disk.EnableUUID is enabled for this virtual machine',
    ],
    [null, 'pending', 'no disks'],
  ] as const)('%j', (disks, status, message) => {
    expect(outcome(bound(vmware(disks as Disk[] | null)), 'vsphere-disk-uuid-enabled')).toEqual([
      status,
      message,
    ]);
  });
  it('suppressed for non-VMware hosts, hosts without inventory, unbound hosts', () => {
    expect(outcome(bound(), 'vsphere-disk-uuid-enabled')[0]).toBe('success-suppress-output');
    expect(outcome(bound(noInventory), 'vsphere-disk-uuid-enabled')[0]).toBe('success-suppress-output');
    expect(
      outcome(
        unbound({ inventory: vmware([d({ has_uuid: false })]).inventory! }),
        'vsphere-disk-uuid-enabled',
      )[0],
    ).toBe('success-suppress-output');
  });
});

describe('compatible-agent', () => {
  const config = { agentDockerImage: 'quay.io/edge/agent:v2.40' };
  it.each([
    [{}, 'quay.io/x:y', 'success', 'Host agent compatibility checking is disabled'],
    [
      { ...config, enableUpgradeAgent: false },
      'quay.io/x:y',
      'success',
      'Host agent compatibility checking is disabled',
    ],
    [config, 'quay.io/edge/agent:v2.40', 'success', 'Host agent is compatible with the service'],
    [config, 'v2.40', 'success', 'Host agent is compatible with the service'],
    [
      config,
      'quay.io/edge/agent:v2.39',
      'failure',
      "This host's agent is in the process of being upgraded to a compatible version. This might take a few minutes",
    ],
    [
      config,
      'v2.39',
      'failure',
      "This host's agent is in the process of being upgraded to a compatible version. This might take a few minutes",
    ],
  ])('%j with %s', (cfg, version, status, message) => {
    const input = bound(host({ discovery_agent_version: version }), {}, { config: cfg });
    expect(outcome(input, 'compatible-agent')).toEqual([status, message]);
  });
  it.each([
    ['img:tag', undefined, false],
    ['img', 'img', true],
    ['img', 'tag', false],
    ['registry:5000/img:tag', 'tag', true],
  ])('isAgentCompatible(%s, %s) = %s', (expected, agent, want) =>
    expect(isAgentCompatible(expected, agent)).toBe(want),
  );
});

describe('no-skip-installation-disk / no-skip-missing-disk', () => {
  it.each([
    [undefined, 'success'],
    ['', 'success'],
    ['/dev/other', 'success'],
    ['wwn-0x1111', 'failure'],
    ['/dev/other,wwn-0x1111', 'failure'],
  ])('skip %j', (skip, status) => {
    const [s, m] = outcome(bound(host({ skip_formatting_disks: skip })), 'no-skip-installation-disk');
    expect(s).toBe(status);
    expect(m).toBe(
      status === 'success'
        ? 'No request to skip formatting of the installation disk'
        : "Requesting to skip the formatting of the installation disk is not allowed. The installation disk must be formatted. Please either change this host's installation disk or do not skip the formatting of the installation disk",
    );
  });
  it('no installation disk id → success', () => {
    expect(
      outcome(
        bound(host({ installation_disk_id: '', skip_formatting_disks: 'x' })),
        'no-skip-installation-disk',
      )[0],
    ).toBe('success');
  });
  it.each([
    [undefined, 'success'],
    ['wwn-0x1111', 'success'],
    ['wwn-0x1111,/dev/sdz', 'failure'],
  ])('missing disk, skip %j', (skip, status) => {
    const [s, m] = outcome(bound(host({ skip_formatting_disks: skip })), 'no-skip-missing-disk');
    expect(s).toBe(status);
    expect(m).toBe(
      status === 'success'
        ? 'All disks that have skipped formatting are present in the host inventory'
        : "One or more of the disks that you have requested to skip the formatting of are no longer present on this host. To ensure they haven't just changed their identity, please remove your request to skip their formatting and then if needed add them back using the new ID",
    );
  });
  it('a disk without id is identified as /dev/<name>', () => {
    const h = host({ skip_formatting_disks: '/dev/vdb', inventory: inventory({ disks: [{ name: 'vdb' }] }) });
    expect(outcome(bound(h), 'no-skip-missing-disk')[0]).toBe('success');
  });
  it('pending without inventory', () => {
    expect(outcome(bound(noInventory), 'no-skip-missing-disk')).toEqual([
      'pending',
      'Host inventory not available yet',
    ]);
  });
});

it('fixture sanity: cluster defaults', () => {
  expect(cluster().openshift_version).toBe('4.18.3');
  expect(NOW).toBeGreaterThan(0);
});
