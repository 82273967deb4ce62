import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import type { Agent } from '../../../src/api/index.ts';
import { CSR_APPROVAL_REASON, SPOKE_EVENT_REASON } from '../../../src/controllers/agent/spoke-work.ts';
import { NODE_BOOTSTRAPPER_USER } from '../../../src/records/agents/day2.ts';
import { readSecret } from '../../../src/records/referenced.ts';
import {
  AGENT,
  BARE_METAL_HOST,
  CERTIFICATE_SIGNING_REQUEST,
  CONFIG_MAP,
  DAEMON_SET,
  EVENT,
  MACHINE,
  MACHINE_SET,
  NAMESPACE,
  NODE,
  ROLE,
  ROLE_BINDING,
  SECRET,
  SERVICE_ACCOUNT,
} from '../../../src/records/resources.ts';
import { type ApiResource, KubeClient, type KubeObject, updateStatus } from '../../../src/runtime/index.ts';
import { selfSignedIngressCa } from '../../../src/sim/ingress-ca.ts';
import { passOf } from '../../harness/barriers.ts';
import { csrRequest } from '../../harness/csr.ts';
import { eventually, kubeconfigPath, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { patchIfUnchanged } from '../../harness/unchanged.ts';
import { eventFor, type ImportedCluster, importedCluster, registerDay2Host } from '../cluster/imported.ts';
import { adminClient, call, waitForAgent } from '../hosts/helpers.ts';

const CLUSTER_ROLE: ApiResource = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  kind: 'ClusterRole',
  plural: 'clusterroles',
  namespaced: false,
};
const CLUSTER_ROLE_BINDING: ApiResource = {
  ...CLUSTER_ROLE,
  kind: 'ClusterRoleBinding',
  plural: 'clusterrolebindings',
};

interface Csr extends KubeObject {
  spec: { request: string; signerName: string; usages: string[]; username?: string };
  status?: { conditions?: { type: string; status: string; reason?: string }[] };
}
interface DaemonSetObject extends KubeObject {
  spec: {
    template: {
      spec: {
        nodeSelector?: Record<string, string>;
        serviceAccountName?: string;
        containers: { image: string; command?: string[]; env?: unknown[]; volumeMounts?: unknown[] }[];
        volumes?: unknown[];
      };
    };
  };
}
interface NodeObject extends KubeObject {
  status?: { conditions?: { type: string; status: string; reason?: string; message?: string }[] };
}

const client = adminClient();
let op: TestOperator;
let ns: string;
let kubeconfig: string;
/** Cluster-scoped objects this file creates (Nodes, CSRs, RBAC), removed at the end. */
const created: [ApiResource, string][] = [];
const rbacName = uniqueName('aio-test-kubelet-csrs');
/** SERVICE_CA_CERT_PATH: a temporary PEM, which reclaim puts on the spoke. */
let caDir: string;
let servicePem: string;

/** A client acting as `user` (the API server sets a CSR's username from the requester). */
function clientAs(user: string): KubeClient {
  const doc = parse(kubeconfig) as { users: { user: Record<string, unknown> }[] };
  for (const u of doc.users) u.user.as = user;
  const kc = new KubeConfig();
  kc.loadFromString(stringify(doc));
  return new KubeClient({ kubeConfig: kc, qps: 0 });
}

/**
 * A day-2 host that registered into the cluster, installed and rebooted: registration and
 * inventory over REST, the install start written into its record (what the cluster reconciler
 * does for an approved known host), then the installer's last report, Rebooting.
 */
