// Late binding on the real control plane: an unbound Agent is bound to a ClusterDeployment by its
// spec, re-registers into the cluster, and is released again when the reference is removed.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  SECRET,
} from '../../../src/records/resources.ts';
import { type KubeObject, updateStatus } from '../../../src/runtime/index.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, call, condition, createInfraEnv, inventory, waitForAgent } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;
let ie: InfraEnv;
let token: string;
let cdUid: string;

beforeAll(async () => {
  ns = await newNamespace('bind');
  op = await startTestOperator({ namespace: ns });
  ie = await createInfraEnv(client, ns, 'pool');
  const imageSet = uniqueName('img');
  await client.create(CLUSTER_IMAGE_SET, {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name: imageSet },
    spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64' },
  } as never);
  const cd = await client.create<KubeObject>(CLUSTER_DEPLOYMENT, {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterDeployment',
    metadata: { name: 'spoke', namespace: ns },
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
      pullSecretRef: { name: 'pool-pull-secret' },
    },
  } as never);
  cdUid = cd.metadata.uid ?? '';
  await client.create(AGENT_CLUSTER_INSTALL, {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: { name: 'spoke', namespace: ns },
    spec: {
      clusterDeploymentRef: { name: 'spoke' },
      imageSetRef: { name: imageSet },
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
        machineNetwork: [{ cidr: '192.168.122.0/24' }],
        networkType: 'OVNKubernetes',
      },
      apiVIPs: ['192.168.122.5'],
      ingressVIPs: ['192.168.122.4'],
      provisionRequirements: { controlPlaneAgents: 3 },
    },
  } as never);
  await eventually(
    async () => op.ctx.infraEnvById(ie.metadata.uid ?? '') && op.ctx.clusterDeploymentById(cdUid),
    {
      what: 'InfraEnv and ClusterDeployment in cache',
    },
  );
  token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
});

afterAll(async () => {
  await op?.stop();
  await client.close();
});

/** A host registered, inventoried and bound to the `spoke` cluster; returns its id. */
async function boundHost(mac: string): Promise<string> {
  const hostId = randomUUID();
  const base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
  const body = { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage };
  expect((await call(op.baseUrl, 'POST', base, { token, body })).status).toBe(201);
  const inv = inventory(`h-${mac.slice(-2)}`, mac);
  await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
    token,
    body: { step_type: 'inventory', output: inv },
  });
  await waitForAgent(
    client,
    ns,
    hostId,
    (a) => a.status?.debugInfo?.state === 'known-unbound',
    'known-unbound',
  );
  await client.patch(AGENT, hostId, ns, 'merge', {
    spec: { clusterDeploymentName: { name: 'spoke', namespace: ns } },
  });
  await waitForAgent(client, ns, hostId, (a) => a.status?.debugInfo?.state === 'binding', 'binding');
  await eventually(
    async () => op.ctx.informers.agents.get(ns, hostId)?.status?.debugInfo?.state === 'binding',
    {
      what: 'binding in cache',
    },
  );
  expect((await call(op.baseUrl, 'POST', base, { token, body })).status).toBe(201);
  return hostId;
}

