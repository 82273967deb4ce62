// Platform providers (core.md §7.3): each fills `platform` and may rewrite networking.

import type { Cluster, Host } from '../model.ts';
import { cidrContains, ipFamily } from '../network/cidr.ts';
import { baseVersionAtLeast } from '../version.ts';
import { InstallConfigError } from './builder.ts';
import {
  bootstrapHost,
  effectiveHostname,
  hostNetworks,
  installationPath,
  isSingleNode,
  primaryFamily,
} from './hosts.ts';
import type { BareMetalHost, InstallConfig, InstallConfigOptions, VspherePlatform } from './types.ts';

/** vSphere credential placeholders, replaced by the user after installation. */
export const VSPHERE_PLACEHOLDERS = {
  vcenter: 'vcenterplaceholder',
  username: 'usernameplaceholder',
  password: 'passwordplaceholder',
  datacenter: 'datacenterplaceholder',
  defaultDatastore: 'defaultdatastoreplaceholder',
  network: 'networkplaceholder',
  cluster: 'clusterplaceholder',
  folder: 'folderplaceholder',
} as const;

function isUserManagedNetworking(cluster: Cluster): boolean {
  return cluster.user_managed_networking;
}

function dualStackVipsAvailable(cluster: Cluster, options: InstallConfigOptions): boolean {
  return options.dualStackVipsSupported ?? baseVersionAtLeast(cluster.openshift_version, '4.12');
}

interface VipTarget {
  apiVIPs?: string[];
  apiVIP?: string;
  ingressVIPs?: string[];
  ingressVIP?: string;
}

/** All VIPs when dual-stack VIPs are available, else the first of each plus the singular fields. */
function setVips(target: VipTarget, cluster: Cluster, options: InstallConfigOptions): void {
  const api = cluster.api_vips.map((v) => v.ip);
  const ingress = cluster.ingress_vips.map((v) => v.ip);
  if (dualStackVipsAvailable(cluster, options)) {
    target.apiVIPs = api;
    target.ingressVIPs = ingress;
    return;
  }
  target.apiVIPs = api.slice(0, 1);
  target.ingressVIPs = ingress.slice(0, 1);
  if (api[0]) target.apiVIP = api[0];
  if (ingress[0]) target.ingressVIP = ingress[0];
}

function requireVips(cluster: Cluster): void {
  if (cluster.api_vips.length === 0)
    throw new InstallConfigError('invalid cluster parameters, APIVip must be provided');
  if (cluster.ingress_vips.length === 0) {
    throw new InstallConfigError('invalid cluster parameters, IngressVip must be provided');
  }
}

function userManagedLoadBalancer(cluster: Cluster): { type: string } | undefined {
  const type = cluster.load_balancer?.type;
  if (type === undefined || type === 'cluster-managed') return undefined;
  if (type === 'user-managed') return { type: 'UserManaged' };
  throw new InstallConfigError(
    `load balancer type is set to unsupported value '${type}', supported values are 'cluster-managed' and 'user-managed'`,
  );
}

/**
 * Machine networks for user-managed networking (§6.3): the cluster's if it has any, else the
 * bootstrap host's networks, at most one per family, primary stack first. Upstream picks among
 * several same-family networks in Go map order; we take the first in interface order.
 */
export function userManagedMachineNetworks(cluster: Cluster): { cidr: string }[] | null {
  if (cluster.machine_networks.length > 0) return cluster.machine_networks.map((n) => ({ cidr: n.cidr }));
  const host = bootstrapHost(cluster);
  if (!host) return null;
  const v4 = hostNetworks(host, 'ipv4')[0];
  const v6 = hostNetworks(host, 'ipv6')[0];
  const ordered = primaryFamily(cluster) === 'ipv6' ? [v6, v4] : [v4, v6];
  const nets = ordered.filter((n): n is string => !!n).map((cidr) => ({ cidr }));
  return nets.length > 0 ? nets : null;
}

/** UMN rewrite shared by none/external and vSphere/Nutanix with user-managed networking. */
function applyUserManagedNetworking(cfg: InstallConfig, cluster: Cluster): void {
  cfg.networking.machineNetwork = userManagedMachineNetworks(cluster);
  if (cluster.network_type !== undefined) cfg.networking.networkType = cluster.network_type;
}