async function rebootedHost(
  cluster: ImportedCluster,
  spec: Partial<Agent['spec']> = {},
  annotations: Record<string, string> = {},
): Promise<{ id: string; hostname: string }> {
  const { id, hostname, agent: registered } = await registerDay2Host({ client, op, ns, cluster });
  const base = `/v2/infra-envs/${cluster.ie.metadata.uid}/hosts`;
  const token = cluster.token;
  if (Object.keys(spec).length > 0 || Object.keys(annotations).length > 0) {
    await client.patch(AGENT, id, ns, 'merge', { spec, metadata: { annotations } });
  }
  // What the cluster reconciler writes when it starts the install of an approved known host.
  await updateStatus(client, AGENT, registered, (cur) => ({
    ...cur.status,
    role: 'worker',
    debugInfo: { ...cur.status?.debugInfo, state: 'installing', stateInfo: 'Installation is in progress' },
    backend: { ...cur.status?.backend, role: 'worker' },
  }));
  await eventually(
    async () => op.ctx.informers.agents.get(ns, id)?.status?.debugInfo?.state === 'installing',
    { what: 'installing in cache' },
  );
  const progress = await call(op.baseUrl, 'PUT', `${base}/${id}/progress`, {
    token,
    body: { current_stage: 'Rebooting' },
  });
  expect(progress.status, progress.text).toBe(200);
  return { id, hostname };
}

async function createCsr(
  as: string,
  hostname: string,
  signerName: string,
  usages: string[],
): Promise<string> {
  const name = uniqueName('csr');
  const requester = clientAs(as);
  try {
    await requester.create<Csr>(CERTIFICATE_SIGNING_REQUEST, {
      metadata: { name },
      spec: { request: await csrRequest(hostname), signerName, usages },
    });
  } finally {
    await requester.close();
  }
  created.push([CERTIFICATE_SIGNING_REQUEST, name]);
  return name;
}

const clientCsr = (hostname: string) =>
  createCsr(NODE_BOOTSTRAPPER_USER, hostname, 'kubernetes.io/kube-apiserver-client-kubelet', [
    'digital signature',
    'client auth',
  ]);
const servingCsr = (hostname: string) =>
  createCsr(`system:node:${hostname}`, hostname, 'kubernetes.io/kubelet-serving', [
    'digital signature',
    'server auth',
  ]);

async function createNode(
  hostname: string,
  labels: Record<string, string> = {},
  annotations: Record<string, string> = {},
): Promise<void> {
  await client.create<NodeObject>(NODE, { metadata: { name: hostname, labels, annotations } });
  created.push([NODE, hostname]);
}

async function setNodeReady(hostname: string): Promise<void> {
  const node = await client.get<NodeObject>(NODE, hostname);
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  await client.replaceStatus(NODE, {
    ...node,
    status: {
      ...node.status,
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'KubeletReady',
          message: 'kubelet is posting ready status',
          lastHeartbeatTime: now,
          lastTransitionTime: now,
        } as never,
      ],
    },
  });
}

function approved(csr: Csr | undefined): boolean {
  return csr?.status?.conditions?.some((c) => c.type === 'Approved' && c.status === 'True') === true;
}

/** Takes a host through CSRs and Node to Done; returns the Agent. */
async function toDone(
  host: { id: string; hostname: string },
  nodeAnnotations: Record<string, string> = {},
): Promise<Agent> {
  await clientCsr(host.hostname);
  await createNode(host.hostname, {}, nodeAnnotations);
  await servingCsr(host.hostname);
  await setNodeReady(host.hostname);
  return waitForAgent(client, ns, host.id, (a) => a.status?.progress?.currentStage === 'Done', 'Done');
}

beforeAll(async () => {
  ns = await newNamespace('day2spoke');
  kubeconfig = await readFile(kubeconfigPath(), 'utf8');
  // The kubelet identities may create CSRs (the test creates them in their name).
  await client.create(CLUSTER_ROLE, {
    metadata: { name: rbacName },
    rules: [
      { apiGroups: ['certificates.k8s.io'], resources: ['certificatesigningrequests'], verbs: ['create'] },
    ],
  } as never);
  await client.create(CLUSTER_ROLE_BINDING, {
    metadata: { name: rbacName },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: rbacName },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: 'system:authenticated' }],
  } as never);
  created.push([CLUSTER_ROLE, rbacName], [CLUSTER_ROLE_BINDING, rbacName]);
  caDir = await mkdtemp(join(tmpdir(), 'aio-service-ca-'));
  servicePem = await selfSignedIngressCa('aio-test-service-ca');
  await writeFile(join(caDir, 'ca.crt'), servicePem);
  // A fast poll of the spoke, so the test does not wait a minute per step.
  op = await startTestOperator({
    namespace: ns,
    settings: { approveCsrsRequeueMs: 300, serviceCaCertPath: join(caDir, 'ca.crt') },
  });
});

