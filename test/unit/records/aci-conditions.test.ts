import { describe, expect, it } from 'vitest';
import type { ClusterStatus, ValidationsInfo } from '../../../src/core/model.ts';
import {
  type AciConditionInput,
  aciConditionValues,
  type ConditionValue,
} from '../../../src/records/index.ts';

const CLUSTER_STATUSES: ClusterStatus[] = [
  'insufficient',
  'ready',
  'error',
  'preparing-for-installation',
  'pending-for-input',
  'installing',
  'finalizing',
  'installed',
  'adding-hosts',
  'cancelled',
  'installing-pending-user-action',
  'unmonitored',
];

const VALIDATIONS: ValidationsInfo = {
  network: [
    {
      id: 'api-vips-defined',
      status: 'failure',
      message: 'API virtual IPs are undefined and must be provided.',
    },
    { id: 'cluster-cidr-defined', status: 'success', message: 'The Cluster Network CIDR is defined.' },
  ],
  'hosts-data': [
    {
      id: 'sufficient-masters-count',
      status: 'failure',
      message: 'Clusters must have exactly 3 dedicated control plane nodes.',
    },
    {
      id: 'all-hosts-are-ready-to-install',
      status: 'disabled',
      message: 'Validation disabled by configuration',
    },
  ],
};
// Cluster messages list every non-success validation (disabled too), sorted by category then id.
const FAILING =
  'Validation disabled by configuration,Clusters must have exactly 3 dedicated control plane nodes.,' +
  'API virtual IPs are undefined and must be provided.';

const knownApproved = (role: string) => ({
  suggested_role: role as 'master',
  status: 'known' as const,
  approved: true,
});
const READY_HOSTS = [
  knownApproved('master'),
  knownApproved('master'),
  knownApproved('master'),
  knownApproved('worker'),
  knownApproved('worker'),
];

function input(
  status: ClusterStatus,
  overrides: Partial<AciConditionInput> = {},
  cluster: object = {},
): AciConditionInput {
  return {
    cluster: {
      status,
      status_info: 'info text',
      validations_info: VALIDATIONS,
      hosts: READY_HOSTS,
      ...cluster,
    },
    requirements: { controlPlane: 3, workers: 2, arbiters: 0 },
    hold: false,
    unsyncedAgents: 0,
    ...overrides,
  };
}

function byType(values: ConditionValue[]): Record<string, ConditionValue> {
  return Object.fromEntries(values.map((v) => [v.type, v]));
}

const unknown = (status: string) => ({
  status: 'Unknown',
  reason: 'UnknownStatus',
  message: `The installation status is currently not recognized: ${status}`,
});

describe('ACI SpecSynced', () => {
  it.each([
    [undefined, 'True', 'SyncOK', 'SyncOK'],
    [
      { kind: 'input' as const, message: 'x' },
      'False',
      'InputError',
      'The Spec could not be synced due to an input error: x',
    ],
    [
      { kind: 'backend' as const, message: 'y' },
      'False',
      'BackendError',
      'The Spec could not be synced due to backend error: y',
    ],
  ])('%j', (specSyncError, status, reason, message) => {
    const [c] = aciConditionValues(input('ready', specSyncError ? { specSyncError } : {}));
    expect(c).toEqual({ type: 'SpecSynced', status, reason, message });
  });
});

