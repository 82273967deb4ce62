// Host facts the install-config and ignition generators read (core.md §1.9).

import type { Cluster, Host, HostRole } from '../model.ts';
import { type IpFamily, ipFamily, normalizeCidr, tryParseCidr } from '../network/cidr.ts';

/** The role a host will be installed with: an auto-assign host takes its suggested role, if any. */
export function effectiveRole(host: Host): HostRole {
  if (host.role === 'auto-assign' && host.suggested_role) return host.suggested_role;
  return host.role;
}

/** requested_hostname if set, else the inventory hostname ('' when neither is known). */
export function effectiveHostname(host: Host): string {
  return host.requested_hostname || host.inventory?.hostname || '';
}

/** installation_disk_id if set, else installation_disk_path. */
export function installationPath(host: Host): string {
  return host.installation_disk_id || host.installation_disk_path || '';
}

export function isSingleNode(cluster: Cluster): boolean {
  return cluster.control_plane_count === 1;
}

/** The host flagged bootstrap; for SNO the single host stands in when none is flagged yet. */
export function bootstrapHost(cluster: Cluster): Host | undefined {
  const flagged = cluster.hosts.find((h) => h.bootstrap);
  if (flagged) return flagged;
  return isSingleNode(cluster) && cluster.hosts.length === 1 ? cluster.hosts[0] : undefined;
}

/** Two-node-with-fencing: cp count 2, no arbiter, exactly two masters, both with credentials. */
export function isTwoNodesWithFencing(cluster: Cluster): boolean {
  if (cluster.control_plane_count !== 2) return false;
  const roles = cluster.hosts.map(effectiveRole);
  if (roles.includes('arbiter')) return false;
  const masters = cluster.hosts.filter((h) => effectiveRole(h) === 'master');
  return masters.length === 2 && masters.every((h) => !!h.fencing_credentials);
}

function isIpv6LinkLocal(cidr: string): boolean {
  const c = tryParseCidr(cidr);
  return !!c && c.family === 'ipv6' && c.ip.value >> 118n === 0x3fan;
}

/** The networks (normalised CIDRs) of a host's interfaces, in interface then address order. */
export function hostNetworks(host: Host, family?: IpFamily): string[] {
  const out: string[] = [];
  for (const iface of host.inventory?.interfaces ?? []) {
    const addrs = [...(iface.ipv4_addresses ?? []), ...(iface.ipv6_addresses ?? [])];
    for (const addr of addrs) {
      if (!tryParseCidr(addr) || isIpv6LinkLocal(addr)) continue;
      const net = normalizeCidr(addr);
      if (family && ipFamily(net) !== family) continue;
      if (!out.includes(net)) out.push(net);
    }
  }
  return out;
}

/**
 * The cluster's primary IP stack: the family of the first element of machine networks, API VIPs,
 * Ingress VIPs, service networks, cluster networks (first list that has one); IPv4 by default.
 */
export function primaryFamily(cluster: Cluster): IpFamily {
  const firsts = [
    cluster.machine_networks[0]?.cidr,
    cluster.api_vips[0]?.ip,
    cluster.ingress_vips[0]?.ip,
    cluster.service_networks[0]?.cidr,
    cluster.cluster_networks[0]?.cidr,
  ];
  for (const value of firsts) {
    const fam = value ? ipFamily(value) : undefined;
    if (fam) return fam;
  }
  return 'ipv4';
}
