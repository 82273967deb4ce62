// The generated RBAC is enough to run the operator: bind the generated ClusterRole and Role to the
// operator's ServiceAccount, run the operator as that ServiceAccount's user (client certificate for
// system:serviceaccount:agent-install-operator:agent-install-operator), leader election on, and
// install a single-node cluster with simulated hosts. A missing rule shows up as a forbidden
// request and an install that never completes.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse } from 'yaml';
import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../../../src/api/index.ts';
import { mintUserFromDir } from '../../../src/dev/controlplane.ts';
import { OPERATOR_NAMESPACE, SERVICE_ACCOUNT_NAME } from '../../../src/rbac/rules.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  INFRA_ENV,
  SECRET,
} from '../../../src/records/resources.ts';
import { type ApiResource, KubeClient, type KubeObject } from '../../../src/runtime/index.ts';
import { type Fleet, startFleet } from '../../../src/sim/index.ts';
import { adminKubeConfig, eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { buildTestIso } from '../../harness/iso.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { serveFile, setTestOsImage } from '../infraenv/fixtures.ts';

// A version no other suite uses, so the shared AgentServiceConfig entry is this file's alone.
const OS_IMAGE = { cpuArchitecture: 'x86_64', openshiftVersion: '4.20', version: '420.94.202501010000-0' };
const RELEASE_IMAGE = 'quay.io/openshift-release-dev/ocp-release:4.20.1-x86_64';
const PULL_SECRET = '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}';
const SSH_KEY =
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoDemoDemoDemoDemoDemoDemoDemoDemoDemoDem demo@example.com';

const rbac = (plural: string, kind: string, namespaced: boolean): ApiResource => ({
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind,
  plural,
  namespaced,
});
const CLUSTER_ROLE = rbac('clusterroles', 'ClusterRole', false);
const CLUSTER_ROLE_BINDING = rbac('clusterrolebindings', 'ClusterRoleBinding', false);
const ROLE = rbac('roles', 'Role', true);
const ROLE_BINDING = rbac('rolebindings', 'RoleBinding', true);

const controlPlaneDir = inject('controlPlaneDir');
// Minting a user needs the harness's own control plane (its CA); skipped against AIO_TEST_KUBECONFIG.
const suite = controlPlaneDir ? describe : describe.skip;

let admin: KubeClient;
let op: TestOperator | undefined;
let ns: string;
let isoDir: string;
let files: Awaited<ReturnType<typeof serveFile>> | undefined;
let fleet: Fleet | undefined;
const clusterScoped: [ApiResource, string][] = [];

async function generated(file: string): Promise<KubeObject & Record<string, unknown>> {
  return parse(await readFile(join('config/rbac', file), 'utf8'));
}

beforeAll(async () => {
  if (!controlPlaneDir) return;
  admin = new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
  ns = await newNamespace('rbac');
  // The generated objects, renamed so this file does not race the deploy test over the shared names;
  // subjects stay as generated (the operator's ServiceAccount).
  const suffix = uniqueName('rbac-test');
  const role = await generated('role.yaml');
  const binding = await generated('role_binding.yaml');
  const crName = `${role.metadata.name}-${suffix}`;
  await admin.create(CLUSTER_ROLE, { ...role, metadata: { ...role.metadata, name: crName } });
  await admin.create(CLUSTER_ROLE_BINDING, {
    ...binding,
    metadata: { ...binding.metadata, name: crName },
    roleRef: { ...(binding.roleRef as object), name: crName },
  } as KubeObject);
  clusterScoped.push([CLUSTER_ROLE_BINDING, crName], [CLUSTER_ROLE, crName]);
  // The Role goes to the operator namespace, which each test operator has of its own.
  const leRole = await generated('leader_election_role.yaml');
  const leBinding = await generated('leader_election_role_binding.yaml');
  await admin.create(ROLE, { ...leRole, metadata: { ...leRole.metadata, namespace: ns } });
  await admin.create(ROLE_BINDING, { ...leBinding, metadata: { ...leBinding.metadata, namespace: ns } });

  const user = await mintUserFromDir(
    controlPlaneDir,
    `system:serviceaccount:${OPERATOR_NAMESPACE}:${SERVICE_ACCOUNT_NAME}`,
    ['system:serviceaccounts', `system:serviceaccounts:${OPERATOR_NAMESPACE}`, 'system:authenticated'],
    `${suffix}.kubeconfig`,
  );

  isoDir = await mkdtemp(join(tmpdir(), 'aio-rbac-iso-'));
  const iso = await buildTestIso(isoDir, { rhcosVersion: OS_IMAGE.version });
  files = await serveFile(iso.path);
  await setTestOsImage(admin, files.url, true, OS_IMAGE);
  await admin.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(PULL_SECRET).toString('base64') },
  } as never);
  op = await startTestOperator({
    namespace: ns,
    kubeconfigPath: user.kubeconfigPath,
    // Leader election on, so the Lease rules are exercised too.
    env: { WATCH_NAMESPACE: ns, LEADER_ELECT: 'true' },
  });
}, 180_000);

