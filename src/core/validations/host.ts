// Host validations (§3): the registry in upstream order and the framework that runs it — disabled
// validations, success-suppress-output, stage-hidden entries, operator results and ignored ids —
// producing `validations_info` and the condition map the host state machine reads.

import type { HostRequirements } from '../hardware/host-requirements.ts';
import type { HostStage, ValidationsInfo } from '../model.ts';
import { hostConditions } from './host-conditions.ts';
import { belongsToMajorityGroup, mtuValid } from './host-connectivity.ts';
import {
  buildHostValidationContext,
  type Check,
  type HostValidationContext,
  type HostValidationInput,
  isDay2Cluster,
} from './host-context.ts';
import {
  apiDomainResolved,
  apiIntDomainResolved,
  appsDomainResolved,
  dnsWildcardNotConfigured,
} from './host-dns.ts';
import { diskEncryptionRequirementsSatisfied } from './host-encryption.ts';
import * as hw from './host-hardware.ts';
import { sufficientNetworkLatency, sufficientPacketLoss } from './host-latency.ts';
import * as net from './host-network.ts';
import {
  noIpCollisionsInNetwork,
  noIscsiNicBelongsToMachineCidr,
  nonOverlappingSubnets,
} from './host-subnets.ts';
import {
  type BuiltinHostValidationId,
  buildValidationsInfo,
  type HostValidationCategory,
  isPassingStatus,
  isValidationIgnored,
  NON_IGNORABLE_HOST_VALIDATIONS,
  OPERATOR_VALIDATION_IDS,
  parseIgnoredValidations,
  VALIDATION_DISABLED_MESSAGE,
  type ValidationOutcome,
} from './types.ts';

/** Stages from which connectivity / clock entries are hidden (the host reboots by hand from here). */
export const MANUAL_REBOOT_STAGES: readonly HostStage[] = [
  'Rebooting',
  'Waiting for ignition',
  'Configuring',
  'Joined',
  'Done',
];

export interface HostValidationDefinition {
  id: BuiltinHostValidationId;
  category: HostValidationCategory;
  run: (c: HostValidationContext) => Check;
  /** Output is hidden (condition still computed) in these stages; "any" = whenever a stage is set. */
  hiddenInStages?: readonly HostStage[] | 'any';
}

const hardware = (id: BuiltinHostValidationId, run: HostValidationDefinition['run']) =>
  ({ id, category: 'hardware', run }) as const;
const network = (id: BuiltinHostValidationId, run: HostValidationDefinition['run']) =>
  ({ id, category: 'network', run }) as const;

/** Every built-in host validation, in registration (= output) order. */
export const HOST_VALIDATIONS: readonly HostValidationDefinition[] = [
  { ...network('connected', net.connected), hiddenInStages: MANUAL_REBOOT_STAGES },
  { ...network('media-connected', net.mediaConnected), hiddenInStages: MANUAL_REBOOT_STAGES },
  hardware('has-inventory', hw.hasInventory),
  hardware('inventory-not-partially-truncated', hw.inventoryNotPartiallyTruncated),
  hardware('inventory-not-fully-truncated', hw.inventoryNotFullyTruncated),
  hardware('has-min-cpu-cores', hw.hasMinCpuCores),
  hardware('has-min-memory', hw.hasMinMemory),
  hardware('has-min-valid-disks', hw.hasMinValidDisks),
  network('machine-cidr-defined', net.machineCidrDefined),
  hardware('has-cpu-cores-for-role', hw.hasCpuCoresForRole),
  hardware('has-memory-for-role', hw.hasMemoryForRole),
  hardware('hostname-unique', hw.hostnameUnique),
  network('belongs-to-machine-cidr', net.belongsToMachineCidr),
  hardware('hostname-valid', hw.hostnameValid),
  network('ignition-downloadable', net.ignitionDownloadable),
  network('belongs-to-majority-group', belongsToMajorityGroup),
  network('mtu-valid', mtuValid),
  network('valid-platform-network-settings', net.validPlatformNetworkSettings),
  { ...network('ntp-synced', net.ntpSynced), hiddenInStages: MANUAL_REBOOT_STAGES },
  {
    ...network('time-synced-between-host-and-service', net.timeSyncedBetweenHostAndService),
    hiddenInStages: MANUAL_REBOOT_STAGES,
  },
  network('container-images-available', net.containerImagesAvailable),
  hardware('sufficient-installation-disk-speed', hw.sufficientInstallationDiskSpeed),
  network('sufficient-network-latency-requirement-for-role', sufficientNetworkLatency),
  network('sufficient-packet-loss-requirement-for-role', sufficientPacketLoss),
  network('has-default-route', net.hasDefaultRoute),
  network('api-domain-name-resolved-correctly', apiDomainResolved),
  network('api-int-domain-name-resolved-correctly', apiIntDomainResolved),
  network('apps-domain-name-resolved-correctly', appsDomainResolved),
  hardware('compatible-with-cluster-platform', hw.compatibleWithClusterPlatform),
  network('dns-wildcard-not-configured', dnsWildcardNotConfigured),
  hardware('disk-encryption-requirements-satisfied', diskEncryptionRequirementsSatisfied),
  network('non-overlapping-subnets', nonOverlappingSubnets),
  hardware('vsphere-disk-uuid-enabled', hw.vsphereDiskUuidEnabled),
  { ...hardware('compatible-agent', hw.compatibleAgent), hiddenInStages: 'any' },
  hardware('no-skip-installation-disk', hw.noSkipInstallationDisk),
  hardware('no-skip-missing-disk', hw.noSkipMissingDisk),
  network('no-ip-collisions-in-network', noIpCollisionsInNetwork),
  network('no-iscsi-nic-belongs-to-machine-cidr', noIscsiNicBelongsToMachineCidr),
];

