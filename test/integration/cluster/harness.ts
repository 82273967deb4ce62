// A minimal operator for the install-path tests: the manager with only the ClusterDeployment and
// AgentClusterInstall reconcilers, the cluster part of the REST backend called directly, and a
// temp data directory. No Agent reconciler runs, so a test writes host records (Agent status)
// itself and decides exactly what the cluster reconciler sees. The operator watches one namespace
// (`op.namespace`); tests create their objects there under unique names.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../../../src/api/index.ts';
import { LocalAuth, MemoryKeyStore } from '../../../src/auth/index.ts';
import { registerClusterControllers } from '../../../src/controllers/cluster/index.ts';
import type { ArtifactGenerator } from '../../../src/core/artifacts/index.ts';
import type { Inventory } from '../../../src/core/inventory.ts';
import type { SmEvent, StateMachineOptions } from '../../../src/core/statemachine/index.ts';
import { loadKubeConfig } from '../../../src/operator/main.ts';
import { loadOperatorConfig, type OperatorSettings } from '../../../src/records/config.ts';
import { OperatorContext, operatorCacheOptions } from '../../../src/records/context.ts';
import {
  type AgentHost,
  agentToHost,
  hostToAgentStatus,
  inventoryToStatus,
} from '../../../src/records/index.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  INFRA_ENV,
  SECRET,
} from '../../../src/records/resources.ts';
import { type KubeClient, Manager, updateStatus } from '../../../src/runtime/index.ts';
import type { CallContext } from '../../../src/server/api/backend.ts';
import { type ClusterBackend, clusterBackend } from '../../../src/server/clusters/backend.ts';
import { eventually, kubeconfigPath, newNamespace, uniqueName } from '../../harness/env.ts';

export interface ClusterTestOperator {
  ctx: OperatorContext;
  client: KubeClient;
  backend: ClusterBackend;
  call: CallContext;
  namespace: string;
  dataDir: string;
  events: SmEvent[];
  stop(): Promise<void>;
}

export interface ClusterTestOptions {
  settings?: Partial<OperatorSettings>;
  smOptions?: Partial<StateMachineOptions>;
  generator?: ArtifactGenerator;
}

export async function startClusterOperator(opts: ClusterTestOptions = {}): Promise<ClusterTestOperator> {
  const namespace = await newNamespace('op');
  const dataDir = await mkdtemp(join(tmpdir(), 'aio-cluster-'));
  const config = loadOperatorConfig([], {
    KUBECONFIG: kubeconfigPath(),
    POD_NAMESPACE: namespace,
    // Test files run in parallel: each operator sees only its own namespace.
    WATCH_NAMESPACE: namespace,
    LEADER_ELECT: 'false',
    METRICS_BIND_ADDRESS: '0',
    HEALTH_PROBE_BIND_ADDRESS: '0',
    API_BIND_HOST: '127.0.0.1',
    API_PORT: '8090',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.AIO_TEST_LOG ?? 'silent',
  });
  const logger = pino({ level: process.env.AIO_TEST_LOG ?? 'silent' });
  const mgr = Manager.fromConfig(config.runtime, {
    kubeConfig: loadKubeConfig(kubeconfigPath()),
    logger,
    cacheByResource: operatorCacheOptions(),
  });
  const ctx = new OperatorContext({ mgr, settings: { ...config.operator, ...opts.settings }, namespace });
  const events: SmEvent[] = [];
  registerClusterControllers(ctx, {
    events: (e) => events.push(...e),
    smOptions: opts.smOptions ?? {},
    validation: {},
    ...(opts.generator ? { generator: opts.generator } : {}),
  });
  const auth = await LocalAuth.create({
    keyStore: new MemoryKeyStore(),
    resolver: { exists: async () => true, covers: async () => true },
    events: { authFailure() {} },
  });
  const backend = clusterBackend(ctx, { auth });
  const done = mgr.start();
  done.catch((err: unknown) => logger.error({ err }, 'manager stopped with an error'));
  await eventually(async () => mgr.isReady(), { timeoutMs: 30_000, what: 'caches synced' });
  return {
    ctx,
    client: mgr.client,
    backend,
    call: { principal: { scheme: 'agent', subject: { kind: 'cluster', id: 'test' } } },
    namespace,
    dataDir,
    events,
    async stop() {
      await mgr.stop();
      // A preparation job may still be writing; it finishes within moments.
      await eventually(
        () =>
          rm(dataDir, { recursive: true, force: true }).then(
            () => true,
            () => false,
          ),
        { what: 'data directory removed' },
      );
    },
  };
}

