// Host validations of the "hardware" category (§3.2), except disk encryption (host-encryption.ts).

import { memoSlot } from '../../util/memo-slot.ts';
import { allowedDriveTypes, listEligibleDisks } from '../hardware/disks.ts';
import { deviceIdentifier, installationPath, skippedFormattingDisks } from '../hardware/installation-disk.ts';
import { bytesToString, mibToBytes } from '../hardware/units.ts';
import type { DiskInfo, Host, PlatformType } from '../model.ts';
import { FORBIDDEN_HOSTNAMES, HOSTNAME_PATTERN } from '../statemachine/hostutil.ts';
import {
  type Check,
  check,
  clusterHosts,
  effectiveHostname,
  type HostValidationContext,
  isDay2Cluster,
  suppress,
} from './host-context.ts';

const MISSING_INVENTORY = 'Missing inventory';
/** Tolerance of the RAM checks: agents report slightly less than the installed memory. */
const RAM_TOLERANCE_MIB = 100;

export function hasInventory(c: HostValidationContext): Check {
  return c.inventory
    ? check('success', 'Valid inventory exists for the host')
    : check('failure', 'Inventory has not been received for the host');
}

function truncationText(kind: string, reasons: readonly string[] | null | undefined): string {
  const joined = (reasons ?? []).join('; ');
  return `Inventory is truncated (${kind})${joined === '' ? '' : `: ${joined}`}`;
}

const UNEXPECTED_TRUNCATION = 'Unexpected inventory truncation type';

export function inventoryNotPartiallyTruncated(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', MISSING_INVENTORY);
  const t = c.inventory.truncation;
  if (!t) return check('success', 'Inventory is not truncated');
  if (t.type === 'partial') return check('failure', truncationText('partial', t.reasons));
  if (t.type === 'full')
    return check('success', 'Inventory is not partially truncated (inventory fully truncated)');
  return check('error', UNEXPECTED_TRUNCATION);
}

export function inventoryNotFullyTruncated(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', MISSING_INVENTORY);
  const t = c.inventory.truncation;
  if (!t) return check('success', 'Inventory is not truncated');
  if (t.type === 'partial') return check('success', 'Inventory is partially truncated');
  if (t.type === 'full') return check('failure', truncationText('full', t.reasons));
  return check('error', UNEXPECTED_TRUNCATION);
}

export function hasMinCpuCores(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', MISSING_INVENTORY);
  const found = c.inventory.cpu?.count ?? 0;
  if (found >= c.minimum.cpu_cores) return check('success', 'Sufficient CPU cores');
  return check(
    'failure',
    `The host is not eligible to participate in Openshift Cluster because the minimum required CPU cores for any role is ${c.minimum.cpu_cores}, found only ${found}`,
  );
}

export function hasMinMemory(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', MISSING_INVENTORY);
  const required = c.minimum.ram_mib;
  const meminfoAllowance =
    c.inventory.memory?.physical_bytes_method === 'meminfo' ? Math.floor(required / 50) : 0;
  const physical = c.inventory.memory?.physical_bytes ?? 0;
  if (physical >= mibToBytes(required - RAM_TOLERANCE_MIB - meminfoAllowance)) {
    return check('success', 'Sufficient minimum RAM');
  }
  return check(
    'failure',
    `The host is not eligible to participate in Openshift Cluster because the minimum required RAM for any role is ${bytesToString(mibToBytes(required))}, found only ${bytesToString(physical)}`,
  );
}

export function hasMinValidDisks(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', MISSING_INVENTORY);
  if ((c.inventory.disks ?? []).length === 0) return check('error', 'Failed to detected disks');
  if (listEligibleDisks(c.inventory).length > 0) return check('success', 'Sufficient disk capacity');
  return check(
    'failure',
    'No eligible disks were found, please check specific disks to see why they are not eligible',
  );
}

export function hasCpuCoresForRole(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', 'Missing inventory or role');
  const found = c.inventory.cpu?.count ?? 0;
  const required = c.requirements.total.cpu_cores;
  if (found >= required) return check('success', `Sufficient CPU cores for role ${c.role}`);
  return check('failure', `Require at least ${required} CPU cores for ${c.role} role, found only ${found}`);
}

export function hasMemoryForRole(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', 'Missing inventory or role');
  const physical = c.inventory.memory?.physical_bytes ?? 0;
  const required = c.requirements.total.ram_mib;
  if (physical >= mibToBytes(required - RAM_TOLERANCE_MIB))
    return check('success', `Sufficient RAM for role ${c.role}`);
  return check(
    'failure',
    `Require at least ${bytesToString(mibToBytes(required))} RAM for role ${c.role}, found only ${bytesToString(physical)}`,
  );
}

