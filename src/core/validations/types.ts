// Types shared by host and cluster validations: the ids, one validation's outcome, and the
// builders that turn a list of outcomes into `validations_info` and the condition map the state
// machines read (`If(id)` lookups).

import type { ValidationResult, ValidationStatus, ValidationsInfo } from '../model.ts';

/** Operator ids shared by hosts and clusters ("<operator>-requirements-satisfied"). */
export const OPERATOR_VALIDATION_IDS = [
  'lso-requirements-satisfied',
  'odf-requirements-satisfied',
  'cnv-requirements-satisfied',
  'lvm-requirements-satisfied',
  'mce-requirements-satisfied',
  'mtv-requirements-satisfied',
  'osc-requirements-satisfied',
  'node-feature-discovery-requirements-satisfied',
  'nvidia-gpu-requirements-satisfied',
  'pipelines-requirements-satisfied',
  'servicemesh-requirements-satisfied',
  'serverless-requirements-satisfied',
  'openshift-ai-requirements-satisfied',
  'authorino-requirements-satisfied',
  'nmstate-requirements-satisfied',
  'amd-gpu-requirements-satisfied',
  'kmm-requirements-satisfied',
  'node-healthcheck-requirements-satisfied',
  'self-node-remediation-requirements-satisfied',
  'fence-agents-remediation-requirements-satisfied',
  'node-maintenance-requirements-satisfied',
  'kube-descheduler-requirements-satisfied',
  'cluster-observability-requirements-satisfied',
  'numa-resources-requirements-satisfied',
  'oadp-requirements-satisfied',
  'metallb-requirements-satisfied',
  'loki-requirements-satisfied',
  'openshift-logging-requirements-satisfied',
] as const;
export type OperatorValidationId = (typeof OPERATOR_VALIDATION_IDS)[number];

/** Built-in host validations, in upstream registration order (which is also output order). */
export const BUILTIN_HOST_VALIDATION_IDS = [
  'connected',
  'media-connected',
  'has-inventory',
  'inventory-not-partially-truncated',
  'inventory-not-fully-truncated',
  'has-min-cpu-cores',
  'has-min-memory',
  'has-min-valid-disks',
  'machine-cidr-defined',
  'has-cpu-cores-for-role',
  'has-memory-for-role',
  'hostname-unique',
  'belongs-to-machine-cidr',
  'hostname-valid',
  'ignition-downloadable',
  'belongs-to-majority-group',
  'mtu-valid',
  'valid-platform-network-settings',
  'ntp-synced',
  'time-synced-between-host-and-service',
  'container-images-available',
  'sufficient-installation-disk-speed',
  'sufficient-network-latency-requirement-for-role',
  'sufficient-packet-loss-requirement-for-role',
  'has-default-route',
  'api-domain-name-resolved-correctly',
  'api-int-domain-name-resolved-correctly',
  'apps-domain-name-resolved-correctly',
  'compatible-with-cluster-platform',
  'dns-wildcard-not-configured',
  'disk-encryption-requirements-satisfied',
  'non-overlapping-subnets',
  'vsphere-disk-uuid-enabled',
  'compatible-agent',
  'no-skip-installation-disk',
  'no-skip-missing-disk',
  'no-ip-collisions-in-network',
  'no-iscsi-nic-belongs-to-machine-cidr',
] as const;
export type BuiltinHostValidationId = (typeof BUILTIN_HOST_VALIDATION_IDS)[number];

/** Every id of the host validation enum (incl. ids that exist only in the enum upstream). */
export const HOST_VALIDATION_IDS = [
  ...BUILTIN_HOST_VALIDATION_IDS,
  'release-domain-name-resolved-correctly',
  'ocs-requirements-satisfied',
  ...OPERATOR_VALIDATION_IDS,
] as const;
export type HostValidationId = (typeof HOST_VALIDATION_IDS)[number];

