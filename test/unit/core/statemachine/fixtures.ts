// Shared records and helpers for the state-machine tests.

import type { Cluster, Host, ValidationsInfo } from '../../../../src/core/model.ts';
import {
  CLUSTER_RULE_VALIDATION_IDS,
  HOST_RULE_VALIDATION_IDS,
  type SmContext,
  type StateMachineOptions,
} from '../../../../src/core/statemachine/index.ts';

export const NOW = new Date('2026-03-01T12:00:00.000Z');
export const MIN = 60_000;
export const HOUR = 60 * MIN;

/** ISO timestamp `ms` before NOW. */
export function ago(ms: number): string {
  return new Date(NOW.getTime() - ms).toISOString();
}

export function allHostValidationsPass(overrides: Record<string, boolean> = {}): Record<string, boolean> {
  return { ...Object.fromEntries(HOST_RULE_VALIDATION_IDS.map((id) => [id, true])), ...overrides };
}

export function allClusterValidationsPass(overrides: Record<string, boolean> = {}): Record<string, boolean> {
  return { ...Object.fromEntries(CLUSTER_RULE_VALIDATION_IDS.map((id) => [id, true])), ...overrides };
}

export function ctx(
  conditions: Record<string, boolean> = {},
  options: Partial<StateMachineOptions> = {},
): SmContext {
  return { now: NOW, conditions, options };
}

export function makeHost(overrides: Partial<Host> = {}): Host {
  return {
    id: 'h1',
    infra_env_id: 'ie1',
    cluster_id: 'c1',
    kind: 'Host',
    status: 'known',
    status_info: 'Host is ready to be installed',
    status_updated_at: NOW.toISOString(),
    role: 'master',
    suggested_role: 'master',
    installation_disk_id: '/dev/disk/by-id/wwn-0x1',
    installation_disk_path: '/dev/sda',
    inventory: {
      hostname: 'node-1',
      cpu: { count: 8 },
      memory: { physical_bytes: 32 * 1024 ** 3, usable_bytes: 32 * 1024 ** 3 },
      disks: [
        {
          id: '/dev/disk/by-id/wwn-0x1',
          name: 'sda',
          path: '/dev/sda',
          by_path: '/dev/disk/by-path/pci-0000:00:01.0',
          model: 'SuperDisk',
          serial: 'SN123',
          size_bytes: 200e9,
          drive_type: 'SSD',
          installation_eligibility: { eligible: true },
        },
      ],
      interfaces: [{ name: 'eth0', mac_address: 'AA:BB:CC:00:00:01', ipv4_addresses: ['192.168.1.10/24'] }],
    },
    progress: { current_stage: '' },
    logs_info: '',
    ...overrides,
  };
}

export function makeCluster(overrides: Partial<Cluster> = {}): Cluster {
  return {
    id: 'c1',
    kind: 'Cluster',
    name: 'demo',
    base_dns_domain: 'example.com',
    openshift_version: '4.18',
    status: 'insufficient',
    status_info: 'Cluster is not ready for install',
    status_updated_at: NOW.toISOString(),
    control_plane_count: 3,
    platform: { type: 'baremetal' },
    user_managed_networking: false,
    cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
    service_networks: [{ cidr: '172.30.0.0/16' }],
    machine_networks: [{ cidr: '192.168.1.0/24' }],
    api_vips: [{ ip: '192.168.1.100' }],
    ingress_vips: [{ ip: '192.168.1.101' }],
    install_started_at: ago(HOUR),
    hosts: [],
    ...overrides,
  };
}

/** `n` hosts with the given role/status, ids prefixed. */
export function hostsOf(
  n: number,
  role: Host['role'],
  status: Host['status'],
  prefix: string = role,
): Host[] {
  return Array.from({ length: n }, (_, i) =>
    makeHost({ id: `${prefix}-${i}`, role, suggested_role: role, status }),
  );
}

export function validationsWithFailure(id: string, message: string, category = 'hardware'): ValidationsInfo {
  return { [category]: [{ id, status: 'failure', message }] };
}
