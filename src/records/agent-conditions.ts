// Agent conditions (kubeapi.md §2.2): type, status, reason and exact message for every backend
// host state. Order of first appearance follows upstream's reconciler: SpecSynced, Connected,
// RequirementsMet, Validated, Installed, Bound.

import type { Host, HostStatus } from '../core/model.ts';
import { type ConditionValue, unknownStatus } from './conditions.ts';
import { hasValidations, sortedFailingValidationMessages } from './validation-messages.ts';

export const AGENT_CONDITION = {
  specSynced: 'SpecSynced',
  connected: 'Connected',
  requirementsMet: 'RequirementsMet',
  validated: 'Validated',
  installed: 'Installed',
  bound: 'Bound',
  cleanup: 'Cleanup',
} as const;

/** A spec that could not be applied: `input` for user errors (4xx), `backend` otherwise. */
export interface SpecSyncError {
  kind: 'input' | 'backend';
  message: string;
}

const BINDING_MESSAGE = 'The agent is currently binding to a cluster deployment';
const UNBINDING_MESSAGE = 'The agent is currently unbinding from a cluster deployment';
const NOT_AVAILABLE = { reason: 'NotAvailable', message: 'Information not available' } as const;

function isIn(status: HostStatus, list: readonly HostStatus[]): boolean {
  return list.includes(status);
}

/**
 * The SpecSynced condition every CR shares: True/SyncOK with `okMessage`, else InputError or
 * BackendError with the same message prefixes upstream uses for Agents and ACIs.
 */
export function specSyncedCondition(
  type: string,
  error: SpecSyncError | undefined,
  okMessage: string,
): ConditionValue {
  if (!error) return { type, status: 'True', reason: 'SyncOK', message: okMessage };
  if (error.kind === 'input') {
    return {
      type,
      status: 'False',
      reason: 'InputError',
      message: `The Spec could not be synced due to an input error: ${error.message}`,
    };
  }
  return {
    type,
    status: 'False',
    reason: 'BackendError',
    message: `The Spec could not be synced due to backend error: ${error.message}`,
  };
}

export function agentSpecSyncedCondition(error: SpecSyncError | undefined): ConditionValue {
  return specSyncedCondition(AGENT_CONDITION.specSynced, error, 'The Spec has been successfully applied');
}

function connected(status: HostStatus): ConditionValue {
  const type = AGENT_CONDITION.connected;
  if (isIn(status, ['disconnected', 'disconnected-unbound'])) {
    return {
      type,
      status: 'False',
      reason: 'AgentIsDisconnected',
      message:
        'The agent has not contacted the installation service in some time, user action should be taken',
    };
  }
  return {
    type,
    status: 'True',
    reason: 'AgentIsConnected',
    message: "The agent's connection to the installation service is unimpaired",
  };
}

const ALREADY_INSTALLING: readonly HostStatus[] = [
  'preparing-for-installation',
  'preparing-successful',
  'installing',
  'installing-in-progress',
  'installing-pending-user-action',
];

function requirementsMet(status: HostStatus, approved: boolean): ConditionValue {
  const type = AGENT_CONDITION.requirementsMet;
  if (isIn(status, ['known', 'known-unbound'])) {
    return approved
      ? {
          type,
          status: 'True',
          reason: 'AgentIsReady',
          message: 'The agent is ready to begin the installation',
        }
      : { type, status: 'False', reason: 'AgentIsNotApproved', message: 'The agent is not approved' };
  }
  if (
    isIn(status, [
      'insufficient',
      'disconnected',
      'insufficient-unbound',
      'disconnected-unbound',
      'discovering-unbound',
      'discovering',
      'pending-for-input',
    ])
  ) {
    return {
      type,
      status: 'False',
      reason: 'AgentNotReady',
      message: 'The agent is not ready to begin the installation',
    };
  }
  if (isIn(status, ALREADY_INSTALLING)) {
    return {
      type,
      status: 'True',
      reason: 'AgentAlreadyInstalling',
      message: 'Installation already started and is in progress',
    };
  }
  if (isIn(status, ['installed', 'error', 'added-to-existing-cluster'])) {
    return {
      type,
      status: 'True',
      reason: 'AgentInstallationStopped',
      message: 'The agent installation stopped',
    };
  }
  if (status === 'binding') return { type, status: 'False', reason: 'Binding', message: BINDING_MESSAGE };
  if (isIn(status, ['unbinding', 'unbinding-pending-user-action'])) {
    return { type, status: 'False', reason: 'Unbinding', message: UNBINDING_MESSAGE };
  }
  return unknownStatus(type, status);
}

/** Upstream leaves out successful and disabled validations when listing an Agent's problems. */
const AGENT_PASSING_VALIDATIONS = ['success', 'disabled'];

