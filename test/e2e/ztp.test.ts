// Zero-touch provisioning end to end: the user applies the cluster CRs, an InfraEnv and one
// BareMetalHost per machine (with BMAC annotations) and never touches an Agent. A stand-in for
// metal3's baremetal-operator (src/sim/metal3.ts) boots simulated machines from what the BMHs ask
// for: the live ISO in spec.image (non-converged) or the PreprovisioningImage (converged). The
// operator pairs each Agent with its BMH by boot MAC, approves and configures it from the
// annotations, and the cluster installs.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  Agent,
  AgentClusterInstall,
  BareMetalHost,
  ClusterDeployment,
  InfraEnv,
  PreprovisioningImage,
} from '../../src/api/index.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  INFRA_ENV,
  PREPROVISIONING_IMAGE,
  SECRET,
} from '../../src/records/resources.ts';
import type { KubeClient } from '../../src/runtime/index.ts';
import { ignitionFile } from '../../src/sim/boot.ts';
import { type ProfileName, SimMetal3, type SimulatedMachine, simulatedMachine } from '../../src/sim/index.ts';
import { eventually, newNamespace, uniqueName } from '../harness/env.ts';
import { buildTestIso } from '../harness/iso.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import { serveFile, setTestOsImage } from '../integration/infraenv/fixtures.ts';

// A version no other suite uses, so this file's AgentServiceConfig entry is its own.
const OS_IMAGE = { cpuArchitecture: 'x86_64', openshiftVersion: '4.17', version: '417.94.202501010000-0' };
const RELEASE_IMAGE = 'quay.io/openshift-release-dev/ocp-release:4.17.3-x86_64';
const PULL_SECRET = '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}';
const IRONIC_V4 = 'https://10.0.0.5:6385';
const IRONIC_V6 = 'https://[fd00:5::5]:6385';
const SSH_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoDemoDemoDemoDemoDemoDemoDemoDemoDemoDem demo@example.com';

let isoDir: string;
let files: Awaited<ReturnType<typeof serveFile>>;
let admin: KubeClient | undefined;

beforeAll(async () => {
  isoDir = await mkdtemp(join(tmpdir(), 'aio-ztp-iso-'));
  const iso = await buildTestIso(isoDir, { rhcosVersion: OS_IMAGE.version });
  files = await serveFile(iso.path);
}, 120_000);

afterAll(async () => {
  if (admin) await setTestOsImage(admin, files.url, false, OS_IMAGE).catch(() => {});
  await files?.close();
  await rm(isoDir, { recursive: true, force: true });
});

interface Env {
  op: TestOperator;
  client: KubeClient;
  ns: string;
  metal3: SimMetal3;
  machines: SimulatedMachine[];
}

async function startEnv(converged: boolean, profiles: ProfileName[]): Promise<Env> {
  const ns = await newNamespace(converged ? 'ztp-c' : 'ztp');
  const op = await startTestOperator({
    namespace: ns,
    settings: { allowConvergedFlow: converged },
    env: {
      BMAC_IMAGE_COOLDOWN_MS: '200',
      // A dual-stack hub, IPv6 primary: a spoke on IPv4 networks must get the IPv4 callback URL.
      ...(converged ? { IRONIC_BASE_URL: `${IRONIC_V6},${IRONIC_V4}` } : {}),
    },
  });
  const client = op.ctx.client;
  admin = client;
  await setTestOsImage(client, files.url, true, OS_IMAGE);
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(PULL_SECRET).toString('base64') },
  } as never);
  const machines = profiles.map((p, i) => simulatedMachine(p, i, { seed: ns, hostnamePrefix: 'rack' }));
  const metal3 = new SimMetal3({ client, namespace: ns, machines, converged, speed: 200 }).start();
  return { op, client, ns, metal3, machines };
}

async function stopEnv(env: Env | undefined): Promise<void> {
  await env?.metal3.stop();
  await env?.op.stop();
}