afterAll(async () => {
  await fleet?.stop();
  if (files) await setTestOsImage(admin, files.url, false, OS_IMAGE).catch(() => {});
  await op?.stop();
  await files?.close();
  if (isoDir) await rm(isoDir, { recursive: true, force: true });
  for (const [res, name] of clusterScoped) await admin.delete(res, name).catch(() => {});
});

function cond(
  obj: { status?: { conditions?: { type: string; status: string }[] } } | undefined,
  type: string,
) {
  return obj?.status?.conditions?.find((c) => c.type === type);
}

suite('operator RBAC (config/rbac) under a real authorizer', () => {
  it('installs a single-node cluster as the operator ServiceAccount', async () => {
    const name = uniqueName('sno');
    const imageSet = uniqueName('img');
    await admin.create(CLUSTER_IMAGE_SET, {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterImageSet',
      metadata: { name: imageSet },
      spec: { releaseImage: RELEASE_IMAGE },
    } as never);
    clusterScoped.push([CLUSTER_IMAGE_SET, imageSet]);
    await admin.create<ClusterDeployment>(CLUSTER_DEPLOYMENT, {
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
    await admin.create<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, {
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: { name, namespace: ns },
      spec: {
        clusterDeploymentRef: { name },
        imageSetRef: { name: imageSet },
        networking: {
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
          machineNetwork: [{ cidr: '192.168.111.0/24' }],
          userManagedNetworking: true,
        },
        provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
        sshPublicKey: SSH_KEY,
      },
    } as AgentClusterInstall);
    await admin.create<InfraEnv>(INFRA_ENV, {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name, namespace: ns },
      spec: {
        clusterRef: { name, namespace: ns },
        pullSecretRef: { name: 'pull-secret' },
        agentLabels: { cluster: name },
        sshAuthorizedKey: SSH_KEY,
      },
    } as unknown as InfraEnv);

    const isoUrl = await eventually(
      async () => (await admin.get<InfraEnv>(INFRA_ENV, name, ns)).status?.isoDownloadURL,
      { timeoutMs: 60_000, what: 'InfraEnv ISO URL' },
    );
    fleet = await startFleet({
      media: { isoUrl },
      hosts: 1,
      profiles: ['sno'],
      speed: 200,
      machine: { seed: name },
    });
    const agents = await eventually(
      async () => {
        const list = (await admin.list<Agent>(AGENT, { namespace: ns, labelSelector: `cluster=${name}` }))
          .items;
        return list.length === 1 && list[0]?.status?.inventory?.hostname ? list : undefined;
      },
      { timeoutMs: 90_000, what: 'the Agent with inventory' },
    );
    for (const a of agents)
      await admin.patch(AGENT, a.metadata.name ?? '', ns, 'merge', { spec: { approved: true } });

    const installed = await eventually(
      async () => {
        const aci = await admin.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, ns);
        return cond(aci, 'Completed')?.status === 'True' ? aci : undefined;
      },
      { timeoutMs: 240_000, intervalMs: 500, what: `${name} installed` },
    );
    expect(installed.status?.progress?.totalPercentage).toBe(100);
    // Written by the operator as the ServiceAccount: Secrets, the ClusterDeployment, the Lease.
    const kubeconfig = await admin.get<KubeObject>(SECRET, `${name}-admin-kubeconfig`, ns);
    expect(kubeconfig.metadata.ownerReferences?.[0]?.kind).toBe('ClusterDeployment');
    expect((await admin.get<ClusterDeployment>(CLUSTER_DEPLOYMENT, name, ns)).spec.installed).toBe(true);
    const lease = await admin.get<KubeObject & { spec?: { holderIdentity?: string } }>(
      { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true },
      '77190dcb.agent-install.openshift.io',
      ns,
    );
    expect(lease.spec?.holderIdentity).toBeTruthy();
  }, 400_000);
});