/** Ids of a cluster's hosts that have an inventory, by effective hostname (hostname-unique). */
export type HostnameIds = ReadonlyMap<string, readonly string[]>;

/** The name a host is counted under by hostname-unique: undefined while it has no inventory. */
export function countedHostname(h: Host): string | undefined {
  return h.inventory ? effectiveHostname(h) : undefined;
}

export function buildHostnameIds(hosts: Iterable<Host>): Map<string, readonly string[]> {
  const byName = new Map<string, string[]>();
  for (const h of hosts) {
    const n = countedHostname(h);
    if (n === undefined) continue;
    const ids = byName.get(n);
    if (ids) ids.push(h.id);
    else byName.set(n, [h.id]);
  }
  return byName;
}

/**
 * The index of each hosts array, built once: a change that touches every host of a cluster (its
 * majority groups) validates them all, and a walk per host made that O(n²). A builder that keeps
 * the index as its hosts change registers it with its array (records/cluster-hosts.ts); an array
 * that differs from another in one host's entry only borrows that one's, for that host.
 */
type Kept = { ids: HostnameIds } | { from: readonly Host[]; except: string };
const hostnameIdsByArray = memoSlot<readonly Host[], Kept>('hostname index');

/** Registers the index of `hosts`: it must be exactly buildHostnameIds(hosts), and never change. */
export function rememberHostnameIds(hosts: readonly Host[], ids: HostnameIds): void {
  hostnameIdsByArray.set(hosts, { ids });
}

/**
 * `to` lists the hosts of `from`, except that host `hostId` may be another record of itself or be
 * added: hostname-unique of that host, which ignores its own entry, reads `from`'s index.
 */
export function shareHostnameIds(from: readonly Host[], to: readonly Host[], hostId: string): void {
  hostnameIdsByArray.set(to, { from, except: hostId });
}

/** The index of `hosts`: the one remembered for this array, or built (and remembered) now. */
export function hostnameIdsOf(hosts: readonly Host[]): HostnameIds {
  const kept = hostnameIdsByArray.get(hosts);
  if (kept && 'ids' in kept) return kept.ids;
  const ids = buildHostnameIds(hosts);
  hostnameIdsByArray.set(hosts, { ids });
  return ids;
}

/** The index as host `hostId`'s hostname-unique may read it (its own entry aside). */
function hostnameIdsFor(hosts: readonly Host[], hostId: string): HostnameIds {
  const kept = hostnameIdsByArray.get(hosts);
  if (kept && 'from' in kept && kept.except === hostId) return hostnameIdsFor(kept.from, hostId);
  return hostnameIdsOf(hosts);
}

export function hostnameUnique(c: HostValidationContext): Check {
  if (!c.cluster) return suppress;
  if (!c.inventory) return check('pending', MISSING_INVENTORY);
  const name = effectiveHostname(c.host);
  const clash = (hostnameIdsFor(clusterHosts(c), c.host.id).get(name) ?? []).some((id) => id !== c.host.id);
  return clash
    ? check('failure', `Hostname ${name} is not unique in cluster`)
    : check('success', `Hostname ${name} is unique in cluster`);
}

export { FORBIDDEN_HOSTNAMES, HOSTNAME_PATTERN };

const HOSTNAME_REGEX = new RegExp(HOSTNAME_PATTERN);

/** Why a hostname is rejected, or undefined when it is valid (≤ 63 chars, pattern, not localhost*). */
export function hostnameError(hostname: string): string | undefined {
  if (hostname.length > 63) return 'hostname is too long';
  if (!HOSTNAME_REGEX.test(hostname)) return 'hostname does not match the pattern';
  if (FORBIDDEN_HOSTNAMES.includes(hostname)) return 'hostname is forbidden';
  return undefined;
}

export function hostnameValid(c: HostValidationContext): Check {
  if (!c.inventory) return check('failure', MISSING_INVENTORY);
  const name = effectiveHostname(c.host);
  if (hostnameError(name) === undefined) return check('success', `Hostname ${name} is allowed`);
  if (FORBIDDEN_HOSTNAMES.includes(name)) return check('failure', `The host name ${name} is forbidden`);
  return check('failure', `Hostname ${name} is forbidden, hostname should match pattern ${HOSTNAME_PATTERN}`);
}

/** disks_info of the installation disk (keyed by the installation path). */
export function bootDeviceInfo(c: HostValidationContext): DiskInfo | undefined {
  const path = installationPath(c.host);
  const info = c.host.disks_info ?? {};
  return info[path] ?? Object.values(info).find((d) => d.path === path);
}

