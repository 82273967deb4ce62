// Test builders for clusters and hosts: small, explicit defaults; each test states what differs.

import type { Interface } from '../../../../src/core/inventory.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';

export const PULL_SECRET = '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}';
export const SSH_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFakeKeyForTestsFakeKeyForTestsFakeKeyForTes user@example.com';

export function nic(mac: string, ipv4: string[], ipv6: string[] = [], name = 'eth0'): Interface {
  return { name, mac_address: mac, ipv4_addresses: ipv4, ipv6_addresses: ipv6 };
}

export function makeHost(
  id: string,
  hostname: string,
  role: Host['role'],
  interfaces: Interface[],
  extra: Partial<Host> = {},
): Host {
  return {
    id,
    infra_env_id: 'infraenv-1',
    cluster_id: 'cluster-1',
    kind: 'Host',
    status: 'known',
    status_info: 'Host is ready to be installed',
    role,
    inventory: { hostname, interfaces, boot: { current_boot_mode: 'uefi' } },
    installation_disk_id: `/dev/disk/by-id/wwn-${id}`,
    installation_disk_path: '/dev/sda',
    ...extra,
  };
}

export function makeCluster(extra: Partial<Cluster> = {}): Cluster {
  return {
    id: 'cluster-1',
    kind: 'Cluster',
    name: 'ostest',
    base_dns_domain: 'example.com',
    openshift_version: '4.16.3',
    status: 'preparing-for-installation',
    status_info: '',
    control_plane_count: 3,
    platform: { type: 'baremetal' },
    user_managed_networking: false,
    network_type: 'OVNKubernetes',
    cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
    service_networks: [{ cidr: '172.30.0.0/16' }],
    machine_networks: [{ cidr: '192.168.111.0/24' }],
    api_vips: [{ ip: '192.168.111.5' }],
    ingress_vips: [{ ip: '192.168.111.4' }],
    hyperthreading: 'all',
    pull_secret: PULL_SECRET,
    ssh_public_key: SSH_KEY,
    hosts: [],
    ...extra,
  };
}

/** Three masters and two workers on 192.168.111.0/24, the last master is bootstrap. */
export function multiNodeHosts(): Host[] {
  const host = (n: number, role: Host['role'], extra: Partial<Host> = {}) =>
    makeHost(
      `0000000${n}-0000-0000-0000-000000000000`,
      `${role === 'master' ? 'master' : 'worker'}-${n}`,
      role,
      [
        nic(`52:54:00:00:00:0${n}`, [`10.0.0.${10 + n}/24`], [], 'eth0'),
        nic(`52:54:00:00:01:0${n}`, [`192.168.111.${20 + n}/24`], [], 'eth1'),
      ],
      extra,
    );
  return [
    host(4, 'worker'),
    host(1, 'master'),
    host(5, 'worker', { inventory: undefined }),
    host(2, 'master'),
    host(3, 'master', { bootstrap: true }),
  ].map((h) =>
    h.inventory
      ? h
      : {
          ...h,
          inventory: {
            hostname: 'worker-5',
            interfaces: [nic('52:54:00:00:01:05', ['192.168.111.25/24'])],
            boot: { current_boot_mode: 'bios' },
          },
        },
  );
}

/** One host, bootstrap, two networks: 192.168.122.0/24 and 2001:db8::/64. */
export function singleNodeHost(extra: Partial<Host> = {}): Host {
  return makeHost(
    '11111111-1111-1111-1111-111111111111',
    'sno',
    'master',
    [nic('52:54:00:aa:bb:cc', ['192.168.122.10/24'], ['fe80::1/64', '2001:db8::10/64'])],
    { bootstrap: true, ...extra },
  );
}
