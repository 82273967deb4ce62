// `agent-install logs` against a running operator: logs are uploaded through the host REST API as
// the installer controller and a host's logs_sender do, the operator publishes the signed
// debugInfo.logsURL on the AgentClusterInstall, and the CLI (a child process with $KUBECONFIG, as a
// user runs it) downloads the archive. Also the ways a download fails: the server answers 404, or
// nothing listens at the URL any more.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, AgentClusterInstall, InfraEnv } from '../../../src/api/index.ts';
import { freePort } from '../../../src/dev/ports.ts';
import {
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
} from '../../../src/records/resources.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { tarArchive } from '../../../src/util/tar.ts';
import { eventually, kubeconfigPath, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, call, createInfraEnv, inventory, waitForAgent } from '../hosts/helpers.ts';

const run = promisify(execFile);
const client = adminClient();
let op: TestOperator;
let ns: string;
let cdUid: string;
let ie: InfraEnv;
let work: string;

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['src/cmd/agent-install.ts', ...args], {
    env: { ...process.env, KUBECONFIG: kubeconfigPath() },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const [code] = (await once(child, 'exit')) as [number];
  return { code, stdout, stderr };
}

/** A ClusterDeployment `spoke` with its AgentClusterInstall in `namespace`; returns the CD. */
async function createCluster(namespace: string): Promise<KubeObject> {
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
    metadata: { name: 'spoke', namespace },
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
  await client.create(AGENT_CLUSTER_INSTALL, {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: { name: 'spoke', namespace },
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
  return cd;
}

/** A gzip'd tar with one file, as logs_sender and the controller upload. */
async function logsArchive(file: string, text: string): Promise<Buffer> {
  return gzipSync(await tarArchive([{ name: file, content: Buffer.from(text), mtime: new Date(0) }]));
}

/** POST …/clusters/<id>/logs as multipart/form-data with the archive in `upfile`. */
async function upload(query: string, token: string, archive: Buffer): Promise<Response> {
  const boundary = 'aioLogsBoundary';
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="upfile"; filename="logs.tar.gz"\r\n` +
        'Content-Type: application/gzip\r\n\r\n',
    ),
    archive,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return fetch(`${op.baseUrl}/api/assisted-install/v2/clusters/${cdUid}/logs?${query}`, {
    method: 'POST',
    headers: { 'x-secret-key': token, 'content-type': `multipart/form-data; boundary=${boundary}` },
    body,
  });
}

/** Extracts a tar with the system's tar (so the download is a well-formed archive) into a map. */
async function untar(file: string): Promise<Map<string, Buffer>> {
  const dir = await mkdtemp(join(work, 'x-'));
  await run('tar', ['-xf', file, '-C', dir]);
  const out = new Map<string, Buffer>();
  for (const name of (await readdir(dir)).sort()) out.set(name, await readFile(join(dir, name)));
  return out;
}

beforeAll(async () => {
  ns = await newNamespace('clilogs');
  op = await startTestOperator({ namespace: ns });
  work = await mkdtemp(join(tmpdir(), 'aio-cli-logs-'));
  ie = await createInfraEnv(client, ns, 'pool', { clusterRef: { name: 'spoke', namespace: ns } });
  cdUid = (await createCluster(ns)).metadata.uid ?? '';
  await eventually(
    async () => op.ctx.infraEnvById(ie.metadata.uid ?? '') && op.ctx.clusterDeploymentById(cdUid),
    { what: 'InfraEnv and ClusterDeployment in cache' },
  );
});

afterAll(async () => {
  await op?.stop();
  await client.close();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('agent-install logs', () => {
  it('downloads what the controller and a host uploaded, through the ACI logsURL', async () => {
    // A host registered into the cluster through its InfraEnv, as logs_sender runs on it.
    const hostId = '7c0e7a2e-3d57-4b0f-9a39-5d1c0c2f4a11';
    const infraEnvToken = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
    const hosts = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
    // 503 until the operator's caches hold the whole cluster (the ClusterImageSet too); agents retry.
    let registered: Awaited<ReturnType<typeof call>> | undefined;
    await eventually(
      async () => {
        registered = await call(op.baseUrl, 'POST', hosts, {
          token: infraEnvToken,
          body: { host_id: hostId },
        });
        return registered.status !== 503;
      },
      { what: 'host registration past 503' },
    );
    expect(registered?.status, registered?.text).toBe(201);
    await call(op.baseUrl, 'POST', `${hosts}/${hostId}/instructions`, {
      token: infraEnvToken,
      body: { step_type: 'inventory', output: inventory('master-0', '52:54:00:00:07:01') },
    });
    await waitForAgent(
      client,
      ns,
      hostId,
      (a: Agent) => a.status?.backend?.clusterID === cdUid,
      'Agent in the cluster',
    );
    await eventually(
      async () => op.ctx.informers.agents.get(ns, hostId)?.status?.backend?.clusterID === cdUid,
      {
        what: 'Agent in the cluster, in cache',
      },
    );

    const hostArchive = await logsArchive('agent.logs', 'host journal: discovery agent started\n');
    const hostUpload = await upload(
      `logs_type=host&infra_env_id=${ie.metadata.uid}&host_id=${hostId}`,
      infraEnvToken,
      hostArchive,
    );
    expect(hostUpload.status, await hostUpload.text()).toBe(204);
    // The in-cluster controller speaks for the cluster.
    const clusterToken = op.server.auth.issueAgentToken({ kind: 'cluster', id: cdUid });
    const controllerArchive = await logsArchive(
      'assisted-installer-controller.logs',
      'controller: all operators available\n',
    );
    const controllerUpload = await upload('logs_type=controller', clusterToken, controllerArchive);
    expect(controllerUpload.status, await controllerUpload.text()).toBe(204);

    const aci = await eventually(
      async () => {
        const a = await client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, 'spoke', ns);
        return a.status?.debugInfo?.logsURL ? a : undefined;
      },
      { what: 'ACI debugInfo.logsURL', timeoutMs: 20_000 },
    );
    expect(aci.status?.debugInfo?.logsURL).toContain(`/v2/clusters/${cdUid}/logs?`);

    const out = join(work, 'spoke-logs.tar');
    const res = await cli(['logs', 'spoke', '-n', ns, '-o', out]);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toBe(`wrote ${out}\n`);
    const files = await untar(out);
    expect([...files.keys()]).toEqual([`${hostId}.tar.gz`, 'controller_logs.tar.gz']);
    expect(files.get(`${hostId}.tar.gz`)).toEqual(hostArchive);
    expect(files.get('controller_logs.tar.gz')).toEqual(controllerArchive);
    // And the inner archives are the uploaded logs.
    expect(
      gunzipSync(files.get('controller_logs.tar.gz')!).includes('controller: all operators available'),
    ).toBe(true);
    // No temporary file is left beside the download.
    expect((await readdir(work)).filter((f) => f.startsWith('spoke-logs'))).toEqual(['spoke-logs.tar']);

    // The stored logs are gone (say the data volume was replaced): the server answers 404 and the CLI
    // says so, without writing an output file or printing the URL's credential.
    await rm(join(op.dataDir, 'logs', cdUid), { recursive: true, force: true });
    const missing = join(work, 'missing.tar');
    const notFound = await cli(['logs', 'spoke', '-n', ns, '-o', missing]);
    expect(notFound.code).toBe(1);
    expect(notFound.stdout).toBe('');
    expect(notFound.stderr).toMatch(
      /^error: downloading logs from http:\/\/127\.0\.0\.1:\d+\/\S+ failed: HTTP 404/,
    );
    expect(notFound.stderr).toContain(`Logs for cluster ${cdUid} were not found`);
    expect(notFound.stderr).not.toContain('api_key');
    await expect(readFile(missing)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('fails clearly when nothing answers at the logs URL, or the download is cut short', async () => {
    // A cluster no operator watches: its status says where the logs are, and the test plays that server.
    const other = await newNamespace('clilogs-gone');
    await createCluster(other);
    const pointAt = (url: string) =>
      client.patch(
        AGENT_CLUSTER_INSTALL,
        'spoke',
        other,
        'merge',
        { status: { debugInfo: { eventsURL: '', logsURL: url, state: 'installing' } } },
        { subresource: 'status' },
      );
    const out = join(work, 'gone.tar');

    // Nothing listens there any more.
    const port = await freePort();
    await pointAt(
      `http://127.0.0.1:${port}/api/assisted-install/v2/clusters/${cdUid}/logs?api_key=secret-token`,
    );
    const refused = await cli(['logs', 'spoke', '-n', other, '-o', out]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `error: cannot reach http://127.0.0.1:${port}/api/assisted-install/v2/clusters/${cdUid}/logs: ` +
        `connect ECONNREFUSED 127.0.0.1:${port}\n`,
    );
    await expect(readFile(out)).rejects.toMatchObject({ code: 'ENOENT' });

    // The server promises 1 MiB, sends a little and drops the connection.
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-tar', 'content-length': String(1 << 20) });
      res.write(Buffer.alloc(4096, 1), () => res.destroy());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port: cutPort } = server.address() as AddressInfo;
      await pointAt(`http://127.0.0.1:${cutPort}/logs?api_key=secret-token`);
      const cut = await cli(['logs', 'spoke', '-n', other, '-o', out]);
      expect(cut.code).toBe(1);
      expect(cut.stdout).toBe('');
      expect(cut.stderr).toMatch(
        new RegExp(`^error: downloading logs from http://127\\.0\\.0\\.1:${cutPort}/logs failed: `),
      );
      expect(cut.stderr).not.toContain('secret-token');
      // Neither the output file nor the partial download is left behind.
      expect((await readdir(work)).filter((f) => f.startsWith('gone'))).toEqual([]);
    } finally {
      server.close();
    }
  });
});
