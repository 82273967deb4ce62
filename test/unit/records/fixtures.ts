// Builders for the CRs and records used by the records tests.

import type {
  Agent,
  AgentClusterInstall,
  AgentClusterInstallSpec,
  ClusterDeployment,
  ClusterImageSet,
  InfraEnv,
  NMStateConfig,
} from '../../../src/api/index.ts';
import type { Inventory } from '../../../src/core/inventory.ts';
import { type AgentHost, hostToAgentStatus } from '../../../src/records/index.ts';
import { OsImageCatalog } from '../../../src/records/serviceconfig/os-images.ts';
import { INITIAL_SERVICE_CONFIG } from '../../../src/records/serviceconfig/service-config.ts';

export const NOW = new Date('2025-03-01T10:00:00.000Z');
export const LATER = new Date('2025-03-01T11:30:00.000Z');
export const CLUSTER_ID = '2b0c1a3e-0000-4000-8000-000000000001';
export const INFRA_ENV_ID = '7f3e9d10-0000-4000-8000-000000000002';
export const HOST_ID = 'a1b2c3d4-0000-4000-8000-000000000003';

export function agent(
  overrides: Omit<Partial<Agent>, 'spec'> & { spec?: Partial<Agent['spec']> } = {},
): Agent {
  const { spec, ...rest } = overrides;
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    ...rest,
    metadata: {
      name: HOST_ID,
      namespace: 'spoke',
      creationTimestamp: '2025-03-01T09:00:00Z',
      ownerReferences: [
        { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv', name: 'ie', uid: INFRA_ENV_ID },
      ],
      ...(rest.metadata ?? {}),
    },
    spec: { role: '', approved: false, ...spec },
  };
}

export function host(overrides: Partial<AgentHost> = {}): AgentHost {
  return {
    id: HOST_ID,
    infra_env_id: INFRA_ENV_ID,
    cluster_id: CLUSTER_ID,
    kind: 'Host',
    status: 'known',
    status_info: 'Host is ready to be installed',
    role: 'auto-assign',
    suggested_role: 'master',
    approved: true,
    ...overrides,
  };
}

/** A bound Agent whose status was written for `name` by the Agent reconciler. */
export function boundAgent(name: string, role: 'master' | 'worker', approved = true): Agent {
  const a = agent({ metadata: { name, namespace: 'spoke' }, spec: { approved } });
  const status = hostToAgentStatus(host({ id: name, suggested_role: role, cluster_id: CLUSTER_ID }), a, {
    now: NOW,
  });
  return viaJson({ ...a, status });
}

export function sampleInventory(): Inventory {
  return {
    hostname: 'master-0.example.com',
    bmc_address: '10.0.0.10',
    bmc_v6address: '::/0',
    interfaces: [
      {
        name: 'eth0',
        mac_address: '52:54:00:aa:bb:cc',
        ipv4_addresses: ['192.168.111.20/24'],
        ipv6_addresses: [],
        flags: ['up', 'broadcast'],
        has_carrier: true,
        mtu: 1500,
        speed_mbps: 1000,
        vendor: '0x1af4',
        product: '0x0001',
        biosdevname: 'em1',
        client_id: '',
        type: 'physical',
      },
    ],
    disks: [
      {
        id: '/dev/disk/by-id/wwn-0x1',
        name: 'sda',
        drive_type: 'SSD',
        path: '/dev/sda',
        by_path: '/dev/disk/by-path/pci-0000:00:1f.2-ata-1',
        by_id: '/dev/disk/by-id/wwn-0x1',
        hctl: '0:0:0:0',
        model: 'QEMU HARDDISK',
        serial: 'S1',
        vendor: 'ATA',
        wwn: '0x1',
        size_bytes: 128849018880,
        bootable: true,
        has_uuid: true,
        removable: false,
        smart: '{"json_format_version":[1,0]}',
        installation_eligibility: { eligible: true, not_eligible_reasons: null },
        io_perf: { sync_duration: 5 },
        holders: '',
        partitionTypes: 'gpt',
        is_installation_media: false,
      },
    ],
    boot: {
      current_boot_mode: 'uefi',
      pxe_interface: '',
      command_line: 'BOOT_IMAGE=/images/pxeboot/vmlinuz',
      secure_boot_state: 'Disabled',
      device_type: 'ephemeral',
    },
    system_vendor: { manufacturer: 'Red Hat', product_name: 'KVM', serial_number: 'SN1', virtual: true },
    memory: { physical_bytes: 17179869184, usable_bytes: 16776626176, physical_bytes_method: 'dmidecode' },
    cpu: {
      count: 8,
      frequency: 2400.123,
      flags: ['vmx', 'sse'],
      model_name: 'Intel Xeon',
      architecture: 'x86_64',
    },
    gpus: [{ vendor: 'NVIDIA', vendor_id: '10de', device_id: '1eb8', name: 'T4', address: '0000:00:05.0' }],
    routes: [{ interface: 'eth0', gateway: '192.168.111.1', destination: '0.0.0.0', family: 2, metric: 100 }],
    tpm_version: '2.0',
  };
}

