// End to end, as a user drives it: apply a pull secret, ClusterImageSet, ClusterDeployment,
// AgentClusterInstall and InfraEnv; simulated hosts boot the ISO the operator serves (ignition and
// token read out of the image), register and report inventory; Agents are approved with a merge
// patch; the cluster installs and is handed off with its kubeconfig and kubeadmin Secrets.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../../src/api/index.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  INFRA_ENV,
  SECRET,
} from '../../src/records/resources.ts';
import type { KubeClient, KubeObject } from '../../src/runtime/index.ts';
import { type Fleet, startFleet, type WireExchange } from '../../src/sim/index.ts';
import { eventually, newNamespace, uniqueName } from '../harness/env.ts';
import { buildTestIso } from '../harness/iso.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import { exchangeProblems } from '../harness/swagger-contract.ts';
import { serveFile, setTestOsImage } from '../integration/infraenv/fixtures.ts';

const OS_IMAGE = { cpuArchitecture: 'x86_64', openshiftVersion: '4.18', version: '418.94.202501010000-0' };
const RELEASE_IMAGE = 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64';
const PULL_SECRET = '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}';

type SecretObject = KubeObject & { data?: Record<string, string> };

let op: TestOperator;
let client: KubeClient;
let ns: string;
let isoDir: string;
let files: Awaited<ReturnType<typeof serveFile>>;
const fleets: Fleet[] = [];

beforeAll(async () => {
  isoDir = await mkdtemp(join(tmpdir(), 'aio-e2e-iso-'));
  const iso = await buildTestIso(isoDir, { rhcosVersion: OS_IMAGE.version });
  files = await serveFile(iso.path);
  ns = await newNamespace('e2e');
  op = await startTestOperator({ namespace: ns, env: { WATCH_NAMESPACE: ns } });
  client = op.ctx.client;
  await setTestOsImage(client, files.url, true, OS_IMAGE);
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(PULL_SECRET).toString('base64') },
  } as never);
}, 120_000);

afterAll(async () => {
  await Promise.all(fleets.map((f) => f.stop()));
  await setTestOsImage(client, files.url, false, OS_IMAGE).catch(() => {});
  await op?.stop();
  await files?.close();
  await rm(isoDir, { recursive: true, force: true });
});

interface ClusterSpec {
  name: string;
  masters: number;
  workers: number;
  vips?: { api: string; ingress: string };
}

async function applyCluster(c: ClusterSpec): Promise<InfraEnv> {
  const imageSet = uniqueName('img');
  await client.create(CLUSTER_IMAGE_SET, {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name: imageSet },
    spec: { releaseImage: RELEASE_IMAGE },
  } as never);
  await client.create<ClusterDeployment>(CLUSTER_DEPLOYMENT, {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name: c.name, namespace: ns },
    spec: {
      clusterName: c.name,
      baseDomain: 'example.com',
      platform: { agentBareMetal: { agentSelector: { matchLabels: { cluster: c.name } } } },
      clusterInstallRef: {
        group: 'extensions.hive.openshift.io',
        version: 'v1beta1',
        kind: 'AgentClusterInstall',
        name: c.name,
      },
      pullSecretRef: { name: 'pull-secret' },
    },
  } as ClusterDeployment);
  const sno = c.masters === 1 && c.workers === 0;
  await client.create<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: { name: c.name, namespace: ns },
    spec: {
      clusterDeploymentRef: { name: c.name },
      imageSetRef: { name: imageSet },
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
        ...(sno ? { machineNetwork: [{ cidr: '192.168.111.0/24' }], userManagedNetworking: true } : {}),
      },
      ...(c.vips ? { apiVIPs: [c.vips.api], ingressVIPs: [c.vips.ingress] } : {}),
      provisionRequirements: { controlPlaneAgents: c.masters, workerAgents: c.workers },
      sshPublicKey:
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoDemoDemoDemoDemoDemoDemoDemoDemoDemoDem demo@example.com',
    },
  } as AgentClusterInstall);
  return client.create<InfraEnv>(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name: c.name, namespace: ns },
    spec: {
      clusterRef: { name: c.name, namespace: ns },
      pullSecretRef: { name: 'pull-secret' },
      agentLabels: { cluster: c.name },
      sshAuthorizedKey:
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoDemoDemoDemoDemoDemoDemoDemoDemoDemoDem demo@example.com',
    },
  } as unknown as InfraEnv);
}

function cond(obj: { status?: { conditions?: { type: string }[] } } | undefined, type: string) {
  return obj?.status?.conditions?.find((c) => c.type === type) as
    | { type: string; status: string; reason?: string; message?: string }
    | undefined;
}