function validated(host: Pick<Host, 'status' | 'validations_info'>): ConditionValue {
  const type = AGENT_CONDITION.validated;
  const status = host.status;
  if (status === 'binding') return { type, status: 'False', reason: 'Binding', message: BINDING_MESSAGE };
  if (isIn(status, ['unbinding', 'unbinding-pending-user-action'])) {
    return { type, status: 'False', reason: 'Unbinding', message: UNBINDING_MESSAGE };
  }
  const failing = () =>
    sortedFailingValidationMessages(host.validations_info, AGENT_PASSING_VALIDATIONS).join(',');
  if (isIn(status, ['insufficient', 'insufficient-unbound'])) {
    return {
      type,
      status: 'False',
      reason: 'ValidationsFailing',
      message: `The agent's validations are failing: ${failing()}`,
    };
  }
  if (status === 'pending-for-input') {
    return {
      type,
      status: 'False',
      reason: 'ValidationsUserPending',
      message: `The agent's validations are pending for user: ${failing()}`,
    };
  }
  if (!hasValidations(host.validations_info)) {
    return {
      type,
      status: 'Unknown',
      reason: 'ValidationsUnknown',
      message: "The agent's validations have not yet been calculated",
    };
  }
  return {
    type,
    status: 'True',
    reason: 'ValidationsPassing',
    message: "The agent's validations are passing",
  };
}

function installed(status: HostStatus, statusInfo: string): ConditionValue {
  const type = AGENT_CONDITION.installed;
  if (isIn(status, ['installed', 'added-to-existing-cluster'])) {
    return {
      type,
      status: 'True',
      reason: 'InstallationCompleted',
      message: `The installation has completed: ${statusInfo}`,
    };
  }
  if (status === 'error') {
    return {
      type,
      status: 'False',
      reason: 'InstallationFailed',
      message: `The installation has failed: ${statusInfo}`,
    };
  }
  if (
    isIn(status, [
      'insufficient',
      'insufficient-unbound',
      'disconnected',
      'disconnected-unbound',
      'discovering',
      'discovering-unbound',
      'known',
      'known-unbound',
      'pending-for-input',
    ])
  ) {
    return {
      type,
      status: 'False',
      reason: 'InstallationNotStarted',
      message: 'The installation has not yet started',
    };
  }
  if (isIn(status, ALREADY_INSTALLING)) {
    return {
      type,
      status: 'False',
      reason: 'InstallationInProgress',
      message: `The installation is in progress: ${statusInfo}`,
    };
  }
  if (status === 'binding') return { type, status: 'False', reason: 'Binding', message: BINDING_MESSAGE };
  if (isIn(status, ['unbinding', 'unbinding-pending-user-action'])) {
    return { type, status: 'False', reason: 'Unbinding', message: UNBINDING_MESSAGE };
  }
  return unknownStatus(type, status);
}

function bound(status: HostStatus): ConditionValue {
  const type = AGENT_CONDITION.bound;
  if (status === 'binding') return { type, status: 'False', reason: 'Binding', message: BINDING_MESSAGE };
  if (status === 'unbinding')
    return { type, status: 'False', reason: 'Unbinding', message: UNBINDING_MESSAGE };
  if (status === 'unbinding-pending-user-action') {
    return {
      type,
      status: 'False',
      reason: 'UnbindingPendingUserAction',
      message: 'The agent is currently unbinding; Pending host reboot from infraenv image',
    };
  }
  if (
    isIn(status, [
      'disconnected-unbound',
      'known-unbound',
      'insufficient-unbound',
      'disabled-unbound',
      'discovering-unbound',
    ])
  ) {
    return {
      type,
      status: 'False',
      reason: 'Unbound',
      message: 'The agent is not bound to any cluster deployment',
    };
  }
  return { type, status: 'True', reason: 'Bound', message: 'The agent is bound to a cluster deployment' };
}

/**
 * Every Agent condition for a host, in upstream's order. Without a host (`undefined`) the five
 * host-derived conditions are Unknown/NotAvailable ("Unknown set").
 */
export function agentConditionValues(
  host: Pick<Host, 'status' | 'status_info' | 'validations_info'> | undefined,
  approved: boolean,
  specSyncError: SpecSyncError | undefined,
): ConditionValue[] {
  const specSynced = agentSpecSyncedCondition(specSyncError);
  if (!host) {
    return [
      specSynced,
      // Upstream's order for the Unknown set.
      ...[
        AGENT_CONDITION.installed,
        AGENT_CONDITION.connected,
        AGENT_CONDITION.requirementsMet,
        AGENT_CONDITION.validated,
        AGENT_CONDITION.bound,
      ].map((type) => ({ type, status: 'Unknown' as const, ...NOT_AVAILABLE })),
    ];
  }
  return [
    specSynced,
    connected(host.status),
    requirementsMet(host.status, approved),
    validated(host),
    installed(host.status, host.status_info),
    bound(host.status),
  ];
}