export const PULL_SECRET = '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}';
export const RELEASE_IMAGE = 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64';

/** Creates the pull Secret (once per namespace and name). */
export async function createPullSecret(client: KubeClient, ns: string, name = 'pull-secret'): Promise<void> {
  if (await client.getIfExists(SECRET, name, ns)) return;
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(PULL_SECRET).toString('base64') },
  } as never);
}

export async function createImageSet(
  client: KubeClient,
  name = uniqueName('cis'),
  releaseImage = RELEASE_IMAGE,
): Promise<string> {
  await client.create(CLUSTER_IMAGE_SET, {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name },
    spec: { releaseImage },
  } as never);
  return name;
}

export function clusterDeploymentObject(
  ns: string,
  name: string,
  spec: Partial<ClusterDeployment['spec']> = {},
  metadata: Partial<ClusterDeployment['metadata']> = {},
): ClusterDeployment {
  return {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name, namespace: ns, ...metadata },
    spec: {
      clusterName: name,
      baseDomain: 'example.com',
      platform: { agentBareMetal: {} },
      clusterInstallRef: {
        group: 'extensions.hive.openshift.io',
        version: 'v1beta1',
        kind: 'AgentClusterInstall',
        name,
      },
      pullSecretRef: { name: 'pull-secret' },
      ...spec,
    },
  };
}

/** An SNO AgentClusterInstall (UMN, machine network 192.168.111.0/24). */
export function snoAciObject(
  ns: string,
  name: string,
  imageSet: string,
  spec: Partial<AgentClusterInstall['spec']> = {},
  metadata: Partial<AgentClusterInstall['metadata']> = {},
): AgentClusterInstall {
  return {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: { name, namespace: ns, ...metadata },
    spec: {
      clusterDeploymentRef: { name },
      imageSetRef: { name: imageSet },
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
        machineNetwork: [{ cidr: '192.168.111.0/24' }],
        userManagedNetworking: true,
      },
      provisionRequirements: { controlPlaneAgents: 1 },
      sshPublicKey:
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoDemoDemoDemoDemoDemoDemoDemoDemoDemoDem demo@example.com',
      ...spec,
    },
  };
}

export async function createCluster(
  client: KubeClient,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
): Promise<{ cd: ClusterDeployment; aci: AgentClusterInstall }> {
  const createdCd = await client.create(CLUSTER_DEPLOYMENT, cd);
  const createdAci = await client.create(AGENT_CLUSTER_INSTALL, aci);
  return { cd: createdCd, aci: createdAci };
}

/**
 * A cluster named `name` (SNO unless `spec` says otherwise) with an InfraEnv of the same name bound
 * to it, the pull Secret created if missing: returns once the cluster is registered and the
 * operator's cache holds the InfraEnv, so hosts can register through it.
 */
export async function createRegisteredCluster(
  client: KubeClient,
  ctx: OperatorContext,
  ns: string,
  name: string,
  spec: Partial<AgentClusterInstall['spec']> = {},
): Promise<InfraEnv> {
  if (!(await client.getIfExists(SECRET, 'pull-secret', ns))) await createPullSecret(client, ns);
  await createCluster(
    client,
    clusterDeploymentObject(ns, name),
    snoAciObject(ns, name, await createImageSet(client), spec),
  );
  const ie = await client.create<InfraEnv>(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace: ns },
    spec: { clusterRef: { name, namespace: ns }, pullSecretRef: { name: 'pull-secret' } },
  } as InfraEnv);
  await eventuallyAci(client, ns, name, (a) => !!a.status?.backend?.clusterID, 'cluster registered');
  await eventually(async () => ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
  return ie;
}

export function getAci(client: KubeClient, ns: string, name: string): Promise<AgentClusterInstall> {
  return client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, ns);
}

