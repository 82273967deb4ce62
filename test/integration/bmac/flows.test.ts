// BMAC and PreprovisioningImage flows on the real API server (kubeapi.md §3.6, §3.7, §2.6, §4.5),
// beyond bmac.test.ts's happy paths: BMH annotation set/clear semantics, cluster references,
// fencing Secrets, BMH deletion, the unbind flow, pausing, PPI errors and missing InfraEnvs.
//
// No metal3 runs here: the tests play it by writing the BMH status subresource (provisioning state,
// operationalStatus). Agents register through the REST API with an inventory reporting the BMH's
// boot MAC, as booted hosts do. The unbind flow needs an Agent in unbinding-pending-user-action,
// which the backend reaches only from an installing or installed host; the tests put the Agent
// there by writing its status (the backend's only store), as the backend would.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, BareMetalHost, InfraEnv, PreprovisioningImage } from '../../../src/api/index.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  EVENT,
  INFRA_ENV,
  PREPROVISIONING_IMAGE,
  SECRET,
} from '../../../src/records/resources.ts';
import type { KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { call, inventory } from '../hosts/helpers.ts';
import { infraEnv, PULL_SECRET_JSON, setTestOsImage } from '../infraenv/fixtures.ts';

// ppc64le/4.16: no other suite uses this pair, and bmac.test.ts's ppc64le/4.18 stays the newest
// ppc64le image, so InfraEnvs there keep their image. Ours name the version explicitly.
const OS_IMAGE = { cpuArchitecture: 'ppc64le', openshiftVersion: '4.16', version: '416.94.202501010000-0' };
const OS_URL = 'http://127.0.0.1:9/rhcos-ppc64le-416.iso';

const IE_LABEL = 'infraenvs.agent-install.openshift.io';
const BMAC_FINALIZER = 'bmac.agent-install.openshift.io/deprovision';
/** A finalizer of the test's own, so a deleted BMH stays readable after BMAC releases it. */
const HOLD = 'test.agent-install.openshift.io/hold';
const A = 'bmac.agent-install.openshift.io';
const DETACHED = 'baremetalhost.metal3.io/detached';
const PAUSED = 'baremetalhost.metal3.io/paused';
const STATUS = 'baremetalhost.metal3.io/status';
const HW = 'inspect.metal3.io/hardwaredetails';
const SPOKE = `${A}/spoke-bmh-machine-created`;
const OWNER = 'assisted-service-controller';
const DEPLOYED = { customDeploy: { method: 'start_assisted_install' } };

interface Env {
  op: TestOperator;
  client: KubeClient;
  ns: string;
  macs: number;
}

let shared: KubeClient | undefined;
afterAll(async () => {
  if (shared) await setTestOsImage(shared, OS_URL, false, OS_IMAGE).catch(() => {});
});

async function startEnv(prefix: string, converged: boolean): Promise<Env> {
  const ns = await newNamespace(prefix);
  const op = await startTestOperator({
    namespace: ns,
    settings: { allowConvergedFlow: converged },
    env: { BMAC_IMAGE_COOLDOWN_MS: '0', IRONIC_BASE_URL: 'https://ironic.example:6385' },
  });
  const client = op.ctx.client;
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(PULL_SECRET_JSON).toString('base64') },
  } as never);
  return { op, client, ns, macs: 0 };
}

function nextMac(env: Env): string {
  env.macs++;
  return `52:54:00:7e:00:${env.macs.toString(16).padStart(2, '0')}`;
}

async function createInfraEnvWithIso(env: Env, name: string, spec: Partial<InfraEnv['spec']> = {}) {
  await env.client.create(
    INFRA_ENV,
    infraEnv(env.ns, name, { cpuArchitecture: 'ppc64le', osImageVersion: '4.16', ...spec }),
  );
  let last: InfraEnv | undefined;
  try {
    return await eventually(
      async () => {
        last = await env.client.get<InfraEnv>(INFRA_ENV, name, env.ns);
        return last.status?.isoDownloadURL ? last : undefined;
      },
      { timeoutMs: 30_000, what: `InfraEnv ${name} ISO URL` },
    );
  } catch (err) {
    const aci = await env.client.getIfExists<KubeObject & { status?: unknown }>(
      AGENT_CLUSTER_INSTALL,
      'spoke',
      env.ns,
    );
    throw new Error(
      `${String(err)}\nInfraEnv status: ${JSON.stringify(last?.status)}\nACI: ${JSON.stringify(aci?.status)}`,
    );
  }
}

interface BmhOpts {
  ieName?: string;
  annotations?: Record<string, string>;
  spec?: Record<string, unknown>;
  finalizers?: string[];
}

