// Cluster validations about the hosts (hosts-data), clocks, configuration and operators
// (core.md §4.2).

import { clusterHostRequirements, effectiveRole } from '../hardware/host-requirements.ts';
import type { Host, HostStatus } from '../model.ts';
import {
  type Check,
  type ClusterValidationContext,
  check,
  type OperatorClusterValidationResult,
} from './cluster-context.ts';
import { hasCustomManifests } from './cluster-network.ts';

const READY_TO_INSTALL: readonly HostStatus[] = [
  'known',
  'preparing-for-installation',
  'preparing-successful',
];

export function allHostsAreReadyToInstall(c: ClusterValidationContext): Check {
  return c.hosts.every((h) => READY_TO_INSTALL.includes(h.status))
    ? check('success', 'All hosts in the cluster are ready to install.')
    : check('failure', 'The cluster has hosts that are not ready to install.');
}

const MIB = 1024 * 1024;
/** The role memory check tolerates 100 MiB short. */
const ROLE_MEMORY_TOLERANCE_MIB = 100;

/** Whether the host passes the OCP cpu + memory requirements of `role` (operators not counted). */
function passesRoleHardware(c: ClusterValidationContext, host: Host, role: 'master' | 'arbiter'): boolean {
  const inventory = host.inventory;
  if (!inventory) return false;
  let total: { cpu_cores: number; ram_mib: number };
  try {
    total = clusterHostRequirements(
      c.cluster,
      { ...host, role, suggested_role: role },
      { config: c.config.hardwareRequirements },
    ).ocp;
  } catch {
    return false;
  }
  const cores = inventory.cpu?.count ?? 0;
  const bytes = inventory.memory?.physical_bytes ?? 0;
  return cores >= total.cpu_cores && bytes >= (total.ram_mib - ROLE_MEMORY_TOLERANCE_MIB) * MIB;
}

/** Two nodes with fencing: 2 control-plane nodes, no arbiter, exactly 2 masters each with fencing credentials. */
function isTwoNodesWithFencing(c: ClusterValidationContext, masters: Host[], arbiters: Host[]): boolean {
  return (
    c.cluster.control_plane_count === 2 &&
    arbiters.length === 0 &&
    masters.length === 2 &&
    masters.every((m) => (m.fencing_credentials ?? '') !== '')
  );
}

export function sufficientMastersCount(c: ClusterValidationContext): Check {
  const wanted = c.cluster.control_plane_count;
  const masters: Host[] = [];
  const arbiters: Host[] = [];
  const workers: Host[] = [];
  const candidates: Host[] = [];
  for (const h of c.hosts) {
    const role = effectiveRole(h);
    if (role === 'master' || role === 'bootstrap') masters.push(h);
    else if (role === 'arbiter') arbiters.push(h);
    else if (role === 'worker') workers.push(h);
    else candidates.push(h);
  }
  // Auto-assign hosts are tentatively placed the way role assignment would place them.
  for (const h of candidates) {
    if (masters.length < wanted && passesRoleHardware(c, h, 'master')) masters.push(h);
    else if (wanted === 2 && arbiters.length === 0 && passesRoleHardware(c, h, 'arbiter')) arbiters.push(h);
    else workers.push(h);
  }
  if (c.singleNode) {
    return masters.length === 1 && workers.length === 0
      ? check('success', 'The cluster has the exact amount of dedicated control plane nodes.')
      : check('failure', 'Single-node clusters must have a single control plane node and no workers.');
  }
  const needsArbiterOrFencing =
    wanted === 2 && arbiters.length === 0 && !isTwoNodesWithFencing(c, masters, arbiters);
  if (masters.length !== wanted || needsArbiterOrFencing) {
    const suffix =
      wanted === 2
        ? ' and at least 1 arbiter node or the control plane nodes must have fencing credentials'
        : '';
    return check(
      'failure',
      `The cluster must have exactly ${wanted} dedicated control plane nodes${suffix}. Add or remove hosts, or change their roles configurations to meet the requirement.`,
    );
  }
  return check('success', 'The cluster has the exact amount of dedicated control plane nodes.');
}

/** Hosts whose clocks are compared: reachable ones that reported a time. */
const CLOCK_EXCLUDED: readonly HostStatus[] = [
  'disconnected',
  'resetting-pending-user-action',
  'discovering',
];
export const MAX_CLOCK_GAP_MINUTES = 4;

export function ntpServerConfigured(c: ClusterValidationContext): Check {
  const times = c.hosts
    .filter((h) => !CLOCK_EXCLUDED.includes(h.status) && (h.timestamp ?? 0) !== 0)
    .map((h) => h.timestamp as number);
  const gapMinutes = times.length === 0 ? 0 : Math.trunc((Math.max(...times) - Math.min(...times)) / 60);
  if (gapMinutes <= MAX_CLOCK_GAP_MINUTES) return check('success', 'No ntp problems found');
  return check(
    'failure',
    `Hosts' clocks are not synchronized (there's more than a ${MAX_CLOCK_GAP_MINUTES} minutes gap between clocks), please configure an NTP server via DHCP or set clocks manually.`,
  );
}

export function pullSecretSet(c: ClusterValidationContext): Check {
  const set = c.cluster.pull_secret_set ?? (c.cluster.pull_secret ?? '') !== '';
  return set ? check('success', 'The pull secret is set.') : check('failure', 'The pull secret is not set.');
}

export function platformRequirementsSatisfied(c: ClusterValidationContext): Check {
  const { platform } = c.cluster;
  const oci = platform.type === 'external' && platform.external?.platform_name?.toLowerCase() === 'oci';
  if (!oci) return check('success', 'Platform requirements satisfied');
  const has = hasCustomManifests(c);
  if (has === undefined) return check('failure', 'Failed to parse feature usages');
  if (has) return check('success', 'Platform requirements satisfied');
  return check(
    'failure',
    'The custom manifest required for Oracle Cloud Infrastructure platform integration has not been added. Add a custom manifest to continue.',
  );
}

/** Operator name of a "<name>-requirements-satisfied" id. */
export function operatorNameOf(id: string): string {
  return id.replace(/-requirements-satisfied$/, '');
}

/**
 * An operator validation: the manager's result when given (reasons joined by newlines), else the
 * "disabled" success; day-2 clusters never run operator checks.
 */
export function operatorValidation(
  c: ClusterValidationContext,
  id: string,
  results: readonly OperatorClusterValidationResult[],
): Check {
  const name = operatorNameOf(id);
  if (c.cluster.kind === 'AddHostsCluster') {
    return check('success', `${name} validation is disabled when adding hosts to an existing cluster.`);
  }
  const result = results.find((r) => r.id === id);
  if (!result) return check('success', `${name} is disabled`);
  return check(result.status, result.reasons.join('\n'));
}
