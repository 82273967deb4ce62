// The install path on the real API server with the cluster reconciler in-process: hold and
// reconcile-pause, the install start (preparing, bootstrap, artifacts), installing → finalizing
// driven by host records, the installer controller's calls (backend), completion (Secrets,
// clusterMetadata, CD spec.installed) and the day-2 transform; imported clusters; day-2 hosts.

import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Agent,
  type ClusterDeployment,
  HIVE_CLUSTER_DEPLOYMENT_NAME_LABEL,
  HIVE_RECONCILE_PAUSE_ANNOTATION,
  HIVE_SECRET_TYPE_LABEL,
} from '../../../src/api/index.ts';
import { clusterFileExists, readClusterFile } from '../../../src/records/clusters/artifacts-store.ts';
import { AGENT, AGENT_CLUSTER_INSTALL, CLUSTER_DEPLOYMENT, SECRET } from '../../../src/records/resources.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { selfSignedIngressCa } from '../../../src/sim/ingress-ca.ts';
import { cached, reconcilesDone } from '../../harness/barriers.ts';
import { eventually, uniqueName } from '../../harness/env.ts';
import {
  type ClusterTestOperator,
  clusterDeploymentObject,
  condition,
  createAgent,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallyAci,
  getCd,
  hostInventory,
  setHost,
  snoAciObject,
  startClusterOperator,
} from './harness.ts';

let op: ClusterTestOperator;

beforeAll(async () => {
  op = await startClusterOperator();
});
afterAll(async () => {
  await op?.stop();
});

const HOST_ID = () => crypto.randomUUID();

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
}

