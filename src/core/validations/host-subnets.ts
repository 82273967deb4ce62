// Host validations about the host's own addresses: overlapping interface subnets, IP collisions
// and the NIC serving an iSCSI installation disk.

import { installationDisk } from '../hardware/installation-disk.ts';
import type { Disk, Interface } from '../inventory.ts';
import {
  cidrsOverlap,
  type IpFamily,
  ipFamily,
  normalizeCidr,
  parseCidr,
  tryParseIp,
} from '../network/cidr.ts';
import {
  addressIp,
  type Check,
  check,
  type HostValidationContext,
  hasMachineNetworks,
  isDay2Cluster,
  isSingleNode,
  suppress,
} from './host-context.ts';
import { interfaceInCidr } from './host-network.ts';
import { compareStrings } from './types.ts';

interface InterfaceNetwork {
  cidr: string;
  nic: string;
}

/** Network CIDRs of every interface for one family, de-duplicated per interface. Throws on bad CIDRs. */
export function interfaceNetworks(nics: readonly Interface[], family: IpFamily): InterfaceNetwork[] {
  const out: InterfaceNetwork[] = [];
  for (const nic of nics) {
    const seen = new Set<string>();
    for (const address of family === 'ipv4' ? (nic.ipv4_addresses ?? []) : (nic.ipv6_addresses ?? [])) {
      const cidr = normalizeCidr(parseCidr(address));
      if (seen.has(cidr)) continue;
      seen.add(cidr);
      out.push({ cidr, nic: nic.name ?? '' });
    }
  }
  return out;
}

function overlapProblem(c: HostValidationContext): string | undefined {
  const cluster = c.cluster!;
  const families = new Set(
    [...cluster.cluster_networks, ...cluster.service_networks]
      .map((n) => ipFamily(n.cidr))
      .filter((f) => !!f),
  );
  for (const family of (['ipv4', 'ipv6'] as const).filter((f) => families.has(f))) {
    const networks = interfaceNetworks(c.inventory?.interfaces ?? [], family);
    for (let i = 0; i < networks.length; i++) {
      for (let j = i + 1; j < networks.length; j++) {
        const a = networks[i]!;
        const b = networks[j]!;
        if (a.cidr === b.cidr)
          return `Address network ${a.cidr} appears on multiple interfaces [${a.nic}, ${b.nic}]`;
        if (cidrsOverlap(a.cidr, b.cidr)) {
          return `Address networks ${a.cidr} in interface ${a.nic} and ${b.cidr} in interface ${b.nic} overlap`;
        }
      }
    }
  }
  return undefined;
}

export function nonOverlappingSubnets(c: HostValidationContext): Check {
  if (!c.inventory) return check('pending', 'Missing inventory');
  if (!c.cluster) return suppress;
  let problem: string | undefined;
  try {
    problem = overlapProblem(c);
  } catch (e) {
    return check('error', `Unexpected error: ${(e as Error).message}`);
  }
  if (problem === undefined) return check('success', 'Host subnets are not overlapping');
  return check('failure', `Address networks are overlapping: ${problem}`);
}

/** Whether one of the inventory's interface addresses is `ip`. Throws on a bad interface CIDR. */
function inventoryHasIp(nics: readonly Interface[], ip: string): boolean {
  const wanted = tryParseIp(ip);
  if (!wanted) return false;
  return nics.some((nic) =>
    [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])].some((a) => {
      const own = parseCidr(a).ip;
      return own.family === wanted.family && own.value === wanted.value;
    }),
  );
}

