// Builders for the steps that gather facts before installation (core.md §9.3).

import { memoSlot } from '../../util/memo-slot.ts';
import type { Inventory } from '../inventory.ts';
import type { Host } from '../model.ts';
import { normalizeCidr, tryParseCidr, tryParseIp } from '../network/cidr.ts';
import { apiVipMac, ingressVipMac } from '../network/dhcp.ts';
import { primaryMachineCidrInterface } from '../network/machine-network.ts';
import { effectiveRole } from '../statemachine/hostutil.ts';
import { apiVipConnectivityRequest, day2TangServers } from './day2.ts';
import { fail, jsonArg, type StepBuilder, type StepInput, skip, splitUnique, stripPrefix } from './input.ts';

/** Clusters above this size admit connectivity checks through a throttle. */
export const CONNECTIVITY_THROTTLE_MIN_HOSTS = 150;
/** Free-address scans only for IPv4 networks of at most 1024 addresses. */
export const FREE_ADDRESSES_MIN_PREFIX = 22;

export const inventoryStep: StepBuilder = ({ host, options }) => {
  const args = [host.id];
  if ((options.inventoryMaxSize ?? 0) > 0) args.push(`--output-max-size=${options.inventoryMaxSize}`);
  if ((options.inventoryDiskMinSize ?? 0) > 0) args.push(`--disk-min-size=${options.inventoryDiskMinSize}`);
  return { args };
};

export const connectivityCheckStep: StepBuilder = ({ host, cluster, options }) => {
  if (!cluster) return fail('connectivity-check needs the host cluster');
  const probed = (h: (typeof cluster.hosts)[number]) =>
    h.id !== host.id && h.status !== 'discovering' && h.status !== 'disconnected';
  // `some` stops at the first: a throttled poll in a large cluster walks no further.
  if (!cluster.hosts.some(probed)) return skip('no other hosts to probe');
  if (
    cluster.hosts.length > CONNECTIVITY_THROTTLE_MIN_HOSTS &&
    options.admitConnectivityCheck &&
    !options.admitConnectivityCheck(cluster.id, host.id)
  ) {
    return skip('connectivity checks throttled');
  }
  const params: string[] = [];
  for (const other of cluster.hosts) {
    const entry = probed(other) ? probedHostJson(other) : undefined;
    if (entry !== undefined) params.push(entry);
  }
  if (params.length === 0) return skip('no other host has an inventory');
  // The JSON of the list of entries, as jsonArg would write it.
  return { args: [`[${params.join(',')}]`] };
};

/**
 * The NICs of a host's entry in others' connectivity-check argument, as JSON, kept per inventory
 * object (an inventory is replaced, never edited, when the host reports a new one): an admitted
 * poll in a 1,000-host cluster rebuilt 999 entries, about 6 ms each time (make bench-scale).
 */
const probedNics = memoSlot<Inventory, string>('probed NICs');

function probedHostJson(other: Host): string | undefined {
  const inventory = other.inventory;
  if (!inventory) return undefined;
  let nics = probedNics.get(inventory);
  if (nics === undefined) {
    nics = JSON.stringify(
      (inventory.interfaces ?? []).flatMap((nic) => {
        const ips = [...(nic.ipv4_addresses ?? []), ...(nic.ipv6_addresses ?? [])].map(stripPrefix);
        return ips.length > 0
          ? [{ name: nic.name ?? '', mac: nic.mac_address ?? '', ip_addresses: ips }]
          : [];
      }),
    );
    probedNics.set(inventory, nics);
  }
  return `{"host_id":${JSON.stringify(other.id)},"nics":${nics}}`;
}

/** Whether the cluster's disk encryption covers the role (bootstrap counts as master). */
export function encryptionCoversRole(enableOn: string | undefined, role: string): boolean {
  const targets = splitUnique(enableOn);
  if (targets.includes('all')) return true;
  const wanted =
    role === 'master' || role === 'bootstrap' ? 'masters' : role === 'arbiter' ? 'arbiters' : 'workers';
  return role !== 'auto-assign' && targets.includes(wanted);
}

export const tangConnectivityStep: StepBuilder = (input) => {
  const { host, cluster } = input;
  if (host.kind === 'AddToExistingClusterHost') {
    const servers = day2TangServers(host);
    return servers ? jsonArg({ tang_servers: servers }) : skip('no tang servers in the cluster ignition');
  }
  const encryption = cluster?.disk_encryption;
  if (encryption?.mode !== 'tang' || !encryptionCoversRole(encryption.enable_on, effectiveRole(host))) {
    return skip('tang disk encryption not enabled for the host role');
  }
  return jsonArg({ tang_servers: encryption.tang_servers ?? '' });
};