function decode(secret: SecretObject, key: string): string {
  return Buffer.from(secret.data?.[key] ?? '', 'base64').toString('utf8');
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

describe('SNO install to completion', () => {
  it('holds, starts, prepares, installs, completes and becomes a day-2 cluster', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    const { cd } = await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(ns, name, cis, { holdInstallation: true }),
    );
    const clusterId = cd.metadata.uid ?? '';
    await eventuallyAci(op.client, ns, name, (a) => a.status?.backend?.clusterID === clusterId, 'registered');

    const hostId = HOST_ID();
    let agent: Agent = await createAgent(op.client, ns, cd, {
      id: hostId,
      status: 'known',
      status_info: 'Host is ready to be installed',
      role: 'master',
      suggested_role: 'master',
      bootstrap: true,
      inventory: hostInventory('sno-node', '192.168.111.20'),
      installation_disk_id: '/dev/disk/by-id/wwn-0x1',
    });

    // Ready, but held.
    let aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => condition(a, 'Completed')?.reason === 'InstallationOnHold',
      'on hold',
    );
    expect(aci.status?.debugInfo?.state).toBe('ready');
    expect(condition(aci, 'Completed')?.message).toBe(
      'The installation is on hold. To unhold set holdInstallation to false',
    );
    expect(condition(aci, 'RequirementsMet')).toMatchObject({ status: 'True', reason: 'ClusterIsReady' });
    expect(condition(aci, 'Validated')).toMatchObject({ status: 'True', reason: 'ValidationsPassing' });
    expect(aci.status?.controlPlaneAgentsDiscovered).toBe(1);
    expect(aci.status?.controlPlaneAgentsReady).toBe(1);

    // The Hive pause annotation holds as well.
    const paused = await op.client.patch<KubeObject>(CLUSTER_DEPLOYMENT, name, ns, 'merge', {
      metadata: { annotations: { [HIVE_RECONCILE_PAUSE_ANNOTATION]: 'true' } },
    });
    const unheld = await op.client.patch<KubeObject>(AGENT_CLUSTER_INSTALL, name, ns, 'merge', {
      spec: { holdInstallation: false },
    });
    // Barrier: the operator has seen both writes and reconciled what they enqueued.
    await cached(op.ctx.informers.clusterDeployments, paused);
    await cached(op.ctx.informers.agentClusterInstalls, unheld);
    await reconcilesDone(op.ctx.mgr, 'the paused, unheld cluster');
    aci = await eventuallyAci(op.client, ns, name, (a) => a.spec.holdInstallation === false, 'unheld spec');
    expect(aci.status?.debugInfo?.state).toBe('ready');
    expect(condition(aci, 'Completed')?.reason).toBe('InstallationOnHold');

    // Released: the installation starts and the artifacts are generated.
    await op.client.patch(CLUSTER_DEPLOYMENT, name, ns, 'merge', {
      metadata: { annotations: { [HIVE_RECONCILE_PAUSE_ANNOTATION]: null } },
    });
    aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.backend?.lastInstallationPreparation?.status === 'success',
      'preparation succeeded',
    );
    expect(aci.status?.debugInfo?.state).toBe('preparing-for-installation');
    expect(condition(aci, 'Completed')).toMatchObject({
      status: 'False',
      reason: 'InstallationInProgress',
      message: 'The installation is in progress: Preparing cluster for installation',
    });
    expect(condition(aci, 'LastInstallationPreparationFailed')).toMatchObject({
      status: 'False',
      reason: 'There is no failing prior preparation attempt',
    });
    expect(aci.status?.backend?.openshiftClusterID).toMatch(/^[0-9a-f-]{36}$/);
    const dir = join(op.dataDir, 'clusters', clusterId);
    for (const f of [
      'bootstrap.ign',
      'master.ign',
      'worker.ign',
      'metadata.json',
      'install-config.yaml',
      'kubeconfig-noingress',
      'kubeadmin-password',
      'custom_manifests.json',
      `master-${hostId}.ign`,
    ]) {
      expect(await exists(join(dir, f)), f).toBe(true);
    }
    expect(await readFile(join(dir, 'install-config.yaml'), 'utf8')).toContain('baseDomain: example.com');
    agent = await op.client.get<Agent>(AGENT, hostId, ns);
    expect(agent.status?.bootstrap).toBe(true);
    expect(agent.status?.role).toBe('master');

    // The Agent reconciler would now move the host; here the test does.
    agent = await setHost(op.client, agent, cd, {
      status: 'preparing-successful',
      status_info: 'Host finished successfully to prepare for installation',
    });
    aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.debugInfo?.state === 'installing',
      'installing',
    );
    expect(aci.status?.progress?.totalPercentage).toBe(10);
    // SNO: the VIPs become the node's address when installation starts.
    expect(aci.status?.apiVIPs).toEqual(['192.168.111.20']);

    agent = await setHost(op.client, agent, cd, {
      status: 'installing-in-progress',
      status_info: 'Installing',
      progress: { current_stage: 'Writing image to disk', installation_percentage: 50 },
    });
    // While installing, the no-ingress kubeconfig is handed over with partial metadata.
    aci = await eventuallyAci(op.client, ns, name, (a) => !!a.spec.clusterMetadata, 'early clusterMetadata');
    expect(aci.spec.clusterMetadata).toEqual({
      clusterID: aci.status?.backend?.openshiftClusterID,
      infraID: clusterId,
      adminKubeconfigSecretRef: { name: `${name}-admin-kubeconfig` },
    });
    const early = await op.client.get<SecretObject>(SECRET, `${name}-admin-kubeconfig`, ns);
    expect(decode(early, 'kubeconfig')).toBe(await readFile(join(dir, 'kubeconfig-noingress'), 'utf8'));
    aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => (a.status?.progress?.totalPercentage ?? 0) > 10,
      'progress',
    );

    agent = await setHost(op.client, agent, cd, {
      status: 'installed',
      status_info: 'Done',
      progress: { current_stage: 'Done', installation_percentage: 100 },
    });
    aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.debugInfo?.state === 'finalizing',
      'finalizing',
    );
    expect(condition(aci, 'Completed')?.message).toBe(
      'The installation is in progress: Finalizing cluster installation',
    );

    // The installer controller's calls.
    const call = op.call;
    const file = await op.backend.downloadClusterFile(call, { clusterId, fileName: 'bootstrap.ign' });
    expect(file.ok).toBe(true);
    // The admin kubeconfig is never served to an agent token (issue 13); it is not written yet.
    const noKubeconfig = await op.backend.downloadClusterCredentials(call, {
      clusterId,
      fileName: 'kubeconfig',
    });
    expect(noKubeconfig).toMatchObject({ ok: false, error: { status: 403 } });
    expect(await clusterFileExists(op.ctx, clusterId, 'kubeconfig')).toBe(false);
    const noIngress = await op.backend.downloadClusterCredentials(call, {
      clusterId,
      fileName: 'kubeconfig-noingress',
    });
    expect(noIngress.ok).toBe(true);
    expect(
      (
        await op.backend.updateClusterFinalizingProgress(call, {
          clusterId,
          finalizingStage: 'Waiting for cluster operators',
        })
      ).ok,
    ).toBe(true);
    for (const operator of ['console', 'cvo']) {
      const r = await op.backend.reportMonitoredOperatorStatus(call, {
        clusterId,
        report: { name: operator, status: 'available', status_info: 'All is well', version: '4.18.1' },
      });
      expect(r.ok, operator).toBe(true);
    }
    const unknown = await op.backend.reportMonitoredOperatorStatus(call, {
      clusterId,
      report: { name: 'nope', status: 'available' },
    });
    expect(unknown).toMatchObject({ ok: false, error: { status: 404 } });
    aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) =>
        a.status?.backend?.progress?.finalizingStage === 'Waiting for cluster operators' &&
        condition(a, 'Completed')?.message?.includes('Cluster version status') === true,
      'finalizing stage and the CVO status',
    );
    expect(condition(aci, 'Completed')?.message).toBe(
      'The installation is in progress: Finalizing cluster installation. Cluster version status: available, message: All is well',
    );
    const ingressCa = await selfSignedIngressCa('ingress-operator@test');
    expect((await op.backend.uploadIngressCert(call, { clusterId, pem: ingressCa })).ok).toBe(true);
    const kubeconfig = await readClusterFile(op.ctx, clusterId, 'kubeconfig');
    expect(kubeconfig?.toString('utf8')).toContain('certificate-authority-data');
    expect((await op.backend.completeInstallation(call, { clusterId, isSuccess: true })).ok).toBe(true);

    // Installed: the hand-off, then day 2.
    aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.debugInfo?.state === 'adding-hosts',
      'adding-hosts',
    );
    // Upstream's day-2 transform changes state and kind only.
    expect(aci.status?.debugInfo?.stateInfo).toBe('Cluster is installed');
    expect(condition(aci, 'Completed')).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
    expect(condition(aci, 'Stopped')).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
    expect(condition(aci, 'RequirementsMet')).toMatchObject({ reason: 'ClusterAlreadyInstalling' });
    expect(aci.status?.backend?.kind).toBe('AddHostsCluster');
    expect(aci.spec.clusterMetadata).toEqual({
      clusterID: aci.status?.backend?.openshiftClusterID,
      infraID: clusterId,
      adminKubeconfigSecretRef: { name: `${name}-admin-kubeconfig` },
      adminPasswordSecretRef: { name: `${name}-admin-password` },
    });
    const kubeconfigSecret = await op.client.get<SecretObject>(SECRET, `${name}-admin-kubeconfig`, ns);
    expect(decode(kubeconfigSecret, 'kubeconfig')).toBe(await readFile(join(dir, 'kubeconfig'), 'utf8'));
    expect(kubeconfigSecret.metadata.labels).toMatchObject({
      [HIVE_CLUSTER_DEPLOYMENT_NAME_LABEL]: name,
      [HIVE_SECRET_TYPE_LABEL]: 'kubeconfig',
    });
    const passwordSecret = await op.client.get<SecretObject>(SECRET, `${name}-admin-password`, ns);
    expect(decode(passwordSecret, 'username')).toBe('kubeadmin');
    expect(decode(passwordSecret, 'password')).toBe(
      (await readFile(join(dir, 'kubeadmin-password'), 'utf8')).trim(),
    );
    expect(passwordSecret.metadata.labels?.[HIVE_SECRET_TYPE_LABEL]).toBe('kubeadmincreds');
    for (const s of [kubeconfigSecret, passwordSecret]) {
      expect(s.metadata.ownerReferences).toEqual([
        expect.objectContaining({
          kind: 'ClusterDeployment',
          name,
          uid: clusterId,
          blockOwnerDeletion: true,
        }),
      ]);
    }
    const liveCd: ClusterDeployment = await getCd(op.client, ns, name);
    expect(liveCd.spec.installed).toBe(true);
    expect(liveCd.spec.clusterMetadata).toEqual(aci.spec.clusterMetadata);

    // Day 2: a known, approved host of the installed cluster is installed at once.
    const day2Id = HOST_ID();
    await createAgent(op.client, ns, liveCd, {
      id: day2Id,
      kind: 'AddToExistingClusterHost',
      status: 'known',
      status_info: 'Host is ready to be installed',
      role: 'worker',
      suggested_role: 'worker',
      inventory: hostInventory('day2-node', '192.168.111.30'),
    });
    await eventually(
      async () => (await op.client.get<Agent>(AGENT, day2Id, ns)).status?.debugInfo?.state === 'installing',
      { what: 'day-2 host installing' },
    );
    const pointer = JSON.parse(await readFile(join(dir, `worker-${day2Id}.ign`), 'utf8'));
    expect(pointer.ignition.config.merge[0].source).toBe(
      `http://api.${name}.example.com:22624/config/worker`,
    );
    expect(op.events.some((e) => e.message.includes('Successfully completed installing cluster'))).toBe(true);
  }, 90_000);
});