export const CLUSTER_VALIDATION_IDS = [
  'machine-cidr-defined',
  'cluster-cidr-defined',
  'service-cidr-defined',
  'dns-domain-defined',
  'pull-secret-set',
  'api-vips-defined',
  'ingress-vips-defined',
  'api-vips-valid',
  'ingress-vips-valid',
  'machine-cidr-equals-to-calculated-cidr',
  'all-hosts-are-ready-to-install',
  'sufficient-masters-count',
  'network-prefix-valid',
  'no-cidrs-overlapping',
  'networks-same-address-families',
  'ntp-server-configured',
  'network-type-valid',
  'custom-manifests-requirements-satisfied',
  'platform-requirements-satisfied',
  ...OPERATOR_VALIDATION_IDS,
  'openshift-ai-gpu-requirements-satisfied',
] as const;
export type ClusterValidationId = (typeof CLUSTER_VALIDATION_IDS)[number];

export type HostValidationCategory = 'hardware' | 'network' | 'operators';
export type ClusterValidationCategory = 'network' | 'hosts-data' | 'configuration' | 'operators';
export type ValidationCategory = HostValidationCategory | ClusterValidationCategory;

/**
 * `success-suppress-output` is internal: it passes like `success` but is left out of
 * `validations_info` (host validations only).
 */
export type OutcomeStatus = ValidationStatus | 'success-suppress-output';

/** One computed validation. */
export interface ValidationOutcome<Id extends string = string> {
  id: Id;
  status: OutcomeStatus;
  message: string;
  category: string;
}

export const VALIDATION_DISABLED_MESSAGE = 'Validation disabled by configuration';

/** Host validations that `ignored_host_validations` (even "all") never forces to pass. */
export const NON_IGNORABLE_HOST_VALIDATIONS: readonly string[] = [
  'connected',
  'has-inventory',
  'inventory-not-fully-truncated',
  'machine-cidr-defined',
  'hostname-unique',
  'hostname-valid',
];

/** Cluster validations that `ignored_cluster_validations` never forces to pass. */
export const NON_IGNORABLE_CLUSTER_VALIDATIONS: readonly string[] = [
  'api-vips-defined',
  'ingress-vips-defined',
  'all-hosts-are-ready-to-install',
  'sufficient-masters-count',
  'pull-secret-set',
];

/** Whether a status lets the condition pass (disabled validations pass too). */
export function isPassingStatus(status: OutcomeStatus): boolean {
  return status === 'success' || status === 'success-suppress-output' || status === 'disabled';
}

export interface BuildValidationsInfoOptions {
  /**
   * Categories whose entries are sorted by id (stable). Hosts: only `operators`; clusters: all.
   * Other categories keep the order the outcomes were given in (registration order).
   */
  sortByIdCategories?: readonly string[] | 'all';
}

/**
 * Groups outcomes by category into `validations_info`. Suppressed outcomes are left out. Category
 * keys are inserted in sorted order, as upstream's JSON encoding of a map emits them.
 */
export function buildValidationsInfo(
  outcomes: readonly ValidationOutcome[],
  options: BuildValidationsInfoOptions = {},
): ValidationsInfo {
  const byCategory = new Map<string, ValidationResult[]>();
  for (const o of outcomes) {
    if (o.status === 'success-suppress-output') continue;
    let list = byCategory.get(o.category);
    if (!list) {
      list = [];
      byCategory.set(o.category, list);
    }
    list.push({ id: o.id, status: o.status, message: o.message });
  }
  const sortAll = options.sortByIdCategories === 'all';
  const sortSome = new Set(sortAll ? [] : (options.sortByIdCategories ?? []));
  const info: ValidationsInfo = {};
  for (const category of [...byCategory.keys()].sort()) {
    const list = byCategory.get(category)!;
    if (sortAll || sortSome.has(category)) list.sort((a, b) => compareStrings(a.id, b.id));
    info[category] = list;
  }
  return info;
}