afterAll(async () => {
  await op?.stop();
  for (const [res, name] of created) await client.delete(res, name).catch(() => {});
  await client.close();
  if (caDir) await rm(caDir, { recursive: true, force: true });
});

describe('day-2 host after reboot', () => {
  it('approves and records the CSRs, labels the Node once Ready, and reaches Done', async () => {
    const cluster = await importedCluster({ client, op, ns, kubeconfig });
    const host = await rebootedHost(cluster, {
      nodeLabels: { 'node-role.kubernetes.io/infra': '', zone: 'a' },
    });

    // Rebooted, nothing on the spoke yet: Joined.
    const joined = await waitForAgent(
      client,
      ns,
      host.id,
      (a) => a.status?.progress?.currentStage === 'Joined',
      'Joined',
    );
    expect(joined.status?.debugInfo?.state).toBe('installing-in-progress');
    expect(joined.status?.csrStatus?.approvedCSRs ?? []).toEqual([]);

    // The kubelet's bootstrap CSR is approved at once; a stranger's and another host's are not.
    const strangerCsr = await createCsr(
      'system:serviceaccount:default:someone',
      host.hostname,
      'kubernetes.io/kube-apiserver-client-kubelet',
      ['digital signature', 'client auth'],
    );
    const otherCsr = await clientCsr(uniqueName('other'));
    const client1 = await clientCsr(host.hostname);
    const afterClient = await waitForAgent(
      client,
      ns,
      host.id,
      (a) => (a.status?.csrStatus?.approvedCSRs ?? []).some((c) => c.name === client1),
      'client CSR recorded',
    );
    expect(afterClient.status?.csrStatus?.approvedCSRs).toEqual([
      { name: client1, type: 'client', approvedAt: expect.any(String) },
    ]);
    expect(afterClient.status?.csrStatus?.lastApprovalAttempt).toBeDefined();
    const approvedClient = await client.get<Csr>(CERTIFICATE_SIGNING_REQUEST, client1);
    expect(approvedClient.status?.conditions).toEqual([
      expect.objectContaining({ type: 'Approved', status: 'True', reason: CSR_APPROVAL_REASON }),
    ]);
    expect(approved(await client.get<Csr>(CERTIFICATE_SIGNING_REQUEST, strangerCsr))).toBe(false);
    expect(approved(await client.get<Csr>(CERTIFICATE_SIGNING_REQUEST, otherCsr))).toBe(false);

    // The serving CSR waits for the Node: a pass of the Agent that started after the CSR existed
    // leaves it pending.
    const serving = await servingCsr(host.hostname);
    await passOf(op.ctx.mgr, 'agent', `${ns}/${host.id}`);
    expect(approved(await client.get<Csr>(CERTIFICATE_SIGNING_REQUEST, serving))).toBe(false);
    await createNode(host.hostname, { zone: 'b' });
    await eventually(async () => approved(await client.get<Csr>(CERTIFICATE_SIGNING_REQUEST, serving)), {
      what: 'serving CSR approved',
    });
    // Not Ready yet: still Joined, labels not applied.
    await waitForAgent(
      client,
      ns,
      host.id,
      (a) =>
        (a.status?.csrStatus?.approvedCSRs ?? []).some((c) => c.name === serving && c.type === 'serving'),
      'serving CSR recorded',
    );
    expect((await client.get<Agent>(AGENT, host.id, ns)).status?.progress?.currentStage).toBe('Joined');
    expect((await client.get<NodeObject>(NODE, host.hostname)).metadata.labels?.zone).toBe('b');

    // Ready: the labels go on the Node and the host is Done, added to the cluster.
    await setNodeReady(host.hostname);
    const done = await waitForAgent(
      client,
      ns,
      host.id,
      (a) => a.status?.progress?.currentStage === 'Done',
      'Done',
    );
    expect(done.status?.debugInfo?.state).toBe('added-to-existing-cluster');
    expect(done.status?.conditions?.find((c) => c.type === 'Installed')?.status).toBe('True');
    const node = await client.get<NodeObject>(NODE, host.hostname);
    expect(node.metadata.labels).toMatchObject({ 'node-role.kubernetes.io/infra': '', zone: 'a' });
    expect(done.status?.csrStatus?.approvedCSRs?.map((c) => c.type).sort()).toEqual(['client', 'serving']);
  }, 90_000);

  it('reports a broken kubeconfig on the Agent and keeps trying', async () => {
    const cluster = await importedCluster({
      client,
      op,
      ns,
      kubeconfig: 'apiVersion: v1\nkind: Config\nclusters: []\n',
    });
    const host = await rebootedHost(cluster);
    const event = await eventFor(client, ns, host.id, SPOKE_EVENT_REASON.day2);
    expect(event.type).toBe('Warning');
    expect(event.message).toContain(`Secret ${ns}/${cluster.name}-admin-kubeconfig: invalid kubeconfig:`);
    // No progress is made up: the stage stays where the installer left it.
    const agent = await client.get<Agent>(AGENT, host.id, ns);
    expect(agent.status?.progress?.currentStage).toBe('Rebooting');
    // Fixed, it carries on.
    await client.patch(SECRET, `${cluster.name}-admin-kubeconfig`, ns, 'merge', {
      data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
    });
    await waitForAgent(client, ns, host.id, (a) => a.status?.progress?.currentStage === 'Joined', 'Joined');
  }, 60_000);

  it('reports an unreachable spoke on the Agent', async () => {
    const doc = parse(kubeconfig) as { clusters: { cluster: { server: string } }[] };
    for (const c of doc.clusters) c.cluster.server = 'https://127.0.0.1:1';
    const cluster = await importedCluster({ client, op, ns, kubeconfig: stringify(doc) });
    const host = await rebootedHost(cluster);
    const event = await eventually(
      async () => {
        const list = await client.list<KubeObject & { reason?: string; message?: string }>(EVENT, {
          namespace: ns,
          fieldSelector: `involvedObject.name=${host.id}`,
        });
        return list.items.find((e) => e.reason === SPOKE_EVENT_REASON.day2);
      },
      { what: 'Warning event' },
    );
    expect(event.message).toContain(`Node ${host.hostname}`);
    expect((await client.get<Agent>(AGENT, host.id, ns)).status?.progress?.currentStage).toBe('Rebooting');
  }, 60_000);
});

