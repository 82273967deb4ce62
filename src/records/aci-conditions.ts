// AgentClusterInstall conditions (kubeapi.md §2.1): type, status, reason and exact message for
// every backend cluster state. Order of first appearance: SpecSynced, RequirementsMet, Validated,
// Completed, Failed, Stopped, LastInstallationPreparationFailed.

import type { Cluster, Host } from '../core/model.ts';
import { type SpecSyncError, specSyncedCondition } from './agent-conditions.ts';
import type { ProvisionCounts } from './cluster-spec.ts';
import { type ConditionValue, unknownStatus } from './conditions.ts';
import { hasValidations, sortedFailingValidationMessages } from './validation-messages.ts';

export const ACI_CONDITION = {
  specSynced: 'SpecSynced',
  requirementsMet: 'RequirementsMet',
  validated: 'Validated',
  completed: 'Completed',
  failed: 'Failed',
  stopped: 'Stopped',
  lastInstallationPreparationFailed: 'LastInstallationPreparationFailed',
} as const;

/** Name of the cluster-version operator among the monitored operators. */
export const CLUSTER_VERSION_OPERATOR = 'cvo';

type ConditionHost = Pick<Host, 'suggested_role' | 'status'> & { approved: boolean };

export interface AciConditionInput {
  /** Undefined when there is no cluster record (the "Unknown set"). */
  cluster:
    | (Pick<
        Cluster,
        | 'status'
        | 'status_info'
        | 'validations_info'
        | 'last_installation_preparation'
        | 'monitored_operators'
      > & { hosts: readonly ConditionHost[] })
    | undefined;
  requirements: ProvisionCounts;
  /** holdInstallation, or the ClusterDeployment's reconcile-pause annotation. */
  hold: boolean;
  /** Agents of this ClusterDeployment whose SpecSynced is False. */
  unsyncedAgents: number;
  specSyncError?: SpecSyncError;
}

export function aciSpecSyncedCondition(error: SpecSyncError | undefined): ConditionValue {
  // Upstream uses the reason as the message here (kubeapi.md §2.8).
  return specSyncedCondition(ACI_CONDITION.specSynced, error, 'SyncOK');
}

function countSuggested(hosts: readonly ConditionHost[], role: string): number {
  return hosts.filter((h) => h.suggested_role === role).length;
}

function requirementsMet(input: AciConditionInput, status: string): ConditionValue {
  const type = ACI_CONDITION.requirementsMet;
  const hosts = input.cluster?.hosts ?? [];
  const req = input.requirements;
  switch (status) {
    case 'ready': {
      const masters = countSuggested(hosts, 'master');
      const arbiters = countSuggested(hosts, 'arbiter');
      const workers = countSuggested(hosts, 'worker');
      if (masters !== req.controlPlane || arbiters !== req.arbiters || workers !== req.workers) {
        return {
          type,
          status: 'False',
          reason: 'InsufficientAgents',
          message:
            `The cluster currently requires exactly ${req.controlPlane} master agents, ${req.arbiters} arbiter agents ` +
            `and ${req.workers} worker agents, but currently registered ${masters} master agents, ${arbiters} arbiter ` +
            `agents and ${workers} worker agents`,
        };
      }
      if (input.unsyncedAgents > 0) {
        return {
          type,
          status: 'False',
          reason: 'UnsyncedAgents',
          message: `The cluster currently has ${input.unsyncedAgents} agents with spec error`,
        };
      }
      const expected = req.controlPlane + req.arbiters + req.workers;
      const approved = hosts.filter((h) => h.status === 'known' && h.approved).length;
      if (approved < expected) {
        return {
          type,
          status: 'False',
          reason: 'UnapprovedAgents',
          message: `The installation is pending on the approval of ${expected - approved} agents`,
        };
      }
      return {
        type,
        status: 'True',
        reason: 'ClusterIsReady',
        message: 'The cluster is ready to begin the installation',
      };
    }
    case 'insufficient':
    case 'pending-for-input':
      return {
        type,
        status: 'False',
        reason: 'ClusterNotReady',
        message: 'The cluster is not ready to begin the installation',
      };
    case 'preparing-for-installation':
    case 'installing':
    case 'installing-pending-user-action':
    case 'adding-hosts':
    case 'finalizing':
      return {
        type,
        status: 'True',
        reason: 'ClusterAlreadyInstalling',
        message: 'The cluster requirements are met',
      };
    case 'installed':
    case 'error':
      return {
        type,
        status: 'True',
        reason: 'ClusterInstallationStopped',
        message: 'The cluster installation stopped',
      };
    default:
      return unknownStatus(type, status);
  }
}

/** Cluster validation messages list everything that is not `success`. */
const CLUSTER_PASSING_VALIDATIONS = ['success'];

function validated(cluster: NonNullable<AciConditionInput['cluster']>): ConditionValue {
  const type = ACI_CONDITION.validated;
  const failing = () =>
    sortedFailingValidationMessages(cluster.validations_info, CLUSTER_PASSING_VALIDATIONS).join(',');
  if (cluster.status === 'insufficient') {
    return {
      type,
      status: 'False',
      reason: 'ValidationsFailing',
      message: `The cluster's validations are failing: ${failing()}`,
    };
  }
  if (cluster.status === 'pending-for-input') {
    return {
      type,
      status: 'False',
      reason: 'ValidationsUserPending',
      message: `The cluster's validations are pending for user: ${failing()}`,
    };
  }
  if (cluster.status === 'adding-hosts' || hasValidations(cluster.validations_info)) {
    return {
      type,
      status: 'True',
      reason: 'ValidationsPassing',
      message: "The cluster's validations are passing",
    };
  }
  return {
    type,
    status: 'Unknown',
    reason: 'ValidationsUnknown',
    message: "The cluster's validations have not yet been calculated",
  };
}

