import type { Inventory } from '../../../../src/core/inventory.ts';
import type { Cluster, Host, HostStatus, InfraEnv } from '../../../../src/core/model.ts';
import type { StepsContext, StepsOptions } from '../../../../src/core/steps/index.ts';

export const CLUSTER_ID = 'c1c1c1c1-0000-4000-8000-000000000001';
export const INFRA_ENV_ID = 'e1e1e1e1-0000-4000-8000-000000000001';
export const HOST_IDS = [
  'a0000000-0000-4000-8000-000000000001',
  'a0000000-0000-4000-8000-000000000002',
  'a0000000-0000-4000-8000-000000000003',
] as const;
export const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:v2.40';

/** A seeded generator (mulberry32): the same seed gives the same step ids. */
export function seededRandom(seed = 42): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function inventory(n: number, extra: Partial<Inventory> = {}): Inventory {
  return {
    hostname: `host-${n}`,
    cpu: { count: 8, architecture: 'x86_64' },
    memory: { usable_bytes: 32 * 2 ** 30 },
    boot: {
      current_boot_mode: 'uefi',
      device_type: 'ephemeral',
      command_line: 'BOOT_IMAGE=/images/pxeboot/vmlinuz',
    },
    interfaces: [
      {
        name: 'eth0',
        mac_address: `52:54:00:00:00:0${n}`,
        ipv4_addresses: [`192.168.111.1${n}/24`],
        ipv6_addresses: [`fd00::1${n}/64`],
        type: 'physical',
      },
      {
        name: 'eth1',
        mac_address: `52:54:00:00:01:0${n}`,
        ipv4_addresses: [`10.0.0.1${n}/16`],
        ipv6_addresses: null,
      },
      { name: 'eth2', mac_address: `52:54:00:00:02:0${n}`, ipv4_addresses: null, ipv6_addresses: null },
    ],
    disks: [
      {
        id: '/dev/disk/by-id/wwn-0x1',
        name: 'sda',
        path: '/dev/sda',
        drive_type: 'SSD',
        size_bytes: 200e9,
        bootable: true,
        installation_eligibility: { eligible: true },
      },
      { id: '/dev/disk/by-id/wwn-0x2', name: 'sdb', drive_type: 'HDD', size_bytes: 500e9, bootable: true },
      { id: '/dev/disk/by-id/usb', name: 'sdc', drive_type: 'SSD', bootable: true, removable: true },
    ],
    routes: [{ interface: 'eth0', destination: '0.0.0.0', gateway: '192.168.111.1', family: 2 }],
    ...extra,
  };
}

export function makeHost(n: number, status: HostStatus, extra: Partial<Host> = {}): Host {
  return {
    id: HOST_IDS[n - 1] ?? `a0000000-0000-4000-8000-00000000000${n}`,
    infra_env_id: INFRA_ENV_ID,
    cluster_id: CLUSTER_ID,
    kind: 'Host',
    status,
    status_info: '',
    role: 'master',
    inventory: inventory(n),
    installation_disk_id: '/dev/disk/by-id/wwn-0x1',
    installation_disk_path: '/dev/sda',
    discovery_agent_version: AGENT_IMAGE,
    ...extra,
  };
}

export function makeCluster(hosts: Host[], extra: Partial<Cluster> = {}): Cluster {
  return {
    id: CLUSTER_ID,
    kind: 'Cluster',
    name: 'ostest',
    base_dns_domain: 'example.com',
    openshift_version: '4.18.3',
    ocp_release_image: 'quay.io/openshift-release-dev/ocp-release:4.18.3-x86_64',
    cpu_architecture: 'x86_64',
    status: 'ready',
    status_info: '',
    control_plane_count: 3,
    platform: { type: 'baremetal' },
    user_managed_networking: false,
    cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
    service_networks: [{ cidr: '172.30.0.0/16' }],
    machine_networks: [{ cidr: '192.168.111.0/24' }],
    api_vips: [{ ip: '192.168.111.5' }],
    ingress_vips: [{ ip: '192.168.111.4' }],
    vip_dhcp_allocation: true,
    api_vip_lease: 'lease { interface "api"; renew never; }',
    ingress_vip_lease: '',
    disk_encryption: {
      enable_on: 'masters,workers',
      mode: 'tang',
      tang_servers: '[{"url":"http://tang.example.com:7500","thumbprint":"abc"}]',
    },
    additional_ntp_source: 'clock.example.com',
    hosts,
    ...extra,
  };
}