async function createBmh(env: Env, name: string, mac: string, opts: BmhOpts = {}): Promise<BareMetalHost> {
  return env.client.create<BareMetalHost>(BARE_METAL_HOST, {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name,
      namespace: env.ns,
      labels: { [IE_LABEL]: opts.ieName ?? 'ie' },
      annotations: opts.annotations ?? {},
      ...(opts.finalizers ? { finalizers: opts.finalizers } : {}),
    },
    spec: { online: true, bootMACAddress: mac.toUpperCase(), ...opts.spec },
  } as BareMetalHost);
}

/** Plays metal3: merge-patches the BMH status subresource. */
async function setBmhStatus(env: Env, name: string, status: Record<string, unknown>): Promise<void> {
  await env.client.patch(BARE_METAL_HOST, name, env.ns, 'merge', { status }, { subresource: 'status' });
}

async function patchAnnotations(env: Env, name: string, annotations: Record<string, string | null>) {
  await env.client.patch(BARE_METAL_HOST, name, env.ns, 'merge', { metadata: { annotations } });
}

async function waitBmh(
  env: Env,
  name: string,
  probe: (b: BareMetalHost) => boolean,
  what: string,
): Promise<BareMetalHost> {
  let last: BareMetalHost | undefined;
  try {
    return await eventually(
      async () => {
        last = await env.client.getIfExists<BareMetalHost>(BARE_METAL_HOST, name, env.ns);
        return last && probe(last) ? last : undefined;
      },
      { timeoutMs: 30_000, what },
    );
  } catch (err) {
    throw new Error(`${String(err)}\nBMH: ${JSON.stringify({ metadata: last?.metadata, spec: last?.spec })}`);
  }
}

async function waitAgent(env: Env, id: string, probe: (a: Agent) => boolean, what: string): Promise<Agent> {
  let last: Agent | undefined;
  try {
    return await eventually(
      async () => {
        last = await env.client.getIfExists<Agent>(AGENT, id, env.ns);
        return last && probe(last) ? last : undefined;
      },
      { timeoutMs: 30_000, what },
    );
  } catch (err) {
    const { labels, deletionTimestamp } = last?.metadata ?? {};
    const state = last?.status?.debugInfo;
    throw new Error(
      `${String(err)}\nAgent: ${JSON.stringify({ labels, deletionTimestamp, spec: last?.spec, state })}`,
    );
  }
}

/**
 * Registers a host in the InfraEnv through the REST API with an inventory reporting `mac`, as a
 * booted host's agent does (again, with the same id, after binding).
 */
async function registerAgent(
  env: Env,
  ieName: string,
  mac: string,
  hostId: string = randomUUID(),
): Promise<string> {
  const ie = await env.client.get<InfraEnv>(INFRA_ENV, ieName, env.ns);
  const uid = ie.metadata.uid ?? '';
  await eventually(async () => env.op.ctx.infraEnvById(uid), { what: 'InfraEnv in the operator cache' });
  const token = env.op.server.auth.issueAgentToken({ kind: 'infra-env', id: uid });
  const base = `/v2/infra-envs/${uid}/hosts`;
  const reg = await call(env.op.baseUrl, 'POST', base, { token, body: { host_id: hostId } });
  expect(reg.status, reg.text).toBe(201);
  const inv = await call(env.op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
    token,
    body: { step_type: 'inventory', output: inventory(`h-${mac.slice(-2)}`, mac) },
  });
  expect(inv.status, inv.text).toBe(204);
  return hostId;
}

/**
 * Plays the host's agent after a bind or unbind: once the operator's cache has the transition (a
 * registration against a stale cache would find the old binding), it registers again and reports
 * its inventory.
 */
async function reRegister(env: Env, state: 'binding' | 'unbinding', hostId: string, mac: string) {
  await eventually(
    async () => env.op.ctx.informers.agents.get(env.ns, hostId)?.status?.debugInfo?.state === state,
    { what: `${state} in the operator cache` },
  );
  await registerAgent(env, 'ie', mac, hostId);
  await waitAgent(
    env,
    hostId,
    (a) => !!a.status?.inventory?.interfaces?.length && a.status.debugInfo?.state !== state,
    `Agent with its inventory again after ${state}`,
  );
}

/** The Agent that BMAC matched to the BMH (labelled with it). */
async function matchedAgent(env: Env, bmhName: string, hostId: string): Promise<Agent> {
  return waitAgent(
    env,
    hostId,
    (a) => a.metadata.labels?.['agent-install.openshift.io/bmh'] === bmhName && a.spec.approved === true,
    `Agent ${hostId} matched to BMH ${bmhName}`,
  );
}