/** `. Cluster version status: <status>, message: <info>` once the CVO reported a status. */
function clusterVersionSuffix(cluster: NonNullable<AciConditionInput['cluster']>): string {
  const cvo = cluster.monitored_operators?.find((o) => o.name === CLUSTER_VERSION_OPERATOR);
  if (!cvo?.status) return '';
  return `. Cluster version status: ${cvo.status}, message: ${cvo.status_info ?? ''}`;
}

function completed(
  input: AciConditionInput,
  cluster: NonNullable<AciConditionInput['cluster']>,
): ConditionValue {
  const type = ACI_CONDITION.completed;
  const info = cluster.status_info;
  switch (cluster.status) {
    case 'installed':
    case 'adding-hosts':
      return {
        type,
        status: 'True',
        reason: 'InstallationCompleted',
        message: `The installation has completed: ${info}`,
      };
    case 'error':
      return {
        type,
        status: 'False',
        reason: 'InstallationFailed',
        message: `The installation has failed: ${info}`,
      };
    case 'ready':
      if (input.hold) {
        return {
          type,
          status: 'False',
          reason: 'InstallationOnHold',
          message: 'The installation is on hold. To unhold set holdInstallation to false',
        };
      }
      return {
        type,
        status: 'False',
        reason: 'InstallationNotStarted',
        message: 'The installation has not yet started',
      };
    case 'insufficient':
    case 'pending-for-input':
      return {
        type,
        status: 'False',
        reason: 'InstallationNotStarted',
        message: 'The installation has not yet started',
      };
    case 'preparing-for-installation':
    case 'installing':
    case 'finalizing':
    case 'installing-pending-user-action':
      return {
        type,
        status: 'False',
        reason: 'InstallationInProgress',
        message: `The installation is in progress: ${info}${clusterVersionSuffix(cluster)}`,
      };
    default:
      return unknownStatus(type, cluster.status);
  }
}

function failed(cluster: NonNullable<AciConditionInput['cluster']>): ConditionValue {
  const type = ACI_CONDITION.failed;
  if (cluster.status === 'error') {
    return {
      type,
      status: 'True',
      reason: 'InstallationFailed',
      message: `The installation failed: ${cluster.status_info}`,
    };
  }
  return {
    type,
    status: 'False',
    reason: 'InstallationNotFailed',
    message: 'The installation has not failed',
  };
}

function stopped(status: string): ConditionValue {
  const type = ACI_CONDITION.stopped;
  switch (status) {
    case 'error':
      return {
        type,
        status: 'True',
        reason: 'InstallationFailed',
        message: 'The installation has stopped due to error',
      };
    case 'cancelled':
      return {
        type,
        status: 'True',
        reason: 'InstallationCancelled',
        message: 'The installation has stopped because it was cancelled',
      };
    case 'installed':
    case 'adding-hosts':
      return {
        type,
        status: 'True',
        reason: 'InstallationCompleted',
        message: 'The installation has stopped because it completed successfully',
      };
    default:
      return {
        type,
        status: 'False',
        reason: 'InstallationNotStopped',
        message: 'The installation is waiting to start or in progress',
      };
  }
}

/** Undefined for `not_started`: upstream leaves the condition as it is (or absent). */
function lastInstallationPreparationFailed(
  cluster: NonNullable<AciConditionInput['cluster']>,
): ConditionValue | undefined {
  const type = ACI_CONDITION.lastInstallationPreparationFailed;
  const last = cluster.last_installation_preparation;
  switch (last?.status ?? '') {
    case 'not_started':
      return undefined;
    case 'success':
      return { type, status: 'False', reason: 'There is no failing prior preparation attempt', message: '' };
    case 'failed':
      return {
        type,
        status: 'True',
        reason: 'The last installation preparation failed',
        message: last?.reason ?? '',
      };
    default:
      return {
        type,
        status: 'False',
        reason: 'Cluster preparation has never been performed for this cluster',
        message: '',
      };
  }
}

const NOT_AVAILABLE = {
  status: 'Unknown',
  reason: 'NotAvailable',
  message: 'Information not available',
} as const;

/** Every ACI condition for a cluster, in upstream's order (see AciConditionInput.cluster). */
export function aciConditionValues(input: AciConditionInput): ConditionValue[] {
  const specSynced = aciSpecSyncedCondition(input.specSyncError);
  const cluster = input.cluster;
  if (!cluster) {
    return [
      specSynced,
      { type: ACI_CONDITION.validated, ...NOT_AVAILABLE },
      { type: ACI_CONDITION.requirementsMet, ...NOT_AVAILABLE },
      { type: ACI_CONDITION.completed, ...NOT_AVAILABLE },
      { type: ACI_CONDITION.failed, ...NOT_AVAILABLE },
      { type: ACI_CONDITION.stopped, ...NOT_AVAILABLE },
    ];
  }
  const values = [
    specSynced,
    requirementsMet(input, cluster.status),
    validated(cluster),
    completed(input, cluster),
    failed(cluster),
    stopped(cluster.status),
  ];
  const preparation = lastInstallationPreparationFailed(cluster);
  return preparation ? [...values, preparation] : values;
}
