import { describe, expect, it } from 'vitest';
import { HOST_STATES } from '../../../src/api/index.ts';
import type { HostStatus, ValidationsInfo } from '../../../src/core/model.ts';
import { AGENT_CONDITION, agentConditionValues, type ConditionValue } from '../../../src/records/index.ts';

const VALIDATIONS: ValidationsInfo = {
  network: [
    { id: 'ntp-synced', status: 'failure', message: "Host couldn't synchronize with any NTP server" },
    { id: 'connected', status: 'success', message: 'Host is connected' },
    {
      id: 'belongs-to-majority-group',
      status: 'pending',
      message: 'Machine Network CIDR or Connectivity Majority Groups missing',
    },
  ],
  hardware: [
    {
      id: 'has-min-memory',
      status: 'failure',
      message:
        'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB',
    },
    { id: 'has-cpu-cores-for-role', status: 'disabled', message: 'Validation disabled by configuration' },
    { id: 'has-inventory', status: 'error', message: 'Inventory could not be parsed' },
  ],
};
// Sorted by category (hardware < network), then id; success and disabled left out; joined with ",".
const FAILING =
  'Inventory could not be parsed,' +
  'The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is 8.00 GiB, found only 4.00 GiB,' +
  'Machine Network CIDR or Connectivity Majority Groups missing,' +
  "Host couldn't synchronize with any NTP server";

function conditions(status: HostStatus, opts: { approved?: boolean; info?: ValidationsInfo } = {}) {
  const values = agentConditionValues(
    { status, status_info: 'some status info', validations_info: opts.info ?? VALIDATIONS },
    opts.approved ?? true,
    undefined,
  );
  return Object.fromEntries(values.map((v) => [v.type, v])) as Record<string, ConditionValue>;
}

const BINDING = 'The agent is currently binding to a cluster deployment';
const UNBINDING = 'The agent is currently unbinding from a cluster deployment';
const unknown = (status: string) => ({
  status: 'Unknown',
  reason: 'UnknownStatus',
  message: `The installation status is currently not recognized: ${status}`,
});

describe('Agent SpecSynced', () => {
  it.each([
    [undefined, 'True', 'SyncOK', 'The Spec has been successfully applied'],
    [
      { kind: 'input' as const, message: 'bad disk' },
      'False',
      'InputError',
      'The Spec could not be synced due to an input error: bad disk',
    ],
    [
      { kind: 'backend' as const, message: 'boom' },
      'False',
      'BackendError',
      'The Spec could not be synced due to backend error: boom',
    ],
  ])('%j → %s/%s', (error, status, reason, message) => {
    const [specSynced] = agentConditionValues({ status: 'known', status_info: '' }, true, error);
    expect(specSynced).toEqual({ type: 'SpecSynced', status, reason, message });
  });
});

describe('Agent Connected', () => {
  it.each(HOST_STATES)('%s', (state) => {
    const c = conditions(state).Connected;
    if (state === 'disconnected' || state === 'disconnected-unbound') {
      expect(c).toEqual({
        type: 'Connected',
        status: 'False',
        reason: 'AgentIsDisconnected',
        message:
          'The agent has not contacted the installation service in some time, user action should be taken',
      });
    } else {
      expect(c).toEqual({
        type: 'Connected',
        status: 'True',
        reason: 'AgentIsConnected',
        message: "The agent's connection to the installation service is unimpaired",
      });
    }
  });
});