/** Non-converged: a BMH that metal3 reports available, booted from the ISO, with its Agent. */
async function liveIsoHost(env: Env, name: string, iso: string, opts: BmhOpts = {}) {
  const mac = nextMac(env);
  await createBmh(env, name, mac, opts);
  await setBmhStatus(env, name, { provisioning: { state: 'available' } });
  await waitBmh(env, name, (b) => b.spec.image?.url === iso, `BMH ${name} image`);
  const hostId = await registerAgent(env, opts.ieName ?? 'ie', mac);
  return { mac, hostId, agent: await matchedAgent(env, name, hostId) };
}

/** Converged: a provisioned BMH (customDeploy already set) with its Agent. */
async function provisionedHost(env: Env, name: string, opts: BmhOpts = {}) {
  const mac = nextMac(env);
  await createBmh(env, name, mac, { ...opts, spec: { ...DEPLOYED, ...opts.spec } });
  await setBmhStatus(env, name, { provisioning: { state: 'provisioned' }, operationalStatus: 'OK' });
  const hostId = await registerAgent(env, opts.ieName ?? 'ie', mac);
  return { mac, hostId, agent: await matchedAgent(env, name, hostId) };
}

/** Puts the Agent where the backend puts a host unbound after installing (see the header). */
async function markUnbindingPendingUserAction(env: Env, hostId: string): Promise<void> {
  await eventually(
    async () => {
      await env.client.patch(
        AGENT,
        hostId,
        env.ns,
        'merge',
        {
          status: {
            debugInfo: { state: 'unbinding-pending-user-action' },
            progress: { currentStage: 'Done' },
            conditions: [
              {
                type: 'Bound',
                status: 'False',
                reason: 'UnbindingPendingUserAction',
                message: 'The agent is currently unbinding; Pending host reboot from infraenv image',
                lastTransitionTime: new Date().toISOString(),
              },
            ],
          },
        },
        { subresource: 'status' },
      );
      const a = await env.client.get<Agent>(AGENT, hostId, env.ns);
      return a.status?.conditions?.some((c) => c.reason === 'UnbindingPendingUserAction');
    },
    { what: 'Agent in unbinding-pending-user-action' },
  );
}

type EventObject = KubeObject & {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { kind?: string; name?: string };
};

async function waitEvent(env: Env, bmhName: string, reason: string, message: string): Promise<EventObject> {
  let seen: string[] = [];
  try {
    return await eventually(
      async () => {
        const events = (await env.client.list<EventObject>(EVENT, { namespace: env.ns })).items.filter(
          (e) => e.involvedObject?.kind === 'BareMetalHost' && e.involvedObject.name === bmhName,
        );
        seen = events.map((e) => `${e.reason}: ${e.message}`);
        return events.find((e) => e.reason === reason && e.message === message);
      },
      { timeoutMs: 30_000, what: `event ${reason} on ${bmhName}` },
    );
  } catch (err) {
    throw new Error(`${String(err)}\nevents of ${bmhName}: ${JSON.stringify(seen)}`);
  }
}

async function release(env: Env, name: string): Promise<void> {
  const b = await env.client.getIfExists<BareMetalHost>(BARE_METAL_HOST, name, env.ns);
  if (!b) return;
  await env.client.patch(BARE_METAL_HOST, name, env.ns, 'merge', {
    metadata: {
      finalizers: (b.metadata.finalizers ?? []).filter((f) => f !== HOLD),
      resourceVersion: b.metadata.resourceVersion,
    },
  });
  await eventually(async () => !(await env.client.getIfExists(BARE_METAL_HOST, name, env.ns)), {
    what: `BMH ${name} gone`,
  });
}

function sameMap(a: Record<string, string> | undefined, b: Record<string, string>): boolean {
  const keys = Object.keys(a ?? {});
  return keys.length === Object.keys(b).length && keys.every((k) => a?.[k] === b[k]);
}

type SecretObject = KubeObject & { data?: Record<string, string> };

const decode = (s: SecretObject) =>
  Object.fromEntries(Object.entries(s.data ?? {}).map(([k, v]) => [k, Buffer.from(v, 'base64').toString()]));