export const freeNetworkAddressesStep: StepBuilder = ({ host, options }) => {
  if (options.kubeApiMode) return skip('free addresses are not scanned in kube-API mode');
  const networks = new Set<string>();
  for (const nic of host.inventory?.interfaces ?? []) {
    for (const address of nic.ipv4_addresses ?? []) {
      const cidr = tryParseCidr(address);
      if (cidr && cidr.family === 'ipv4' && cidr.prefix >= FREE_ADDRESSES_MIN_PREFIX)
        networks.add(normalizeCidr(cidr));
    }
  }
  if (networks.size === 0) return skip('no IPv4 network small enough to scan');
  return jsonArg([...networks].sort());
};

export const dhcpLeaseAllocateStep: StepBuilder = ({ host, cluster }) => {
  if (!cluster?.vip_dhcp_allocation) return skip('VIP DHCP allocation is off');
  if (!cluster.machine_networks[0]?.cidr) return skip('no machine network');
  if (!host.inventory) return skip('no inventory');
  const nic = primaryMachineCidrInterface(host, cluster);
  if (!nic)
    return fail(`host ${host.id} has no interface in machine network ${cluster.machine_networks[0].cidr}`);
  return jsonArg({
    api_vip_mac: apiVipMac(cluster.id),
    ingress_vip_mac: ingressVipMac(cluster.id),
    api_vip_lease: cluster.api_vip_lease ?? '',
    ingress_vip_lease: cluster.ingress_vip_lease ?? '',
    interface: nic,
  });
};

/** Sources for the ntp-synchronizer step (see core.md §9.3). */
export function ntpSourcesFor(input: StepInput): string {
  const { host, cluster, infraEnv, options } = input;
  if (!host.cluster_id || !cluster) {
    return splitUnique(infraEnv.ntp_sources).length > 0
      ? infraEnv.ntp_sources!
      : (infraEnv.additional_ntp_sources ?? '');
  }
  if (cluster.ntp_sources) return cluster.ntp_sources;
  if (cluster.additional_ntp_source) return cluster.additional_ntp_source;
  const infraEnvs = options.clusterInfraEnvs ?? [infraEnv];
  return splitUnique(...infraEnvs.map((ie) => ie.additional_ntp_sources)).join(',');
}

export const ntpSynchronizerStep: StepBuilder = (input) => jsonArg({ ntp_source: ntpSourcesFor(input) });

/** The registry host of an image reference ("quay.io/ocp/release:x" → "quay.io"). */
export function imageRegistryHost(image: string): string | undefined {
  const first = image.split('/')[0] ?? '';
  if (!image.includes('/') || !(first.includes('.') || first.includes(':') || first === 'localhost')) {
    return 'docker.io';
  }
  if (first.startsWith('[')) return first.slice(1, first.indexOf(']'));
  const colon = first.lastIndexOf(':');
  return colon < 0 ? first : first.slice(0, colon);
}

export const domainResolutionStep: StepBuilder = ({ host, cluster, options }) => {
  if (!cluster?.name || !cluster.base_dns_domain) return skip('cluster name or base domain missing');
  const suffix = `${cluster.name}.${cluster.base_dns_domain}`;
  const domains = [
    `api.${suffix}`,
    `api-int.${suffix}`,
    `console-openshift-console.apps.${suffix}`,
    `validateNoWildcardDNS.${suffix}.`,
    `validateNoWildcardDNS.${suffix}`,
  ];
  const release = options.release?.releaseImage || cluster.ocp_release_image;
  if (host.kind !== 'AddToExistingClusterHost' && release) {
    const registry = imageRegistryHost(release);
    if (registry && !tryParseIp(registry)) domains.push(registry);
  }
  return jsonArg({ domains: domains.map((domain_name) => ({ domain_name })) });
};

export const verifyVipsStep: StepBuilder = ({ cluster }) => {
  const vips = [
    ...(cluster?.api_vips ?? []).map((v) => ({ vip: v.ip, vip_type: 'api' })),
    ...(cluster?.ingress_vips ?? []).map((v) => ({ vip: v.ip, vip_type: 'ingress' })),
  ];
  if (vips.length === 0) return skip('no VIPs');
  return jsonArg(vips);
};

export const apiVipConnectivityStep: StepBuilder = ({ host, cluster, options }) => {
  if (!cluster) return fail('api-vip-connectivity-check needs the host cluster');
  return jsonArg(apiVipConnectivityRequest(host, cluster, options));
};
