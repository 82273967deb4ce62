// Which requirement set applies to a host (§5.1): by effective role and topology for bound hosts,
// the smallest-disk set for unbound ones, plus operator add-ons and the "any role" minimum.

import type { Inventory } from '../inventory.ts';
import type { Cluster, Host, HostRole, InfraEnv } from '../model.ts';
import {
  DEFAULT_HARDWARE_REQUIREMENTS,
  type HardwareRequirementsConfig,
  type RequirementRole,
  type RequirementSet,
  type RoleRequirements,
  requirementsForVersion,
} from './requirements.ts';

/** Requirements one operator adds for a host (any subset of the role fields). */
export interface OperatorHostRequirements {
  operator_name: string;
  requirements: Partial<RoleRequirements>;
}

export interface HostRequirements {
  /** Which set of the versioned requirements was used. */
  role: RequirementRole;
  ocp: RoleRequirements;
  operators: OperatorHostRequirements[];
  /** OCP + operators: cores/RAM/disk add up, thresholds take the strictest. */
  total: RoleRequirements;
}

export interface HostRequirementsOptions {
  config?: HardwareRequirementsConfig;
  operators?: readonly OperatorHostRequirements[];
  /** EDGE_WORKERS_PRODUCT_NAMES (comma list); default "BlueField SoC". */
  edgeWorkerProductNames?: string;
}

export const DEFAULT_EDGE_WORKER_PRODUCT_NAMES = 'BlueField SoC';

/** `suggested_role` when the role is auto-assign and a suggestion exists, else `role`. */
export function effectiveRole(host: Pick<Host, 'role' | 'suggested_role'>): HostRole {
  if (host.role === 'auto-assign' && host.suggested_role) return host.suggested_role;
  return host.role;
}

function normalizeProductName(name: string): string {
  return name.toLowerCase().replaceAll(' ', '');
}

/** aarch64 host whose product name (lower-cased, spaces removed) is a listed edge-worker product. */
export function isEdgeWorker(
  inventory: Inventory | undefined,
  productNames = DEFAULT_EDGE_WORKER_PRODUCT_NAMES,
) {
  if (inventory?.cpu?.architecture !== 'aarch64') return false;
  const product = inventory.system_vendor?.product_name;
  if (!product) return false;
  const allowed = productNames
    .split(',')
    .map((p) => normalizeProductName(p.trim()))
    .filter((p) => p !== '');
  return allowed.includes(normalizeProductName(product));
}

/** Role → requirement set name: master (SNO when 1 control-plane node), arbiter, edge-worker, worker. */
export function requirementRoleFor(
  host: Pick<Host, 'role' | 'suggested_role' | 'inventory'>,
  cluster: Pick<Cluster, 'control_plane_count'>,
  edgeWorkerProductNames?: string,
): RequirementRole {
  const role = effectiveRole(host);
  if (role === 'master' || role === 'bootstrap') return cluster.control_plane_count === 1 ? 'sno' : 'master';
  if (role === 'arbiter') return 'arbiter';
  if (isEdgeWorker(host.inventory, edgeWorkerProductNames)) return 'edge-worker';
  return 'worker';
}

function minNonNegative(values: (number | undefined)[]): number | undefined {
  const kept = values.filter((v): v is number => v !== undefined && v >= 0);
  return kept.length === 0 ? undefined : Math.min(...kept);
}

