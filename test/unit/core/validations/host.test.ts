import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseHardwareRequirements } from '../../../../src/core/hardware/requirements.ts';
import type { Host } from '../../../../src/core/model.ts';
import {
  HOST_VALIDATIONS,
  MANUAL_REBOOT_STAGES,
  operatorName,
  validateHost,
} from '../../../../src/core/validations/host.ts';
import {
  HOST_CONDITION_IDS,
  hasSavePartitionArgs,
} from '../../../../src/core/validations/host-conditions.ts';
import { HostValidationContextError } from '../../../../src/core/validations/host-context.ts';
import {
  BUILTIN_HOST_VALIDATION_IDS,
  failingValidationMessages,
  NON_IGNORABLE_HOST_VALIDATIONS,
  OPERATOR_VALIDATION_IDS,
  VALIDATION_DISABLED_MESSAGE,
} from '../../../../src/core/validations/types.ts';
import { expectGolden } from '../golden.ts';
import { bound, cluster, host, inventory, NOW, unbound } from './host-fixtures.ts';

const golden = (name: string) => fileURLToPath(new URL(`golden/${name}`, import.meta.url));
const ids = (h: ReturnType<typeof validateHost>, category: string) =>
  (h.validationsInfo[category] ?? []).map((r) => r.id);

describe('registry', () => {
  it('registers every built-in id once, in the declared order', () => {
    expect(HOST_VALIDATIONS.map((v) => v.id)).toEqual([...BUILTIN_HOST_VALIDATION_IDS]);
  });
  it('categories', () => {
    const hardware = HOST_VALIDATIONS.filter((v) => v.category === 'hardware').map((v) => v.id);
    expect(hardware).toEqual([
      'has-inventory',
      'inventory-not-partially-truncated',
      'inventory-not-fully-truncated',
      'has-min-cpu-cores',
      'has-min-memory',
      'has-min-valid-disks',
      'has-cpu-cores-for-role',
      'has-memory-for-role',
      'hostname-unique',
      'hostname-valid',
      'sufficient-installation-disk-speed',
      'compatible-with-cluster-platform',
      'disk-encryption-requirements-satisfied',
      'vsphere-disk-uuid-enabled',
      'compatible-agent',
      'no-skip-installation-disk',
      'no-skip-missing-disk',
    ]);
  });
  it('operator names', () => {
    expect(operatorName('node-feature-discovery-requirements-satisfied')).toBe('node-feature-discovery');
  });
});

describe('validations_info shape', () => {
  it('healthy bound host (golden)', () => {
    const r = validateHost(bound());
    expect(Object.keys(r.validationsInfo)).toEqual(['hardware', 'network', 'operators']);
    expectGolden(golden('host-healthy.json'), `${JSON.stringify(r.validationsInfo, null, 2)}\n`);
  });

  it('host with problems (golden)', () => {
    const h = host({
      requested_hostname: 'localhost',
      inventory: inventory({
        cpu: { count: 1, architecture: 'x86_64' },
        memory: { physical_bytes: 4 * 1024 ** 3 },
      }),
      checked_in_at: new Date(NOW - 3600_000).toISOString(),
      media_status: 'disconnected',
      timestamp: Math.floor(NOW / 1000) - 7200,
    });
    const r = validateHost(bound(h, { machine_networks: [{ cidr: '10.0.0.0/24' }] }));
    expectGolden(golden('host-failing.json'), `${JSON.stringify(r.validationsInfo, null, 2)}\n`);
    expect(failingValidationMessages(r.validationsInfo).split(' ; ')).toEqual([
      "Host clock is not synchronized, service time is ahead of host's at least for 20.0 minutes, please configure an NTP server via DHCP. Service time: 2025-03-06 14:40:00 +0000 UTC",
      'Host does not belong to machine network CIDRs. Verify that the host belongs to every CIDR listed under machine networks',
      'Host is disconnected',
      'No connectivity to the majority of hosts in the cluster',
      'Require at least 16.00 GiB RAM for role master, found only 4.00 GiB',
      'Require at least 4 CPU cores for master role, found only 1',
      'The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is 2, found only 1',
      'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB',
      'The host name localhost is forbidden',
      'Unable to read from the discovery media. It was either disconnected or poor network conditions prevented it from being read. Try using the minimal ISO option and be sure to keep the media connected until the installation is completed',
    ]);
  });

  it('unbound host: late-binding suppressions, no operators', () => {
    const r = validateHost(unbound());
    expect(Object.keys(r.validationsInfo)).toEqual(['hardware', 'network']);
    expect(ids(r, 'hardware')).toEqual([
      'has-inventory',
      'inventory-not-partially-truncated',
      'inventory-not-fully-truncated',
      'has-min-cpu-cores',
      'has-min-memory',
      'has-min-valid-disks',
      'has-cpu-cores-for-role',
      'has-memory-for-role',
      'hostname-valid',
      'sufficient-installation-disk-speed',
      'compatible-agent',
      'no-skip-installation-disk',
      'no-skip-missing-disk',
    ]);
    expect(ids(r, 'network')).toEqual([
      'connected',
      'media-connected',
      'valid-platform-network-settings',
      'ntp-synced',
      'time-synced-between-host-and-service',
      'container-images-available',
      'has-default-route',
      'no-ip-collisions-in-network',
    ]);
    for (const id of OPERATOR_VALIDATION_IDS) expect(r.conditions[id]).toBeUndefined();
    expect(r.requirements.role).toBe('arbiter');
  });
});

