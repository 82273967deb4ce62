// AgentClusterInstall admission rules (kubeapi.md §1.8 "ACI validating" and "ACI mutating").
//
// Validating, CREATE:
// * single-node (1 control plane agent, 0 workers) with networking.userManagedNetworking false
//   → 409 "UserManagedNetworking must be set to true with SNO";
// * platform / user-managed networking compatibility, with the backend's rules and messages → 409.
// Validating, UPDATE:
// * imageSetRef added, removed or renamed → 400 (even before the installation starts);
// * the two CREATE checks, on the new values falling back to the old ones → 409;
// * once the installation started (Completed condition reason InstallationInProgress,
//   InstallationCompleted or InstallationFailed) any spec change is rejected except in
//   clusterMetadata and ignitionEndpoint (and provisionRequirements once completed or failed) → 400.
//   Empty and unset values are equal; the message lists every differing path.
//
// Mutating (CREATE and UPDATE): while the installation has not started and the object is not being
// deleted, an unset networking.userManagedNetworking is defaulted from the platform and size.
// Upstream emits a JSON-patch `replace`, which fails on a missing member; we emit `add` (which
// also replaces) and create spec.networking when it is missing.

import type { AgentClusterInstall } from '../api/agentclusterinstall.ts';
import type { PlatformType as CorePlatformType } from '../core/model.ts';
import { resolvePlatform } from '../core/network/platform.ts';
import { diffJson, formatDiffs } from './diff.ts';
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

type AciInput = DeepPartial<AgentClusterInstall>;

export const ACI_SNO_UMN_MESSAGE = 'UserManagedNetworking must be set to true with SNO';
export const ACI_IMAGE_SET_REF_MESSAGE =
  'Attempted to change AgentClusterInstall.ImageSetRef which is immutable';
export const ACI_MUTABLE_AFTER_INSTALL_FIELDS = ['ClusterMetadata', 'IgnitionEndpoint'] as const;
export const ACI_SPEC_IMMUTABLE_PREFIX =
  'Attempted to change AgentClusterInstall.Spec which is immutable after install started, except for ' +
  `${ACI_MUTABLE_AFTER_INSTALL_FIELDS.join(',')} fields. Unsupported change: \n`;

/** Completed condition reasons meaning the installation has started. */
export const ACI_INSTALL_STARTED_REASONS: ReadonlySet<string> = new Set([
  'InstallationInProgress',
  'InstallationCompleted',
  'InstallationFailed',
]);
/** Completed condition reasons after which provisionRequirements may change again. */
export const ACI_INSTALL_ENDED_REASONS: ReadonlySet<string> = new Set([
  'InstallationCompleted',
  'InstallationFailed',
]);

/** The reason of the Completed condition, '' when there is none. */
export function completedReason(aci: AciInput): string {
  const conditions = aci.status?.conditions;
  if (!Array.isArray(conditions)) return '';
  return str(conditions.find((c) => c?.type === 'Completed')?.reason);
}

export function installStarted(aci: AciInput): boolean {
  return ACI_INSTALL_STARTED_REASONS.has(completedReason(aci));
}

function controlPlaneAgents(aci: AciInput): number {
  const n = aci.spec?.provisionRequirements?.controlPlaneAgents;
  return typeof n === 'number' ? n : 0;
}

function workerAgents(aci: AciInput): number {
  const n = aci.spec?.provisionRequirements?.workerAgents;
  return typeof n === 'number' ? n : 0;
}

/** Single-node OpenShift: one control plane agent and no workers. */
export function isSno(aci: AciInput): boolean {
  return controlPlaneAgents(aci) === 1 && workerAgents(aci) === 0;
}

function userManagedNetworking(aci: AciInput | undefined): boolean | undefined {
  const v = aci?.spec?.networking?.userManagedNetworking;
  return typeof v === 'boolean' ? v : undefined;
}

const PLATFORMS: Record<string, CorePlatformType | undefined> = {
  BareMetal: 'baremetal',
  None: 'none',
  VSphere: 'vsphere',
  Nutanix: 'nutanix',
  External: 'external',
};

function platformOf(aci: AciInput | undefined): CorePlatformType | undefined {
  return PLATFORMS[str(aci?.spec?.platformType)];
}

/** The backend's platform/UMN compatibility check; its error message, or undefined. */
function platformError(
  controlPlaneCount: number,
  platform: CorePlatformType | undefined,
  umn: boolean | undefined,
): string | undefined {
  return resolvePlatform({ control_plane_count: controlPlaneCount, platform, user_managed_networking: umn })
    .error;
}