export function clusterDeployment(overrides: Partial<ClusterDeployment['spec']> = {}): ClusterDeployment {
  return {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name: 'spoke', namespace: 'spoke', uid: CLUSTER_ID },
    spec: {
      clusterName: 'spoke',
      baseDomain: 'example.com',
      platform: { agentBareMetal: {} },
      clusterInstallRef: {
        group: 'extensions.hive.openshift.io',
        version: 'v1beta1',
        kind: 'AgentClusterInstall',
        name: 'spoke-aci',
      },
      pullSecretRef: { name: 'pull-secret' },
      ...overrides,
    },
  };
}

export function agentClusterInstall(
  spec: Partial<AgentClusterInstallSpec> = {},
  rest: Partial<AgentClusterInstall> = {},
): AgentClusterInstall {
  return {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    ...rest,
    metadata: { name: 'spoke-aci', namespace: 'spoke', ...rest.metadata },
    spec: {
      clusterDeploymentRef: { name: 'spoke' },
      imageSetRef: { name: 'ocp-4.16' },
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
        machineNetwork: [{ cidr: '192.168.111.0/24' }],
      },
      provisionRequirements: { controlPlaneAgents: 3, workerAgents: 2 },
      apiVIPs: ['192.168.111.5'],
      ingressVIPs: ['192.168.111.4'],
      sshPublicKey:
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHostKeyHostKeyHostKeyHostKeyHostKeyHostKeyH user@host\n',
      ...spec,
    },
  };
}

export function clusterImageSet(
  releaseImage = 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64',
): ClusterImageSet {
  return {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name: 'ocp-4.16' },
    spec: { releaseImage },
  };
}

export const PULL_SECRET = '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}';

export function infraEnv(
  spec: Partial<InfraEnv['spec']> = {},
  metadata: Partial<InfraEnv['metadata']> = {},
): InfraEnv {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name: 'ie', namespace: 'spoke', uid: INFRA_ENV_ID, ...metadata },
    spec: {
      pullSecretRef: { name: 'pull-secret' },
      cpuArchitecture: 'x86_64',
      ipxeScriptType: 'DiscoveryImageAlways',
      ...spec,
    },
  };
}

export function nmStateConfig(name: string, mac: string, address: string): NMStateConfig {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'NMStateConfig',
    metadata: { name, namespace: 'spoke', labels: { cluster: 'spoke' } },
    spec: {
      interfaces: [{ name: 'eth0', macAddress: mac }],
      config: {
        interfaces: [
          {
            name: 'eth0',
            type: 'ethernet',
            state: 'up',
            ipv4: { enabled: true, address: [{ ip: address, 'prefix-length': 24 }] },
          },
        ],
      },
    },
  };
}

/** The object as the API server returns it: JSON in, JSON out. */
export function viaJson<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

/** An OCP 4.19 x86_64 OS image, and a loaded service config that offers only it. */
export const OS_IMAGE_419 = {
  openshiftVersion: '4.19',
  cpuArchitecture: 'x86_64',
  url: 'http://x/rhcos.iso',
  version: '419.96.1',
};
export const SERVICE_CONFIG_419 = {
  ...INITIAL_SERVICE_CONFIG,
  loaded: true,
  present: true,
  osImages: new OsImageCatalog([OS_IMAGE_419]),
};
/** What the image service writes into a discovery ignition. */
export const DISCOVERY_SETTINGS = {
  serviceBaseUrl: 'http://svc:8090',
  agentImage: 'quay.io/agent:1',
  agentToken: 'tok',
};
