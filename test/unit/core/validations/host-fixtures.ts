// Builders for host-validation tests: a healthy 3-master cluster whose first host passes everything.

import type { Inventory } from '../../../../src/core/inventory.ts';
import type { Cluster, Host, InfraEnv } from '../../../../src/core/model.ts';
import type { HostValidationInput } from '../../../../src/core/validations/host-context.ts';

export const NOW = Date.UTC(2025, 2, 6, 14, 40, 0, 0);
export const GIB = 1024 ** 3;

export function inventory(overrides: Partial<Inventory> = {}): Inventory {
  return {
    hostname: 'master-0',
    cpu: { count: 8, architecture: 'x86_64' },
    memory: { physical_bytes: 32 * GIB, usable_bytes: 32 * GIB },
    disks: [
      {
        id: 'wwn-0x1111',
        name: 'sda',
        drive_type: 'SSD',
        size_bytes: 200_000_000_000,
        bootable: true,
        by_path: '/dev/disk/by-path/pci-0000:00:01.0',
        installation_eligibility: { eligible: true, not_eligible_reasons: null },
      },
    ],
    interfaces: [
      {
        name: 'eth0',
        ipv4_addresses: ['192.168.10.10/24'],
        ipv6_addresses: [],
        mac_address: 'aa:bb:cc:00:00:01',
      },
    ],
    routes: [{ destination: '0.0.0.0', gateway: '192.168.10.1', interface: 'eth0', family: 2, metric: 100 }],
    system_vendor: { manufacturer: 'Dell Inc.', product_name: 'PowerEdge R640', serial_number: 'x' },
    tpm_version: '2.0',
    ...overrides,
  };
}

export function host(overrides: Partial<Host> = {}): Host {
  const id = overrides.id ?? 'host-0';
  return {
    id,
    infra_env_id: 'infra-1',
    cluster_id: 'cluster-1',
    kind: 'Host',
    status: 'known',
    status_info: '',
    role: 'master',
    suggested_role: 'master',
    inventory: inventory(),
    checked_in_at: new Date(NOW - 60_000).toISOString(),
    installation_disk_id: 'wwn-0x1111',
    installation_disk_path: '/dev/sda',
    timestamp: Math.floor(NOW / 1000),
    ntp_sources: [{ source_name: 'clock', source_state: 'synced' }],
    connectivity: { remote_hosts: [] },
    discovery_agent_version: 'quay.io/agent:v1',
    ...overrides,
  };
}

export function peers(): Host[] {
  return [1, 2].map((i) =>
    host({
      id: `host-${i}`,
      inventory: inventory({
        hostname: `master-${i}`,
        interfaces: [{ name: 'eth0', ipv4_addresses: [`192.168.10.${10 + i}/24`] }],
      }),
    }),
  );
}

export function cluster(overrides: Partial<Cluster> = {}): Cluster {
  return {
    id: 'cluster-1',
    kind: 'Cluster',
    name: 'test',
    base_dns_domain: 'example.com',
    openshift_version: '4.18.3',
    status: 'ready',
    status_info: '',
    control_plane_count: 3,
    platform: { type: 'baremetal' },
    user_managed_networking: false,
    cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
    service_networks: [{ cidr: '172.30.0.0/16' }],
    machine_networks: [{ cidr: '192.168.10.0/24' }],
    api_vips: [{ ip: '192.168.10.100' }],
    ingress_vips: [{ ip: '192.168.10.101' }],
    disk_encryption: { enable_on: 'none', mode: 'tpmv2' },
    connectivity_majority_groups: JSON.stringify({
      majority_groups: { '192.168.10.0/24': ['host-0', 'host-1', 'host-2'] },
      l3_connected_addresses: {},
    }),
    hosts: [],
    ...overrides,
  };
}

export const infraEnv: InfraEnv = { id: 'infra-1', name: 'infra', openshift_version: '4.18' };

/** A bound-host input: `h` (default host-0) inside `cl` (default 3 masters) with `now`. */
export function bound(h: Host = host(), cl: Partial<Cluster> = {}, extra: Partial<HostValidationInput> = {}) {
  const base = cluster(cl);
  const hosts = cl.hosts ?? [h, ...peers()];
  return { host: h, cluster: { ...base, hosts }, now: NOW, ...extra } satisfies HostValidationInput;
}

/** An unbound-host input. */
export function unbound(overrides: Partial<Host> = {}, extra: Partial<HostValidationInput> = {}) {
  const h = host({
    cluster_id: null,
    status: 'known-unbound',
    role: 'auto-assign',
    suggested_role: '',
    ...overrides,
  });
  return { host: h, infraEnv, now: NOW, ...extra } satisfies HostValidationInput;
}
