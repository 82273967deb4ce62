// What the service derives from a freshly reported inventory (§5.2): interface filtering, disk
// eligibility against the requirements of the moment, the installation disk and disks to format.

import type { Inventory } from '../inventory.ts';
import type { Cluster, Host, InfraEnv } from '../model.ts';
import { updateDisksEligibility } from './disks.ts';
import {
  clusterHostRequirements,
  infraEnvHostRequirements,
  type OperatorHostRequirements,
} from './host-requirements.ts';
import { disksToFormat, selectInstallationDisk } from './installation-disk.ts';
import type { HardwareRequirementsConfig } from './requirements.ts';

export interface InventoryUpdateInput {
  host: Host;
  inventory: Inventory;
  /** The host's cluster when bound. */
  cluster?: Cluster;
  /** The host's infra-env (its version is used for unbound hosts and day-2 clusters). */
  infraEnv?: InfraEnv;
  config?: HardwareRequirementsConfig;
  operatorRequirements?: readonly OperatorHostRequirements[];
  edgeWorkerProductNames?: string;
  /** ENABLE_VIRTUAL_INTERFACES: keep interfaces of every type. */
  enableVirtualInterfaces?: boolean;
}

export interface InventoryUpdateResult {
  inventory: Inventory;
  installation_disk_id: string;
  installation_disk_path: string;
  disks_to_be_formatted: string[];
}

const KEPT_INTERFACE_TYPES = ['', 'physical', 'vlan', 'bond'];

/** Drops interfaces of other types than "", physical, vlan and bond (unless virtual ones are enabled). */
export function filterInterfaces(inventory: Inventory, enableVirtualInterfaces = false): Inventory {
  if (enableVirtualInterfaces || !inventory.interfaces) return inventory;
  return {
    ...inventory,
    interfaces: inventory.interfaces.filter((i) => KEPT_INTERFACE_TYPES.includes(i.type ?? '')),
  };
}

/** The OCP version disk eligibility is judged against: the cluster's, the infra-env's for day-2 and unbound. */
export function eligibilityVersion(cluster: Cluster | undefined, infraEnv: InfraEnv | undefined): string {
  if (!cluster) return infraEnv?.openshift_version ?? '';
  if (cluster.kind === 'AddHostsCluster') return infraEnv?.openshift_version || cluster.openshift_version;
  return cluster.openshift_version;
}

export function applyInventoryUpdate(input: InventoryUpdateInput): InventoryUpdateResult {
  const inventory = filterInterfaces(input.inventory, input.enableVirtualInterfaces);
  const host = { ...input.host, inventory };
  const bound = host.cluster_id != null && host.cluster_id !== '' && input.cluster !== undefined;
  const requirements = bound
    ? clusterHostRequirements(input.cluster!, host, {
        ...(input.config ? { config: input.config } : {}),
        operators: input.operatorRequirements ?? [],
        ...(input.edgeWorkerProductNames ? { edgeWorkerProductNames: input.edgeWorkerProductNames } : {}),
      })
    : infraEnvHostRequirements(input.infraEnv, input.config ? { config: input.config } : {});
  const updated = updateDisksEligibility({
    inventory,
    minDiskSizeGb: requirements.total.disk_size_gb,
    openshiftVersion: eligibilityVersion(bound ? input.cluster : undefined, input.infraEnv),
  });
  const choice = selectInstallationDisk(updated, host);
  return { inventory: updated, ...choice, disks_to_be_formatted: disksToFormat(updated, host) };
}