describe('condition map', () => {
  it('holds every id the state machine may look up', () => {
    const r = validateHost(bound());
    for (const id of [...BUILTIN_HOST_VALIDATION_IDS, ...HOST_CONDITION_IDS, ...OPERATOR_VALIDATION_IDS]) {
      expect(typeof r.conditions[id], id).toBe('boolean');
    }
    const u = validateHost(unbound());
    for (const id of [...BUILTIN_HOST_VALIDATION_IDS, ...HOST_CONDITION_IDS])
      expect(typeof u.conditions[id], id).toBe('boolean');
  });

  it('pending, error and failure block; success and suppressed pass', () => {
    const r = validateHost(
      bound(host({ inventory: undefined, installation_disk_id: '', installation_disk_path: '' })),
    );
    const status = (id: string) => r.outcomes.find((o) => o.id === id)!.status;
    expect([status('has-min-cpu-cores'), r.conditions['has-min-cpu-cores']]).toEqual(['pending', false]);
    expect([
      status('sufficient-installation-disk-speed'),
      r.conditions['sufficient-installation-disk-speed'],
    ]).toEqual(['error', false]);
    expect([status('has-inventory'), r.conditions['has-inventory']]).toEqual(['failure', false]);
    expect([status('ignition-downloadable'), r.conditions['ignition-downloadable']]).toEqual([
      'success-suppress-output',
      true,
    ]);
    expect([status('connected'), r.conditions.connected]).toEqual(['success', true]);
  });
});

describe('DISABLED_HOST_VALIDATIONS', () => {
  const config = { disabledHostValidations: ['has-min-cpu-cores', 'hostname-unique', 'connected'] };
  const weak = host({
    inventory: inventory({ cpu: { count: 1 } }),
    checked_in_at: new Date(NOW - 3600_000).toISOString(),
  });

  it('reports disabled, passes the condition', () => {
    const r = validateHost(bound(weak, {}, { config }));
    const entry = r.validationsInfo.hardware!.find((e) => e.id === 'has-min-cpu-cores');
    expect(entry).toEqual({
      id: 'has-min-cpu-cores',
      status: 'disabled',
      message: VALIDATION_DISABLED_MESSAGE,
    });
    expect(VALIDATION_DISABLED_MESSAGE).toBe('Validation disabled by configuration');
    expect(r.conditions['has-min-cpu-cores']).toBe(true);
    expect(r.conditions.connected).toBe(true);
    expect(r.conditions['has-cpu-cores-for-role']).toBe(false);
  });

  it('a disabled validation is still hidden by stage', () => {
    const r = validateHost(bound(host({ progress: { current_stage: 'Rebooting' } }), {}, { config }));
    expect(ids(r, 'network')).not.toContain('connected');
  });

  it('unbound hosts honour it too (no cluster override possible)', () => {
    const r = validateHost(unbound({ inventory: inventory({ cpu: { count: 1 } }) }, { config }));
    expect(r.conditions['has-min-cpu-cores']).toBe(true);
  });

  it('is ignored when the cluster has its own ignored_host_validations', () => {
    const r = validateHost(bound(weak, { ignored_host_validations: '["has-memory-for-role"]' }, { config }));
    expect(r.outcomes.find((o) => o.id === 'has-min-cpu-cores')!.status).toBe('failure');
    expect(r.conditions['has-min-cpu-cores']).toBe(false);
    expect(r.conditions.connected).toBe(false);
  });
});

