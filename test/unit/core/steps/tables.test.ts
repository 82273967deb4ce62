import { describe, expect, it } from 'vitest';
import type { HostStatus } from '../../../../src/core/model.ts';
import {
  nextSteps,
  nextStepsDetailed,
  type StepType,
  stepTableFor,
} from '../../../../src/core/steps/index.ts';
import { ctx, day1, day2, pool } from './fixtures.ts';

type Row = [HostStatus, StepType[], number, 'continue' | 'exit'];

// core.md §9.2, written out independently of src/core/steps/tables.ts.
const DAY1: Row[] = [
  [
    'known',
    [
      'connectivity-check',
      'tang-connectivity-check',
      'free-network-addresses',
      'dhcp-lease-allocate',
      'inventory',
      'ntp-synchronizer',
      'domain-resolution',
      'verify-vips',
    ],
    60,
    'continue',
  ],
  [
    'insufficient',
    [
      'inventory',
      'connectivity-check',
      'tang-connectivity-check',
      'free-network-addresses',
      'dhcp-lease-allocate',
      'ntp-synchronizer',
      'domain-resolution',
      'verify-vips',
    ],
    60,
    'continue',
  ],
  [
    'pending-for-input',
    [
      'inventory',
      'connectivity-check',
      'tang-connectivity-check',
      'free-network-addresses',
      'dhcp-lease-allocate',
      'ntp-synchronizer',
      'domain-resolution',
      'verify-vips',
    ],
    60,
    'continue',
  ],
  ['discovering', ['inventory'], 60, 'continue'],
  ['disconnected', ['inventory'], 120, 'continue'],
  [
    'preparing-for-installation',
    ['dhcp-lease-allocate', 'installation-disk-speed-check', 'container-image-availability'],
    60,
    'continue',
  ],
  ['installing', ['install', 'dhcp-lease-allocate'], 60, 'continue'],
  ['installing-in-progress', ['dhcp-lease-allocate'], 60, 'continue'],
  ['error', ['logs-gather', 'stop-installation'], 120, 'continue'],
  ['cancelled', ['logs-gather', 'stop-installation'], 120, 'continue'],
  ['disabled', [], 120, 'continue'],
  ['resetting', [], 120, 'continue'],
  ['binding', [], 0, 'exit'],
];

const DAY2: Row[] = [
  [
    'known',
    [
      'connectivity-check',
      'api-vip-connectivity-check',
      'tang-connectivity-check',
      'inventory',
      'ntp-synchronizer',
      'domain-resolution',
    ],
    60,
    'continue',
  ],
  [
    'insufficient',
    [
      'inventory',
      'connectivity-check',
      'api-vip-connectivity-check',
      'tang-connectivity-check',
      'ntp-synchronizer',
      'domain-resolution',
    ],
    60,
    'continue',
  ],
  ['discovering', ['inventory', 'ntp-synchronizer', 'domain-resolution'], 60, 'continue'],
  [
    'pending-for-input',
    ['inventory', 'connectivity-check', 'api-vip-connectivity-check', 'tang-connectivity-check'],
    60,
    'continue',
  ],
  ['disconnected', ['inventory'], 120, 'continue'],
  ['installing', ['install'], 60, 'continue'],
  ['installing-in-progress', [], 60, 'continue'],
  ['error', ['logs-gather', 'stop-installation'], 120, 'continue'],
  ['cancelled', ['logs-gather', 'stop-installation'], 120, 'continue'],
  ['disabled', [], 120, 'continue'],
  ['resetting', [], 120, 'continue'],
];

const POOL: Row[] = [
  ['discovering-unbound', ['inventory', 'ntp-synchronizer'], 60, 'continue'],
  ['insufficient-unbound', ['inventory', 'ntp-synchronizer'], 60, 'continue'],
  ['known-unbound', ['inventory', 'ntp-synchronizer'], 60, 'continue'],
  ['disconnected-unbound', ['inventory'], 120, 'continue'],
  ['disabled-unbound', [], 120, 'continue'],
  ['unbinding', [], 0, 'exit'],
  ['unbinding-pending-user-action', [], 0, 'exit'],
  ['reclaiming', ['download-boot-artifacts'], 60, 'continue'],
  ['reclaiming-rebooting', ['reboot-for-reclaim'], 120, 'exit'],
];