describe('spoke cleanup', () => {
  let cluster: Awaited<ReturnType<typeof importedCluster>>;
  beforeAll(async () => {
    cluster = await importedCluster({ client, op, ns, kubeconfig });
  });

  it('deletes the Node of a deleted Agent', async () => {
    const host = await rebootedHost(cluster);
    await toDone(host);
    await client.delete(AGENT, host.id, ns);
    await eventually(async () => (await client.getIfExists(AGENT, host.id, ns)) === undefined, {
      what: 'Agent gone',
    });
    expect(await client.getIfExists(NODE, host.hostname)).toBeUndefined();
  }, 60_000);

  it('keeps the Node when the Agent has the skip-spoke-cleanup annotation', async () => {
    const host = await rebootedHost(
      cluster,
      {},
      { 'agent.agent-install.openshift.io/skip-spoke-cleanup': '' },
    );
    await toDone(host);
    await client.delete(AGENT, host.id, ns);
    await eventually(async () => (await client.getIfExists(AGENT, host.id, ns)) === undefined, {
      what: 'Agent gone',
    });
    expect(await client.getIfExists(NODE, host.hostname)).toBeDefined();
  }, 60_000);

  it('reclaims an unbound installed host: runner on the spoke, reboot, Node and runner removed', async () => {
    const host = await rebootedHost(cluster);
    await toDone(host);
    await client.patch(AGENT, host.id, ns, 'merge', { spec: { clusterDeploymentName: null } });
    const reclaiming = await waitForAgent(
      client,
      ns,
      host.id,
      (a) => a.status?.debugInfo?.state === 'reclaiming',
      'reclaiming',
    );
    expect(reclaiming.status?.deprovision_info).toEqual({
      cluster_name: cluster.name,
      cluster_namespace: ns,
      node_name: host.hostname,
      message: 'Waiting for host to unbind to do spoke cleanup',
    });
    expect(reclaiming.status?.csrStatus).toEqual({});
    // The Bound table has no row for the reclaiming states: they fall to True (kubeapi.md §2).
    expect(reclaiming.status?.conditions?.find((c) => c.type === 'Bound')?.status).toBe('True');

    // The reclaim objects on the spoke.
    const perHost = `node-reclaim-${host.id}`;
    const namespace = await client.get<KubeObject>(NAMESPACE, 'assisted-installer');
    expect(namespace.metadata.labels?.['pod-security.kubernetes.io/enforce']).toBe('privileged');
    for (const res of [SERVICE_ACCOUNT, ROLE, ROLE_BINDING]) {
      expect(await client.getIfExists(res, 'node-reclaim', 'assisted-installer')).toBeDefined();
    }
    const binding = await client.get<KubeObject & { subjects: unknown[] }>(
      ROLE_BINDING,
      'node-reclaim',
      'assisted-installer',
    );
    expect(binding.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'node-reclaim', namespace: 'assisted-installer' },
    ]);
    const secret = await client.get<KubeObject & { data: Record<string, string> }>(
      SECRET,
      perHost,
      'assisted-installer',
    );
    const token = Buffer.from(secret.data.PULL_SECRET_TOKEN ?? '', 'base64').toString('utf8');
    const ds = await client.get<DaemonSetObject>(DAEMON_SET, perHost, 'assisted-installer');
    const pod = ds.spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/hostname': host.hostname });
    expect(pod.serviceAccountName).toBe('node-reclaim');
    expect(pod.containers[0]?.image).toBe(op.ctx.settings.agentImage);
    expect(pod.containers[0]?.command).toEqual([
      'next_step_runner',
      '--url',
      op.ctx.urls.serviceBaseUrl,
      '--infra-env-id',
      cluster.ie.metadata.uid,
      '--host-id',
      host.id,
      '--agent-version',
      op.ctx.settings.agentImage,
      '--insecure=false',
      '--cacert',
      '/etc/assisted-service/service-ca.crt',
    ]);
    // The service CA (SERVICE_CA_CERT_PATH), mounted where --cacert points.
    const caMap = await client.get<KubeObject & { data: Record<string, string> }>(
      CONFIG_MAP,
      'reclaim-config',
      'assisted-installer',
    );
    expect(caMap.data).toEqual({ 'service-ca.crt': servicePem });
    expect(pod.volumes).toContainEqual({
      name: 'service-ca',
      configMap: expect.objectContaining({ name: 'reclaim-config' }),
    });
    expect(pod.containers[0]?.volumeMounts).toContainEqual({
      name: 'service-ca',
      mountPath: '/etc/assisted-service',
      readOnly: true,
    });
    expect(pod.containers[0]?.env).toEqual([
      { name: 'PULL_SECRET_TOKEN', valueFrom: { secretKeyRef: { name: perHost, key: 'PULL_SECRET_TOKEN' } } },
    ]);
    // Still waiting for the host: the Node stays.
    expect(await client.getIfExists(NODE, host.hostname)).toBeDefined();

    // A second pass writes nothing: not the Agent, not the spoke. Once it is over, empty
    // resourceVersion-guarded patches fail if either moved.
    await passOf(op.ctx.mgr, 'agent', `${ns}/${host.id}`);
    await patchIfUnchanged(client, AGENT, reclaiming, {});
    await patchIfUnchanged(client, DAEMON_SET, ds, {});

    // The runner (played here, with the DaemonSet's token) downloads the boot artifacts...
    const base = `/v2/infra-envs/${cluster.ie.metadata.uid}/hosts`;
    const steps = await call(op.baseUrl, 'GET', `${base}/${host.id}/instructions`, { token });
    expect(steps.status, steps.text).toBe(200);
    const reply = await call(op.baseUrl, 'POST', `${base}/${host.id}/instructions`, {
      token,
      body: {
        step_type: 'download-boot-artifacts',
        step_id: 'download-boot-artifacts-1',
        exit_code: 0,
        output: 'Successfully downloaded boot artifacts',
      },
    });
    expect(reply.status, reply.text).toBeLessThan(300);
    await waitForAgent(
      client,
      ns,
      host.id,
      (a) => a.status?.debugInfo?.state === 'reclaiming-rebooting',
      'reclaiming-rebooting',
    );
    // ...is told to reboot and exit...
    const reboot = await call(op.baseUrl, 'GET', `${base}/${host.id}/instructions`, { token });
    const rebootSteps = JSON.parse(reboot.text) as {
      post_step_action?: string;
      instructions?: { step_type: string }[];
    };
    expect(rebootSteps.instructions?.map((i) => i.step_type)).toEqual(['reboot-for-reclaim']);
    expect(rebootSteps.post_step_action).toBe('exit');
    // ...and the host comes back in discovery and registers.
    expect(
      (await call(op.baseUrl, 'POST', base, { token: cluster.token, body: { host_id: host.id } })).status,
    ).toBe(201);
    const cleaned = await waitForAgent(
      client,
      ns,
      host.id,
      (a) => a.status?.deprovision_info === undefined && !!a.status?.debugInfo?.state?.endsWith('-unbound'),
      'deprovision_info cleared',
    );
    expect(cleaned.status?.debugInfo?.state).toBe('discovering-unbound');
    expect(await client.getIfExists(NODE, host.hostname)).toBeUndefined();
    // The host's runner and token go; the shared RBAC stays for other hosts.
    expect(await client.getIfExists(DAEMON_SET, perHost, 'assisted-installer')).toBeUndefined();
    expect(await client.getIfExists(SECRET, perHost, 'assisted-installer')).toBeUndefined();
    expect(await client.getIfExists(SERVICE_ACCOUNT, 'node-reclaim', 'assisted-installer')).toBeDefined();
  }, 60_000);

  it('removes the runner and its token from the spoke when the Agent is deleted while reclaiming', async () => {
    const host = await rebootedHost(cluster);
    await toDone(host);
    await client.patch(AGENT, host.id, ns, 'merge', { spec: { clusterDeploymentName: null } });
    await waitForAgent(client, ns, host.id, (a) => a.status?.debugInfo?.state === 'reclaiming', 'reclaiming');
    const perHost = `node-reclaim-${host.id}`;
    expect(await client.getIfExists(DAEMON_SET, perHost, 'assisted-installer')).toBeDefined();
    await client.delete(AGENT, host.id, ns);
    await eventually(async () => (await client.getIfExists(AGENT, host.id, ns)) === undefined, {
      what: 'Agent gone',
    });
    expect(await client.getIfExists(DAEMON_SET, perHost, 'assisted-installer')).toBeUndefined();
    expect(await client.getIfExists(SECRET, perHost, 'assisted-installer')).toBeUndefined();
    // The shared objects stay for other hosts.
    expect(await client.getIfExists(SERVICE_ACCOUNT, 'node-reclaim', 'assisted-installer')).toBeDefined();
  }, 60_000);

  it('unbinds without reclaim when the spoke cannot take the reclaim objects', async () => {
    const broken = await importedCluster({ client, op, ns, kubeconfig });
    const host = await rebootedHost(broken);
    await toDone(host);
    // The spoke stops answering (its kubeconfig now points nowhere).
    const doc = parse(kubeconfig) as { clusters: { cluster: { server: string } }[] };
    for (const c of doc.clusters) c.cluster.server = 'https://127.0.0.1:1';
    const secretName = `${broken.name}-admin-kubeconfig`;
    await client.patch(SECRET, secretName, ns, 'merge', {
      data: { kubeconfig: Buffer.from(stringify(doc)).toString('base64') },
    });
    await eventually(
      async () => (await readSecret(op.ctx, ns, secretName))?.kubeconfig?.includes('127.0.0.1:1') === true,
      { what: 'broken kubeconfig seen by the operator' },
    );
    await client.patch(AGENT, host.id, ns, 'merge', { spec: { clusterDeploymentName: null } });
    const unbinding = await waitForAgent(
      client,
      ns,
      host.id,
      (a) => a.status?.debugInfo?.state === 'unbinding-pending-user-action',
      'unbinding-pending-user-action',
    );
    expect(unbinding.status?.deprovision_info?.node_name).toBe(host.hostname);
    const event = await eventFor(client, ns, host.id, SPOKE_EVENT_REASON.reclaim);
    expect(event.type).toBe('Warning');
    expect(event.message).toContain('reclaim failed, unbinding without it');
    expect(
      await client.getIfExists(DAEMON_SET, `node-reclaim-${host.id}`, 'assisted-installer'),
    ).toBeUndefined();

    // Fixed, and the host rebooted into discovery by hand: the old Node is cleaned.
    await client.patch(SECRET, secretName, ns, 'merge', {
      data: { kubeconfig: Buffer.from(kubeconfig).toString('base64') },
    });
    const base = `/v2/infra-envs/${broken.ie.metadata.uid}/hosts`;
    expect(
      (await call(op.baseUrl, 'POST', base, { token: broken.token, body: { host_id: host.id } })).status,
    ).toBe(201);
    await waitForAgent(
      client,
      ns,
      host.id,
      (a) => a.status?.deprovision_info === undefined && !!a.status?.debugInfo?.state?.endsWith('-unbound'),
      'deprovision_info cleared',
      30_000,
    );
    expect(await client.getIfExists(NODE, host.hostname)).toBeUndefined();
  }, 90_000);

  describe('through the Machine the Node names', () => {
    /** The spoke's Machine API namespace (one the operator does not watch: the BMH is the spoke's). */
    let mapi: string;
    beforeAll(async () => {
      mapi = await newNamespace('spoke-mapi');
    });

    async function machineWithBmh(machineSet?: string): Promise<{ machine: string; bmh: string }> {
      const machine = uniqueName('machine');
      const bmh = uniqueName('bmh');
      await client.create(BARE_METAL_HOST, {
        metadata: { name: bmh, namespace: mapi },
        spec: { online: true },
      } as never);
      await client.create(MACHINE, {
        metadata: {
          name: machine,
          namespace: mapi,
          labels: machineSet ? { 'machine.openshift.io/cluster-api-machineset': machineSet } : {},
          annotations: { 'metal3.io/BareMetalHost': `${mapi}/${bmh}` },
        },
        spec: {},
      } as never);
      return { machine, bmh };
    }

    async function deleteAgent(id: string): Promise<void> {
      await client.delete(AGENT, id, ns);
      await eventually(async () => (await client.getIfExists(AGENT, id, ns)) === undefined, {
        what: 'Agent gone',
      });
    }

    it('a MachineSet Machine: annotated, its MachineSet told to scale to its hosts, its BMH deleted', async () => {
      const machineSet = uniqueName('workers');
      await client.create(MACHINE_SET, {
        metadata: { name: machineSet, namespace: mapi },
        spec: { replicas: 1 },
      } as never);
      const { machine, bmh } = await machineWithBmh(machineSet);
      const host = await rebootedHost(cluster);
      await toDone(host, { 'machine.openshift.io/machine': `${mapi}/${machine}` });
      await deleteAgent(host.id);

      const m = await client.get<KubeObject>(MACHINE, machine, mapi);
      expect(m.metadata.annotations).toMatchObject({
        'machine.openshift.io/delete-machine': 'true',
        'machine.openshift.io/exclude-node-draining': 'true',
      });
      const ms = await client.get<KubeObject>(MACHINE_SET, machineSet, mapi);
      expect(ms.metadata.annotations).toMatchObject({ 'metal3.io/autoscale-to-hosts': 'true' });
      expect(await client.getIfExists(BARE_METAL_HOST, bmh, mapi)).toBeUndefined();
      // The MachineSet removes Machine and Node as it scales down; nothing here does it for it.
      expect(await client.getIfExists(NODE, host.hostname)).toBeDefined();
    }, 60_000);

    it('a Machine of no MachineSet: its BMH and the Machine deleted', async () => {
      const { machine, bmh } = await machineWithBmh();
      const host = await rebootedHost(cluster);
      await toDone(host, { 'machine.openshift.io/machine': `${mapi}/${machine}` });
      await deleteAgent(host.id);
      expect(await client.getIfExists(BARE_METAL_HOST, bmh, mapi)).toBeUndefined();
      expect(await client.getIfExists(MACHINE, machine, mapi)).toBeUndefined();
    }, 60_000);
  });
});