export function sufficientInstallationDiskSpeed(c: HostValidationContext): Check {
  if (installationPath(c.host) === '') return check('error', 'Validation error');
  const speed = bootDeviceInfo(c)?.disk_speed;
  if (!speed?.tested) return check('success', 'Speed of installation disk has not yet been measured');
  if ((speed.exit_code ?? 0) === 0) return check('success', 'Speed of installation disk is sufficient');
  return check(
    'failure',
    'While preparing the previous installation the installation disk speed measurement failed or was found to be insufficient',
  );
}

/** Manufacturer a platform requires, per provider (undefined: any host is supported). */
function requiredManufacturer(type: PlatformType, externalName: string | undefined): string | undefined {
  if (type === 'vsphere') return 'VMware, Inc.';
  if (type === 'nutanix') return 'Nutanix';
  if (type === 'external' && externalName === 'oci') return 'OracleCloud.com';
  return undefined;
}

export function compatibleWithClusterPlatform(c: HostValidationContext): Check {
  if (!c.cluster) return suppress;
  const type = c.cluster.platform?.type;
  if (isDay2Cluster(c.cluster))
    return check('success', `Host is compatible with cluster platform ${type ?? ''}`);
  if (!c.inventory || !type) return check('pending', "Missing inventory or platform isn't set");
  const manufacturer = requiredManufacturer(type, c.cluster.platform.external?.platform_name);
  if (manufacturer === undefined || c.inventory.system_vendor?.manufacturer === manufacturer) {
    return check('success', `Host is compatible with cluster platform ${type}`);
  }
  return check(
    'failure',
    `Host is not compatible with cluster platform ${type}; either disable this host or discover a new compatible host.`,
  );
}

export function vsphereDiskUuidEnabled(c: HostValidationContext): Check {
  if (!c.cluster) return suppress;
  if (c.inventory?.system_vendor?.manufacturer !== 'VMware, Inc.') return suppress;
  if (!c.inventory.disks) return check('pending', 'no disks');
  const allowed = allowedDriveTypes(c.cluster.openshift_version, c.inventory.cpu?.architecture);
  const missing = listEligibleDisks(c.inventory).some(
    (d) => allowed.includes(d.drive_type ?? '') && d.has_uuid !== true,
  );
  if (missing) {
    return check(
      'failure',
      "VSphere disk.EnableUUID isn't enabled for this virtual machine, it's necessary for disks to be mounted properly",
    );
  }
  return check('success', 'VSphere disk.EnableUUID is enabled for this virtual machine');
}

/** Exact match, or tag-only comparison when the agent reported no ":" (agent-api §1.4). */
export function isAgentCompatible(expectedImage: string, agentImage: string | undefined): boolean {
  if (agentImage === undefined) return false;
  if (agentImage === expectedImage) return true;
  if (agentImage.includes(':')) return false;
  const colon = expectedImage.lastIndexOf(':');
  return colon >= 0 && expectedImage.slice(colon + 1) === agentImage;
}

export function compatibleAgent(c: HostValidationContext): Check {
  const image = c.config.agentDockerImage;
  if (c.config.enableUpgradeAgent === false || !image) {
    return check('success', 'Host agent compatibility checking is disabled');
  }
  if (isAgentCompatible(image, c.host.discovery_agent_version)) {
    return check('success', 'Host agent is compatible with the service');
  }
  return check(
    'failure',
    "This host's agent is in the process of being upgraded to a compatible version. This might take a few minutes",
  );
}

export function noSkipInstallationDisk(c: HostValidationContext): Check {
  const disk = c.host.installation_disk_id ?? '';
  if (disk === '' || !skippedFormattingDisks(c.host).includes(disk)) {
    return check('success', 'No request to skip formatting of the installation disk');
  }
  return check(
    'failure',
    "Requesting to skip the formatting of the installation disk is not allowed. The installation disk must be formatted. Please either change this host's installation disk or do not skip the formatting of the installation disk",
  );
}

export function noSkipMissingDisk(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', 'Host inventory not available yet');
  const present = new Set((c.inventory.disks ?? []).map(deviceIdentifier));
  if (skippedFormattingDisks(c.host).every((id) => present.has(id))) {
    return check('success', 'All disks that have skipped formatting are present in the host inventory');
  }
  return check(
    'failure',
    "One or more of the disks that you have requested to skip the formatting of are no longer present on this host. To ensure they haven't just changed their identity, please remove your request to skip their formatting and then if needed add them back using the new ID",
  );
}