const ALL_STATUSES: HostStatus[] = [
  'discovering',
  'known',
  'disconnected',
  'insufficient',
  'disabled',
  'preparing-for-installation',
  'preparing-failed',
  'preparing-successful',
  'pending-for-input',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
  'resetting-pending-user-action',
  'installed',
  'error',
  'resetting',
  'added-to-existing-cluster',
  'cancelled',
  'binding',
  'unbinding',
  'unbinding-pending-user-action',
  'known-unbound',
  'disconnected-unbound',
  'insufficient-unbound',
  'disabled-unbound',
  'discovering-unbound',
  'reclaiming',
  'reclaiming-rebooting',
];

const FIXTURES = { day1, day2, pool } as const;

describe.each([
  ['day1', DAY1],
  ['day2', DAY2],
  ['pool', POOL],
] as const)('%s table', (table, rows) => {
  it.each(rows)('%s → %j every %i s, %s', (status, types, next, action) => {
    const { host, cluster, infraEnv } = FIXTURES[table](status);
    expect(stepTableFor(host)).toBe(table);
    const result = nextStepsDetailed(host, cluster, infraEnv, ctx());
    expect(result.errors).toEqual([]);
    expect(result.steps.instructions.map((s) => s.step_type)).toEqual(types);
    expect(result.steps.next_instruction_seconds).toBe(next);
    expect(result.steps.post_step_action).toBe(action);
    for (const step of result.steps.instructions)
      expect(step.step_id).toMatch(new RegExp(`^${step.step_type}-[0-9a-f]{8}$`));
  });

  const listed = new Set(rows.map((r) => r[0]));
  it.each(ALL_STATUSES.filter((s) => !listed.has(s)))(
    '%s is not in the table: nothing, 60 s, continue',
    (status) => {
      const { host, cluster, infraEnv } = FIXTURES[table](status);
      expect(nextSteps(host, cluster, infraEnv, ctx())).toEqual({
        next_instruction_seconds: 60,
        post_step_action: 'continue',
        instructions: [],
      });
    },
  );
});

describe('instruction manager', () => {
  it('step ids come from the injected randomness', () => {
    const { host, cluster, infraEnv } = day1('known');
    const a = nextSteps(host, cluster, infraEnv, ctx({}, 7));
    const b = nextSteps(host, cluster, infraEnv, ctx({}, 7));
    const c = nextSteps(host, cluster, infraEnv, ctx({}, 8));
    expect(a).toEqual(b);
    expect(a.instructions.map((s) => s.step_id)).not.toEqual(c.instructions.map((s) => s.step_id));
    const fixed = nextSteps(host, cluster, infraEnv, { ...ctx(), random: () => 0.5 });
    expect(fixed.instructions[0]?.step_id).toBe('connectivity-check-80000000');
    const zero = nextSteps(host, cluster, infraEnv, { ...ctx(), random: () => 0 });
    expect(zero.instructions[0]?.step_id).toBe('connectivity-check-00000000');
  });

  it('DISABLED_STEPS removes step types', () => {
    const { host, cluster, infraEnv } = day1('insufficient');
    const steps = nextSteps(
      host,
      cluster,
      infraEnv,
      ctx({ disabledSteps: ['inventory', 'verify-vips', 'tang-connectivity-check'] }),
    );
    expect(steps.instructions.map((s) => s.step_type)).toEqual([
      'connectivity-check',
      'free-network-addresses',
      'dhcp-lease-allocate',
      'ntp-synchronizer',
      'domain-resolution',
    ]);
  });

  it('a step that errors is skipped, the others are still returned', () => {
    const { host, cluster, infraEnv } = day1('installing', {
      installation_disk_id: '',
      installation_disk_path: '',
    });
    const result = nextStepsDetailed(host, cluster, infraEnv, ctx());
    expect(result.steps.instructions.map((s) => s.step_type)).toEqual(['dhcp-lease-allocate']);
    expect(result.errors).toEqual([
      { step_type: 'install', error: `failed to get boot device for host ${host.id}` },
    ]);
    expect(result.installer_version).toBeUndefined();
  });

  it('the install step records the installer version', () => {
    const { host, cluster, infraEnv } = day1('installing');
    expect(nextStepsDetailed(host, cluster, infraEnv, ctx()).installer_version).toBe(
      'quay.io/edge-infrastructure/assisted-installer:v2.40',
    );
  });

  it('bound hosts without a cluster record: builders that need one report errors', () => {
    const { host, infraEnv } = day1('known');
    const result = nextStepsDetailed(host, undefined, infraEnv, ctx());
    expect(result.steps.instructions.map((s) => s.step_type)).toEqual([
      'free-network-addresses',
      'inventory',
      'ntp-synchronizer',
    ]);
    expect(result.errors).toEqual([
      { step_type: 'connectivity-check', error: 'connectivity-check needs the host cluster' },
    ]);
  });
});

