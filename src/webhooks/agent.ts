// Agent admission rules (kubeapi.md §1.8 "Agent", plus the stricter rule of the spec README).
//
// Upstream rules, kept with their messages:
// * installation_disk_id and installation_disk_path both set → rejected. Upstream registers the
//   Agent webhook for UPDATE only; we check CREATE too.
// * spec.clusterDeploymentName changed while the host is installing → rejected, unless it is
//   cleared on a day-2 host (kind AddToExistingClusterHost): that cancels the day-2 install.
//
// Stricter than upstream: hostname, role, installation disk, machine config pool and node labels
// are not applied to a host once its installation has started (upstream drops such edits
// silently, kubeapi.md §7.8), so the edit is rejected with a message saying so. Changing the
// binding in the same update is allowed: the edits then apply when the host is bound again.

import type { Agent } from '../api/agent.ts';
import { HOST_INSTALL_STARTED_STATUSES, HOST_INSTALLING_STATUSES } from '../core/statemachine/hostutil.ts';
import {
  type AdmissionResult,
  allow,
  type DeepPartial,
  deny,
  isObject,
  jsonEqual,
  type Operation,
  str,
} from './types.ts';

/** Host states during which the cluster binding must not change (upstream's list). */
export const AGENT_INSTALLING_STATES: ReadonlySet<string> = new Set(HOST_INSTALLING_STATUSES);

/** Host states in which installation has started and host settings are no longer applied. */
export const AGENT_INSTALL_STARTED_STATES: ReadonlySet<string> = new Set(HOST_INSTALL_STARTED_STATUSES);

export const AGENT_DAY2_KIND = 'AddToExistingClusterHost';

export const AGENT_DISK_MESSAGE = 'Either InstallationDiskID or InstallationDiskPath can be set, not both.';
export const AGENT_CLUSTER_DEPLOYMENT_MESSAGE =
  'Attempted to change Spec.ClusterDeploymentName which is immutable during Agent installation.';

/** Spec fields whose edits the backend ignores once installation started, with their Go names. */
const FROZEN_AFTER_INSTALL_START: ReadonlyArray<[keyof Agent['spec'], string]> = [
  ['hostname', 'Spec.Hostname'],
  ['role', 'Spec.Role'],
  ['installation_disk_id', 'Spec.InstallationDiskID'],
  ['installation_disk_path', 'Spec.InstallationDiskPath'],
  ['machineConfigPool', 'Spec.MachineConfigPool'],
  ['nodeLabels', 'Spec.NodeLabels'],
];

export function agentFrozenFieldsMessage(fields: string[], state: string): string {
  const verb = fields.length === 1 ? 'is' : 'are';
  return (
    `Attempted to change ${fields.join(', ')} which ${verb} immutable after Agent installation has started ` +
    `(state: ${state}). The change would not be applied to the host.`
  );
}

export interface AgentValidationOptions {
  /**
   * Apply the stricter-than-upstream rule on edits after installation started. Default true;
   * the handler turns it off for the operator's own requests.
   */
  strict?: boolean;
}

type AgentInput = DeepPartial<Agent>;

function bindingOf(a: AgentInput | undefined): { name: string; namespace: string } | undefined {
  const ref = a?.spec?.clusterDeploymentName;
  if (!isObject(ref)) return undefined;
  return { name: str(ref.name), namespace: str(ref.namespace) };
}

function sameBinding(a: AgentInput | undefined, b: AgentInput | undefined): boolean {
  const x = bindingOf(a);
  const y = bindingOf(b);
  if (!x || !y) return x === y;
  return x.name === y.name && x.namespace === y.namespace;
}

export function validateAgent(
  operation: Operation,
  newObj: AgentInput,
  oldObj?: AgentInput,
  opts: AgentValidationOptions = {},
): AdmissionResult {
  // Metadata-only updates (finalizers, labels, annotations) are not judged again.
  if (operation === 'UPDATE' && oldObj && jsonEqual(newObj.spec, oldObj.spec)) return allow();
  const spec = newObj.spec ?? {};
  if (str(spec.installation_disk_id) !== '' && str(spec.installation_disk_path) !== '') {
    return deny(AGENT_DISK_MESSAGE);
  }
  if (operation !== 'UPDATE' || !oldObj) return allow();

  const state = str(newObj.status?.debugInfo?.state);
  if (!sameBinding(newObj, oldObj) && AGENT_INSTALLING_STATES.has(state)) {
    const cancellingDay2 = bindingOf(newObj) === undefined && newObj.status?.kind === AGENT_DAY2_KIND;
    if (!cancellingDay2) return deny(AGENT_CLUSTER_DEPLOYMENT_MESSAGE);
  }

  if ((opts.strict ?? true) && AGENT_INSTALL_STARTED_STATES.has(state) && sameBinding(newObj, oldObj)) {
    const oldSpec = oldObj.spec ?? {};
    const changed = FROZEN_AFTER_INSTALL_START.filter(([k]) => !jsonEqual(spec[k], oldSpec[k])).map(
      ([, name]) => name,
    );
    if (changed.length > 0) return deny(agentFrozenFieldsMessage(changed, state));
  }
  return allow();
}