const REQUIREMENTS_MET: Record<string, { status: string; reason: string; message: string }> = {
  known: { status: 'True', reason: 'AgentIsReady', message: 'The agent is ready to begin the installation' },
  'known-unbound': {
    status: 'True',
    reason: 'AgentIsReady',
    message: 'The agent is ready to begin the installation',
  },
  ...Object.fromEntries(
    [
      'insufficient',
      'disconnected',
      'insufficient-unbound',
      'disconnected-unbound',
      'discovering-unbound',
      'discovering',
      'pending-for-input',
    ].map((s) => [
      s,
      {
        status: 'False',
        reason: 'AgentNotReady',
        message: 'The agent is not ready to begin the installation',
      },
    ]),
  ),
  ...Object.fromEntries(
    [
      'preparing-for-installation',
      'preparing-successful',
      'installing',
      'installing-in-progress',
      'installing-pending-user-action',
    ].map((s) => [
      s,
      {
        status: 'True',
        reason: 'AgentAlreadyInstalling',
        message: 'Installation already started and is in progress',
      },
    ]),
  ),
  ...Object.fromEntries(
    ['installed', 'error', 'added-to-existing-cluster'].map((s) => [
      s,
      { status: 'True', reason: 'AgentInstallationStopped', message: 'The agent installation stopped' },
    ]),
  ),
  binding: { status: 'False', reason: 'Binding', message: BINDING },
  unbinding: { status: 'False', reason: 'Unbinding', message: UNBINDING },
  'unbinding-pending-user-action': { status: 'False', reason: 'Unbinding', message: UNBINDING },
};

describe('Agent RequirementsMet', () => {
  it.each(HOST_STATES)('%s', (state) => {
    expect(conditions(state).RequirementsMet).toEqual({
      type: 'RequirementsMet',
      ...(REQUIREMENTS_MET[state] ?? unknown(state)),
    });
  });

  it.each(['known', 'known-unbound'] as const)('%s and not approved → AgentIsNotApproved', (state) => {
    expect(conditions(state, { approved: false }).RequirementsMet).toEqual({
      type: 'RequirementsMet',
      status: 'False',
      reason: 'AgentIsNotApproved',
      message: 'The agent is not approved',
    });
  });

  it('falls back to UnknownStatus for preparing-failed, cancelled, resetting*, disabled*, reclaiming*', () => {
    for (const s of [
      'preparing-failed',
      'cancelled',
      'resetting',
      'resetting-pending-user-action',
      'disabled',
      'disabled-unbound',
      'reclaiming',
      'reclaiming-rebooting',
    ] as const) {
      expect(conditions(s).RequirementsMet?.reason).toBe('UnknownStatus');
    }
  });
});

describe('Agent Validated', () => {
  it.each(HOST_STATES)('%s', (state) => {
    const c = conditions(state).Validated;
    if (state === 'binding')
      expect(c).toEqual({ type: 'Validated', status: 'False', reason: 'Binding', message: BINDING });
    else if (state === 'unbinding' || state === 'unbinding-pending-user-action')
      expect(c).toEqual({ type: 'Validated', status: 'False', reason: 'Unbinding', message: UNBINDING });
    else if (state === 'insufficient' || state === 'insufficient-unbound')
      expect(c).toEqual({
        type: 'Validated',
        status: 'False',
        reason: 'ValidationsFailing',
        message: `The agent's validations are failing: ${FAILING}`,
      });
    else if (state === 'pending-for-input')
      expect(c).toEqual({
        type: 'Validated',
        status: 'False',
        reason: 'ValidationsUserPending',
        message: `The agent's validations are pending for user: ${FAILING}`,
      });
    else
      expect(c).toEqual({
        type: 'Validated',
        status: 'True',
        reason: 'ValidationsPassing',
        message: "The agent's validations are passing",
      });
  });

  it('is Unknown/ValidationsUnknown when no validations were computed', () => {
    for (const info of [{}, undefined]) {
      const values = agentConditionValues(
        { status: 'known', status_info: '', validations_info: info },
        true,
        undefined,
      );
      expect(values.find((v) => v.type === 'Validated')).toEqual({
        type: 'Validated',
        status: 'Unknown',
        reason: 'ValidationsUnknown',
        message: "The agent's validations have not yet been calculated",
      });
    }
  });

  it('binding wins over missing validations', () => {
    const values = agentConditionValues({ status: 'binding', status_info: '' }, true, undefined);
    expect(values.find((v) => v.type === 'Validated')?.reason).toBe('Binding');
  });

  it('lists messages deterministically whatever the category order', () => {
    const reversed = { network: VALIDATIONS.network!, hardware: [...VALIDATIONS.hardware!].reverse() };
    expect(conditions('insufficient', { info: reversed }).Validated?.message).toBe(
      `The agent's validations are failing: ${FAILING}`,
    );
  });
});