/** Multi-node none/external: the bootstrap node's family uses its node-IP allocation CIDR (§6.7). */
function applyNodeIpAllocation(cfg: InstallConfig, cluster: Cluster, options: InstallConfigOptions): void {
  const host = bootstrapHost(cluster);
  const allocation = host ? options.nodeIpAllocations?.[host.id] : undefined;
  if (!allocation) return;
  const family = ipFamily(allocation.cidr);
  const nets = cfg.networking.machineNetwork ?? [];
  const index = nets.findIndex((n) => ipFamily(n.cidr) === family);
  if (index >= 0) nets[index] = { cidr: allocation.cidr };
  else nets.push({ cidr: allocation.cidr });
  cfg.networking.machineNetwork = nets;
}

function bootMacAddress(host: Host, cluster: Cluster): string {
  for (const iface of host.inventory?.interfaces ?? []) {
    const addrs = [...(iface.ipv4_addresses ?? []), ...(iface.ipv6_addresses ?? [])];
    const inside = addrs.some((addr) => {
      const ip = addr.split('/')[0] ?? '';
      return cluster.machine_networks.some((n) => cidrContains(n.cidr, ip));
    });
    if (inside) return iface.mac_address ?? '';
  }
  throw new InstallConfigError('Failed to find a network interface matching any machine network');
}

function roleRank(role: string): number {
  return role === 'master' ? 0 : role === 'arbiter' ? 1 : 2;
}

