// docs/reference/conditions.md, produced by evaluating the condition functions the controllers
// use (src/records/*-conditions.ts, imageCreatedConditionValue) over every backend
// state and the inputs that change their outcome. The tables therefore cannot drift from the code:
// each row is what the code returns, and lists the states that return it.

import type { ClusterStatus, HostStatus, ValidationsInfo } from '../../src/core/model.ts';
import {
  type AciConditionInput,
  aciConditionValues,
  aciSpecSyncedCondition,
  agentConditionValues,
  agentSpecSyncedCondition,
  type ConditionValue,
  IMAGE_CREATED_CONDITION,
  type ImageCreatedOutcome,
  imageCreatedConditionValue,
} from '../../src/records/index.ts';
import { cell, GENERATED_NOTE } from './markdown.ts';

// Records keyed by the union types, so adding a state to the core without listing it here is a
// compile error.
const HOST_STATUSES = Object.keys({
  discovering: 1,
  known: 1,
  disconnected: 1,
  insufficient: 1,
  disabled: 1,
  'preparing-for-installation': 1,
  'preparing-failed': 1,
  'preparing-successful': 1,
  'pending-for-input': 1,
  installing: 1,
  'installing-in-progress': 1,
  'installing-pending-user-action': 1,
  'resetting-pending-user-action': 1,
  installed: 1,
  error: 1,
  resetting: 1,
  'added-to-existing-cluster': 1,
  cancelled: 1,
  binding: 1,
  unbinding: 1,
  'unbinding-pending-user-action': 1,
  'known-unbound': 1,
  'disconnected-unbound': 1,
  'insufficient-unbound': 1,
  'disabled-unbound': 1,
  'discovering-unbound': 1,
  reclaiming: 1,
  'reclaiming-rebooting': 1,
} satisfies Record<HostStatus, 1>) as HostStatus[];

const CLUSTER_STATUSES = Object.keys({
  insufficient: 1,
  'pending-for-input': 1,
  ready: 1,
  'preparing-for-installation': 1,
  installing: 1,
  'installing-pending-user-action': 1,
  finalizing: 1,
  installed: 1,
  'adding-hosts': 1,
  error: 1,
  cancelled: 1,
  unmonitored: 1,
} satisfies Record<ClusterStatus, 1>) as ClusterStatus[];

const STATUS_INFO = '<status_info>';
const FAILING: ValidationsInfo = {
  hardware: [{ id: 'example', status: 'failure', message: '<failing validation messages>' }],
};

/** type → outcome (status, reason, message) → the situations producing it, in first-seen order. */
type Table = Map<string, Map<string, { value: ConditionValue; when: string[] }>>;

function add(table: Table, value: ConditionValue, when: string): void {
  let byOutcome = table.get(value.type);
  if (!byOutcome) {
    byOutcome = new Map();
    table.set(value.type, byOutcome);
  }
  const key = `${value.status}\u0000${value.reason}\u0000${value.message}`;
  const entry = byOutcome.get(key) ?? { value, when: [] };
  if (!entry.when.includes(when)) entry.when.push(when);
  byOutcome.set(key, entry);
}

/**
 * Evaluates `conditions` for every state: the first variant is the base case; another variant is
 * listed (with its name) only where it changes the outcome.
 */
function evaluate<S extends string>(
  table: Table,
  states: readonly S[],
  variants: readonly { name: string; conditions: (state: S) => ConditionValue[] }[],
  label: (state: S) => string,
): void {
  for (const state of states) {
    const results = variants.map((v) => ({ name: v.name, values: v.conditions(state) }));
    const base = results[0]!;
    const types = new Set(results.flatMap((r) => r.values.map((c) => c.type)));
    for (const type of types) {
      const baseValue = base.values.find((c) => c.type === type);
      if (baseValue) add(table, generic(baseValue, state), label(state));
      for (const r of results.slice(1)) {
        const v = r.values.find((c) => c.type === type);
        const same =
          v?.status === baseValue?.status &&
          v?.reason === baseValue?.reason &&
          v?.message === baseValue?.message;
        if (v && !same) add(table, generic(v, state), `${label(state)} (${r.name})`);
      }
    }
  }
}

/** "…not recognized: <state>" rather than one row per unrecognised state. */
function generic(v: ConditionValue, state: string): ConditionValue {
  const suffix = `: ${state}`;
  return v.message.endsWith(suffix) ? { ...v, message: `${v.message.slice(0, -suffix.length)}: <state>` } : v;
}

function agentTable(): Table {
  const table: Table = new Map();
  for (const err of [
    undefined,
    { kind: 'input', message: '<error>' },
    { kind: 'backend', message: '<error>' },
  ] as const) {
    add(
      table,
      agentSpecSyncedCondition(err),
      err ? `the spec could not be applied (${err.kind} error)` : 'the spec was applied',
    );
  }
  const host = (status: HostStatus, validations: ValidationsInfo) => ({
    status,
    status_info: STATUS_INFO,
    validations_info: validations,
  });
  evaluate(
    table,
    HOST_STATUSES,
    [
      { name: '', conditions: (s) => agentConditionValues(host(s, FAILING), true, undefined).slice(1) },
      {
        name: 'not approved',
        conditions: (s) => agentConditionValues(host(s, FAILING), false, undefined).slice(1),
      },
      {
        name: 'validations not yet computed',
        conditions: (s) => agentConditionValues(host(s, {}), true, undefined).slice(1),
      },
    ],
    (s) => `\`${s}\``,
  );
  for (const v of agentConditionValues(undefined, true, undefined).slice(1)) {
    add(table, v, 'no host record yet (the Agent has not registered with the backend)');
  }
  return table;
}