describe('late binding', () => {
  it('binds a known-unbound Agent, re-registers it into the cluster, and unbinds it', async () => {
    const hostId = randomUUID();
    const base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
    const register = () =>
      call(op.baseUrl, 'POST', base, {
        token,
        body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
      });
    expect((await register()).status).toBe(201);
    const inv = inventory('bind-0', '52:54:00:00:01:01');
    expect(
      (
        await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
          token,
          body: { step_type: 'inventory', output: inv },
        })
      ).status,
    ).toBe(204);
    await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'known-unbound',
      'known-unbound',
    );

    await client.patch(AGENT, hostId, ns, 'merge', {
      spec: { clusterDeploymentName: { name: 'spoke', namespace: ns } },
    });
    const binding = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'binding',
      'binding',
    );
    expect(condition(binding, 'Bound')).toMatchObject({ status: 'False', reason: 'Binding' });
    expect(binding.status?.backend?.clusterID).toBe(cdUid);

    // The agent is told to exit and registers again, now as a host of the cluster.
    await eventually(
      async () => {
        const steps = await call(op.baseUrl, 'GET', `${base}/${hostId}/instructions`, { token });
        return (steps.body as { post_step_action?: string }).post_step_action === 'exit';
      },
      { what: 'instructions to exit' },
    );
    const again = await register();
    expect(again.status, again.text).toBe(201);
    expect(again.body).toMatchObject({ cluster_id: cdUid, status: 'discovering' });
    const bound = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'Bound')?.reason === 'Bound',
      'Bound',
    );
    expect(bound.status?.debugInfo?.eventsURL).toContain(`host_id=${hostId}`);
    // The clusterdeployment-namespace label follows the inventory, as upstream's.
    await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
      token,
      body: { step_type: 'inventory', output: inv },
    });
    const labelled = await waitForAgent(
      client,
      ns,
      hostId,
      (a) =>
        a.metadata.labels?.['agent-install.openshift.io/clusterdeployment-namespace'] === ns &&
        a.status?.inventory?.hostname === 'bind-0',
      'clusterdeployment-namespace label and inventory',
    );
    expect(labelled.status?.backend?.clusterID).toBe(cdUid);

    // Removing the reference unbinds (the host has not started installing).
    await client.patch(AGENT, hostId, ns, 'merge', { spec: { clusterDeploymentName: null } });
    const unbinding = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.debugInfo?.state === 'unbinding',
      'unbinding',
    );
    expect(condition(unbinding, 'Bound')?.reason).toBe('Unbinding');
    expect(unbinding.status?.deprovision_info).toMatchObject({
      cluster_name: 'spoke',
      cluster_namespace: ns,
    });
    const released = await register();
    expect(released.body).toMatchObject({ status: 'discovering-unbound' });
    // Back in the pool, the old cluster's Node no longer waits for it: deprovision_info goes.
    const unbound = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'Bound')?.reason === 'Unbound' && !a.status?.deprovision_info,
      'Unbound without deprovision_info',
    );
    expect(unbound.status?.backend?.clusterID).toBeUndefined();
  });

  it('reports a missing ClusterDeployment as a backend error', async () => {
    const hostId = randomUUID();
    expect(
      (
        await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
          token,
          body: { host_id: hostId },
        })
      ).status,
    ).toBe(201);
    await waitForAgent(client, ns, hostId, (a) => !!a.status?.conditions, 'status');
    await client.patch(AGENT, hostId, ns, 'merge', {
      spec: { clusterDeploymentName: { name: 'nope', namespace: ns } },
    });
    const agent = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'SpecSynced')?.reason === 'BackendError',
      'SpecSynced BackendError',
    );
    expect(condition(agent, 'SpecSynced')?.message).toBe(
      `The Spec could not be synced due to backend error: failed to get clusterDeployment with name nope in namespace ${ns}: clusterdeployments.hive.openshift.io "nope" not found`,
    );
  });

  it('reports invalid installer args and node labels as input errors', async () => {
    const hostId = randomUUID();
    expect(
      (
        await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
          token,
          body: { host_id: hostId },
        })
      ).status,
    ).toBe(201);
    await waitForAgent(client, ns, hostId, (a) => !!a.status?.conditions, 'status');
    await client.patch(AGENT, hostId, ns, 'merge', { spec: { installerArgs: '["--fancy"]' } });
    const bad = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => condition(a, 'SpecSynced')?.reason === 'InputError',
      'InputError',
    );
    expect(condition(bad, 'SpecSynced')?.message).toContain('found unexpected flag --fancy for installer');
    await client.patch(AGENT, hostId, ns, 'merge', {
      spec: { installerArgs: '', nodeLabels: { 'bad key!': 'x' } },
    });
    const badLabels = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => (condition(a, 'SpecSynced')?.message ?? '').includes('invalid node label key'),
      'node label InputError',
    );
    expect(condition(badLabels, 'SpecSynced')?.status).toBe('False');
    await client.patch(AGENT, hostId, ns, 'merge', { spec: { nodeLabels: null } });
    await waitForAgent(client, ns, hostId, (a) => condition(a, 'SpecSynced')?.reason === 'SyncOK', 'SyncOK');
  });
});