describe('ACI RequirementsMet', () => {
  const expected: Record<string, object> = {
    ready: {
      status: 'True',
      reason: 'ClusterIsReady',
      message: 'The cluster is ready to begin the installation',
    },
    insufficient: {
      status: 'False',
      reason: 'ClusterNotReady',
      message: 'The cluster is not ready to begin the installation',
    },
    'pending-for-input': {
      status: 'False',
      reason: 'ClusterNotReady',
      message: 'The cluster is not ready to begin the installation',
    },
    ...Object.fromEntries(
      [
        'preparing-for-installation',
        'installing',
        'installing-pending-user-action',
        'adding-hosts',
        'finalizing',
      ].map((s) => [
        s,
        { status: 'True', reason: 'ClusterAlreadyInstalling', message: 'The cluster requirements are met' },
      ]),
    ),
    installed: {
      status: 'True',
      reason: 'ClusterInstallationStopped',
      message: 'The cluster installation stopped',
    },
    error: {
      status: 'True',
      reason: 'ClusterInstallationStopped',
      message: 'The cluster installation stopped',
    },
  };
  it.each(CLUSTER_STATUSES)('%s', (status) => {
    expect(byType(aciConditionValues(input(status))).RequirementsMet).toEqual({
      type: 'RequirementsMet',
      ...(expected[status] ?? unknown(status)),
    });
  });

  it('ready with the wrong suggested-role counts → InsufficientAgents (checked first)', () => {
    const hosts = [
      knownApproved('master'),
      knownApproved('master'),
      knownApproved('worker'),
      knownApproved('arbiter'),
    ];
    const c = byType(aciConditionValues(input('ready', { unsyncedAgents: 3 }, { hosts }))).RequirementsMet;
    expect(c).toEqual({
      type: 'RequirementsMet',
      status: 'False',
      reason: 'InsufficientAgents',
      message:
        'The cluster currently requires exactly 3 master agents, 0 arbiter agents and 2 worker agents, but currently registered 2 master agents, 1 arbiter agents and 1 worker agents',
    });
  });

  it('counts hosts in any state by suggested role', () => {
    const hosts = [
      ...READY_HOSTS.slice(0, 4),
      { suggested_role: 'worker' as const, status: 'disconnected' as const, approved: false },
    ];
    const c = byType(aciConditionValues(input('ready', {}, { hosts }))).RequirementsMet;
    expect(c?.reason).toBe('UnapprovedAgents');
  });

  it('ready with unsynced agents → UnsyncedAgents', () => {
    expect(byType(aciConditionValues(input('ready', { unsyncedAgents: 2 }))).RequirementsMet).toEqual({
      type: 'RequirementsMet',
      status: 'False',
      reason: 'UnsyncedAgents',
      message: 'The cluster currently has 2 agents with spec error',
    });
  });

  it('ready with unapproved or not-known agents → UnapprovedAgents (expected − approved known)', () => {
    const hosts = [
      ...READY_HOSTS.slice(0, 3),
      { suggested_role: 'worker' as const, status: 'known' as const, approved: false },
      { suggested_role: 'worker' as const, status: 'insufficient' as const, approved: true },
    ];
    expect(byType(aciConditionValues(input('ready', {}, { hosts }))).RequirementsMet).toEqual({
      type: 'RequirementsMet',
      status: 'False',
      reason: 'UnapprovedAgents',
      message: 'The installation is pending on the approval of 2 agents',
    });
  });

  it('counts arbiters (two nodes plus arbiter)', () => {
    const hosts = [knownApproved('master'), knownApproved('master'), knownApproved('arbiter')];
    const c = byType(
      aciConditionValues({
        ...input('ready', {}, { hosts }),
        requirements: { controlPlane: 2, workers: 0, arbiters: 1 },
      }),
    ).RequirementsMet;
    expect(c?.reason).toBe('ClusterIsReady');
  });
});

describe('ACI Validated', () => {
  it.each(CLUSTER_STATUSES)('%s', (status) => {
    const c = byType(aciConditionValues(input(status))).Validated;
    if (status === 'insufficient')
      expect(c).toEqual({
        type: 'Validated',
        status: 'False',
        reason: 'ValidationsFailing',
        message: `The cluster's validations are failing: ${FAILING}`,
      });
    else if (status === 'pending-for-input')
      expect(c).toEqual({
        type: 'Validated',
        status: 'False',
        reason: 'ValidationsUserPending',
        message: `The cluster's validations are pending for user: ${FAILING}`,
      });
    else
      expect(c).toEqual({
        type: 'Validated',
        status: 'True',
        reason: 'ValidationsPassing',
        message: "The cluster's validations are passing",
      });
  });

  it('without validations: Unknown, except adding-hosts which passes', () => {
    const none = (status: ClusterStatus) =>
      byType(aciConditionValues(input(status, {}, { validations_info: undefined }))).Validated;
    expect(none('ready')).toEqual({
      type: 'Validated',
      status: 'Unknown',
      reason: 'ValidationsUnknown',
      message: "The cluster's validations have not yet been calculated",
    });
    expect(none('adding-hosts')?.reason).toBe('ValidationsPassing');
    expect(none('insufficient')?.reason).toBe('ValidationsFailing');
  });
});