/** ClusterImageSet, ClusterDeployment, AgentClusterInstall and a bound InfraEnv. */
async function applyCluster(
  env: Env,
  name: string,
  masters: number,
  vips?: { api: string; ingress: string },
): Promise<void> {
  const { client, ns } = env;
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
    metadata: { name, namespace: ns },
    spec: {
      clusterName: name,
      baseDomain: 'example.com',
      platform: { agentBareMetal: { agentSelector: { matchLabels: { cluster: name } } } },
      clusterInstallRef: {
        group: 'extensions.hive.openshift.io',
        version: 'v1beta1',
        kind: 'AgentClusterInstall',
        name,
      },
      pullSecretRef: { name: 'pull-secret' },
    },
  } as ClusterDeployment);
  const sno = masters === 1;
  await client.create<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: { name, namespace: ns },
    spec: {
      clusterDeploymentRef: { name },
      imageSetRef: { name: imageSet },
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
        ...(sno ? { machineNetwork: [{ cidr: '192.168.111.0/24' }], userManagedNetworking: true } : {}),
      },
      ...(vips ? { apiVIPs: [vips.api], ingressVIPs: [vips.ingress] } : {}),
      provisionRequirements: { controlPlaneAgents: masters, workerAgents: 0 },
      sshPublicKey: SSH_KEY,
    },
  } as AgentClusterInstall);
  await client.create<InfraEnv>(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace: ns },
    spec: {
      clusterRef: { name, namespace: ns },
      pullSecretRef: { name: 'pull-secret' },
      sshAuthorizedKey: SSH_KEY,
    },
  } as unknown as InfraEnv);
}

/** A BMH for a rack machine; the boot MAC is written upper-case (matching is case-insensitive). */
function bmhFor(
  env: Env,
  machine: SimulatedMachine,
  infraEnv: string,
  annotations: Record<string, string>,
  extraSpec: Record<string, unknown> = {},
): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name: machine.hostname,
      namespace: env.ns,
      labels: { 'infraenvs.agent-install.openshift.io': infraEnv },
      annotations,
    },
    spec: {
      online: true,
      bootMACAddress: (machine.addresses[0]?.mac ?? '').toUpperCase(),
      bmc: {
        address: `redfish-virtualmedia://10.0.0.1/redfish/v1/Systems/${machine.index}`,
        credentialsName: 'bmc',
      },
      ...extraSpec,
    },
  } as BareMetalHost;
}

function cond(obj: { status?: { conditions?: { type: string }[] } } | undefined, type: string) {
  return obj?.status?.conditions?.find((c) => c.type === type) as
    | { type: string; status: string; reason?: string; message?: string }
    | undefined;
}

async function waitInstalled(env: Env, name: string): Promise<void> {
  const installed = await eventually(
    async () => {
      const aci = await env.client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, env.ns);
      return cond(aci, 'Completed')?.status === 'True' ? aci : undefined;
    },
    { timeoutMs: 300_000, intervalMs: 500, what: `${name} installed` },
  );
  expect(cond(installed, 'Completed')?.reason).toBe('InstallationCompleted');
  const cd = await env.client.get<ClusterDeployment>(CLUSTER_DEPLOYMENT, name, env.ns);
  expect(cd.spec.installed).toBe(true);
}

async function agentOfBmh(env: Env, bmh: string): Promise<Agent | undefined> {
  const list = await env.client.list<Agent>(AGENT, {
    namespace: env.ns,
    labelSelector: `agent-install.openshift.io/bmh=${bmh}`,
  });
  return list.items[0];
}