function aciTable(): Table {
  const table: Table = new Map();
  for (const err of [
    undefined,
    { kind: 'input', message: '<error>' },
    { kind: 'backend', message: '<error>' },
  ] as const) {
    add(
      table,
      aciSpecSyncedCondition(err),
      err ? `the spec could not be applied (${err.kind} error)` : 'the spec was applied',
    );
  }
  type Cluster = NonNullable<AciConditionInput['cluster']>;
  const hosts = (masters: number, workers: number, approved = true): Cluster['hosts'] => [
    ...Array.from({ length: masters }, () => ({
      suggested_role: 'master' as const,
      status: 'known' as const,
      approved,
    })),
    ...Array.from({ length: workers }, () => ({
      suggested_role: 'worker' as const,
      status: 'known' as const,
      approved,
    })),
  ];
  const input = (
    status: ClusterStatus,
    over: Partial<Cluster> = {},
    top: Partial<AciConditionInput> = {},
  ): AciConditionInput => ({
    cluster: { status, status_info: STATUS_INFO, validations_info: FAILING, hosts: hosts(3, 2), ...over },
    requirements: { controlPlane: 3, workers: 2, arbiters: 0 },
    hold: false,
    unsyncedAgents: 0,
    ...top,
  });
  const conditions = (i: AciConditionInput) => aciConditionValues(i).slice(1);
  evaluate(
    table,
    CLUSTER_STATUSES,
    [
      { name: '', conditions: (s) => conditions(input(s)) },
      { name: 'holdInstallation', conditions: (s) => conditions(input(s, {}, { hold: true })) },
      {
        name: 'too few Agents for provisionRequirements',
        conditions: (s) => conditions(input(s, { hosts: hosts(2, 2) })),
      },
      { name: 'Agents with spec errors', conditions: (s) => conditions(input(s, {}, { unsyncedAgents: 1 })) },
      { name: 'Agents not approved', conditions: (s) => conditions(input(s, { hosts: hosts(3, 2, false) })) },
      {
        name: 'validations not yet computed',
        conditions: (s) => conditions(input(s, { validations_info: {} })),
      },
      {
        name: 'cluster-version operator reported',
        conditions: (s) =>
          conditions(
            input(s, {
              monitored_operators: [
                { name: 'cvo', status: 'progressing', status_info: '<cvo message>' } as never,
              ],
            }),
          ),
      },
      {
        name: 'last preparation succeeded',
        conditions: (s) =>
          conditions(input(s, { last_installation_preparation: { status: 'success' } as never })),
      },
      {
        name: 'last preparation failed',
        conditions: (s) =>
          conditions(
            input(s, { last_installation_preparation: { status: 'failed', reason: '<reason>' } as never }),
          ),
      },
    ],
    (s) => `\`${s}\``,
  );
  for (const v of aciConditionValues({ ...input('ready'), cluster: undefined }).slice(1)) {
    add(table, v, 'no cluster record yet (the spec has not been synced)');
  }
  return table;
}

function imageCreatedTable(): Table {
  const table: Table = new Map();
  const outcomes: [ImageCreatedOutcome, string][] = [
    [{ kind: 'available', imageServiceEnabled: true }, 'image generated and served by the image service'],
    [{ kind: 'available', imageServiceEnabled: false }, 'InfraEnv registered, no image service'],
    [{ kind: 'being-created' }, 'the image is still being generated (an earlier ImageCreationError is kept)'],
    [{ kind: 'error', clientError: true, message: '<error>' }, 'invalid InfraEnv input'],
    [{ kind: 'error', clientError: false, message: '<error>' }, 'internal error while generating the image'],
    [
      { kind: 'missing-cluster-deployment', message: '<error>' },
      'spec.clusterRef names a missing ClusterDeployment',
    ],
  ];
  for (const [o, when] of outcomes) add(table, imageCreatedConditionValue(o), when);
  return table;
}

function renderTable(table: Table, order: readonly string[]): string {
  const lines: string[] = [];
  const types = [
    ...order.filter((t) => table.has(t)),
    ...[...table.keys()].filter((t) => !order.includes(t)),
  ];
  for (const type of types) {
    lines.push(`### ${type}`, '', '| Status | Reason | Message | When |', '| --- | --- | --- | --- |');
    for (const { value, when } of table.get(type)!.values()) {
      lines.push(
        `| ${value.status} | ${cell(value.reason)} | ${cell(value.message) || '(empty)'} | ${cell(when.join(', '))} |`,
      );
    }
    lines.push('');
  }
  return lines.join('\n');
}

export function renderConditionsReference(): string {
  const aciOrder = [
    'SpecSynced',
    'RequirementsMet',
    'Validated',
    'Completed',
    'Failed',
    'Stopped',
    'LastInstallationPreparationFailed',
  ];
  const agentOrder = ['SpecSynced', 'Connected', 'RequirementsMet', 'Validated', 'Installed', 'Bound'];
  return [
    '# Conditions reference',
    '',
    GENERATED_NOTE('the condition functions in src/records (evaluated over every state)'),
    '',
    'Each table lists every (status, reason, message) a condition can take and the backend states',
    '(`status.debugInfo.state`) that produce it. `<status_info>` stands for `status.debugInfo.stateInfo`,',
    "`<failing validation messages>` for the failing validations' messages joined with `,` (sorted by",
    'category, then id), `<error>` for the error text. Numbers in messages are from an example cluster',
    'requiring 3 control plane and 2 worker Agents. A qualifier in parentheses names the input that',
    'changes the outcome in that state.',
    '',
    '## AgentClusterInstall',
    '',
    renderTable(aciTable(), aciOrder),
    '## Agent',
    '',
    renderTable(agentTable(), agentOrder),
    '## InfraEnv',
    '',
    renderTable(imageCreatedTable(), [IMAGE_CREATED_CONDITION]),
  ].join('\n');
}
