// Cluster validations (core.md §4): run every check, apply DISABLED_CLUSTER_VALIDATIONS and the
// per-cluster ignore list, and produce `validations_info` plus the condition map the cluster state
// machine reads.

import type { ClusterStatus, ValidationsInfo } from '../model.ts';
import {
  buildClusterValidationContext,
  type Check,
  type ClusterValidationContext,
  type ClusterValidationInput,
} from './cluster-context.ts';
import {
  allHostsAreReadyToInstall,
  ntpServerConfigured,
  operatorValidation,
  platformRequirementsSatisfied,
  pullSecretSet,
  sufficientMastersCount,
} from './cluster-hosts.ts';
import {
  clusterCidrDefined,
  customManifestsRequirementsSatisfied,
  dnsDomainDefined,
  networkPrefixValid,
  networksSameAddressFamilies,
  networkTypeValid,
  noCidrsOverlapping,
  serviceCidrDefined,
} from './cluster-network.ts';
import {
  apiVipsDefined,
  apiVipsValid,
  ingressVipsDefined,
  ingressVipsValid,
  machineCidrDefined,
  machineCidrEqualsToCalculatedCidr,
} from './cluster-vips.ts';
import {
  buildValidationsInfo,
  type ClusterValidationCategory,
  type ClusterValidationId,
  isPassingStatus,
  isValidationIgnored,
  NON_IGNORABLE_CLUSTER_VALIDATIONS,
  OPERATOR_VALIDATION_IDS,
  parseIgnoredValidations,
  VALIDATION_DISABLED_MESSAGE,
  type ValidationOutcome,
} from './types.ts';

export type {
  ClusterValidationConfig,
  ClusterValidationInput,
  OperatorClusterValidationResult,
} from './cluster-context.ts';

/** Cluster statuses in which validations are computed; elsewhere they are left untouched. */
export const CLUSTER_VALIDATION_STATUSES: readonly ClusterStatus[] = [
  'insufficient',
  'ready',
  'pending-for-input',
  'preparing-for-installation',
];

type Validator = (c: ClusterValidationContext) => Check;

/** Built-in cluster validations with their categories (operators are added per run). */
export const CLUSTER_VALIDATIONS: readonly {
  id: ClusterValidationId;
  category: ClusterValidationCategory;
  run: Validator;
}[] = [
  { id: 'machine-cidr-defined', category: 'network', run: machineCidrDefined },
  { id: 'cluster-cidr-defined', category: 'network', run: clusterCidrDefined },
  { id: 'service-cidr-defined', category: 'network', run: serviceCidrDefined },
  { id: 'dns-domain-defined', category: 'network', run: dnsDomainDefined },
  { id: 'pull-secret-set', category: 'configuration', run: pullSecretSet },
  { id: 'api-vips-defined', category: 'network', run: apiVipsDefined },
  { id: 'ingress-vips-defined', category: 'network', run: ingressVipsDefined },
  { id: 'api-vips-valid', category: 'network', run: apiVipsValid },
  { id: 'ingress-vips-valid', category: 'network', run: ingressVipsValid },
  {
    id: 'machine-cidr-equals-to-calculated-cidr',
    category: 'network',
    run: machineCidrEqualsToCalculatedCidr,
  },
  { id: 'all-hosts-are-ready-to-install', category: 'hosts-data', run: allHostsAreReadyToInstall },
  { id: 'sufficient-masters-count', category: 'hosts-data', run: sufficientMastersCount },
  { id: 'network-prefix-valid', category: 'network', run: networkPrefixValid },
  { id: 'no-cidrs-overlapping', category: 'network', run: noCidrsOverlapping },
  { id: 'networks-same-address-families', category: 'network', run: networksSameAddressFamilies },
  { id: 'ntp-server-configured', category: 'network', run: ntpServerConfigured },
  { id: 'network-type-valid', category: 'network', run: networkTypeValid },
  {
    id: 'custom-manifests-requirements-satisfied',
    category: 'network',
    run: customManifestsRequirementsSatisfied,
  },
  { id: 'platform-requirements-satisfied', category: 'configuration', run: platformRequirementsSatisfied },
];

/** Operator validations, incl. the informational openshift-ai GPU one. */
export const CLUSTER_OPERATOR_VALIDATION_IDS: readonly ClusterValidationId[] = [
  ...OPERATOR_VALIDATION_IDS,
  'openshift-ai-gpu-requirements-satisfied',
];

export interface ClusterValidationReport {
  /** False when the cluster's status is not one that is validated (keep the stored info). */
  computed: boolean;
  /** Every outcome, built-ins in registration order then operators. */
  outcomes: ValidationOutcome<ClusterValidationId>[];
  /** Category → results, each category sorted by id (deterministic). */
  validations_info: ValidationsInfo;
  /** id → passes (success, disabled, or ignored). Empty when not computed. */
  conditions: Record<string, boolean>;
  /** Ids whose failure was overridden by `ignored_cluster_validations`. */
  ignored: ClusterValidationId[];
}

function ignoredList(value: string | undefined): string[] {
  try {
    return parseIgnoredValidations(value);
  } catch {
    return [];
  }
}

/** Runs all cluster validations for the cluster's current state. */
export function validateCluster(input: ClusterValidationInput): ClusterValidationReport {
  if (!CLUSTER_VALIDATION_STATUSES.includes(input.cluster.status)) {
    return { computed: false, outcomes: [], validations_info: {}, conditions: {}, ignored: [] };
  }
  const ctx = buildClusterValidationContext(input);
  const ignoredIds = ignoredList(input.cluster.ignored_cluster_validations);
  // DISABLED_CLUSTER_VALIDATIONS applies only when the cluster has no ignore list of its own.
  const disabled =
    ignoredIds.length === 0 ? new Set(ctx.config.disabledClusterValidations ?? []) : new Set<string>();

  const all: { id: ClusterValidationId; category: string; run: Validator }[] = [
    ...CLUSTER_VALIDATIONS,
    ...CLUSTER_OPERATOR_VALIDATION_IDS.map((id) => ({
      id,
      category: 'operators',
      run: (c: ClusterValidationContext) => operatorValidation(c, id, input.operatorResults ?? []),
    })),
  ];
  const outcomes: ValidationOutcome<ClusterValidationId>[] = all.map(({ id, category, run }) => {
    const result = disabled.has(id)
      ? { status: 'disabled' as const, message: VALIDATION_DISABLED_MESSAGE }
      : run(ctx);
    return { id, category, status: result.status, message: result.message };
  });

  const conditions: Record<string, boolean> = {};
  const ignored: ClusterValidationId[] = [];
  for (const o of outcomes) {
    const passes = isPassingStatus(o.status);
    const forced = !passes && isValidationIgnored(ignoredIds, o.id, NON_IGNORABLE_CLUSTER_VALIDATIONS);
    if (forced) ignored.push(o.id);
    conditions[o.id] = passes || forced;
  }
  return {
    computed: true,
    outcomes,
    validations_info: buildValidationsInfo(outcomes, { sortByIdCategories: 'all' }),
    conditions,
    ignored,
  };
}