describe('ZTP, non-converged (BMH boots the live ISO)', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv(false, ['multi-disk']);
  }, 60_000);
  afterAll(() => stopEnv(env));

  it('installs a single-node cluster from a BareMetalHost and its annotations', async () => {
    const name = uniqueName('ztp-sno');
    await applyCluster(env, name, 1);
    const machine = env.machines[0]!;
    await env.client.create(
      BARE_METAL_HOST,
      bmhFor(
        env,
        machine,
        name,
        {
          'bmac.agent-install.openshift.io/hostname': 'sno-0.example.com',
          'bmac.agent-install.openshift.io/role': 'master',
          'bmac.agent-install.openshift.io.node-label.node-role.kubernetes.io/infra': '',
          'bmac.agent-install.openshift.io.agent-label.rack': 'r1',
        },
        { rootDeviceHints: { deviceName: '/dev/sdb' } },
      ),
    );

    // The ISO URL lands on the BMH; the machine boots it and its Agent is matched by MAC.
    const ie = await eventually(
      async () => {
        const i = await env.client.get<InfraEnv>(INFRA_ENV, name, env.ns);
        return i.status?.isoDownloadURL ? i : undefined;
      },
      { timeoutMs: 60_000, what: 'InfraEnv ISO URL' },
    );
    const bmh = await eventually(
      async () => {
        const b = await env.client.get<BareMetalHost>(BARE_METAL_HOST, machine.hostname, env.ns);
        return b.spec.image?.url ? b : undefined;
      },
      { timeoutMs: 60_000, what: 'BMH image URL' },
    );
    expect(bmh.spec.image).toEqual({ url: ie.status?.isoDownloadURL, diskFormat: 'live-iso' });
    expect(bmh.spec.automatedCleaningMode).toBe('disabled');
    expect(bmh.metadata.annotations?.['inspect.metal3.io']).toBe('disabled');

    const agent = await eventually(() => agentOfBmh(env, machine.hostname), {
      timeoutMs: 90_000,
      what: 'Agent labelled with its BMH',
    });
    expect(agent.metadata.name).toBe(machine.hostId);
    expect(agent.metadata.labels?.rack).toBe('r1');

    await waitInstalled(env, name);

    const done = await env.client.get<Agent>(AGENT, machine.hostId, env.ns);
    expect(done.spec).toMatchObject({
      approved: true,
      hostname: 'sno-0.example.com',
      role: 'master',
      nodeLabels: { 'node-role.kubernetes.io/infra': '' },
    });
    const sdb = done.status?.inventory?.disks?.find((d) => d.path === '/dev/sdb');
    expect(sdb?.id).toBeTruthy();
    expect(done.spec.installation_disk_id).toBe(sdb?.id);
    expect(done.status?.installation_disk_id).toBe(sdb?.id);

    // Past Done the host no longer needs the discovery image: BMAC detaches the BMH, and the
    // hardware details metal3 would have inspected come from the Agent inventory.
    const detached = await eventually(
      async () => {
        const b = await env.client.get<BareMetalHost>(BARE_METAL_HOST, machine.hostname, env.ns);
        return b.metadata.annotations?.['baremetalhost.metal3.io/detached'] ? b : undefined;
      },
      { timeoutMs: 60_000, what: 'BMH detached' },
    );
    expect(detached.metadata.annotations?.['baremetalhost.metal3.io/detached']).toBe(
      'assisted-service-controller',
    );
    const details = JSON.parse(detached.metadata.annotations?.['inspect.metal3.io/hardwaredetails'] ?? '{}');
    expect(details.storage.map((s: { name: string }) => s.name)).toContain(
      done.status?.inventory?.disks?.find((d) => d.path === '/dev/sdb')?.byPath,
    );
    expect(detached.metadata.finalizers).toContain('bmac.agent-install.openshift.io/deprovision');
  }, 420_000);
});

describe('ZTP, converged (BMH boots the PreprovisioningImage)', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv(true, ['master', 'master', 'master']);
  }, 60_000);
  afterAll(() => stopEnv(env));

  it('installs a three-node cluster from BareMetalHosts', async () => {
    const name = uniqueName('ztp-3');
    await applyCluster(env, name, 3, { api: '192.168.111.250', ingress: '192.168.111.251' });
    for (const machine of env.machines) {
      await env.client.create(
        BARE_METAL_HOST,
        bmhFor(env, machine, name, {
          'bmac.agent-install.openshift.io/hostname': `master-${machine.index}`,
        }),
      );
    }

    // The stand-in BMO created one PPI per BMH; the operator gave each the InfraEnv's ISO.
    const ie = await eventually(
      async () => {
        const i = await env.client.get<InfraEnv>(INFRA_ENV, name, env.ns);
        return i.metadata.annotations?.['infraenv.agent-install.openshift.io/enable-ironic-agent'] ===
          'true' && i.status?.isoDownloadURL
          ? i
          : undefined;
      },
      { timeoutMs: 60_000, what: 'InfraEnv with the ironic agent' },
    );
    expect(ie.status?.isoDownloadURL).toBeTruthy();

    await waitInstalled(env, name);

    for (const machine of env.machines) {
      // The machine booted an image with the ironic agent, calling back over the spoke's family.
      const ign = env.metal3.mediaOf(machine.hostname)?.ignition;
      const conf = ign ? ignitionFile(ign, '/etc/ironic-python-agent.conf') : undefined;
      expect(conf).toContain(`api_url = ${IRONIC_V4}`);
      expect(conf).not.toContain('fd00:5::5');
      const ppi = await env.client.get<PreprovisioningImage>(PREPROVISIONING_IMAGE, machine.hostname, env.ns);
      expect(ppi.status?.format).toBe('iso');
      expect(cond(ppi, 'Ready')).toMatchObject({ status: 'True', reason: 'InfraEnvAvailable' });
      const bmh = await env.client.get<BareMetalHost>(BARE_METAL_HOST, machine.hostname, env.ns);
      expect(bmh.spec.customDeploy?.method).toBe('start_assisted_install');
      // Converged BMHs never get a live-ISO image; metal3 boots them from the PPI.
      expect(bmh.spec.image).toBeUndefined();
      const agent = await agentOfBmh(env, machine.hostname);
      expect(agent?.metadata.name).toBe(machine.hostId);
      expect(agent?.spec).toMatchObject({ approved: true, hostname: `master-${machine.index}` });
      expect(cond(agent, 'Installed')?.status).toBe('True');
    }
  }, 420_000);
});