/** Condition map id → passing, for every outcome (suppressed ones included). */
export function buildConditions(outcomes: readonly ValidationOutcome[]): Record<string, boolean> {
  const conditions: Record<string, boolean> = {};
  for (const o of outcomes) conditions[o.id] = isPassingStatus(o.status);
  return conditions;
}

/**
 * Parses an ignored-validations setting: a JSON list (upstream's stored form) or a comma list
 * (the kube annotation form). Empty → []. Throws on malformed JSON.
 */
export function parseIgnoredValidations(value: string | readonly string[] | undefined | null): string[] {
  if (value == null) return [];
  if (typeof value !== 'string') return [...value];
  const text = value.trim();
  if (text === '') return [];
  if (text.startsWith('[')) {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed) || parsed.some((v) => typeof v !== 'string')) {
      throw new Error(`ignored validations must be a JSON list of strings: ${value}`);
    }
    return parsed as string[];
  }
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** Whether `id` is ignored by `ignored` ("all" included), honouring the never-ignorable list. */
export function isValidationIgnored(
  ignored: readonly string[],
  id: string,
  nonIgnorable: readonly string[],
): boolean {
  if (nonIgnorable.includes(id)) return false;
  return ignored.includes('all') || ignored.includes(id);
}

/**
 * `$FAILING_VALIDATIONS`: messages of every `failure` entry, sorted lexicographically, joined with
 * " ; ".
 */
export function failingValidationMessages(info: ValidationsInfo): string {
  const messages: string[] = [];
  for (const list of Object.values(info)) {
    for (const r of list) if (r.status === 'failure') messages.push(r.message);
  }
  return messages.sort(compareStrings).join(' ; ');
}

/** Byte-wise string order (Go's sort.Strings), independent of locale. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** How one validation changed between two refreshes (only failures and fixes raise events upstream). */
export type ValidationChangeKind = 'now-failing' | 'failed' | 'fixed' | 'changed';

export interface ValidationChange {
  id: string;
  category: string;
  kind: ValidationChangeKind;
  previous?: ValidationStatus;
  current: ValidationStatus;
  message: string;
}

/**
 * Status changes between the stored and the fresh `validations_info`: to failure → "now-failing"
 * (it used to succeed) or "failed"; failure → success → "fixed"; any other status change → "changed".
 */
export function validationChanges(
  previous: ValidationsInfo | undefined,
  next: ValidationsInfo,
): ValidationChange[] {
  const before = new Map<string, ValidationStatus>();
  for (const list of Object.values(previous ?? {})) for (const r of list) before.set(r.id, r.status);
  const changes: ValidationChange[] = [];
  for (const [category, list] of Object.entries(next)) {
    for (const r of list) {
      const old = before.get(r.id);
      if (old === r.status) continue;
      let kind: ValidationChangeKind;
      if (r.status === 'failure') kind = old === 'success' ? 'now-failing' : 'failed';
      else if (old === 'failure' && r.status === 'success') kind = 'fixed';
      else kind = 'changed';
      changes.push({
        id: r.id,
        category,
        kind,
        ...(old ? { previous: old } : {}),
        current: r.status,
        message: r.message,
      });
    }
  }
  return changes;
}

/** Whether two `validations_info` values are equal (same categories, same entries in order). */
export function sameValidationsInfo(a: ValidationsInfo | undefined, b: ValidationsInfo | undefined): boolean {
  const ka = Object.keys(a ?? {}).sort();
  const kb = Object.keys(b ?? {}).sort();
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  return ka.every((k) => {
    const x = a![k]!;
    const y = b![k]!;
    return (
      x.length === y.length &&
      x.every((r, i) => r.id === y[i]!.id && r.status === y[i]!.status && r.message === y[i]!.message)
    );
  });
}

/** Upstream stores `validations_info` only when it changed and the new value is not empty. */
export function shouldStoreValidationsInfo(
  previous: ValidationsInfo | undefined,
  next: ValidationsInfo,
): boolean {
  return Object.keys(next).length > 0 && !sameValidationsInfo(previous, next);
}
