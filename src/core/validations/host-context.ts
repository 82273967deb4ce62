// What host validations are computed from: the inputs, the service configuration, and the context
// derived once per refresh (requirements, effective role, topology flags).

import {
  clusterHostRequirements,
  clusterMinimumRequirements,
  effectiveRole,
  type HostRequirements,
  infraEnvHostRequirements,
  infraEnvMinimumRequirements,
  type MinimumRequirements,
  type OperatorHostRequirements,
} from '../hardware/host-requirements.ts';
import { DEFAULT_HARDWARE_REQUIREMENTS, type HardwareRequirementsConfig } from '../hardware/requirements.ts';
import type { Inventory } from '../inventory.ts';
import type { Cluster, Host, HostRole, InfraEnv } from '../model.ts';
import { tryParseCidr } from '../network/cidr.ts';
import { toMillis } from './format.ts';
import type { OutcomeStatus } from './types.ts';

/** Service settings that affect host validations (env vars upstream). */
export interface HostValidationConfig {
  /** HW_VALIDATOR_REQUIREMENTS, decoded; default: the shipped defaults. */
  hardwareRequirements?: HardwareRequirementsConfig;
  /** DISABLED_HOST_VALIDATIONS. */
  disabledHostValidations?: readonly string[];
  /** HOST_MAX_DISCONNECTION_TIME, ms; default 3 min (the bootstrap host gets 2 min more). */
  maxHostDisconnectionMs?: number;
  /** ENABLE_UPGRADE_AGENT; default true (compatibility is only checked when agentDockerImage is set). */
  enableUpgradeAgent?: boolean;
  /** AGENT_DOCKER_IMAGE. */
  agentDockerImage?: string;
  /** EDGE_WORKERS_PRODUCT_NAMES; default "BlueField SoC". */
  edgeWorkerProductNames?: string;
  /** ENABLE_SINGLE_NODE_DNSMASQ; default true (OCP). */
  enableSingleNodeDnsmasq?: boolean;
}

/** A result reported by the operators manager for a host. */
export interface OperatorHostValidationResult {
  id: string;
  status: 'success' | 'failure' | 'pending';
  reasons: string[];
}

export interface HostValidationInput {
  host: Host;
  /** The host's cluster, with all its hosts (bound hosts). */
  cluster?: Cluster;
  /** The host's infra-env (needed for unbound hosts). */
  infraEnv?: InfraEnv;
  /** The service's clock. */
  now: Date | number;
  config?: HostValidationConfig;
  /** Per-operator host requirements, added to the OCP requirements (bound hosts). */
  operatorRequirements?: readonly OperatorHostRequirements[];
  /**
   * Operator validation results (bound hosts). Every operator id missing here is reported as
   * "<name> is disabled" so the condition map always holds every operator id.
   */
  operatorResults?: readonly OperatorHostValidationResult[];
}

/** Thrown when the refresh cannot run at all (upstream aborts the whole host refresh). */
export class HostValidationContextError extends Error {
  override name = 'HostValidationContextError';
}

export interface HostValidationContext {
  host: Host;
  /** Present iff the host is bound. */
  cluster?: Cluster;
  infraEnv?: InfraEnv;
  inventory?: Inventory;
  role: HostRole;
  requirements: HostRequirements;
  minimum: MinimumRequirements;
  nowMs: number;
  config: HostValidationConfig;
}

export type Check = { status: OutcomeStatus; message: string };

export const suppress: Check = { status: 'success-suppress-output', message: '' };

export function check(status: OutcomeStatus, message: string): Check {
  return { status, message };
}

export const VALID_VALIDATION_ROLES: readonly HostRole[] = ['master', 'arbiter', 'worker', 'auto-assign'];