describe('installation failure', () => {
  it('a failure reported by the installer controller fails the cluster; logs stay downloadable', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('fail');
    const { cd } = await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(ns, name, cis),
    );
    const clusterId = cd.metadata.uid ?? '';
    let agent = await createAgent(op.client, ns, cd, {
      id: HOST_ID(),
      role: 'master',
      suggested_role: 'master',
      bootstrap: true,
      inventory: hostInventory('node', '192.168.111.60'),
    });
    await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.backend?.lastInstallationPreparation?.status === 'success',
      'prepared',
    );
    agent = await setHost(op.client, agent, cd, { status: 'preparing-successful' });
    await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.debugInfo?.state === 'installing',
      'installing',
    );
    agent = await setHost(op.client, agent, cd, {
      status: 'installing-in-progress',
      progress: { current_stage: 'Installing' },
    });

    // Logs the installer uploaded (the hosts' REST backend writes these files).
    const logs = join(op.dataDir, 'logs', clusterId);
    await mkdir(join(logs, agent.metadata.name ?? ''), { recursive: true });
    await writeFile(join(logs, agent.metadata.name ?? '', 'logs.tar.gz'), 'host-logs');
    expect(
      (await op.backend.updateClusterLogsProgress(op.call, { clusterId, logsState: 'requested' })).ok,
    ).toBe(true);

    const r = await op.backend.completeInstallation(op.call, {
      clusterId,
      isSuccess: false,
      errorInfo: 'cluster operators did not become available',
    });
    expect(r).toMatchObject({ ok: true, value: { status: 'error' } });
    const aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => condition(a, 'Failed')?.status === 'True',
      'failed',
    );
    expect(condition(aci, 'Failed')?.message).toBe(
      'The installation failed: cluster operators did not become available',
    );
    expect(condition(aci, 'Completed')).toMatchObject({ status: 'False', reason: 'InstallationFailed' });
    expect(condition(aci, 'Stopped')).toMatchObject({ status: 'True', reason: 'InstallationFailed' });
    expect(condition(aci, 'RequirementsMet')).toMatchObject({ reason: 'ClusterInstallationStopped' });
    expect(aci.status?.backend?.controllerLogsStartedAt).toBeDefined();

    const hostLogs = await op.backend.downloadClusterLogs(op.call, {
      clusterId,
      logsType: 'host',
      hostId: agent.metadata.name ?? '',
    });
    // Log downloads are streamed from disk; read the stream whole for the comparison.
    const hostLogText = hostLogs.ok ? await textOf(hostLogs.value.content) : undefined;
    expect(hostLogText).toBe('host-logs');
    const all = await op.backend.downloadClusterLogs(op.call, { clusterId });
    expect(all.ok && all.value.fileName).toBe(`${name}_${clusterId}.tar`);
    const controller = await op.backend.downloadClusterLogs(op.call, { clusterId, logsType: 'controller' });
    expect(controller).toMatchObject({ ok: false, error: { status: 404 } });
    // Cluster operations refuse unknown clusters.
    const missing = await op.backend.getCluster(op.call, { clusterId: crypto.randomUUID() });
    expect(missing).toMatchObject({ ok: false, error: { status: 404 } });
  });
});