function splitNtp(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

/** cluster.additional_ntp_source, or when empty the de-duplicated union of the infra-envs' sources. */
function additionalNtpServers(cluster: Cluster, options: InstallConfigOptions): string[] {
  const own = splitNtp(cluster.additional_ntp_source);
  if (own.length > 0) return own;
  const union: string[] = [];
  for (const env of options.infraEnvs ?? []) {
    for (const s of splitNtp(env.additional_ntp_sources)) if (!union.includes(s)) union.push(s);
  }
  return union;
}

function baremetalHosts(cluster: Cluster): BareMetalHost[] {
  if (cluster.machine_networks.length === 0) {
    throw new InstallConfigError(`Failed to find machine networks for baremetal cluster ${cluster.id}`);
  }
  const sorted = [...cluster.hosts].sort((a, b) => {
    const byRole = roleRank(a.role) - roleRank(b.role);
    if (byRole !== 0) return byRole;
    const ha = effectiveHostname(a);
    const hb = effectiveHostname(b);
    return ha < hb ? -1 : ha > hb ? 1 : 0;
  });
  return sorted.map((host) => {
    const mode = host.inventory?.boot?.current_boot_mode;
    return {
      name: effectiveHostname(host),
      role: host.role,
      bootMACAddress: bootMacAddress(host, cluster),
      bootMode: mode && mode !== 'uefi' ? 'legacy' : 'UEFI',
      bmc: { username: '', password: '', address: '', disableCertificateVerification: false },
      hardwareProfile: '',
    };
  });
}

function addBaremetal(cfg: InstallConfig, cluster: Cluster, options: InstallConfigOptions): void {
  const bm: NonNullable<InstallConfig['platform']['baremetal']> = {
    provisioningNetwork: baseVersionAtLeast(cluster.openshift_version, '4.7') ? 'Disabled' : 'Unmanaged',
    hosts: null,
  };
  setVips(bm, cluster, options);
  bm.hosts = baremetalHosts(cluster);
  const ntp = additionalNtpServers(cluster, options);
  if (ntp.length > 0) bm.additionalNTPServers = ntp;
  const lb = userManagedLoadBalancer(cluster);
  if (lb) bm.loadBalancer = lb;
  cfg.platform = { baremetal: bm };
}

function addBootstrapInPlace(cfg: InstallConfig, cluster: Cluster): void {
  if (!isSingleNode(cluster)) return;
  const host = bootstrapHost(cluster);
  if (host) cfg.bootstrapInPlace = { installationDisk: installationPath(host) };
}

function addNoneOrExternal(cfg: InstallConfig, cluster: Cluster, options: InstallConfigOptions): void {
  if (cluster.platform.type === 'external') {
    cfg.platform = {
      external: {
        PlatformName: cluster.platform.external?.platform_name ?? '',
        CloudControllerManager: cluster.platform.external?.cloud_controller_manager ?? '',
      },
    };
  } else {
    cfg.platform = { none: {} };
  }
  applyUserManagedNetworking(cfg, cluster);
  if (!isSingleNode(cluster)) applyNodeIpAllocation(cfg, cluster, options);
  addBootstrapInPlace(cfg, cluster);
}

function addVsphere(cfg: InstallConfig, cluster: Cluster, options: InstallConfigOptions): void {
  const vs: VspherePlatform = {};
  if (!isUserManagedNetworking(cluster)) {
    requireVips(cluster);
    setVips(vs, cluster, options);
  } else {
    applyUserManagedNetworking(cfg, cluster);
  }
  const ph = VSPHERE_PLACEHOLDERS;
  if (!baseVersionAtLeast(cluster.openshift_version, '4.13')) {
    Object.assign(vs, {
      vCenter: ph.vcenter,
      username: ph.username,
      password: ph.password,
      datacenter: ph.datacenter,
      defaultDatastore: ph.defaultDatastore,
      network: ph.network,
      cluster: ph.cluster,
    });
  } else {
    vs.vcenters = [
      { datacenters: [ph.datacenter], password: ph.password, server: ph.vcenter, user: ph.username },
    ];
    vs.failureDomains = [
      {
        name: 'assisted-generated-failure-domain',
        region: 'assisted-generated-region',
        server: ph.vcenter,
        topology: {
          computeCluster: `/${ph.datacenter}/host/${ph.cluster}`,
          datacenter: ph.datacenter,
          datastore: `/${ph.datacenter}/datastore/${ph.defaultDatastore}`,
          folder: `/${ph.datacenter}/vm/${ph.folder}`,
          networks: [ph.network],
        },
        zone: 'assisted-generated-zone',
      },
    ];
  }
  cfg.platform = { vsphere: vs };
  try {
    const lb = userManagedLoadBalancer(cluster);
    if (lb) vs.loadBalancer = lb;
  } catch (err) {
    throw new InstallConfigError(
      `failed to set vSphere's cluster install-config.yaml load balancer as user-managed: ${(err as Error).message}`,
    );
  }
}

function addNutanix(cfg: InstallConfig, cluster: Cluster, options: InstallConfigOptions): void {
  const nx: NonNullable<InstallConfig['platform']['nutanix']> = {
    prismCentral: {
      endpoint: { address: 'prism.central.placeholder.address', port: 9440 },
      username: 'username_placeholder',
      password: 'password_placeholder',
    },
    prismElements: [
      {
        endpoint: { address: 'prism.element.placeholder.address', port: 9440 },
        uuid: 'xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx',
        name: 'prism_endpoint_name_placeholder',
      },
    ],
    subnetUUIDs: ['yyyyyyyy-yyyy-yyyy-yyyy-yyyyyyyyyyyy'],
  };
  if (!isUserManagedNetworking(cluster)) {
    requireVips(cluster);
    setVips(nx, cluster, options);
  } else {
    applyUserManagedNetworking(cfg, cluster);
  }
  cfg.platform = { nutanix: nx };
}

/** Step 2 of the pipeline; errors are wrapped the way upstream reports them. */
export function addPlatform(cfg: InstallConfig, cluster: Cluster, options: InstallConfigOptions): void {
  const type = cluster.platform.type;
  try {
    switch (type) {
      case 'baremetal':
        addBaremetal(cfg, cluster, options);
        break;
      case 'none':
      case 'external':
        addNoneOrExternal(cfg, cluster, options);
        break;
      case 'vsphere':
        addVsphere(cfg, cluster, options);
        break;
      case 'nutanix':
        addNutanix(cfg, cluster, options);
        break;
      default:
        throw new InstallConfigError(`unsupported platform type "${String(type)}"`);
    }
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new InstallConfigError(
      `error while adding Platfom ${String(type)} to install config, error is: ${message}`,
    );
  }
  if (isSingleNode(cluster) && cfg.networking.networkType === '')
    cfg.networking.networkType = 'OVNKubernetes';
}