function deprecatedFieldWarnings(aci: AciInput): string[] {
  const spec = aci.spec ?? {};
  const warnings: string[] = [];
  const has = (v: unknown) => (Array.isArray(v) ? v.length > 0 : v !== undefined && v !== null && v !== '');
  if (has(spec.apiVIP) && has(spec.apiVIPs))
    warnings.push('spec.apiVIP is deprecated and ignored because spec.apiVIPs is set');
  if (has(spec.ingressVIP) && has(spec.ingressVIPs)) {
    warnings.push('spec.ingressVIP is deprecated and ignored because spec.ingressVIPs is set');
  }
  if (spec.manifestsConfigMapRef && Array.isArray(spec.manifestsConfigMapRefs)) {
    warnings.push(
      'spec.manifestsConfigMapRef is deprecated and ignored because spec.manifestsConfigMapRefs is set',
    );
  }
  return warnings;
}

function imageSetRefChanged(a: AciInput, b: AciInput): boolean {
  const x = a.spec?.imageSetRef;
  const y = b.spec?.imageSetRef;
  const hx = isObject(x);
  const hy = isObject(y);
  if (hx !== hy) return true;
  return hx && hy && str(x.name) !== str(y.name);
}

const POINTER_PATHS: ReadonlySet<string> = new Set(['networking.userManagedNetworking']);

export function validateAgentClusterInstall(
  operation: Operation,
  newObj: AciInput,
  oldObj?: AciInput,
): AdmissionResult {
  if (operation === 'UPDATE' && oldObj && imageSetRefChanged(oldObj, newObj)) {
    return deny(ACI_IMAGE_SET_REF_MESSAGE);
  }
  if (operation === 'UPDATE' && oldObj && jsonEqual(oldObj.spec, newObj.spec)) {
    // Metadata-only updates (finalizers, labels) are not judged again.
    return allow();
  }
  if (isSno(newObj) && userManagedNetworking(newObj) === false) return deny(ACI_SNO_UMN_MESSAGE, 409);

  // On UPDATE, unset values fall back to the old object's.
  const update = operation === 'UPDATE' && oldObj !== undefined;
  const umn = update
    ? (userManagedNetworking(newObj) ?? userManagedNetworking(oldObj))
    : userManagedNetworking(newObj);
  const platform = update ? (platformOf(newObj) ?? platformOf(oldObj)) : platformOf(newObj);
  const error = platformError(controlPlaneAgents(newObj), platform, umn);
  if (error) return deny(error, 409);

  if (operation === 'UPDATE' && oldObj && installStarted(newObj)) {
    const oldSpec: Record<string, unknown> = { ...(oldObj.spec ?? {}) };
    const newSpec: Record<string, unknown> = { ...(newObj.spec ?? {}) };
    const ignored = ['clusterMetadata', 'ignitionEndpoint'];
    if (ACI_INSTALL_ENDED_REASONS.has(completedReason(newObj))) ignored.push('provisionRequirements');
    for (const k of ignored) {
      delete oldSpec[k];
      delete newSpec[k];
    }
    const diffs = diffJson(oldSpec, newSpec, { pointerPaths: POINTER_PATHS });
    if (diffs.length > 0) return deny(ACI_SPEC_IMMUTABLE_PREFIX + formatDiffs(diffs));
  }
  return allow(deprecatedFieldWarnings(newObj));
}

// ---------------------------------------------------------------------------------------------
// Mutation
// ---------------------------------------------------------------------------------------------

export interface JsonPatchOperation {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

/**
 * The userManagedNetworking value to default, or undefined when none applies:
 * single-node with platform '' or None, or platform None at any size → true; otherwise the value
 * the backend picks for the platform (BareMetal → false, External → true); VSphere and Nutanix
 * (which allow both) and a multi-node cluster without a platform get no default.
 */
export function defaultUserManagedNetworking(aci: AciInput): boolean | undefined {
  if (aci.metadata?.deletionTimestamp || installStarted(aci)) return undefined;
  if (
    aci.spec?.networking?.userManagedNetworking !== undefined &&
    aci.spec.networking.userManagedNetworking !== null
  ) {
    return undefined;
  }
  const platformType = str(aci.spec?.platformType);
  if ((isSno(aci) && (platformType === '' || platformType === 'None')) || platformType === 'None')
    return true;
  const platform = PLATFORMS[platformType];
  if (platform === undefined || platform === 'vsphere' || platform === 'nutanix') return undefined;
  const resolved = resolvePlatform({ control_plane_count: controlPlaneAgents(aci), platform });
  return resolved.error ? undefined : resolved.user_managed_networking;
}

/** JSON patch defaulting spec.networking.userManagedNetworking (empty when nothing applies). */
export function mutateAgentClusterInstall(_operation: Operation, newObj: AciInput): JsonPatchOperation[] {
  if (!isObject(newObj.spec)) return [];
  const value = defaultUserManagedNetworking(newObj);
  if (value === undefined) return [];
  if (!isObject(newObj.spec.networking)) {
    return [{ op: 'add', path: '/spec/networking', value: { userManagedNetworking: value } }];
  }
  return [{ op: 'add', path: '/spec/networking/userManagedNetworking', value }];
}