export interface HostValidationResult {
  /** What to store as the host's `validations_info`. */
  validationsInfo: ValidationsInfo;
  /** Validation id / condition id → passes; holds every id the host state machine may look up. */
  conditions: Record<string, boolean>;
  /** Every computed outcome (suppressed and stage-hidden ones included), in order. */
  outcomes: ValidationOutcome[];
  requirements: HostRequirements;
}

function isHiddenInStage(def: HostValidationDefinition, stage: HostStage | '' | undefined): boolean {
  if (!def.hiddenInStages || !stage) return false;
  return def.hiddenInStages === 'any' || def.hiddenInStages.includes(stage);
}

/** The operator name of an operator validation id ("lso-requirements-satisfied" → "lso"). */
export function operatorName(id: string): string {
  return id.replace(/-requirements-satisfied$/, '');
}

function operatorOutcomes(c: HostValidationContext, input: HostValidationInput): ValidationOutcome[] {
  const given = new Map((input.operatorResults ?? []).map((r) => [r.id, r]));
  const ids = [...new Set([...OPERATOR_VALIDATION_IDS, ...given.keys()])];
  const day2 = c.cluster !== undefined && isDay2Cluster(c.cluster);
  return ids.map((id) => {
    const r = given.get(id);
    if (r) return { id, category: 'operators', status: r.status, message: r.reasons.join('\n') };
    const message = day2
      ? `${operatorName(id)} validation is disabled when adding hosts to an existing cluster.`
      : `${operatorName(id)} is disabled`;
    return { id, category: 'operators', status: 'success', message };
  });
}

/**
 * Runs every host validation for one refresh. Throws HostValidationContextError where upstream
 * aborts the refresh (inventory without CPU or memory, invalid role, bad machine CIDR, unknown
 * requirements version) and on a malformed `ignored_host_validations`.
 */
export function validateHost(input: HostValidationInput): HostValidationResult {
  const c = buildHostValidationContext(input);
  const ignoredSetting = c.cluster?.ignored_host_validations ?? '';
  const ignored = parseIgnoredValidations(ignoredSetting);
  const disabled = ignoredSetting.trim() === '' ? (c.config.disabledHostValidations ?? []) : [];
  const stage = c.host.progress?.current_stage;

  const outcomes: ValidationOutcome[] = [];
  const shown: ValidationOutcome[] = [];
  const conditions: Record<string, boolean> = {};
  for (const def of HOST_VALIDATIONS) {
    const result: Check = disabled.includes(def.id)
      ? { status: 'disabled', message: VALIDATION_DISABLED_MESSAGE }
      : def.run(c);
    const outcome: ValidationOutcome = { id: def.id, category: def.category, ...result };
    outcomes.push(outcome);
    conditions[def.id] = isPassingStatus(result.status);
    if (result.status !== 'success-suppress-output' && !isHiddenInStage(def, stage)) shown.push(outcome);
  }
  if (c.cluster) {
    for (const outcome of operatorOutcomes(c, input)) {
      outcomes.push(outcome);
      shown.push(outcome);
      conditions[outcome.id] = outcome.status === 'success';
    }
  }
  for (const o of outcomes) {
    if (isValidationIgnored(ignored, o.id, NON_IGNORABLE_HOST_VALIDATIONS)) conditions[o.id] = true;
  }
  Object.assign(conditions, hostConditions(c));
  return {
    validationsInfo: buildValidationsInfo(shown, { sortByIdCategories: ['operators'] }),
    conditions,
    outcomes,
    requirements: c.requirements,
  };
}