export function makeInfraEnv(extra: Partial<InfraEnv> = {}): InfraEnv {
  return {
    id: INFRA_ENV_ID,
    name: 'ie',
    cluster_id: CLUSTER_ID,
    additional_ntp_sources: 'ie.ntp.example.com',
    ...extra,
  };
}

export const OPTIONS: StepsOptions = {
  agentImage: AGENT_IMAGE,
  installerImage: 'quay.io/edge-infrastructure/assisted-installer:v2.40',
  controllerImage: 'quay.io/edge-infrastructure/assisted-installer-controller:v2.40',
  release: {
    releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.18.3-x86_64',
    mcoImage: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mco',
    mustGatherImages: { ocp: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:mg' },
    coreosImage: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:rhcos',
  },
  bootArtifacts: {
    initrd_url: 'https://images.example.com/images/ie/pxe-initrd?api_key=k&arch=x86_64&version=4.18',
    rootfs_url: 'https://images.example.com/boot-artifacts/rootfs?arch=x86_64&version=4.18',
    kernel_url: 'https://images.example.com/boot-artifacts/kernel?arch=x86_64&version=4.18',
  },
};

export function ctx(options: Partial<StepsOptions> = {}, seed = 42): StepsContext {
  return {
    now: new Date('2026-01-01T00:00:00Z'),
    random: seededRandom(seed),
    options: { ...OPTIONS, ...options },
  };
}

/** A day-1 cluster where every step of every row has something to do for host 1. */
export function day1(status: HostStatus, hostExtra: Partial<Host> = {}, clusterExtra: Partial<Cluster> = {}) {
  const host = makeHost(1, status, { bootstrap: true, ...hostExtra });
  const others = [makeHost(2, 'known'), makeHost(3, 'known', { role: 'worker' })];
  const cluster = makeCluster([host, ...others], clusterExtra);
  return { host, cluster, infraEnv: makeInfraEnv() };
}

export const DAY2_IGNITION = JSON.stringify({
  ignition: { version: '3.2.0' },
  storage: {
    luks: [
      {
        name: 'root',
        clevis: {
          tang: [{ url: 'http://tang2.example.com:7500', thumbprint: 'xyz' }, { url: 'http://tang3' }],
        },
      },
    ],
    files: [
      {
        path: '/etc/ignition-machine-config-encapsulated.json',
        contents: {
          source: `data:,${encodeURIComponent(JSON.stringify({ spec: { osImageURL: 'quay.io/day2/rhcos@sha256:1' } }))}`,
        },
      },
    ],
  },
});

export function day2(status: HostStatus, hostExtra: Partial<Host> = {}, clusterExtra: Partial<Cluster> = {}) {
  const host = makeHost(1, status, {
    kind: 'AddToExistingClusterHost',
    role: 'worker',
    api_vip_connectivity: { is_success: true, ignition: DAY2_IGNITION },
    ...hostExtra,
  });
  const other = makeHost(2, 'known', { kind: 'AddToExistingClusterHost', role: 'worker' });
  const cluster = makeCluster([host, other], {
    kind: 'AddHostsCluster',
    api_vip_dns_name: 'api.ostest.example.com',
    ...clusterExtra,
  });
  return { host, cluster, infraEnv: makeInfraEnv() };
}

export function pool(status: HostStatus, hostExtra: Partial<Host> = {}) {
  const host = makeHost(1, status, { cluster_id: null, role: 'auto-assign', ...hostExtra });
  return { host, cluster: undefined, infraEnv: makeInfraEnv({ cluster_id: null, ntp_sources: '' }) };
}
