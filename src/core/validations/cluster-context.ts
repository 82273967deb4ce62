// What cluster validations are computed from: the cluster (with hosts), the service configuration,
// and flags derived once per refresh.

import type { HardwareRequirementsConfig } from '../hardware/requirements.ts';
import type { Cluster, Host } from '../model.ts';
import { isSingleNode, isUserManagedLoadBalancer, isVipDhcp } from '../network/topology.ts';
import { toMillis } from './format.ts';
import type { OutcomeStatus } from './types.ts';

/** Service settings that affect cluster validations (env vars upstream). */
export interface ClusterValidationConfig {
  /** DISABLED_CLUSTER_VALIDATIONS. */
  disabledClusterValidations?: readonly string[];
  /** HW_VALIDATOR_REQUIREMENTS, decoded (for the master-candidate check); default: shipped defaults. */
  hardwareRequirements?: HardwareRequirementsConfig;
  /** DhcpLeaseTimeoutMinutes; default 2 minutes. */
  dhcpLeaseTimeoutMs?: number;
}

/** A result reported by the operators manager for the cluster. */
export interface OperatorClusterValidationResult {
  id: string;
  status: 'success' | 'failure' | 'pending';
  reasons: string[];
}

export interface ClusterValidationInput {
  /** The cluster with all its hosts. */
  cluster: Cluster;
  /** The service's clock. */
  now: Date | number;
  config?: ClusterValidationConfig;
  /**
   * Operator validation results. Every operator id missing here is reported as "<name> is disabled"
   * so the condition map always holds every operator id.
   */
  operatorResults?: readonly OperatorClusterValidationResult[];
}

export const DEFAULT_DHCP_LEASE_TIMEOUT_MS = 2 * 60_000;

export interface ClusterValidationContext {
  cluster: Cluster;
  /** Hosts the validations see: every host except `disabled` ones (upstream's preload filter). */
  hosts: Host[];
  nowMs: number;
  config: ClusterValidationConfig;
  hasHostsWithInventories: boolean;
  singleNode: boolean;
  umn: boolean;
  dhcp: boolean;
  userManagedLoadBalancer: boolean;
  /** NOT UMN OR SNO. */
  machineNetworkRequired: boolean;
  machineCidrAvailable: boolean;
  /** The install-config override `networking.networkType` if set, else the cluster's network type. */
  effectiveNetworkType: string;
}

/** One check's result before the framework assigns the category. */
export interface Check {
  status: OutcomeStatus;
  message: string;
}

export function check(status: OutcomeStatus, message: string): Check {
  return { status, message };
}

/** networking.networkType from install_config_overrides, if parseable and set. */
export function overrideNetworkType(overrides: string | undefined): string | undefined {
  if (!overrides) return undefined;
  try {
    const parsed = JSON.parse(overrides) as { networking?: { networkType?: unknown } } | null;
    const type = parsed?.networking?.networkType;
    return typeof type === 'string' && type !== '' ? type : undefined;
  } catch {
    return undefined;
  }
}

export function buildClusterValidationContext(input: ClusterValidationInput): ClusterValidationContext {
  const { cluster } = input;
  const hosts = cluster.hosts.filter((h) => h.status !== 'disabled');
  const singleNode = isSingleNode(cluster);
  const umn = cluster.user_managed_networking === true;
  return {
    cluster,
    hosts,
    nowMs: toMillis(input.now),
    config: input.config ?? {},
    hasHostsWithInventories: hosts.some((h) => h.inventory !== undefined),
    singleNode,
    umn,
    dhcp: isVipDhcp(cluster),
    userManagedLoadBalancer: isUserManagedLoadBalancer(cluster),
    machineNetworkRequired: !umn || singleNode,
    machineCidrAvailable:
      cluster.machine_networks.length > 0 && (cluster.machine_networks[0]?.cidr ?? '') !== '',
    effectiveNetworkType: overrideNetworkType(cluster.install_config_overrides) ?? cluster.network_type ?? '',
  };
}