describe('spec fields the backend refuses', () => {
  const IGNITION = '{"ignition":{"version":"3.2.0"},"storage":{"files":[]}}';

  /** The host as the installer reads it (the cluster's host list). */
  async function restHost(hostId: string): Promise<Record<string, unknown>> {
    const reply = await call(op.baseUrl, 'GET', `/v2/clusters/${cdUid}/hosts`, { token });
    expect(reply.status, reply.text).toBe(200);
    const host = (reply.body as Record<string, unknown>[]).find((h) => h.id === hostId);
    expect(host, reply.text).toBeDefined();
    return host!;
  }

  /** Patches the spec, waits for the reconcile that `until` recognises and for the operator's cache. */
  async function setSpec(hostId: string, spec: Record<string, unknown>, until: (a: Agent) => boolean) {
    await client.patch<Agent>(AGENT, hostId, ns, 'merge', { spec });
    const agent = await waitForAgent(client, ns, hostId, until, `reconciled ${JSON.stringify(spec)}`);
    await eventually(
      async () =>
        Number(op.ctx.informers.agents.get(ns, hostId)?.metadata.resourceVersion ?? 0) >=
        Number(agent.metadata.resourceVersion ?? 0),
      { what: 'Agent in the operator cache' },
    );
    return agent;
  }
  const inputError = (part: string) => (a: Agent) =>
    condition(a, 'SpecSynced')?.reason === 'InputError' &&
    (condition(a, 'SpecSynced')?.message ?? '').includes(part);

  it('keeps the applied installer args, ignition override and node labels when the spec is invalid', async () => {
    const hostId = await boundHost('52:54:00:00:03:01');
    // Applied once the reconcile recorded them (status.backend keeps the applied values).
    await setSpec(
      hostId,
      {
        installerArgs: '["--append-karg", "a=1"]',
        ignitionConfigOverrides: IGNITION,
        nodeLabels: { role: 'db' },
      },
      (a) => condition(a, 'SpecSynced')?.reason === 'SyncOK' && a.status?.backend?.nodeLabels?.role === 'db',
    );
    const applied = {
      installer_args: '["--append-karg","a=1"]',
      ignition_config_overrides: IGNITION,
      node_labels: '{"role":"db"}',
    };
    expect(await restHost(hostId)).toMatchObject(applied);

    const badIgnition = await setSpec(
      hostId,
      { ignitionConfigOverrides: '{"ignition":{"version":"3.2.0"' },
      inputError('ignition'),
    );
    expect(condition(badIgnition, 'SpecSynced')?.message).toBe(
      'The Spec could not be synced due to an input error: error parsing ignition: config is not valid',
    );
    expect(await restHost(hostId)).toMatchObject(applied);

    await setSpec(
      hostId,
      { ignitionConfigOverrides: IGNITION, installerArgs: '["-n"' },
      inputError(`Fail to unmarshal installer args for host ${hostId} in infraEnv ${ie.metadata.uid}: `),
    );
    expect(await restHost(hostId)).toMatchObject(applied);

    await setSpec(
      hostId,
      { installerArgs: '["--fancy"]' },
      inputError('found unexpected flag --fancy for installer'),
    );
    expect(await restHost(hostId)).toMatchObject(applied);

    await setSpec(
      hostId,
      { installerArgs: '', nodeLabels: { 'bad key!': 'x' } },
      inputError('invalid node label key "bad key!"'),
    );
    expect(await restHost(hostId)).toMatchObject({ ...applied, installer_args: '[]' });

    await setSpec(
      hostId,
      { nodeLabels: { 'bad key!': null, role: 'web' } },
      (a) => condition(a, 'SpecSynced')?.reason === 'SyncOK',
    );
    expect(await restHost(hostId)).toMatchObject({ installer_args: '[]', node_labels: '{"role":"web"}' });
  });

  it('uses the ignition endpoint token of the referenced Secret and follows its changes', async () => {
    const hostId = await boundHost('52:54:00:00:03:02');
    const secretName = uniqueName('ign-token');
    const tokenData = (t: string) => ({ 'ignition-token': Buffer.from(t).toString('base64') });
    await client.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secretName, namespace: ns },
      data: tokenData('first-token'),
    } as never);
    await client.patch(AGENT, hostId, ns, 'merge', {
      spec: { ignitionEndpointTokenReference: { namespace: ns, name: secretName } },
    });
    const tokenSet = async (want: boolean) =>
      eventually(async () => ((await restHost(hostId)).ignition_endpoint_token_set === true) === want, {
        what: `ignition_endpoint_token_set ${want}`,
      });
    await tokenSet(true);
    const secret = await client.get<KubeObject>(SECRET, secretName, ns);
    expect(secret.metadata.labels?.['agent-install.openshift.io/watch']).toBe('true');

    // The Secret watch carries token changes to the host.
    await client.patch(SECRET, secretName, ns, 'merge', { data: tokenData('') });
    await tokenSet(false);
    await client.patch(SECRET, secretName, ns, 'merge', { data: tokenData('second-token') });
    await tokenSet(true);
    // Removing the reference clears it.
    await client.patch(AGENT, hostId, ns, 'merge', { spec: { ignitionEndpointTokenReference: null } });
    await tokenSet(false);
  });
});