describe('ignored_host_validations', () => {
  const failingEverything = host({
    inventory: inventory({ cpu: { count: 1 }, memory: { physical_bytes: 1024 }, hostname: 'localhost' }),
    checked_in_at: new Date(NOW - 3600_000).toISOString(),
    media_status: 'disconnected',
  });

  it('forces listed conditions to pass, output unchanged', () => {
    const input = bound(failingEverything, {
      ignored_host_validations: '["has-memory-for-role", "has-cpu-cores-for-role", "has-inventory"]',
    });
    const r = validateHost(input);
    expect(r.conditions['has-memory-for-role']).toBe(true);
    expect(r.conditions['has-cpu-cores-for-role']).toBe(true);
    expect(r.conditions['has-min-memory']).toBe(false);
    expect(r.validationsInfo.hardware!.find((e) => e.id === 'has-memory-for-role')!.status).toBe('failure');
  });

  it('"all" ignores everything except the never-ignorable list', () => {
    const input = bound(
      host({
        ...failingEverything,
        inventory: { ...failingEverything.inventory!, truncation: { type: 'full' } },
      }),
      {
        ignored_host_validations: '["all"]',
        machine_networks: [],
        connectivity_majority_groups: '{',
      },
    );
    const r = validateHost(input);
    for (const id of BUILTIN_HOST_VALIDATION_IDS) {
      if (NON_IGNORABLE_HOST_VALIDATIONS.includes(id)) continue;
      expect(r.conditions[id], id).toBe(true);
    }
    expect(r.conditions.connected).toBe(false);
    expect(r.conditions['inventory-not-fully-truncated']).toBe(false);
    expect(r.conditions['machine-cidr-defined']).toBe(false);
    expect(r.conditions['hostname-valid']).toBe(false);
    expect(NON_IGNORABLE_HOST_VALIDATIONS).toEqual([
      'connected',
      'has-inventory',
      'inventory-not-fully-truncated',
      'machine-cidr-defined',
      'hostname-unique',
      'hostname-valid',
    ]);
  });

  it('has-inventory and hostname-unique cannot be ignored', () => {
    const noInv = host({ inventory: undefined });
    const dup = host({ requested_hostname: 'master-1' });
    expect(
      validateHost(bound(noInv, { ignored_host_validations: '["has-inventory"]' })).conditions[
        'has-inventory'
      ],
    ).toBe(false);
    expect(
      validateHost(bound(dup, { ignored_host_validations: '["all"]' })).conditions['hostname-unique'],
    ).toBe(false);
  });

  it('accepts the comma-list form; operator results can be ignored', () => {
    const input = bound(
      host(),
      { ignored_host_validations: 'odf-requirements-satisfied, mtu-valid' },
      {
        operatorResults: [{ id: 'odf-requirements-satisfied', status: 'failure', reasons: ['x'] }],
      },
    );
    expect(validateHost(input).conditions['odf-requirements-satisfied']).toBe(true);
  });

  it('malformed JSON aborts', () => {
    expect(() => validateHost(bound(host(), { ignored_host_validations: '[oops' }))).toThrow();
  });
});

describe('stage-hidden outputs', () => {
  const stageHost = (stage: Host['progress']) => host({ progress: stage });
  it.each(MANUAL_REBOOT_STAGES)('%s hides connected, media-connected, ntp-synced, time-synced', (stage) => {
    const r = validateHost(bound(stageHost({ current_stage: stage }), { status: 'installing' }));
    const shown = ids(r, 'network');
    for (const id of ['connected', 'media-connected', 'ntp-synced', 'time-synced-between-host-and-service']) {
      expect(shown).not.toContain(id);
      expect(r.conditions[id]).toBe(true);
    }
    expect(ids(r, 'hardware')).not.toContain('compatible-agent');
  });
  it('before Rebooting only compatible-agent is hidden', () => {
    const r = validateHost(bound(stageHost({ current_stage: 'Writing image to disk' })));
    expect(ids(r, 'network')).toContain('connected');
    expect(ids(r, 'hardware')).not.toContain('compatible-agent');
    expect(typeof r.conditions['compatible-agent']).toBe('boolean');
    const none = validateHost(bound(stageHost({ current_stage: '' })));
    expect(ids(none, 'hardware')).toContain('compatible-agent');
  });
});

