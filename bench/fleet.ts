// What the benchmarks' fleets are made of: SNO clusters and the hosts that register into them.
import {
  type BareMetalHost,
  BMH_HOSTNAME_ANNOTATION,
  BMH_ROLE_ANNOTATION,
  INFRAENV_LABEL,
  type InfraEnv,
} from '../src/api/index.ts';
import { parseCidr } from '../src/core/network/cidr.ts';
import {
  AGENT_CLUSTER_INSTALL,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  INFRA_ENV,
  NAMESPACE,
  NMSTATE_CONFIG,
  PREPROVISIONING_IMAGE,
  SECRET,
} from '../src/records/resources.ts';
import { type ApiResource, type KubeClient, LAST_APPLIED_ANNOTATION } from '../src/runtime/index.ts';
import { preprovisioningImageOf } from '../src/sim/metal3.ts';
import { SimNetwork } from '../src/sim/network.ts';
import { connectivityOutput, type ProbingMachine } from '../src/sim/steps.ts';

/** Runs `work(i)` for i in [0, n) with at most `limit` in flight. */
export async function pool(n: number, limit: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) await work(i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, worker));
}

/**
 * How each SNO cluster is declared. `plain`: pull Secret, ClusterDeployment, AgentClusterInstall and
 * an InfraEnv bound to it. `ztp` (`make bench-scale ARGS=--ztp`): as a zero-touch-provisioning site
 * is, the same plus the machine's NMStateConfig (selected by the InfraEnv), its BMC credentials
 * Secret, its BareMetalHost with BMAC annotations and the PreprovisioningImage metal3 would create.
 */
export type FleetShape = 'plain' | 'ztp';

/** An object as created: what asApplied reads and writes of it. */
type Manifest = { metadata: { name?: string; annotations?: Record<string, string> } };

/** Creates an object of `res` (as kubectl apply would, with `--applied`) and returns it as stored. */
type Create = <T extends Manifest>(res: ApiResource, obj: T) => Promise<T>;

/**
 * `obj` as `kubectl apply` creates it when `applied`: annotated with its own manifest as JSON (the
 * manifest without that annotation, one line; `stringData` of a Secret included, as kubectl keeps it).
 */
export function asApplied<T extends Manifest>(obj: T, applied = true): T {
  if (!applied) return obj;
  const manifest = `${JSON.stringify(obj)}\n`;
  return {
    ...obj,
    metadata: {
      ...obj.metadata,
      annotations: { ...obj.metadata.annotations, [LAST_APPLIED_ANNOTATION]: manifest },
    },
  };
}

/**
 * M SNO clusters in `namespace`, cluster i's machine being host i (see FleetShape). A function
 * gives each site a namespace of its own, as ZTP hubs do, created here.
 */