/** Builds the context; throws HostValidationContextError where upstream fails the refresh. */
export function buildHostValidationContext(input: HostValidationInput): HostValidationContext {
  const { host } = input;
  const config = input.config ?? {};
  const hwConfig = config.hardwareRequirements ?? DEFAULT_HARDWARE_REQUIREMENTS;
  const bound = host.cluster_id != null && host.cluster_id !== '';
  if (bound && !input.cluster)
    throw new HostValidationContextError(`cluster ${host.cluster_id} of host ${host.id} not given`);
  const inventory = host.inventory;
  if (inventory && !inventory.memory)
    throw new HostValidationContextError('Inventory is not valid, Memory not detected');
  if (inventory && !inventory.cpu)
    throw new HostValidationContextError('Inventory is not valid, CPU not detected');
  const role = effectiveRole(host);
  if (!VALID_VALIDATION_ROLES.includes(role))
    throw new HostValidationContextError(`Illegal role defined: ${role}`);
  const base = { host, inventory, role, nowMs: toMillis(input.now), config };
  if (!bound) {
    return {
      ...base,
      ...(input.infraEnv ? { infraEnv: input.infraEnv } : {}),
      requirements: infraEnvHostRequirements(input.infraEnv, { config: hwConfig }),
      minimum: infraEnvMinimumRequirements(input.infraEnv, hwConfig),
    };
  }
  const cluster = input.cluster!;
  for (const n of cluster.machine_networks ?? []) {
    if (!tryParseCidr(n.cidr)) throw new HostValidationContextError(`invalid CIDR address: ${n.cidr}`);
  }
  return {
    ...base,
    cluster,
    ...(input.infraEnv ? { infraEnv: input.infraEnv } : {}),
    requirements: clusterHostRequirements(cluster, host, {
      config: hwConfig,
      operators: input.operatorRequirements ?? [],
      ...(config.edgeWorkerProductNames ? { edgeWorkerProductNames: config.edgeWorkerProductNames } : {}),
    }),
    minimum: clusterMinimumRequirements(cluster, hwConfig),
  };
}

// Topology helpers shared by the validation files.

export function isDay2Host(host: Pick<Host, 'kind'>): boolean {
  return host.kind === 'AddToExistingClusterHost';
}

export function isDay2Cluster(cluster: Pick<Cluster, 'kind'>): boolean {
  return cluster.kind === 'AddHostsCluster';
}

export function isSingleNode(cluster: Pick<Cluster, 'control_plane_count'>): boolean {
  return cluster.control_plane_count === 1;
}

export function isUserManagedLoadBalancer(cluster: Pick<Cluster, 'load_balancer'>): boolean {
  return cluster.load_balancer?.type === 'user-managed';
}

export function hasMachineNetworks(cluster: Pick<Cluster, 'machine_networks'>): boolean {
  return (cluster.machine_networks ?? []).some((n) => n.cidr !== '');
}

/** requested_hostname, else the inventory hostname. */
export function effectiveHostname(host: Pick<Host, 'requested_hostname' | 'inventory'>): string {
  return host.requested_hostname || host.inventory?.hostname || '';
}

/** The address part of an interface address ("10.0.0.5/24" → "10.0.0.5"). */
export function addressIp(address: string): string {
  const slash = address.indexOf('/');
  return slash < 0 ? address : address.slice(0, slash);
}

/** Every interface address (CIDR form) of an inventory, IPv4 first per interface. */
export function inventoryAddresses(inventory: Inventory | undefined): string[] {
  return (inventory?.interfaces ?? []).flatMap((i) => [
    ...(i.ipv4_addresses ?? []),
    ...(i.ipv6_addresses ?? []),
  ]);
}

/** Hosts belongs-to-majority-group waits for before it can fail (2 for two nodes with fencing). */
export const MAJORITY_GROUP_MIN_HOSTS = 3;

/**
 * The largest number of cluster hosts a host validation tells apart from more: belongs-to-majority-
 * group's minimum (the latency checks' lone host is below it). A host joining a cluster that then
 * has more changes no other host's validations through the count. A new count threshold goes here.
 */
export const HOST_COUNT_READ_UP_TO = MAJORITY_GROUP_MIN_HOSTS;

export function clusterHosts(c: HostValidationContext): Host[] {
  return c.cluster?.hosts ?? [];
}

export function checkedInMs(host: Pick<Host, 'checked_in_at'>): number | undefined {
  if (!host.checked_in_at) return undefined;
  const ms = Date.parse(host.checked_in_at);
  return Number.isNaN(ms) ? undefined : ms;
}