describe('operators', () => {
  it('missing operators report "<name> is disabled", given ones keep their status, sorted by id', () => {
    const r = validateHost(
      bound(
        host(),
        {},
        {
          operatorResults: [
            {
              id: 'odf-requirements-satisfied',
              status: 'failure',
              reasons: ['Insufficient CPU', 'Insufficient RAM'],
            },
            { id: 'lvm-requirements-satisfied', status: 'pending', reasons: [] },
            { id: 'zzz-requirements-satisfied', status: 'success', reasons: ['ok'] },
          ],
        },
      ),
    );
    const ops = r.validationsInfo.operators!;
    expect(ops.map((o) => o.id)).toEqual([...ops.map((o) => o.id)].sort());
    expect(ops.find((o) => o.id === 'odf-requirements-satisfied')).toEqual({
      id: 'odf-requirements-satisfied',
      status: 'failure',
      message: 'Insufficient CPU\nInsufficient RAM',
    });
    expect(ops.find((o) => o.id === 'lso-requirements-satisfied')!.message).toBe('lso is disabled');
    expect(r.conditions['odf-requirements-satisfied']).toBe(false);
    expect(r.conditions['lvm-requirements-satisfied']).toBe(false);
    expect(r.conditions['zzz-requirements-satisfied']).toBe(true);
    expect(ops).toHaveLength(OPERATOR_VALIDATION_IDS.length + 1);
  });
  it('day-2 clusters', () => {
    const r = validateHost(bound(host({ kind: 'AddToExistingClusterHost' }), { kind: 'AddHostsCluster' }));
    expect(r.validationsInfo.operators!.find((o) => o.id === 'cnv-requirements-satisfied')!.message).toBe(
      'cnv validation is disabled when adding hosts to an existing cluster.',
    );
  });
});

describe('context errors abort the refresh', () => {
  it.each([
    [
      'inventory without memory',
      bound(host({ inventory: { ...inventory(), memory: undefined } })),
      'Inventory is not valid, Memory not detected',
    ],
    [
      'inventory without CPU',
      bound(host({ inventory: { ...inventory(), cpu: undefined } })),
      'Inventory is not valid, CPU not detected',
    ],
    [
      'invalid role',
      bound(host({ role: 'bootstrap', suggested_role: '' })),
      'Illegal role defined: bootstrap',
    ],
    [
      'bad machine CIDR',
      bound(host(), { machine_networks: [{ cidr: '10.0.0.0' }] }),
      'invalid CIDR address: 10.0.0.0',
    ],
    [
      'bound host without its cluster',
      { host: host(), now: NOW },
      'cluster cluster-1 of host host-0 not given',
    ],
  ])('%s', (_name, input, message) => {
    expect(() => validateHost(input)).toThrow(HostValidationContextError);
    expect(() => validateHost(input)).toThrow(message);
  });
  it('unknown requirements version', () => {
    const config = { hardwareRequirements: parseHardwareRequirements('[]') };
    expect(() => validateHost(bound(host(), {}, { config }))).toThrow(
      'requirements for version 4.18.3 not found',
    );
  });
});