export function noIpCollisionsInNetwork(c: HostValidationContext): Check {
  const cluster = c.cluster;
  if (!cluster) return check('success', 'Cluster has not yet been defined, skipping validation.');
  if (!c.inventory) return check('success', 'Host inventory has not yet been defined, skipping validation.');
  if (isDay2Cluster(cluster)) return check('success', `Skipping validation for day 2 host ${c.host.id}`);
  if (!cluster.ip_collisions) return check('success', 'IP collisions have not yet been evaluated');
  let collisions: Record<string, string[]>;
  try {
    collisions = JSON.parse(cluster.ip_collisions) as Record<string, string[]>;
  } catch {
    return check('error', 'Unable to unmarshall ip collision report for cluster');
  }
  let text = '';
  // Sorted by IP for a stable message (upstream walks a map).
  for (const ip of Object.keys(collisions ?? {}).sort(compareStrings)) {
    let owned: boolean;
    try {
      owned = inventoryHasIp(c.inventory.interfaces ?? [], ip);
    } catch (e) {
      return check('error', `inventory of host ${c.host.id} contains bad CIDR: ${(e as Error).message}`);
    }
    if (owned) {
      text += `Collisions detected for host ID ${c.host.id}, IP address: ${ip} Mac addresses: ${(collisions[ip] ?? []).join(',')}\n`;
    }
  }
  if (text !== '') return check('failure', text);
  return check('success', `No IP collisions were detected by host ${c.host.id}`);
}

type IscsiNicCheck = 'ok' | 'in-machine-network' | 'missing-ip' | 'nic-not-found';

function iscsiNicCheck(c: HostValidationContext, disk: Disk): IscsiNicCheck {
  const hostIp = disk.iscsi?.host_ip_address;
  if (!hostIp) return 'missing-ip';
  const wanted = tryParseIp(hostIp);
  const nic = (c.inventory?.interfaces ?? []).find((n) =>
    [...(n.ipv4_addresses ?? []), ...(n.ipv6_addresses ?? [])].some((a) => {
      const own = tryParseIp(addressIp(a));
      return !!own && !!wanted && own.family === wanted.family && own.value === wanted.value;
    }),
  );
  if (!nic) return 'nic-not-found';
  const machine = c.cluster!.machine_networks.map((n) => n.cidr);
  return machine.some((cidr) => interfaceInCidr(nic, cidr)) ? 'in-machine-network' : 'ok';
}

const ISCSI_NIC_OK = 'Network interface connected to iSCSI disk does not belong to machine network CIDRs';
const ISCSI_ERRORS: Record<'missing-ip' | 'nic-not-found', string> = {
  'missing-ip': 'iSCSI disk is missing host IP address',
  'nic-not-found': 'Cannot find network interface associated to iSCSI host IP address',
};

export function noIscsiNicBelongsToMachineCidr(c: HostValidationContext): Check {
  const cluster = c.cluster;
  if (!cluster) return suppress;
  if (cluster.user_managed_networking && !isSingleNode(cluster)) return suppress;
  if (cluster.imported || isDay2Cluster(cluster)) return suppress;
  if (!c.inventory || !hasMachineNetworks(cluster))
    return check('pending', 'Missing inventory or machine network CIDR');
  const disk = installationDisk(c.host);
  if (!disk || (disk.drive_type !== 'iSCSI' && disk.drive_type !== 'Multipath')) return suppress;
  if (disk.drive_type === 'iSCSI') {
    const result = iscsiNicCheck(c, disk);
    if (result === 'ok') return check('success', ISCSI_NIC_OK);
    if (result === 'in-machine-network') {
      return check(
        'failure',
        'Network interface connected to iSCSI disk cannot belong to machine network CIDRs',
      );
    }
    return check('error', ISCSI_ERRORS[result]);
  }
  const paths = (c.inventory.disks ?? []).filter(
    (d) =>
      d.drive_type === 'iSCSI' &&
      (d.holders ?? '')
        .split(',')
        .map((h) => h.trim())
        .includes(disk.name ?? ''),
  );
  if (paths.length === 0) return suppress;
  const bad: string[] = [];
  for (const path of paths) {
    const result = iscsiNicCheck(c, path);
    if (result === 'missing-ip' || result === 'nic-not-found') return check('error', ISCSI_ERRORS[result]);
    if (result === 'in-machine-network') bad.push(path.name ?? '');
  }
  if (bad.length === 0) return check('success', ISCSI_NIC_OK);
  return check(
    'failure',
    `Installation on multipath device is not possible due to errors on at least one iSCSI disk: Network interface connected to iSCSI disk (${bad.join(', ')}) cannot belong to machine network CIDRs`,
  );
}