export async function createClusters(
  client: KubeClient,
  namespace: string | ((site: number) => string),
  count: number,
  concurrency: number,
  shape: FleetShape = 'plain',
  applied = false,
): Promise<InfraEnv[]> {
  const create: Create = (res, obj) => client.create(res, asApplied(obj, applied) as never);
  await create(CLUSTER_IMAGE_SET, {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name: 'bench-4.18' },
    spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64' },
  });
  const ies: InfraEnv[] = [];
  await pool(count, concurrency, async (i) => {
    const name = `sno-${i}`;
    const ns = typeof namespace === 'string' ? namespace : namespace(i);
    if (typeof namespace !== 'string') await client.create(NAMESPACE, { metadata: { name: ns } } as never);
    await create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-pull-secret`, namespace: ns },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}' },
    });
    await create(CLUSTER_DEPLOYMENT, {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      metadata: { name, namespace: ns },
      spec: {
        baseDomain: 'example.com',
        clusterName: name,
        clusterInstallRef: {
          group: 'extensions.hive.openshift.io',
          version: 'v1beta1',
          kind: 'AgentClusterInstall',
          name,
        },
        platform: { agentBareMetal: { agentSelector: {} } },
        pullSecretRef: { name: `${name}-pull-secret` },
      },
    });
    await create(AGENT_CLUSTER_INSTALL, {
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: { name, namespace: ns },
      spec: {
        clusterDeploymentRef: { name },
        imageSetRef: { name: 'bench-4.18' },
        networking: {
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
          machineNetwork: [{ cidr: '192.168.122.0/24' }],
          networkType: 'OVNKubernetes',
          userManagedNetworking: true,
        },
        provisionRequirements: { controlPlaneAgents: 1 },
        // BMAC approves a ZTP site's Agent; held, the fleet stays under management without installing.
        ...(shape === 'ztp' ? { holdInstallation: true } : {}),
      },
    });
    if (shape === 'ztp') await create(NMSTATE_CONFIG, nmStateConfig(ns, name, i));
    ies[i] = await create(INFRA_ENV, {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name, namespace: ns },
      spec: {
        pullSecretRef: { name: `${name}-pull-secret` },
        cpuArchitecture: 'x86_64',
        clusterRef: { name, namespace: ns },
        ...(shape === 'ztp' ? { nmStateConfigLabelSelector: { matchLabels: { 'bench-site': name } } } : {}),
      },
    } as InfraEnv);
    if (shape === 'ztp') {
      // metal3 creates the PreprovisioningImage: never applied.
      const bmh = await createMachine(create, ns, name, i);
      await client.create(PREPROVISIONING_IMAGE, preprovisioningImageOf(bmh, 'x86_64'));
    }
  });
  return ies;
}

/** Host i's static network, as a ZTP site declares it for the discovery image. */
function nmStateConfig(ns: string, site: string, i: number) {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'NMStateConfig',
    metadata: { name: site, namespace: ns, labels: { 'bench-site': site } },
    spec: {
      interfaces: [{ name: 'enp1s0', macAddress: macOf(i) }],
      config: {
        interfaces: [
          {
            name: 'enp1s0',
            type: 'ethernet',
            state: 'up',
            ipv4: { enabled: true, dhcp: false, address: [{ ip: hostAddress(i), 'prefix-length': 24 }] },
            ipv6: { enabled: false },
          },
        ],
        'dns-resolver': { config: { server: ['192.168.122.1'] } },
        routes: {
          config: [
            { destination: '0.0.0.0/0', 'next-hop-address': '192.168.122.1', 'next-hop-interface': 'enp1s0' },
          ],
        },
      },
    },
  };
}

/**
 * Site `site`'s machine (host i): its BMC credentials Secret, its BareMetalHost with the annotations
 * a ZTP site sets, and the PreprovisioningImage metal3 creates for it (src/sim/metal3.ts), so the
 * operator's PreprovisioningImage controller serves it.
 */
async function createMachine(create: Create, ns: string, site: string, i: number): Promise<BareMetalHost> {
  await create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `${site}-bmc`, namespace: ns },
    stringData: { username: 'admin', password: 'bench' },
  });
  return create(BARE_METAL_HOST, {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name: site,
      namespace: ns,
      labels: { [INFRAENV_LABEL]: site },
      annotations: {
        [BMH_HOSTNAME_ANNOTATION]: `${site}.example.com`,
        [BMH_ROLE_ANNOTATION]: 'master',
        'inspect.metal3.io': 'disabled',
      },
    },
    spec: {
      online: true,
      bootMACAddress: macOf(i),
      bootMode: 'UEFI',
      automatedCleaningMode: 'disabled',
      rootDeviceHints: { deviceName: '/dev/vda' },
      bmc: {
        address: `redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/${i}`,
        credentialsName: `${site}-bmc`,
        disableCertificateVerification: true,
      },
    },
  } as BareMetalHost);
}

/** Host i's id (and Agent name). */
export function hostId(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
}

/** Every bench host's one route: its gateway on the machine network. */
const DEFAULT_ROUTE = { destination: '0.0.0.0', family: 2, gateway: '192.168.122.1', interface: 'enp1s0' };

/** Host i's discovery inventory (step reply output), with its CPU clock. */
export function inventory(i: number, cpuMhz = 2400): string {
  const mac = macOf(i);
  return JSON.stringify({
    boot: { current_boot_mode: 'uefi' },
    cpu: { architecture: 'x86_64', count: 8, flags: ['vmx'], frequency: cpuMhz, model_name: 'Xeon' },
    disks: [
      {
        by_path: '/dev/disk/by-path/pci-0000:00:04.0',
        drive_type: 'SSD',
        id: '/dev/disk/by-path/pci-0000:00:04.0',
        installation_eligibility: { eligible: true, not_eligible_reasons: null },
        name: 'vda',
        path: '/dev/vda',
        size_bytes: 214748364800,
        serial: `disk-${i}`,
      },
    ],
    hostname: `host-${i}`,
    interfaces: [
      {
        flags: ['up'],
        has_carrier: true,
        ipv4_addresses: [`${hostAddress(i)}/24`],
        ipv6_addresses: [],
        mac_address: mac,
        mtu: 1500,
        name: 'enp1s0',
        speed_mbps: 1000,
        type: 'physical',
      },
    ],
    memory: { physical_bytes: 34359738368, usable_bytes: 33285996544 },
    routes: [DEFAULT_ROUTE],
    system_vendor: { manufacturer: 'Red Hat', product_name: 'KVM', virtual: true },
  });
}

/** Host i's one MAC address. */
export function macOf(i: number): string {
  const byte = (b: number) => ((i >> b) & 255).toString(16).padStart(2, '0');
  return `52:54:00:${byte(16)}:${byte(8)}:${byte(0)}`;
}

/** Host i's one address (the inventory's), without its prefix. */
export function hostAddress(i: number): string {
  return `192.168.122.${10 + (i % 200)}`;
}

const BENCH_NETWORK = new SimNetwork();
const BENCH_CIDR = parseCidr('192.168.122.0/24');

/**
 * Host i's answer to a connectivity-check step (its one argument lists the hosts to probe): the
 * simulated agent's report (src/sim), on one healthy L2 segment where every named address answers.
 */
export function connectivityReport(i: number, stepArgs: readonly string[] | null | undefined): string {
  const machine: ProbingMachine = {
    hostId: hostId(i),
    addresses: [{ nic: 'enp1s0', mac: macOf(i), ip: hostAddress(i), cidr: BENCH_CIDR }],
    inventory: { routes: [DEFAULT_ROUTE] },
  };
  const step = {
    step_type: 'connectivity-check',
    step_id: 'connectivity-check',
    args: stepArgs ? [...stepArgs] : [],
  };
  return JSON.stringify(connectivityOutput(step, { machine, network: BENCH_NETWORK }));
}