describe('upgrade-agent', () => {
  const UPGRADE_STATUSES: HostStatus[] = [
    'binding',
    'discovering',
    'discovering-unbound',
    'insufficient',
    'insufficient-unbound',
    'known',
    'pending-for-input',
    'known-unbound',
  ];
  it.each(ALL_STATUSES)('%s', (status) => {
    const fixture =
      status.endsWith('-unbound') || status.startsWith('unbinding') || status.startsWith('reclaiming')
        ? pool
        : day1;
    const { host, cluster, infraEnv } = fixture(status, { discovery_agent_version: 'quay.io/old/agent:v1' });
    const result = nextStepsDetailed(host, cluster, infraEnv, ctx({}, 1));
    if (UPGRADE_STATUSES.includes(status)) {
      expect(result.upgrade_agent).toBe(true);
      expect(result.steps).toEqual({
        next_instruction_seconds: 60,
        post_step_action: 'continue',
        instructions: [
          {
            step_type: 'upgrade-agent',
            step_id: expect.stringMatching(/^upgrade-agent-[0-9a-f]{8}$/),
            args: ['{"agent_image":"quay.io/edge-infrastructure/assisted-installer-agent:v2.40"}'],
          },
        ],
      });
    } else {
      expect(result.upgrade_agent).toBeUndefined();
    }
  });

  it('not when disabled, switched off, or the versions match (tag-only when no ":")', () => {
    const run = (version: string | undefined, opts = {}) => {
      const { host, cluster, infraEnv } = day1('known', { discovery_agent_version: version });
      return nextStepsDetailed(host, cluster, infraEnv, ctx(opts)).upgrade_agent === true;
    };
    expect(run('quay.io/old/agent:v1')).toBe(true);
    expect(run('quay.io/old/agent:v1', { enableUpgradeAgent: false })).toBe(false);
    expect(run('quay.io/old/agent:v1', { disabledSteps: ['upgrade-agent'] })).toBe(false);
    expect(run('quay.io/edge-infrastructure/assisted-installer-agent:v2.40')).toBe(false);
    expect(run('v2.40')).toBe(false);
    expect(run('v2.39')).toBe(true);
    expect(run(undefined)).toBe(true);
  });
});

/** Freezes `o` and everything it holds. */
function deepFreeze<T>(o: T): T {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

// Host polls share one cluster record between them (records/hosts/poll-records.ts): choosing a
// host's steps must only read it. A write to a frozen object throws in strict mode.
describe('steps only read the cluster record', () => {
  it.each([
    ...DAY1.map((r) => ['day1', r[0]] as const),
    ...DAY2.map((r) => ['day2', r[0]] as const),
    ...POOL.map((r) => ['pool', r[0]] as const),
  ])('%s %s on a frozen cluster', (table, status) => {
    const { host, cluster, infraEnv } = FIXTURES[table](status);
    const before = JSON.stringify(cluster);
    const result = nextStepsDetailed(host, deepFreeze(cluster), infraEnv, ctx());
    expect(result.errors).toEqual([]);
    expect(JSON.stringify(cluster)).toBe(before);
  });
});