/** OCP set + operator add-ons. Disk speed: the smallest positive threshold. */
export function totalRequirements(ocp: RoleRequirements, operators: readonly OperatorHostRequirements[]) {
  const all = [ocp, ...operators.map((o) => o.requirements)];
  const sum = (field: 'cpu_cores' | 'ram_mib' | 'disk_size_gb') =>
    all.reduce((acc, r) => acc + (r[field] ?? 0), 0);
  const speeds = all
    .map((r) => r.installation_disk_speed_threshold_ms)
    .filter((v): v is number => (v ?? 0) > 0);
  const total: RoleRequirements = {
    cpu_cores: sum('cpu_cores'),
    ram_mib: sum('ram_mib'),
    disk_size_gb: sum('disk_size_gb'),
    installation_disk_speed_threshold_ms: speeds.length === 0 ? 0 : Math.min(...speeds),
  };
  const latency = minNonNegative(all.map((r) => r.network_latency_threshold_ms));
  if (latency !== undefined) total.network_latency_threshold_ms = latency;
  const loss = minNonNegative(all.map((r) => r.packet_loss_percentage));
  if (loss !== undefined) total.packet_loss_percentage = loss;
  return total;
}

function build(role: RequirementRole, set: RequirementSet, operators: readonly OperatorHostRequirements[]) {
  const ocp = set[role];
  return { role, ocp, operators: [...operators], total: totalRequirements(ocp, operators) };
}

/** Requirements of a host bound to `cluster` (GetClusterHostRequirements). */
export function clusterHostRequirements(
  cluster: Pick<Cluster, 'openshift_version' | 'control_plane_count'>,
  host: Pick<Host, 'role' | 'suggested_role' | 'inventory'>,
  options: HostRequirementsOptions = {},
): HostRequirements {
  const set = requirementsForVersion(
    options.config ?? DEFAULT_HARDWARE_REQUIREMENTS,
    cluster.openshift_version,
  );
  return build(
    requirementRoleFor(host, cluster, options.edgeWorkerProductNames),
    set,
    options.operators ?? [],
  );
}

/**
 * The requirement set with the smallest disk: worker, then master if its disk is smaller, then
 * arbiter if smaller still. Only disk size matters for unbound hosts in practice.
 */
export function smallestDiskRole(set: RequirementSet): RequirementRole {
  let role: RequirementRole = 'worker';
  if (set.master.disk_size_gb < set[role].disk_size_gb) role = 'master';
  if (set.arbiter.disk_size_gb < set[role].disk_size_gb) role = 'arbiter';
  return role;
}

/** Requirements of an unbound host in `infraEnv` (GetInfraEnvHostRequirements). */
export function infraEnvHostRequirements(
  infraEnv: Pick<InfraEnv, 'openshift_version'> | undefined,
  options: Pick<HostRequirementsOptions, 'config'> = {},
): HostRequirements {
  const set = requirementsForVersion(
    options.config ?? DEFAULT_HARDWARE_REQUIREMENTS,
    infraEnv?.openshift_version ?? '',
  );
  return build(smallestDiskRole(set), set, []);
}

/** The "any role" minimum: min(master-or-SNO, worker), OCP only (operators excluded). */
export interface MinimumRequirements {
  cpu_cores: number;
  ram_mib: number;
}

export function minimumRequirements(set: RequirementSet, singleNode: boolean): MinimumRequirements {
  const master = singleNode ? set.sno : set.master;
  return {
    cpu_cores: Math.min(master.cpu_cores, set.worker.cpu_cores),
    ram_mib: Math.min(master.ram_mib, set.worker.ram_mib),
  };
}

/** Minimum for hosts of a cluster (GetPreflightHardwareRequirements). */
export function clusterMinimumRequirements(
  cluster: Pick<Cluster, 'openshift_version' | 'control_plane_count'>,
  config: HardwareRequirementsConfig = DEFAULT_HARDWARE_REQUIREMENTS,
): MinimumRequirements {
  return minimumRequirements(
    requirementsForVersion(config, cluster.openshift_version),
    cluster.control_plane_count === 1,
  );
}

/** Minimum for unbound hosts of an infra-env. */
export function infraEnvMinimumRequirements(
  infraEnv: Pick<InfraEnv, 'openshift_version'> | undefined,
  config: HardwareRequirementsConfig = DEFAULT_HARDWARE_REQUIREMENTS,
): MinimumRequirements {
  return minimumRequirements(requirementsForVersion(config, infraEnv?.openshift_version ?? ''), false);
}