describe('non-validation conditions (§1.4)', () => {
  const cond = (h: Host, status = cluster().status) => validateHost(bound(h, { status })).conditions;
  it.each([
    ['preparing-for-installation', 'cluster-preparing-for-installation'],
    ['installing', 'cluster-installing'],
    ['installing-pending-user-action', 'cluster-pending-user-action'],
    ['error', 'cluster-in-error'],
  ] as const)('cluster %s → %s', (status, id) => {
    expect(cond(host(), status)[id]).toBe(true);
    expect(cond(host(), 'ready')[id]).toBe(false);
  });
  it.each([
    ['master', true],
    ['arbiter', true],
    ['worker', true],
    ['auto-assign', false],
  ] as const)('valid-role-for-installation: %s → %s', (role, want) => {
    expect(cond(host({ role, suggested_role: 'master' }))['valid-role-for-installation']).toBe(want);
  });
  it.each([
    ['Waiting for control plane', true],
    ['Waiting for controller', true],
    ['Waiting for bootkube', true],
    ['Rebooting', true],
    ['Installing', false],
    ['Done', false],
  ] as const)('stage-in-wrong-boot-stages: %s → %s', (stage, want) => {
    expect(cond(host({ progress: { current_stage: stage } }))['stage-in-wrong-boot-stages']).toBe(want);
  });
  it.each([
    ['not measured', {}, false],
    ['measured ok', { disks_info: { 'wwn-0x1111': { disk_speed: { tested: true, exit_code: 0 } } } }, true],
    [
      'measured failing',
      { disks_info: { 'wwn-0x1111': { disk_speed: { tested: true, exit_code: 5 } } } },
      false,
    ],
    ['save partlabel', { installer_args: '["--save-partlabel","data"]' }, true],
    ['save partindex', { installer_args: '--save-partindex 5' }, true],
    ['persistent boot', { inventory: inventory({ boot: { device_type: 'persistent' } }) }, true],
  ] as const)('installation-disk-speed-check-successful: %s', (_name, o, want) => {
    expect(cond(host(o as Partial<Host>))['installation-disk-speed-check-successful']).toBe(want);
  });
  it('installation-disk-speed-check-successful is false for unbound hosts', () => {
    expect(
      validateHost(unbound({ installer_args: '--save-partindex 1' })).conditions[
        'installation-disk-speed-check-successful'
      ],
    ).toBe(false);
  });
  it.each([
    [undefined, false],
    [{}, false],
    [{ a: { name: 'a', result: 'success' } }, true],
    [{ a: { name: 'a', result: 'success' }, b: { name: 'b', result: 'failure' } }, false],
  ] as const)('successful-container-image-availability: %j → %s', (images, want) => {
    expect(
      cond(host({ images_status: images as Host['images_status'] }))[
        'successful-container-image-availability'
      ],
    ).toBe(want);
  });
  it('hasSavePartitionArgs', () => {
    expect(hasSavePartitionArgs(undefined)).toBe(false);
    expect(hasSavePartitionArgs('--copy-network')).toBe(false);
  });
});

describe('unbound pool gates (disks, cpu, memory, hostname-valid)', () => {
  it('a small host fails the unbound minimum', () => {
    const r = validateHost(
      unbound({ inventory: inventory({ cpu: { count: 1 }, memory: { physical_bytes: 1024 ** 3 } }) }),
    );
    expect(r.conditions['has-min-cpu-cores']).toBe(false);
    expect(r.conditions['has-min-memory']).toBe(false);
    expect(r.conditions['has-min-valid-disks']).toBe(true);
    expect(r.conditions['hostname-valid']).toBe(true);
  });
  it('the time input accepts a Date', () => {
    const r = validateHost({ ...unbound(), now: new Date(NOW) });
    expect(r.conditions.connected).toBe(true);
  });
});

describe('requirements chosen by the context', () => {
  it('edge workers (EDGE_WORKERS_PRODUCT_NAMES) get the edge-worker set', () => {
    const edge = host({
      role: 'worker',
      suggested_role: 'worker',
      inventory: inventory({
        cpu: { count: 2, architecture: 'aarch64' },
        system_vendor: { product_name: 'Jetson Box' },
      }),
    });
    const r = validateHost(bound(edge, {}, { config: { edgeWorkerProductNames: 'Jetson Box' } }));
    expect(r.requirements.role).toBe('edge-worker');
    expect(validateHost(bound(edge)).requirements.role).toBe('worker');
  });
  it('unbound hosts without an infra-env use the default entry; bound hosts may carry theirs', () => {
    const u = unbound();
    expect(validateHost({ host: u.host, now: NOW }).requirements.total.disk_size_gb).toBe(50);
    const b = bound(host(), {}, { infraEnv: { id: 'i', name: 'i' } });
    expect(validateHost(b).requirements.role).toBe('master');
  });
});
