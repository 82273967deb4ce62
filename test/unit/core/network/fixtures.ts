// Builders for hosts and clusters used by the network and cluster-validation tests.

import type { Interface, Inventory, Route } from '../../../../src/core/inventory.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';

export function iface(
  name: string,
  ipv4: string[] = [],
  ipv6: string[] = [],
  extra: Partial<Interface> = {},
): Interface {
  return { name, ipv4_addresses: ipv4, ipv6_addresses: ipv6, ...extra };
}

export function route(iface: string, gateway: string, metric = 100, destination?: string): Route {
  const v6 = gateway.includes(':');
  return {
    interface: iface,
    gateway,
    metric,
    destination: destination ?? (v6 ? '::' : '0.0.0.0'),
    family: v6 ? 10 : 2,
  };
}

export function inventory(interfaces: Interface[], extra: Partial<Inventory> = {}): Inventory {
  return {
    hostname: 'host',
    interfaces,
    cpu: { count: 8, architecture: 'x86_64' },
    memory: { physical_bytes: 32 * 1024 ** 3 },
    ...extra,
  };
}

export function host(id: string, fields: Partial<Host> = {}): Host {
  return {
    id,
    infra_env_id: 'ie-1',
    cluster_id: 'c-1',
    kind: 'Host',
    status: 'known',
    status_info: '',
    role: 'auto-assign',
    ...fields,
  };
}

/** A host with one NIC carrying the given addresses (CIDR form). */
export function hostWithAddresses(id: string, addresses: string[], fields: Partial<Host> = {}): Host {
  const v4 = addresses.filter((a) => !a.includes(':'));
  const v6 = addresses.filter((a) => a.includes(':'));
  return host(id, { inventory: inventory([iface('eth0', v4, v6)]), ...fields });
}

export function cluster(fields: Partial<Cluster> = {}): Cluster {
  return {
    id: 'c-1',
    kind: 'Cluster',
    name: 'test',
    base_dns_domain: 'example.com',
    openshift_version: '4.18.0',
    status: 'insufficient',
    status_info: '',
    control_plane_count: 3,
    platform: { type: 'baremetal' },
    user_managed_networking: false,
    network_type: 'OVNKubernetes',
    cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
    service_networks: [{ cidr: '172.30.0.0/16' }],
    machine_networks: [],
    api_vips: [],
    ingress_vips: [],
    pull_secret_set: true,
    hosts: [],
    ...fields,
  };
}