describe('BMAC flows (non-converged)', () => {
  let env: Env;
  let iso: string;
  beforeAll(async () => {
    env = await startEnv('bmacflow', false);
    shared = env.client;
    await setTestOsImage(env.client, OS_URL, true, OS_IMAGE);
    iso = (await createInfraEnvWithIso(env, 'ie')).status?.isoDownloadURL ?? '';
  }, 60_000);
  afterAll(async () => {
    await env?.op.stop();
  });

  it('applies BMH annotations to the Agent: set, change and clear', async () => {
    const { hostId } = await liveIsoHost(env, 'ann', iso, {
      annotations: {
        [`${A}/role`]: 'worker',
        [`${A}/hostname`]: 'node-a',
        [`${A}.node-label.zone`]: 'a',
        [`${A}.node-label.rack`]: 'r1',
        [`${A}.agent-label.team`]: 'blue',
      },
    });
    const first = await waitAgent(
      env,
      hostId,
      (a) => a.spec.hostname === 'node-a' && a.metadata.labels?.team === 'blue',
      'Agent from the annotations',
    );
    expect(first.spec.role).toBe('worker');
    expect(first.spec.nodeLabels).toEqual({ zone: 'a', rack: 'r1' });

    // Node labels are replace-all: one the user adds on the Agent is taken away again.
    await env.client.patch(AGENT, hostId, env.ns, 'merge', { spec: { nodeLabels: { extra: 'x' } } });
    await waitAgent(
      env,
      hostId,
      (a) => sameMap(a.spec.nodeLabels, { zone: 'a', rack: 'r1' }),
      'user node label removed',
    );

    await patchAnnotations(env, 'ann', {
      [`${A}/role`]: 'master',
      [`${A}/hostname`]: 'node-b',
      [`${A}.node-label.zone`]: 'b',
      [`${A}.node-label.rack`]: null,
      [`${A}.agent-label.team`]: null,
      [`${A}.agent-label.tier`]: 'gold',
    });
    const changed = await waitAgent(
      env,
      hostId,
      (a) =>
        a.spec.role === 'master' &&
        a.spec.hostname === 'node-b' &&
        sameMap(a.spec.nodeLabels, { zone: 'b' }) &&
        a.metadata.labels?.tier === 'gold',
      'Agent after the annotation changes',
    );
    // Agent labels are add-only: the removed annotation leaves its label.
    expect(changed.metadata.labels?.team).toBe('blue');

    // Removing the last node-label annotation empties the Agent's node labels.
    await patchAnnotations(env, 'ann', { [`${A}.node-label.zone`]: null });
    await waitAgent(env, hostId, (a) => sameMap(a.spec.nodeLabels, {}), 'node labels emptied');
  });

  it('binds, clears and refuses cluster references', async () => {
    // A real cluster, so the reference binds and an InfraEnv can be bound to it.
    const imageSet = uniqueName('bmac-img');
    await env.client.create(CLUSTER_IMAGE_SET, {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterImageSet',
      metadata: { name: imageSet },
      spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.3-ppc64le' },
    } as never);
    await env.client.create(CLUSTER_DEPLOYMENT, {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      metadata: { name: 'spoke', namespace: env.ns },
      spec: {
        baseDomain: 'example.com',
        clusterName: 'spoke',
        clusterInstallRef: {
          group: 'extensions.hive.openshift.io',
          version: 'v1beta1',
          kind: 'AgentClusterInstall',
          name: 'spoke',
        },
        platform: { agentBareMetal: { agentSelector: {} } },
        pullSecretRef: { name: 'pull-secret' },
      },
    } as never);
    await env.client.create(AGENT_CLUSTER_INSTALL, {
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: { name: 'spoke', namespace: env.ns },
      spec: {
        clusterDeploymentRef: { name: 'spoke' },
        imageSetRef: { name: imageSet },
        // ppc64le has no baremetal platform: user-managed networking (platform none).
        networking: {
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
          networkType: 'OVNKubernetes',
          userManagedNetworking: true,
        },
        provisionRequirements: { controlPlaneAgents: 3 },
      },
    } as never);

    const { hostId, mac } = await liveIsoHost(env, 'ref', iso);
    await patchAnnotations(env, 'ref', { [`${A}/cluster-reference`]: `${env.ns}/spoke` });
    await waitAgent(
      env,
      hostId,
      (a) =>
        a.spec.clusterDeploymentName?.name === 'spoke' &&
        a.spec.clusterDeploymentName.namespace === env.ns &&
        a.status?.debugInfo?.state === 'binding',
      'Agent bound by the annotation',
    );
    // Binding and unbinding reset the host's inventory until its agent registers again, which it
    // does once told to; BMAC matches Agents by the inventory's MACs, so play the host each time.
    await reRegister(env, 'binding', hostId, mac);
    await patchAnnotations(env, 'ref', { [`${A}/cluster-reference`]: '' });
    await waitAgent(env, hostId, (a) => !a.spec.clusterDeploymentName?.name, 'reference cleared by ""');
    await reRegister(env, 'unbinding', hostId, mac);

    await patchAnnotations(env, 'ref', { [`${A}/cluster-reference`]: 'no-slash' });
    await waitEvent(
      env,
      'ref',
      'ClusterReferenceError',
      'failed to reconcile cluster reference: invalid value "no-slash", want <namespace>/<name>',
    );
    expect((await env.client.get<Agent>(AGENT, hostId, env.ns)).spec.clusterDeploymentName?.name).toBeFalsy();

    // An InfraEnv bound to a cluster decides the cluster: the annotation is refused.
    const bound = await createInfraEnvWithIso(env, 'ie-bound', {
      clusterRef: { name: 'spoke', namespace: env.ns },
    });
    const other = await liveIsoHost(env, 'ref-bound', bound.status?.isoDownloadURL ?? '', {
      ieName: 'ie-bound',
      annotations: { [`${A}/cluster-reference`]: `${env.ns}/elsewhere` },
    });
    const ev = await waitEvent(
      env,
      'ref-bound',
      'ClusterReferenceError',
      `failed to reconcile cluster reference.  InfraEnv already has cluster reference ${env.ns}/spoke`,
    );
    expect(ev.type).toBe('Warning');
    const agent = await env.client.get<Agent>(AGENT, other.hostId, env.ns);
    expect(agent.spec.clusterDeploymentName?.name).not.toBe('elsewhere');
  }, 90_000);

  it('references a named fencing Secret or generates one from the BMC details', async () => {
    await env.client.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'bmc-creds', namespace: env.ns },
      stringData: { username: 'admin', password: 's3cret' },
    } as never);
    const bmc = {
      address: 'redfish-virtualmedia://10.1.1.1/redfish/v1/Systems/1',
      credentialsName: 'bmc-creds',
      disableCertificateVerification: true,
    };
    const { hostId } = await liveIsoHost(env, 'fence', iso, {
      annotations: { [`${A}/create-fencing-credentials-secret`]: '' },
      spec: { bmc },
    });
    const name = `${hostId}-fencing-credentials`;
    await waitAgent(env, hostId, (a) => a.spec.fencingCredentialsSecretRef === name, 'fencing reference');
    const secret = await env.client.get<SecretObject>(SECRET, name, env.ns);
    expect(decode(secret)).toEqual({
      address: bmc.address,
      username: 'admin',
      password: 's3cret',
      certificateVerification: 'Disabled',
    });
    expect(secret.metadata.labels).toMatchObject({
      'cluster.open-cluster-management.io/backup': 'true',
      'agent-install.openshift.io/watch': 'true',
    });
    // The BMC Secret is now watched: a new password reaches the fencing Secret.
    await env.client.patch(SECRET, 'bmc-creds', env.ns, 'merge', { stringData: { password: 'n3w' } });
    await eventually(
      async () => decode(await env.client.get<SecretObject>(SECRET, name, env.ns)).password === 'n3w',
      {
        timeoutMs: 30_000,
        what: 'fencing Secret updated',
      },
    );

    const named = await liveIsoHost(env, 'fence-named', iso, {
      annotations: { [`${A}/fencing-credentials-secret-name`]: 'my-fencing' },
    });
    await waitAgent(env, named.hostId, (a) => a.spec.fencingCredentialsSecretRef === 'my-fencing', 'named');

    // A missing BMC Secret is reported and retried until it appears.
    const late = await liveIsoHost(env, 'fence-late', iso, {
      annotations: { [`${A}/create-fencing-credentials-secret`]: '' },
      spec: { bmc: { address: 'ipmi://10.1.1.2', credentialsName: 'late-creds' } },
    });
    await waitEvent(
      env,
      'fence-late',
      'FencingCredentialsError',
      `cannot generate fencing credentials: BMC credentials Secret ${env.ns}/late-creds not found`,
    );
    expect(
      (await env.client.get<Agent>(AGENT, late.hostId, env.ns)).spec.fencingCredentialsSecretRef,
    ).toBeFalsy();
    await env.client.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'late-creds', namespace: env.ns },
      stringData: { username: 'root', password: 'calvin' },
    } as never);
    await waitAgent(
      env,
      late.hostId,
      (a) => a.spec.fencingCredentialsSecretRef === `${late.hostId}-fencing-credentials`,
      'fencing reference after the BMC Secret appeared',
    );
    const generated = await env.client.get<SecretObject>(
      SECRET,
      `${late.hostId}-fencing-credentials`,
      env.ns,
    );
    expect(decode(generated)).toMatchObject({ username: 'root', certificateVerification: 'Enabled' });
  }, 90_000);

  it('on BMH deletion unpauses and releases the host, leaving the Agent', async () => {
    const { hostId } = await liveIsoHost(env, 'del', iso, { finalizers: [HOLD] });
    await patchAnnotations(env, 'del', { [DETACHED]: OWNER, [PAUSED]: OWNER });
    await waitBmh(env, 'del', (b) => b.metadata.finalizers?.includes(BMAC_FINALIZER) ?? false, 'finalizer');
    await env.client.delete(BARE_METAL_HOST, 'del', env.ns);
    const released = await waitBmh(
      env,
      'del',
      (b) => !b.metadata.finalizers?.includes(BMAC_FINALIZER),
      'BMAC finalizer removed',
    );
    expect(released.metadata.annotations?.[PAUSED]).toBeUndefined();
    expect(released.metadata.annotations?.[DETACHED]).toBe(OWNER);
    const agent = await env.client.get<Agent>(AGENT, hostId, env.ns);
    expect(agent.metadata.deletionTimestamp).toBeUndefined();
    await release(env, 'del');
  });

  it('sends an unbound host back to discovery and does not detach it again', async () => {
    const { hostId } = await liveIsoHost(env, 'unbind', iso);
    await waitBmh(env, 'unbind', (b) => !!b.metadata.annotations?.[HW], 'hardware details');
    // Installed and detached (as BMAC leaves a host after Done), then unbound from its cluster.
    await setBmhStatus(env, 'unbind', { provisioning: { state: 'provisioned' } });
    await patchAnnotations(env, 'unbind', {
      [DETACHED]: OWNER,
      [PAUSED]: OWNER,
      [SPOKE]: '2025-01-01T00:00:00Z',
    });
    await markUnbindingPendingUserAction(env, hostId);
    const cleared = await waitBmh(
      env,
      'unbind',
      (b) => !b.spec.image && !b.metadata.annotations?.[DETACHED],
      'image and detached removed',
    );
    for (const k of [PAUSED, HW, SPOKE]) expect(cleared.metadata.annotations?.[k]).toBeUndefined();

    // metal3 deprovisions the host; BMAC boots it into discovery again and, although the Agent
    // still reports Done, does not detach it while the unbind is pending.
    await setBmhStatus(env, 'unbind', { provisioning: { state: 'available' } });
    const again = await waitBmh(
      env,
      'unbind',
      (b) => b.spec.image?.url === iso && !!b.metadata.annotations?.[HW],
      'image back and a full pass',
    );
    expect(again.metadata.annotations?.[DETACHED]).toBeUndefined();
  });
});