async function agentsOf(name: string): Promise<Agent[]> {
  const list = await client.list<Agent>(AGENT, { namespace: ns, labelSelector: `cluster=${name}` });
  return list.items;
}

async function installCluster(c: ClusterSpec): Promise<void> {
  const ie = await applyCluster(c);
  const isoUrl = await eventually(
    async () => (await client.get<InfraEnv>(INFRA_ENV, ie.metadata.name ?? '', ns)).status?.isoDownloadURL,
    { timeoutMs: 60_000, what: 'InfraEnv ISO URL' },
  );
  const profiles = [
    ...Array(c.masters).fill(c.masters === 1 ? 'sno' : 'master'),
    ...Array(c.workers).fill('worker'),
  ];
  // Every request and answer, checked against upstream's REST definition at the end.
  const exchanges: WireExchange[] = [];
  const fleet = await startFleet({
    media: { isoUrl },
    hosts: profiles.length,
    profiles,
    speed: 200,
    machine: { seed: c.name },
    onExchange: (x) => exchanges.push(x),
  });
  fleets.push(fleet);
  const total = c.masters + c.workers;

  // Agents appear with their inventory, unapproved.
  const agents = await eventually(
    async () => {
      const list = await agentsOf(c.name);
      return list.length === total && list.every((a) => a.status?.inventory?.hostname) ? list : undefined;
    },
    { timeoutMs: 90_000, what: `${total} Agents with inventory` },
  );
  for (const a of agents) {
    expect(a.spec.approved).toBe(false);
    expect(a.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'InfraEnv', name: c.name });
    expect(a.spec.clusterDeploymentName?.name).toBe(c.name);
  }

  // Approve each Agent with a merge patch, as `kubectl patch agent … --type merge` does.
  for (const a of agents) {
    await client.patch(AGENT, a.metadata.name ?? '', ns, 'merge', { spec: { approved: true } });
  }

  const installed = await eventually(
    async () => {
      const aci = await client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, c.name, ns);
      return cond(aci, 'Completed')?.status === 'True' ? aci : undefined;
    },
    { timeoutMs: 240_000, intervalMs: 500, what: `${c.name} installed` },
  );
  expect(cond(installed, 'Completed')).toMatchObject({ reason: 'InstallationCompleted' });
  expect(cond(installed, 'Failed')).toMatchObject({ status: 'False', reason: 'InstallationNotFailed' });
  expect(cond(installed, 'Stopped')).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
  expect(installed.status?.progress?.totalPercentage).toBe(100);
  expect(installed.spec.clusterMetadata?.adminKubeconfigSecretRef?.name).toBe(`${c.name}-admin-kubeconfig`);

  const kubeconfig = await client.get<SecretObject>(SECRET, `${c.name}-admin-kubeconfig`, ns);
  expect(Buffer.from(kubeconfig.data?.kubeconfig ?? '', 'base64').toString()).toContain(
    `api.${c.name}.example.com`,
  );
  expect(kubeconfig.metadata.ownerReferences?.[0]?.kind).toBe('ClusterDeployment');
  const password = await client.get<SecretObject>(SECRET, `${c.name}-admin-password`, ns);
  expect(Buffer.from(password.data?.username ?? '', 'base64').toString()).toBe('kubeadmin');
  expect(Buffer.from(password.data?.password ?? '', 'base64').toString()).toMatch(
    /^\w{5}-\w{5}-\w{5}-\w{5}$/,
  );

  const cd = await client.get<ClusterDeployment>(CLUSTER_DEPLOYMENT, c.name, ns);
  expect(cd.spec.installed).toBe(true);

  const done = await eventually(
    async () => {
      const list = await agentsOf(c.name);
      return list.every((a) => cond(a, 'Installed')?.status === 'True') ? list : undefined;
    },
    { timeoutMs: 60_000, what: 'every Agent Installed' },
  );
  for (const a of done) expect(a.status?.progress?.currentStage).toBe('Done');
  expect(done.filter((a) => a.status?.role === 'master')).toHaveLength(c.masters);
  expect(done.filter((a) => a.status?.bootstrap)).toHaveLength(1);
  expect(exchanges.some((x) => x.op === 'ListClusterHosts') || c.masters === 1).toBe(true);
  expect(exchangeProblems(exchanges)).toEqual([]);
}

describe('install end to end with simulated hosts', () => {
  it('installs a single-node cluster', async () => {
    await installCluster({ name: uniqueName('sno'), masters: 1, workers: 0 });
  }, 400_000);

  it('installs a cluster of 3 masters and 2 workers', async () => {
    await installCluster({
      name: uniqueName('multi'),
      masters: 3,
      workers: 2,
      vips: { api: '192.168.111.250', ingress: '192.168.111.251' },
    });
  }, 400_000);
});