describe('imported clusters', () => {
  it('an installed ClusterDeployment becomes an adding-hosts cluster without an image set or pull secret', async () => {
    const ns = op.namespace;
    const name = uniqueName('imported');
    await op.client.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `${name}-admin-kubeconfig`, namespace: ns },
      data: { kubeconfig: Buffer.from('apiVersion: v1\nkind: Config\n').toString('base64') },
    } as never);
    const cd = clusterDeploymentObject(ns, name, { installed: true });
    delete cd.spec.pullSecretRef;
    const aci = snoAciObject(ns, name, 'unused', {
      clusterMetadata: {
        clusterID: 'b3a1f7b6-1111-4222-8333-944455556666',
        infraID: 'x',
        adminKubeconfigSecretRef: { name: `${name}-admin-kubeconfig` },
      },
    });
    delete aci.spec.imageSetRef;
    await createCluster(op.client, cd, aci);
    const live = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => a.status?.debugInfo?.state === 'adding-hosts',
      'adding-hosts',
    );
    expect(condition(live, 'SpecSynced')?.reason).toBe('SyncOK');
    expect(condition(live, 'Completed')).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
    expect(condition(live, 'RequirementsMet')).toMatchObject({
      status: 'True',
      reason: 'ClusterAlreadyInstalling',
    });
    expect(condition(live, 'Validated')).toMatchObject({ status: 'True', reason: 'ValidationsPassing' });
    expect(condition(live, 'Failed')).toMatchObject({ status: 'False' });
    expect(condition(live, 'Stopped')).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
    expect(live.status?.backend?.openshiftClusterID).toBe('b3a1f7b6-1111-4222-8333-944455556666');
    expect(live.status?.backend?.apiVipDnsName).toBe(`api.${name}.example.com`);
    // The spoke kubeconfig is now labelled for the cache.
    const secret = await op.client.get<SecretObject>(SECRET, `${name}-admin-kubeconfig`, ns);
    expect(secret.metadata.labels?.['agent-install.openshift.io/watch']).toBe('true');
  });
});

async function textOf(content: Buffer | string | Readable): Promise<string> {
  if (typeof content === 'string' || Buffer.isBuffer(content)) return content.toString();
  return Buffer.concat(await content.toArray()).toString();
}