describe('Agent Installed', () => {
  const expected = (state: string) => {
    if (state === 'installed' || state === 'added-to-existing-cluster')
      return {
        status: 'True',
        reason: 'InstallationCompleted',
        message: 'The installation has completed: some status info',
      };
    if (state === 'error')
      return {
        status: 'False',
        reason: 'InstallationFailed',
        message: 'The installation has failed: some status info',
      };
    if (
      [
        'insufficient',
        'insufficient-unbound',
        'disconnected',
        'disconnected-unbound',
        'discovering',
        'discovering-unbound',
        'known',
        'known-unbound',
        'pending-for-input',
      ].includes(state)
    )
      return {
        status: 'False',
        reason: 'InstallationNotStarted',
        message: 'The installation has not yet started',
      };
    if (
      [
        'preparing-for-installation',
        'preparing-successful',
        'installing',
        'installing-in-progress',
        'installing-pending-user-action',
      ].includes(state)
    )
      return {
        status: 'False',
        reason: 'InstallationInProgress',
        message: 'The installation is in progress: some status info',
      };
    if (state === 'binding') return { status: 'False', reason: 'Binding', message: BINDING };
    if (state === 'unbinding' || state === 'unbinding-pending-user-action')
      return { status: 'False', reason: 'Unbinding', message: UNBINDING };
    return unknown(state);
  };
  it.each(HOST_STATES)('%s', (state) => {
    expect(conditions(state).Installed).toEqual({ type: 'Installed', ...expected(state) });
  });
});

describe('Agent Bound', () => {
  const expected = (state: string) => {
    if (state === 'binding') return { status: 'False', reason: 'Binding', message: BINDING };
    if (state === 'unbinding') return { status: 'False', reason: 'Unbinding', message: UNBINDING };
    if (state === 'unbinding-pending-user-action')
      return {
        status: 'False',
        reason: 'UnbindingPendingUserAction',
        message: 'The agent is currently unbinding; Pending host reboot from infraenv image',
      };
    if (
      [
        'disconnected-unbound',
        'known-unbound',
        'insufficient-unbound',
        'disabled-unbound',
        'discovering-unbound',
      ].includes(state)
    )
      return {
        status: 'False',
        reason: 'Unbound',
        message: 'The agent is not bound to any cluster deployment',
      };
    return { status: 'True', reason: 'Bound', message: 'The agent is bound to a cluster deployment' };
  };
  it.each(HOST_STATES)('%s', (state) => {
    expect(conditions(state).Bound).toEqual({ type: 'Bound', ...expected(state) });
  });
});

describe('Agent condition order and Unknown set', () => {
  it('follows upstream order', () => {
    expect(
      agentConditionValues({ status: 'known', status_info: '' }, true, undefined).map((c) => c.type),
    ).toEqual(['SpecSynced', 'Connected', 'RequirementsMet', 'Validated', 'Installed', 'Bound']);
  });

  it('without a host: SpecSynced plus five Unknown/NotAvailable conditions', () => {
    const values = agentConditionValues(undefined, true, { kind: 'input', message: 'restore failed' });
    expect(values[0]?.reason).toBe('InputError');
    expect(values.slice(1)).toEqual(
      [
        AGENT_CONDITION.installed,
        AGENT_CONDITION.connected,
        AGENT_CONDITION.requirementsMet,
        AGENT_CONDITION.validated,
        AGENT_CONDITION.bound,
      ].map((type) => ({
        type,
        status: 'Unknown',
        reason: 'NotAvailable',
        message: 'Information not available',
      })),
    );
  });
});
