// The coreos-installer arguments passed with the install step (core.md §9.3 `installer_args`).

import type { Disk } from '../inventory.ts';
import type { Cluster, Host, InfraEnv } from '../model.ts';
import { tryParseCidr } from '../network/cidr.ts';
import { primaryMachineCidrForUserManagedNetworking } from '../network/machine-network.ts';

/** Kernel arguments copied from an s390x boot command line (z/VM and LPAR need them on disk too). */
const S390X_KARG_PREFIXES = ['rd.neednet', 'zfcp.allow_lun_scan', 'rd.znet', 'rd.dasd', 'rd.zfcp'];

export type InstallerArgsResult = { args: string[]; error?: undefined } | { error: string; args?: undefined };

/** The user's installer args (JSON list text). */
export function parseUserInstallerArgs(text: string | undefined): string[] | undefined {
  if (!text) return [];
  try {
    const value = JSON.parse(text) as unknown;
    return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

function hasKarg(args: string[], prefix: string): boolean {
  return args.some(
    (a, i) => a.startsWith(prefix) || (a === '--append-karg' && (args[i + 1] ?? '').startsWith(prefix)),
  );
}

const appendKarg = (karg: string) => ['--append-karg', karg];
const macWithDashes = (mac: string) => mac.replaceAll(':', '-');

function s390xKargs(host: Host, cluster: Cluster): { kargs: string[]; ipOverride: boolean } {
  const arch = cluster.cpu_architecture || host.inventory?.cpu?.architecture;
  if (arch !== 's390x') return { kargs: [], ipOverride: false };
  const tokens = (host.inventory?.boot?.command_line ?? '').split(/\s+/).filter((t) => t !== '');
  const ipOverride = tokens.some((t) => t.startsWith('ip='));
  const kargs = tokens.filter(
    (t) =>
      S390X_KARG_PREFIXES.some((p) => t.startsWith(p)) ||
      (ipOverride && (t.startsWith('ip=') || t.startsWith('nameserver='))),
  );
  return { kargs, ipOverride };
}

function iscsiKargs(host: Host, disk: Disk): string[] {
  const hostIp = disk.iscsi?.host_ip_address;
  const nic = hostIp
    ? (host.inventory?.interfaces ?? []).find((n) =>
        [...(n.ipv4_addresses ?? []), ...(n.ipv6_addresses ?? [])].some((a) => a.split('/')[0] === hostIp),
      )
    : undefined;
  const kargs = appendKarg('rd.iscsi.firmware=1');
  if (nic?.mac_address && hostIp) {
    kargs.push(
      ...appendKarg(`ip=${macWithDashes(nic.mac_address)}:${hostIp.includes(':') ? 'dhcp6' : 'dhcp'}`),
    );
  }
  return kargs;
}

/** `ip=<mac>:dhcp|dhcp6|dhcp,dhcp6` for each NIC with an address in the primary machine network(s). */
function dhcpKargs(host: Host, cluster: Cluster): InstallerArgsResult {
  const primary =
    cluster.machine_networks[0]?.cidr ||
    (cluster.user_managed_networking ? primaryMachineCidrForUserManagedNetworking(cluster) : '');
  if (!primary) {
    if (host.kind === 'AddToExistingClusterHost') return { args: [] };
    return { error: 'failed to get machine network CIDR' };
  }
  const networks = [primary, ...cluster.machine_networks.slice(1).map((m) => m.cidr)]
    .map((c) => tryParseCidr(c))
    .filter((c) => c !== undefined);
  const args: string[] = [];
  for (const nic of host.inventory?.interfaces ?? []) {
    const inFamily = (family: 'ipv4' | 'ipv6') =>
      networks.some(
        (net) =>
          net.family === family &&
          (family === 'ipv4' ? nic.ipv4_addresses : nic.ipv6_addresses)?.some((a) => {
            const ip = tryParseCidr(a);
            return ip !== undefined && ip.ip.value >= net.network && ip.ip.value <= net.last;
          }),
      );
    const v4 = inFamily('ipv4');
    const v6 = inFamily('ipv6');
    if (!nic.mac_address || (!v4 && !v6)) continue;
    const mode = v4 && v6 ? 'dhcp,dhcp6' : v4 ? 'dhcp' : 'dhcp6';
    args.push(...appendKarg(`ip=${macWithDashes(nic.mac_address)}:${mode}`));
  }
  return { args };
}

export function constructInstallerArgs(
  host: Host,
  cluster: Cluster,
  infraEnv: InfraEnv,
  installationDisk: Disk | undefined,
  staticNetworkConfigured: boolean,
): InstallerArgsResult {
  const user = parseUserInstallerArgs(host.installer_args);
  if (!user) return { error: `failed to parse installer args of host ${host.id}` };
  const args = [...user];
  const s390x = s390xKargs(host, cluster);
  for (const karg of s390x.kargs) args.push(...appendKarg(karg));
  const driveType = installationDisk?.drive_type;
  if (driveType === 'Multipath') args.push(...appendKarg('rw'), ...appendKarg('rd.multipath=default'));
  if (driveType === 'iSCSI' && installationDisk) args.push(...iscsiKargs(host, installationDisk));
  if (driveType === 'RAID') args.push(...appendKarg('rd.md=1'), ...appendKarg('rd.auto=1'));
  const hasStaticNetwork = (infraEnv.static_network_config?.length ?? 0) > 0 || staticNetworkConfigured;
  if (hasStaticNetwork) {
    args.push('--copy-network');
  } else if (!s390x.ipOverride && !hasKarg(user, 'ip=')) {
    const dhcp = dhcpKargs(host, cluster);
    if (dhcp.error !== undefined) return dhcp;
    args.push(...dhcp.args);
  }
  return { args };
}
