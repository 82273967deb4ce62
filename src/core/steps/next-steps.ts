// The instruction manager (core.md §9.1): picks the table for the host, builds each step of the
// row for the host's status, drops disabled and empty steps, and swaps everything for an
// upgrade-agent step when the agent is outdated.

import type { Cluster, Host, InfraEnv } from '../model.ts';
import {
  apiVipConnectivityStep,
  CONNECTIVITY_THROTTLE_MIN_HOSTS,
  connectivityCheckStep,
  dhcpLeaseAllocateStep,
  domainResolutionStep,
  freeNetworkAddressesStep,
  inventoryStep,
  ntpSynchronizerStep,
  tangConnectivityStep,
  verifyVipsStep,
} from './discovery-steps.ts';
import type { StepBuilder } from './input.ts';
import {
  containerImageAvailabilityStep,
  diskSpeedCheckStep,
  downloadBootArtifactsStep,
  installStep,
  logsGatherStep,
  rebootForReclaimStep,
  stopInstallationStep,
} from './install-steps.ts';
import {
  DEFAULT_NEXT_INSTRUCTION_SECONDS,
  DEFAULT_ROW,
  STEP_TABLES,
  type StepTableName,
  type StepTableRow,
  UPGRADE_AGENT_STATUSES,
} from './tables.ts';
import type { Step, Steps, StepsContext, StepsOptions, StepType } from './types.ts';

const BUILDERS: Partial<Record<StepType, StepBuilder>> = {
  inventory: inventoryStep,
  'connectivity-check': connectivityCheckStep,
  'tang-connectivity-check': tangConnectivityStep,
  'free-network-addresses': freeNetworkAddressesStep,
  'dhcp-lease-allocate': dhcpLeaseAllocateStep,
  'ntp-synchronizer': ntpSynchronizerStep,
  'domain-resolution': domainResolutionStep,
  'verify-vips': verifyVipsStep,
  'api-vip-connectivity-check': apiVipConnectivityStep,
  'installation-disk-speed-check': diskSpeedCheckStep,
  'container-image-availability': containerImageAvailabilityStep,
  install: installStep,
  'logs-gather': logsGatherStep,
  'stop-installation': stopInstallationStep,
  'download-boot-artifacts': downloadBootArtifactsStep,
  'reboot-for-reclaim': rebootForReclaimStep,
};

/** `<step-type>-<8 hex chars>`, the 8 chars drawn from the injected random source. */
export function makeStepId(type: StepType, random: () => number): string {
  const value = Math.floor(random() * 0x1_0000_0000) >>> 0;
  return `${type}-${value.toString(16).padStart(8, '0')}`;
}

/** Unbound hosts use the pool table, day-2 hosts the add-hosts table, the rest the day-1 table. */
export function stepTableFor(host: Host): StepTableName {
  if (!host.cluster_id) return 'pool';
  return host.kind === 'AddToExistingClusterHost' ? 'day2' : 'day1';
}

export function stepTableRow(host: Host): StepTableRow {
  return STEP_TABLES[stepTableFor(host)][host.status] ?? DEFAULT_ROW;
}

/**
 * Whether the agent's image differs from the service's: exact comparison, or only the tags when
 * the agent reported a bare tag (no ':').
 */
export function agentIsOutdated(host: Host, agentImage: string): boolean {
  const current = host.discovery_agent_version ?? '';
  if (current === agentImage) return false;
  if (!current.includes(':')) {
    const colon = agentImage.lastIndexOf(':');
    const tag = colon >= 0 && !agentImage.slice(colon).includes('/') ? agentImage.slice(colon + 1) : '';
    return !(current !== '' && tag === current);
  }
  return true;
}

export function shouldUpgradeAgent(host: Host, options: StepsOptions): boolean {
  return (
    (options.enableUpgradeAgent ?? true) &&
    !(options.disabledSteps ?? []).includes('upgrade-agent') &&
    UPGRADE_AGENT_STATUSES.includes(host.status) &&
    agentIsOutdated(host, options.agentImage)
  );
}

export interface StepError {
  step_type: StepType;
  error: string;
}

export interface NextStepsResult {
  steps: Steps;
  /** Steps that could not be built (skipped; the others are still sent). */
  errors: StepError[];
  /** Set when the install step was issued: record as the host's installer_version. */
  installer_version?: string;
  /** True when the reply is an upgrade-agent instruction (upstream emits an event). */
  upgrade_agent?: boolean;
}

/** nextSteps with the side information the REST layer records or logs. */
export function nextStepsDetailed(
  host: Host,
  cluster: Cluster | undefined,
  infraEnv: InfraEnv,
  ctx: StepsContext,
): NextStepsResult {
  const { options } = ctx;
  if (shouldUpgradeAgent(host, options)) {
    return {
      steps: {
        next_instruction_seconds: DEFAULT_NEXT_INSTRUCTION_SECONDS,
        post_step_action: 'continue',
        instructions: [
          {
            step_type: 'upgrade-agent',
            step_id: makeStepId('upgrade-agent', ctx.random),
            args: [JSON.stringify({ agent_image: options.agentImage })],
          },
        ],
      },
      errors: [],
      upgrade_agent: true,
    };
  }
  const row = stepTableRow(host);
  const disabled = new Set(options.disabledSteps ?? []);
  const instructions: Step[] = [];
  const errors: StepError[] = [];
  let installerVersion: string | undefined;
  for (const type of row.steps) {
    if (disabled.has(type)) continue;
    const builder = BUILDERS[type];
    if (!builder) continue;
    const built = builder({ host, cluster, infraEnv, options });
    if ('error' in built) {
      errors.push({ step_type: type, error: built.error });
      continue;
    }
    if ('skip' in built) continue;
    instructions.push({ step_type: type, step_id: makeStepId(type, ctx.random), args: built.args });
    if (type === 'install') installerVersion = options.installerImage;
  }
  return {
    steps: { next_instruction_seconds: row.next, post_step_action: row.action, instructions },
    errors,
    ...(installerVersion ? { installer_version: installerVersion } : {}),
  };
}

/**
 * Whether nextStepsDetailed answers the same for the same records and options object but for the
 * step ids, so a caller may keep an answer and send it again with withFreshStepIds. Not when a
 * large cluster's connectivity check asks the admission, which answers by the time of asking.
 */
export function stepsAreReusable(host: Host, cluster: Cluster | undefined, options: StepsOptions): boolean {
  return !(
    options.admitConnectivityCheck &&
    cluster &&
    cluster.hosts.length > CONNECTIVITY_THROTTLE_MIN_HOSTS &&
    stepTableRow(host).steps.includes('connectivity-check')
  );
}

/** A kept answer with new step ids (drawn in order, as nextStepsDetailed draws them); arguments shared. */
export function withFreshStepIds(result: NextStepsResult, random: () => number): NextStepsResult {
  const { steps } = result;
  const instructions = steps.instructions.map((step) => ({
    ...step,
    step_id: makeStepId(step.step_type, random),
  }));
  return { ...result, steps: { ...steps, instructions } };
}

/** The `steps` answer to GET …/instructions for the host's current status. */
export function nextSteps(
  host: Host,
  cluster: Cluster | undefined,
  infraEnv: InfraEnv,
  ctx: StepsContext,
): Steps {
  return nextStepsDetailed(host, cluster, infraEnv, ctx).steps;
}