describe('installation reports', () => {
  it('records install progress in the Agent status and refuses a lower stage', async () => {
    const hostId = await boundHost('52:54:00:00:02:01');
    // Stand in for the cluster's install start: the host record says "installing".
    await eventually(
      async () => op.ctx.informers.agents.get(ns, hostId)?.status?.debugInfo?.state === 'discovering',
    );
    // With conflict retries: the Agent reconciler may write the status meanwhile.
    const agent = await client.get<Agent>(AGENT, hostId, ns);
    await updateStatus(client, AGENT, agent, (cur) => ({
      ...cur.status,
      role: 'master',
      debugInfo: {
        ...cur.status?.debugInfo,
        state: 'installing',
        stateInfo: 'Installation is in progress',
      },
      backend: { ...cur.status?.backend, role: 'master' },
    }));
    await eventually(
      async () => op.ctx.informers.agents.get(ns, hostId)?.status?.debugInfo?.state === 'installing',
    );
    const path = `/v2/infra-envs/${ie.metadata.uid}/hosts/${hostId}/progress`;
    const first = await call(op.baseUrl, 'PUT', path, {
      token,
      body: { current_stage: 'Writing image to disk', progress_info: '35%' },
    });
    expect(first.status, first.text).toBe(200);
    const progressed = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.progress?.currentStage === 'Writing image to disk',
      'progress stored',
    );
    expect(progressed.status?.debugInfo?.state).toBe('installing-in-progress');
    expect(progressed.status?.progress?.progressInfo).toBe('35%');
    await eventually(
      async () =>
        op.ctx.informers.agents.get(ns, hostId)?.status?.progress?.currentStage === 'Writing image to disk',
    );
    const lower = await call(op.baseUrl, 'PUT', path, {
      token,
      body: { current_stage: 'Starting installation' },
    });
    expect(lower.status).toBe(409);
    expect(lower.body).toMatchObject({ kind: 'Error', code: '409' });

    // Done: the Agent keeps the stage list of its role with the last stage and 100%.
    const done = await call(op.baseUrl, 'PUT', path, { token, body: { current_stage: 'Done' } });
    expect(done.status, done.text).toBe(200);
    const installed = await waitForAgent(
      client,
      ns,
      hostId,
      (a) => a.status?.progress?.currentStage === 'Done',
      'Done stored',
    );
    expect(installed.status?.progress).toMatchObject({
      currentStage: 'Done',
      installationPercentage: 100,
      progressStages: [
        'Starting installation',
        'Installing',
        'Writing image to disk',
        'Copying registry data to disk',
        'Rebooting',
        'Configuring',
        'Joined',
        'Done',
      ],
    });
  });

  it('stores uploaded host logs and marks them collected', async () => {
    const hostId = await boundHost('52:54:00:00:02:02');
    const boundary = 'xYzZY';
    const payload = Buffer.from('fake tar.gz bytes');
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="upfile"; filename="logs.tar.gz"\r\nContent-Type: application/gzip\r\n\r\n`,
      ),
      payload,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await fetch(
      `${op.baseUrl}/api/assisted-install/v2/clusters/${cdUid}/logs?logs_type=host&infra_env_id=${ie.metadata.uid}&host_id=${hostId}`,
      {
        method: 'POST',
        headers: { 'x-secret-key': token, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body,
      },
    );
    expect(res.status, await res.text()).toBe(204);
    const stored = await readFile(join(op.dataDir, 'logs', cdUid, hostId, 'logs.tar.gz'));
    expect(stored.equals(payload)).toBe(true);
    await waitForAgent(client, ns, hostId, (a) => !!a.status?.backend?.logsCollectedAt, 'logsCollectedAt');
  });

  it('deregisters on delete: the finalizer goes and the host is unknown to the API', async () => {
    const hostId = randomUUID();
    const base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
    expect((await call(op.baseUrl, 'POST', base, { token, body: { host_id: hostId } })).status).toBe(201);
    await waitForAgent(client, ns, hostId, (a) => !!a.status?.conditions, 'status');
    await client.delete(AGENT, hostId, ns);
    await eventually(async () => (await client.getIfExists(AGENT, hostId, ns)) === undefined, {
      what: 'Agent gone',
    });
    await eventually(
      async () => (await call(op.baseUrl, 'GET', `${base}/${hostId}/instructions`, { token })).status === 404,
      { what: '404 for a deleted host' },
    );
  });
});