export function getCd(client: KubeClient, ns: string, name: string): Promise<ClusterDeployment> {
  return client.get<ClusterDeployment>(CLUSTER_DEPLOYMENT, name, ns);
}

export function condition(aci: AgentClusterInstall | undefined, type: string) {
  return aci?.status?.conditions?.find((c) => c.type === type);
}

/** Polls until SpecSynced's message contains `text`. */
export function eventuallySpecSynced(
  client: KubeClient,
  ns: string,
  name: string,
  text: string,
  timeoutMs = 20_000,
): Promise<AgentClusterInstall> {
  return eventuallyAci(
    client,
    ns,
    name,
    (a) => condition(a, 'SpecSynced')?.message?.includes(text) === true,
    `SpecSynced containing ${JSON.stringify(text)}`,
    timeoutMs,
  );
}

/** Polls the ACI until `check` holds. */
export function eventuallyAci(
  client: KubeClient,
  ns: string,
  name: string,
  check: (aci: AgentClusterInstall) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<AgentClusterInstall> {
  return eventually(
    async () => {
      const aci = await getAci(client, ns, name);
      return check(aci) ? aci : undefined;
    },
    { what, timeoutMs },
  );
}

/** A host inventory good enough for an SNO control-plane node in 192.168.111.0/24. */
export function hostInventory(hostname: string, ip: string): Inventory {
  return {
    hostname,
    interfaces: [
      {
        name: 'eth0',
        mac_address: `52:54:00:${ip
          .split('.')
          .slice(1)
          .map((n) => Number(n).toString(16).padStart(2, '0'))
          .join(':')}`,
        ipv4_addresses: [`${ip}/24`],
        ipv6_addresses: [],
        flags: ['up'],
        has_carrier: true,
        mtu: 1500,
        speed_mbps: 1000,
        type: 'physical',
      },
    ],
    disks: [
      {
        id: '/dev/disk/by-id/wwn-0x1',
        name: 'sda',
        drive_type: 'SSD',
        path: '/dev/sda',
        by_id: '/dev/disk/by-id/wwn-0x1',
        size_bytes: 200e9,
        bootable: true,
        installation_eligibility: { eligible: true, not_eligible_reasons: null },
      },
    ],
    boot: { current_boot_mode: 'uefi', device_type: 'ephemeral' },
    system_vendor: { manufacturer: 'Red Hat', product_name: 'KVM', virtual: true },
    memory: { physical_bytes: 32 * 1024 ** 3, usable_bytes: 32 * 1024 ** 3 },
    cpu: { count: 16, architecture: 'x86_64', flags: ['vmx'] },
    routes: [{ interface: 'eth0', gateway: '192.168.111.1', destination: '0.0.0.0', family: 2, metric: 100 }],
  };
}

/** Creates an Agent bound to the CD and writes the host record as its status. */
export async function createAgent(
  client: KubeClient,
  ns: string,
  cd: ClusterDeployment,
  host: Partial<AgentHost> & { id: string },
  spec: Partial<Agent['spec']> = {},
): Promise<Agent> {
  const agent = await client.create<Agent>(AGENT, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: { name: host.id, namespace: ns },
    spec: {
      role: '',
      approved: true,
      clusterDeploymentName: { name: cd.metadata.name ?? '', namespace: ns },
      ...spec,
    },
  });
  return setHost(client, agent, cd, host);
}

/** Writes a host record into an Agent's status (what the Agent reconciler would do). */
export async function setHost(
  client: KubeClient,
  agent: Agent,
  cd: ClusterDeployment,
  patch: Partial<AgentHost>,
): Promise<Agent> {
  const { object } = await updateStatus(client, AGENT, agent, (current) => {
    const base: AgentHost = current.status?.backend?.clusterID
      ? agentToHost(current)
      : {
          id: current.metadata.name ?? '',
          infra_env_id: '',
          cluster_id: cd.metadata.uid ?? '',
          kind: 'Host',
          status: 'known',
          status_info: 'Host is ready to be installed',
          role: 'auto-assign',
          approved: current.spec.approved === true,
        };
    const host = { ...base, ...patch } as AgentHost;
    return hostToAgentStatus(host, current, { now: new Date() });
  });
  return object;
}

export { inventoryToStatus };