describe('BMAC and PreprovisioningImage flows (converged)', () => {
  let env: Env;
  beforeAll(async () => {
    env = await startEnv('bmacconv', true);
    await env.client.create(INFRA_ENV, infraEnv(env.ns, 'ie', { cpuArchitecture: 'x86_64' }));
  }, 60_000);
  afterAll(async () => {
    await env?.op.stop();
  });

  it('pauses a detached host, unpauses it on a new hub, and honours allow-provisioned-host-management', async () => {
    await provisionedHost(env, 'pause');
    await waitBmh(env, 'pause', (b) => b.metadata.annotations?.[DETACHED] === OWNER, 'detached');
    await setBmhStatus(env, 'pause', { operationalStatus: 'detached' });
    const paused = await waitBmh(env, 'pause', (b) => b.metadata.annotations?.[PAUSED] === OWNER, 'paused');
    expect(JSON.parse(paused.metadata.annotations?.[STATUS] ?? '{}')).toEqual(paused.status);

    // A new hub: no provisioning state yet, the saved status in the annotation. Unpausing lets
    // metal3 restore it.
    await setBmhStatus(env, 'pause', { provisioning: { state: '' }, operationalStatus: null });
    const moved = await waitBmh(env, 'pause', (b) => !b.metadata.annotations?.[PAUSED], 'unpaused');
    expect(moved.metadata.annotations?.[STATUS]).toBe(paused.metadata.annotations?.[STATUS]);

    await setBmhStatus(env, 'pause', {
      provisioning: { state: 'provisioned' },
      operationalStatus: 'detached',
    });
    await waitBmh(env, 'pause', (b) => b.metadata.annotations?.[PAUSED] === OWNER, 'paused again');
    await patchAnnotations(env, 'pause', { [`${A}/allow-provisioned-host-management`]: '' });
    await waitBmh(
      env,
      'pause',
      (b) => !b.metadata.annotations?.[DETACHED] && !b.metadata.annotations?.[PAUSED],
      'attached and unpaused for host management',
    );
  });

  it('on delete with remove-agent-and-node-on-delete deprovisions, then deletes the Agent', async () => {
    const { hostId } = await provisionedHost(env, 'rm', {
      annotations: { [`${A}/remove-agent-and-node-on-delete`]: '' },
      finalizers: [HOLD],
    });
    await waitBmh(
      env,
      'rm',
      (b) => b.metadata.annotations?.[DETACHED] === '{"deleteAction":"delay"}',
      'delay',
    );
    await setBmhStatus(env, 'rm', { operationalStatus: 'detached' });
    await waitBmh(env, 'rm', (b) => b.metadata.annotations?.[PAUSED] === OWNER, 'paused');

    await env.client.delete(BARE_METAL_HOST, 'rm', env.ns);
    const deprovisioning = await waitBmh(
      env,
      'rm',
      (b) =>
        b.spec.automatedCleaningMode === 'metadata' &&
        !b.metadata.annotations?.[DETACHED] &&
        !b.metadata.annotations?.[PAUSED],
      'undetached, unpaused, metadata cleaning',
    );
    // Until metal3 reaches `deleting` the BMH and the Agent stay.
    expect(deprovisioning.metadata.finalizers).toContain(BMAC_FINALIZER);
    expect((await env.client.get<Agent>(AGENT, hostId, env.ns)).metadata.deletionTimestamp).toBeUndefined();
    // Nothing was drained: the Agent never joined a cluster, so no drain status either.
    expect(deprovisioning.metadata.annotations?.[`${A}/drain-status`]).toBeUndefined();

    await setBmhStatus(env, 'rm', { provisioning: { state: 'deleting' }, operationalStatus: 'OK' });
    await waitBmh(
      env,
      'rm',
      (b) => !b.metadata.finalizers?.includes(BMAC_FINALIZER),
      'BMAC finalizer removed',
    );
    await eventually(async () => !(await env.client.getIfExists(AGENT, hostId, env.ns)), {
      timeoutMs: 30_000,
      what: 'Agent deleted',
    });
    await release(env, 'rm');
  });

  it('on delete without the annotation only unpauses and releases the host', async () => {
    const { hostId } = await provisionedHost(env, 'keep', { finalizers: [HOLD] });
    await waitBmh(env, 'keep', (b) => b.metadata.annotations?.[DETACHED] === OWNER, 'detached');
    await patchAnnotations(env, 'keep', { [PAUSED]: OWNER });
    await env.client.delete(BARE_METAL_HOST, 'keep', env.ns);
    const released = await waitBmh(
      env,
      'keep',
      (b) => !b.metadata.finalizers?.includes(BMAC_FINALIZER),
      'BMAC finalizer removed',
    );
    expect(released.metadata.annotations?.[PAUSED]).toBeUndefined();
    expect(released.metadata.annotations?.[DETACHED]).toBe(OWNER);
    expect(released.spec.automatedCleaningMode).toBeUndefined();
    expect((await env.client.get<Agent>(AGENT, hostId, env.ns)).metadata.deletionTimestamp).toBeUndefined();
    await release(env, 'keep');
  });

  it('deprovisions a provisioned host whose Agent was unbound', async () => {
    const { hostId } = await provisionedHost(env, 'cunbind');
    await waitBmh(env, 'cunbind', (b) => b.metadata.annotations?.[DETACHED] === OWNER, 'detached');
    await patchAnnotations(env, 'cunbind', { [PAUSED]: OWNER, [HW]: '{}', [SPOKE]: '2025-01-01T00:00:00Z' });
    await markUnbindingPendingUserAction(env, hostId);
    const bmh = await waitBmh(
      env,
      'cunbind',
      (b) => !b.spec.customDeploy && !b.metadata.annotations?.[DETACHED],
      'customDeploy removed and undetached',
    );
    for (const k of [PAUSED, HW, SPOKE]) expect(bmh.metadata.annotations?.[k]).toBeUndefined();
  });

  function ppi(name: string, ieName: string, spec: Record<string, unknown>, ownerUid?: string) {
    return {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'PreprovisioningImage',
      metadata: {
        name,
        namespace: env.ns,
        labels: { [IE_LABEL]: ieName },
        ...(ownerUid
          ? {
              ownerReferences: [
                { apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name, uid: ownerUid },
              ],
            }
          : {}),
      },
      spec,
    } as PreprovisioningImage;
  }

  async function readyCondition(name: string, reason: string) {
    const p = await eventually(
      async () => {
        const p = await env.client.get<PreprovisioningImage>(PREPROVISIONING_IMAGE, name, env.ns);
        return p.status?.conditions?.find((c) => c.type === 'Ready')?.reason === reason ? p : undefined;
      },
      { timeoutMs: 30_000, what: `PPI ${name} ${reason}` },
    );
    return {
      ppi: p,
      ready: p.status?.conditions?.find((c) => c.type === 'Ready'),
      error: p.status?.conditions?.find((c) => c.type === 'Error'),
    };
  }

  it('reports an unsupported image format and an architecture mismatch', async () => {
    await env.client.create(
      PREPROVISIONING_IMAGE,
      ppi('fmt', 'ie', { acceptFormats: ['qcow2'], architecture: 'x86_64' }),
    );
    const fmt = await readyCondition('fmt', 'UnsupportedImageFormat');
    expect(fmt.ready).toMatchObject({ status: 'False', message: 'Unsupported image format' });
    expect(fmt.error).toMatchObject({ status: 'True', reason: 'UnsupportedImageFormat' });
    expect(fmt.ppi.status?.imageUrl).toBeFalsy();

    await env.client.create(INFRA_ENV, infraEnv(env.ns, 'ie-arm', { cpuArchitecture: 'arm64' }));
    await env.client.create(
      PREPROVISIONING_IMAGE,
      ppi('arch', 'ie-arm', { acceptFormats: ['iso'], architecture: 'x86_64' }),
    );
    const arch = await readyCondition('arch', 'InfraEnvArchMismatch');
    const message =
      'PreprovisioningImage CPU architecture (x86_64) does not match InfraEnv CPU architecture (arm64)';
    expect(arch.ready).toMatchObject({ status: 'False', message });
    expect(arch.error).toMatchObject({ status: 'True', reason: 'InfraEnvArchMismatch', message });
    expect(arch.ppi.status?.format).toBeUndefined();
  });

  it('handles a BMH whose InfraEnv does not exist', async () => {
    const mac = nextMac(env);
    const bmh = await createBmh(env, 'ghost', mac, { ieName: 'ghost' });
    await env.client.create(
      PREPROVISIONING_IMAGE,
      ppi('ghost', 'ghost', { acceptFormats: ['iso'], architecture: 'x86_64' }, bmh.metadata.uid),
    );
    const { ready, error } = await readyCondition('ghost', 'InfraEnvNotAvailable');
    expect(ready).toMatchObject({
      status: 'False',
      message: `InfraEnv ghost/${env.ns} is not found or is being deleted`,
    });
    expect(error?.status).toBe('False');
    const held = await waitBmh(
      env,
      'ghost',
      (b) => b.metadata.finalizers?.includes(BMAC_FINALIZER) ?? false,
      'finalizer',
    );
    expect(held.spec.customDeploy).toBeUndefined();
    expect(held.spec.image).toBeUndefined();
    expect(held.metadata.labels?.['cluster.open-cluster-management.io/backup']).toBeUndefined();
    // Deleting it is not held up by the missing InfraEnv.
    await env.client.delete(BARE_METAL_HOST, 'ghost', env.ns);
    await eventually(async () => !(await env.client.getIfExists(BARE_METAL_HOST, 'ghost', env.ns)), {
      timeoutMs: 30_000,
      what: 'BMH ghost gone',
    });
  });

  it('reports an InfraEnv deleted under its BMH and PreprovisioningImage', async () => {
    await env.client.create(INFRA_ENV, infraEnv(env.ns, 'ie-gone', { cpuArchitecture: 'x86_64' }));
    const bmh = await createBmh(env, 'orphan', nextMac(env), { ieName: 'ie-gone' });
    await env.client.create(
      PREPROVISIONING_IMAGE,
      ppi('orphan', 'ie-gone', { acceptFormats: ['iso'], architecture: 'x86_64' }, bmh.metadata.uid),
    );
    await waitBmh(
      env,
      'orphan',
      (b) => b.metadata.labels?.['cluster.open-cluster-management.io/backup'] === 'true',
      'BMH taken in charge',
    );
    await eventually(
      async () =>
        (await env.client.get<PreprovisioningImage>(PREPROVISIONING_IMAGE, 'orphan', env.ns)).status
          ?.conditions?.length,
      { what: 'PPI conditions' },
    );
    await env.client.delete(INFRA_ENV, 'ie-gone', env.ns);
    const { ready, ppi: p } = await readyCondition('orphan', 'InfraEnvNotAvailable');
    expect(ready).toMatchObject({
      status: 'False',
      message: `InfraEnv ie-gone/${env.ns} is not found or is being deleted`,
    });
    expect(p.status?.imageUrl).toBeFalsy();
    // The BMH keeps its finalizer; deleting it still works.
    const still = await env.client.get<BareMetalHost>(BARE_METAL_HOST, 'orphan', env.ns);
    expect(still.metadata.finalizers).toContain(BMAC_FINALIZER);
    await env.client.delete(BARE_METAL_HOST, 'orphan', env.ns);
    await eventually(async () => !(await env.client.getIfExists(BARE_METAL_HOST, 'orphan', env.ns)), {
      timeoutMs: 30_000,
      what: 'BMH orphan gone',
    });
  });
});