describe('ACI Completed', () => {
  const expected = (status: string): object => {
    switch (status) {
      case 'installed':
      case 'adding-hosts':
        return {
          status: 'True',
          reason: 'InstallationCompleted',
          message: 'The installation has completed: info text',
        };
      case 'error':
        return {
          status: 'False',
          reason: 'InstallationFailed',
          message: 'The installation has failed: info text',
        };
      case 'ready':
      case 'insufficient':
      case 'pending-for-input':
        return {
          status: 'False',
          reason: 'InstallationNotStarted',
          message: 'The installation has not yet started',
        };
      case 'preparing-for-installation':
      case 'installing':
      case 'finalizing':
      case 'installing-pending-user-action':
        return {
          status: 'False',
          reason: 'InstallationInProgress',
          message: 'The installation is in progress: info text',
        };
      default:
        return unknown(status);
    }
  };
  it.each(CLUSTER_STATUSES)('%s', (status) => {
    expect(byType(aciConditionValues(input(status))).Completed).toEqual({
      type: 'Completed',
      ...expected(status),
    });
  });

  it('ready and held → InstallationOnHold', () => {
    expect(byType(aciConditionValues(input('ready', { hold: true }))).Completed).toEqual({
      type: 'Completed',
      status: 'False',
      reason: 'InstallationOnHold',
      message: 'The installation is on hold. To unhold set holdInstallation to false',
    });
    expect(byType(aciConditionValues(input('insufficient', { hold: true }))).Completed?.reason).toBe(
      'InstallationNotStarted',
    );
  });

  it('in progress with a cluster-version status appends it', () => {
    const monitored_operators = [
      { name: 'console', operator_type: 'builtin' as const, status: 'available' as const },
      {
        name: 'cvo',
        operator_type: 'builtin' as const,
        status: 'progressing' as const,
        status_info: 'Working towards 4.16.3: 700 of 900 done (77% complete)',
      },
    ];
    expect(
      byType(aciConditionValues(input('finalizing', {}, { monitored_operators }))).Completed?.message,
    ).toBe(
      'The installation is in progress: info text. Cluster version status: progressing, message: Working towards 4.16.3: 700 of 900 done (77% complete)',
    );
    const noStatus = [{ name: 'cvo', operator_type: 'builtin' as const }];
    expect(
      byType(aciConditionValues(input('installing', {}, { monitored_operators: noStatus }))).Completed
        ?.message,
    ).toBe('The installation is in progress: info text');
  });
});

describe('ACI Failed and Stopped', () => {
  it.each(CLUSTER_STATUSES)('%s', (status) => {
    const c = byType(aciConditionValues(input(status)));
    expect(c.Failed).toEqual(
      status === 'error'
        ? {
            type: 'Failed',
            status: 'True',
            reason: 'InstallationFailed',
            message: 'The installation failed: info text',
          }
        : {
            type: 'Failed',
            status: 'False',
            reason: 'InstallationNotFailed',
            message: 'The installation has not failed',
          },
    );
    const stopped: Record<string, object> = {
      error: {
        status: 'True',
        reason: 'InstallationFailed',
        message: 'The installation has stopped due to error',
      },
      cancelled: {
        status: 'True',
        reason: 'InstallationCancelled',
        message: 'The installation has stopped because it was cancelled',
      },
      installed: {
        status: 'True',
        reason: 'InstallationCompleted',
        message: 'The installation has stopped because it completed successfully',
      },
      'adding-hosts': {
        status: 'True',
        reason: 'InstallationCompleted',
        message: 'The installation has stopped because it completed successfully',
      },
    };
    expect(c.Stopped).toEqual({
      type: 'Stopped',
      ...(stopped[status] ?? {
        status: 'False',
        reason: 'InstallationNotStopped',
        message: 'The installation is waiting to start or in progress',
      }),
    });
  });
});

describe('ACI LastInstallationPreparationFailed', () => {
  const lipf = (last: object | undefined) =>
    byType(aciConditionValues(input('installing', {}, { last_installation_preparation: last })))
      .LastInstallationPreparationFailed;

  it('never performed → False with a sentence reason and empty message', () => {
    expect(lipf(undefined)).toEqual({
      type: 'LastInstallationPreparationFailed',
      status: 'False',
      reason: 'Cluster preparation has never been performed for this cluster',
      message: '',
    });
  });
  it('success → False, no failing prior attempt', () => {
    expect(lipf({ status: 'success', reason: '' })).toEqual({
      type: 'LastInstallationPreparationFailed',
      status: 'False',
      reason: 'There is no failing prior preparation attempt',
      message: '',
    });
  });
  it('failed → True with the failure reason as message', () => {
    expect(lipf({ status: 'failed', reason: 'failed to generate ignition: boom' })).toEqual({
      type: 'LastInstallationPreparationFailed',
      status: 'True',
      reason: 'The last installation preparation failed',
      message: 'failed to generate ignition: boom',
    });
  });
  it('not_started → not set (left as it is)', () => {
    expect(lipf({ status: 'not_started', reason: '' })).toBeUndefined();
  });
});

describe('ACI order and Unknown set', () => {
  it('appends in upstream order', () => {
    expect(aciConditionValues(input('ready')).map((c) => c.type)).toEqual([
      'SpecSynced',
      'RequirementsMet',
      'Validated',
      'Completed',
      'Failed',
      'Stopped',
      'LastInstallationPreparationFailed',
    ]);
  });

  it('without a cluster: five Unknown/NotAvailable plus SpecSynced', () => {
    const values = aciConditionValues({
      ...input('ready'),
      cluster: undefined,
      specSyncError: { kind: 'backend', message: 'x' },
    });
    expect(values[0]?.reason).toBe('BackendError');
    expect(values.slice(1)).toEqual(
      ['Validated', 'RequirementsMet', 'Completed', 'Failed', 'Stopped'].map((type) => ({
        type,
        status: 'Unknown',
        reason: 'NotAvailable',
        message: 'Information not available',
      })),
    );
  });
});
