// Builders for the Agent reconciler tests.
import type { Agent } from '../../../../src/api/index.ts';
import type { RefreshInput } from '../../../../src/controllers/agent/refresh.ts';
import type { Inventory } from '../../../../src/core/inventory.ts';
import type { Host } from '../../../../src/core/model.ts';
import { resolveOptions } from '../../../../src/core/statemachine/index.ts';

export const NOW = new Date('2025-06-01T12:00:00.000Z');
export const HOST_ID = '5a5a5a5a-0000-4000-8000-00000000000a';
export const INFRA_ENV_ID = '6b6b6b6b-0000-4000-8000-00000000000b';
export const CLUSTER_ID = '7c7c7c7c-0000-4000-8000-00000000000c';

export function inventory(overrides: Partial<Inventory> = {}): Inventory {
  return {
    hostname: 'worker-0',
    bmc_address: '0.0.0.0',
    bmc_v6address: '::/0',
    boot: { current_boot_mode: 'uefi', device_type: 'ephemeral' },
    cpu: { architecture: 'x86_64', count: 8, flags: ['vmx'], frequency: 2400, model_name: 'Xeon' },
    disks: [
      {
        id: '/dev/disk/by-path/pci-0000:00:04.0',
        by_path: '/dev/disk/by-path/pci-0000:00:04.0',
        drive_type: 'SSD',
        name: 'vda',
        path: '/dev/vda',
        size_bytes: 214748364800,
        installation_eligibility: { eligible: true, not_eligible_reasons: [] },
      },
    ],
    interfaces: [
      {
        name: 'eth0',
        mac_address: '52:54:00:00:00:01',
        ipv4_addresses: ['192.168.122.10/24'],
        ipv6_addresses: [],
        flags: ['up'],
        has_carrier: true,
        mtu: 1500,
        type: 'physical',
      },
    ],
    memory: { physical_bytes: 34359738368, usable_bytes: 33285996544 },
    routes: [{ destination: '0.0.0.0', family: 2, gateway: '192.168.122.1', interface: 'eth0', metric: 100 }],
    system_vendor: { manufacturer: 'Red Hat', product_name: 'KVM', virtual: true },
    ...overrides,
  } as Inventory;
}

/** An Agent as registration leaves it (unbound, discovering-unbound). */
export function agent(overrides: { spec?: Partial<Agent['spec']>; status?: Agent['status'] } = {}): Agent {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: {
      name: HOST_ID,
      namespace: 'ns',
      resourceVersion: '1',
      labels: { 'infraenvs.agent-install.openshift.io': 'pool' },
      ownerReferences: [
        {
          apiVersion: 'agent-install.openshift.io/v1beta1',
          kind: 'InfraEnv',
          name: 'pool',
          uid: INFRA_ENV_ID,
        },
      ],
    },
    spec: { approved: false, role: '', ...overrides.spec },
    status: overrides.status ?? {
      role: 'auto-assign',
      debugInfo: { state: 'discovering-unbound', stateInfo: 'Waiting for host to send hardware details' },
      backend: { infraEnvID: INFRA_ENV_ID, role: 'auto-assign', statusUpdatedAt: NOW.toISOString() },
    },
  } as Agent;
}

export function refreshInput(overrides: Partial<RefreshInput> = {}): RefreshInput {
  return {
    agent: agent(),
    facts: { checked_in_at: NOW.toISOString(), timestamp: Math.floor(NOW.getTime() / 1000) },
    desired: { kind: 'none' },
    current: {},
    infraEnv: { id: INFRA_ENV_ID, name: 'pool', type: 'full-iso' } as RefreshInput['infraEnv'],
    now: NOW,
    warm: true,
    options: resolveOptions({ kubeApiEnabled: true }),
    validationConfig: {},
    ...overrides,
  };
}

/** A host record that has reported its inventory and waits to be bound (the Agent fixtures' host). */
export function knownUnboundHost(overrides: Partial<Host> = {}): Host {
  return {
    id: HOST_ID,
    infra_env_id: INFRA_ENV_ID,
    kind: 'Host',
    status: 'known-unbound',
    status_info: 'Host is ready to be bound to a cluster',
    role: 'auto-assign',
    inventory: inventory(),
    ...overrides,
  };
}
