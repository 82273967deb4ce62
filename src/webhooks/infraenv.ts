// InfraEnv admission rules (kubeapi.md §1.8 "InfraEnv").
//
// * CREATE: clusterRef and osImageVersion are mutually exclusive.
// * UPDATE: clusterRef cannot be added, removed or changed; cpuArchitecture cannot change ('' and
//   unset count as x86_64); osImageVersion cannot be newly added next to a clusterRef (present on
//   both versions) unless the referenced ClusterDeployment has spec.installed=true.
//
// The last rule needs the ClusterDeployment. To keep the validator pure, the caller first asks
// `infraEnvClusterDeploymentToCheck` which ClusterDeployment (if any) must be read, reads it, and
// passes the outcome as `clusterInstalled` (a failed read counts as not installed).

import type { InfraEnv } from '../api/infraenv.ts';
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

type InfraEnvInput = DeepPartial<InfraEnv>;

export const INFRAENV_CLUSTER_REF_AND_OS_IMAGE_MESSAGE =
  'Either Spec.ClusterRef or Spec.OSImageVersion should be specified (not both).';
export const INFRAENV_CLUSTER_REF_MESSAGE =
  'Attempted to change Spec.ClusterRef which is immutable after InfraEnv creation.';
export const INFRAENV_CPU_ARCHITECTURE_MESSAGE =
  'Attempted to change Spec.CpuArchitecture which is immutable after InfraEnv creation.';
export const INFRAENV_OS_IMAGE_VERSION_MESSAGE =
  "spec.OSImageVersion is not valid. It can't be added alongside with a clusterRef when the cluster is not installed yet.";

/** Upper bound for reading the ClusterDeployment of the osImageVersion rule. */
export const INFRAENV_CLUSTER_DEPLOYMENT_TIMEOUT_MS = 5000;

function clusterRefOf(ie: InfraEnvInput | undefined): { name: string; namespace: string } | undefined {
  const ref = ie?.spec?.clusterRef;
  return isObject(ref) ? { name: str(ref.name), namespace: str(ref.namespace) } : undefined;
}

function architecture(ie: InfraEnvInput | undefined): string {
  return str(ie?.spec?.cpuArchitecture) || 'x86_64';
}

/**
 * The ClusterDeployment whose spec.installed decides the osImageVersion rule for this request,
 * or undefined when the rule does not apply.
 */
export function infraEnvClusterDeploymentToCheck(
  operation: Operation,
  newObj: InfraEnvInput,
  oldObj?: InfraEnvInput,
): { namespace: string; name: string } | undefined {
  if (operation !== 'UPDATE' || !oldObj) return undefined;
  const newRef = clusterRefOf(newObj);
  if (!newRef || !clusterRefOf(oldObj)) return undefined;
  const added = str(newObj.spec?.osImageVersion) !== '' && str(oldObj.spec?.osImageVersion) === '';
  return added ? newRef : undefined;
}

export interface InfraEnvValidationContext {
  /** spec.installed of the ClusterDeployment named by infraEnvClusterDeploymentToCheck. */
  clusterInstalled?: boolean;
}

export function validateInfraEnv(
  operation: Operation,
  newObj: InfraEnvInput,
  oldObj?: InfraEnvInput,
  ctx: InfraEnvValidationContext = {},
): AdmissionResult {
  if (operation === 'CREATE' || !oldObj) {
    if (clusterRefOf(newObj) && str(newObj.spec?.osImageVersion) !== '') {
      return deny(INFRAENV_CLUSTER_REF_AND_OS_IMAGE_MESSAGE);
    }
    return allow();
  }
  // Metadata-only updates (finalizers, labels) are not judged again.
  if (jsonEqual(newObj.spec, oldObj.spec)) return allow();
  const a = clusterRefOf(oldObj);
  const b = clusterRefOf(newObj);
  if (
    (a === undefined) !== (b === undefined) ||
    (a && b && (a.name !== b.name || a.namespace !== b.namespace))
  ) {
    return deny(INFRAENV_CLUSTER_REF_MESSAGE);
  }
  if (architecture(oldObj) !== architecture(newObj)) return deny(INFRAENV_CPU_ARCHITECTURE_MESSAGE);
  if (infraEnvClusterDeploymentToCheck(operation, newObj, oldObj) && ctx.clusterInstalled !== true) {
    return deny(INFRAENV_OS_IMAGE_VERSION_MESSAGE);
  }
  return allow();
}
