// Installer and controller operations on a cluster (agent-api.md §2.2, §2.3).
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fail, ok } from '../../../../src/server/api/index.ts';
import {
  API,
  CLUSTER_1,
  call,
  callsTo,
  expectErrorShape,
  HOST_A1,
  HOST_B1,
  IE_A,
  sampleCluster,
  startTestServer,
  type TestServer,
} from './helpers.ts';

let t: TestServer;
beforeEach(async () => {
  t = await startTestServer();
});
afterEach(async () => {
  await t.close();
});

const CLUSTER = `${API}/clusters/${CLUSTER_1}`;

describe('GET /v2/clusters/{id}', () => {
  it('returns the cluster model with hosts whose inventory is a JSON string, and no pull secret', async () => {
    const reply = await call(t, 'GET', CLUSTER);
    expect(reply.status).toBe(200);
    const body = reply.json as Record<string, unknown>;
    expect(body).toMatchObject({
      kind: 'Cluster',
      id: CLUSTER_1,
      href: `/api/assisted-install/v2/clusters/${CLUSTER_1}`,
      image_info: {},
      status: 'installing',
      platform: { type: 'baremetal' },
      pull_secret_set: true,
    });
    expect(body).not.toHaveProperty('pull_secret');
    const hosts = body.hosts as Record<string, unknown>[];
    expect(hosts.map((h) => h.id)).toEqual([HOST_A1, HOST_B1]);
    expect(JSON.parse(hosts[0]!.inventory as string)).toEqual({
      hostname: 'node1',
      cpu: { count: 4, flags: ['vmx'] },
      disks: [],
    });
    expect(hosts[0]!.href).toBe(`/api/assisted-install/v2/infra-envs/${IE_A}/hosts/${HOST_A1}`);
    expect((body.monitored_operators as unknown[])[0]).toEqual({
      cluster_id: CLUSTER_1,
      name: 'console',
      operator_type: 'builtin',
      status: 'available',
    });
  });

  it('drops hosts for exclude-hosts=true and validates the flag', async () => {
    const reply = await call(t, 'GET', `${CLUSTER}?exclude-hosts=true`);
    expect(reply.json).not.toHaveProperty('hosts');
    const bad = await call(t, 'GET', `${CLUSTER}?exclude-hosts=maybe`);
    expect(expectErrorShape(bad, 400).reason).toBe('exclude-hosts in query must be of type boolean: "maybe"');
  });

  it('404 in the error shape when the backend has no such cluster', async () => {
    await t.close();
    t = await startTestServer({ overrides: { getCluster: async () => fail(404, 'cluster not found') } });
    expectErrorShape(await call(t, 'GET', CLUSTER), 404);
  });
});

describe('GET /v2/clusters/{id}/hosts', () => {
  it('filters by role and leaves out inventory unless asked for', async () => {
    const masters = await call(t, 'GET', `${CLUSTER}/hosts?role=master`);
    expect(masters.status).toBe(200);
    const list = masters.json as Record<string, unknown>[];
    expect(list.map((h) => h.id)).toEqual([HOST_A1]);
    expect(list[0]).not.toHaveProperty('inventory');
    expect(list[0]).not.toHaveProperty('connectivity');
    expect(list[0]!.progress).toEqual({ current_stage: 'Installing' });
    const full = (await call(t, 'GET', `${CLUSTER}/hosts?with-inventory=true&with-connectivity=1`))
      .json as Record<string, unknown>[];
    expect(full).toHaveLength(2);
    expect(typeof full[0]!.inventory).toBe('string');
    expect(full[0]!.connectivity).toBe('{"remote_hosts":[]}');
  });

  it('refuses an unknown role', async () => {
    const reply = await call(t, 'GET', `${CLUSTER}/hosts?role=bootstrap`);
    expect(expectErrorShape(reply, 400).reason).toBe(
      'role in query should be one of [master arbiter worker auto-assign]',
    );
  });
});

describe('cluster downloads', () => {
  it('files: octet-stream from a stream with its declared length', async () => {
    const reply = await call(t, 'GET', `${CLUSTER}/downloads/files?file_name=bootstrap.ign`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/octet-stream');
    expect(reply.headers['content-length']).toBe('2');
    expect(reply.headers['content-disposition']).toBe('attachment; filename="bootstrap.ign"');
    expect(reply.text).toBe('{}');
    expect(callsTo(t, 'downloadClusterFile')[0]?.args[1]).toEqual({
      clusterId: CLUSTER_1,
      fileName: 'bootstrap.ign',
    });
  });

  it('files: file_name is required and must be one of the swagger names', async () => {
    const missing = await call(t, 'GET', `${CLUSTER}/downloads/files`);
    expect(expectErrorShape(missing, 400).reason).toBe('file_name in query is required');
    const odd = await call(t, 'GET', `${CLUSTER}/downloads/files?file_name=passwd`);
    expect(expectErrorShape(odd, 400).reason).toMatch(
      /^file_name in query should be one of \[bootstrap.ign /,
    );
    expect(callsTo(t, 'downloadClusterFile')).toEqual([]);
  });

  it('credentials: kubeconfig-noingress for the controller; 409 before it exists', async () => {
    const reply = await call(t, 'GET', `${CLUSTER}/downloads/credentials?file_name=kubeconfig-noingress`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/octet-stream');
    expect(reply.text).toBe('apiVersion: v1\n');
    await t.close();
    t = await startTestServer({
      overrides: { downloadClusterCredentials: async () => fail(409, 'kubeconfig is not available yet') },
    });
    const early = await call(t, 'GET', `${CLUSTER}/downloads/credentials?file_name=kubeconfig`);
    expect(expectErrorShape(early, 409).reason).toBe('kubeconfig is not available yet');
  });

  it('a stream that fails midway aborts the response instead of sending a short file', async () => {
    await t.close();
    t = await startTestServer({
      overrides: {
        downloadClusterFile: async () =>
          ok({
            fileName: 'worker.ign',
            size: 100,
            content: new Readable({
              read() {
                this.push(Buffer.from('partial'));
                this.destroy(new Error('disk gone'));
              },
            }),
          }),
      },
    });
    await expect(call(t, 'GET', `${CLUSTER}/downloads/files?file_name=worker.ign`)).rejects.toThrow();
  });
});

describe('controller reports', () => {
  it('logs-progress → 204, finalizing progress → 200', async () => {
    expect(
      (await call(t, 'PUT', `${CLUSTER}/logs-progress`, { body: { logs_state: 'completed' } })).status,
    ).toBe(204);
    const fin = await call(t, 'PUT', `${CLUSTER}/progress`, {
      body: { finalizing_stage: 'Waiting for olm operators csv' },
    });
    expect(fin.status).toBe(200);
    expect(callsTo(t, 'updateClusterFinalizingProgress')[0]?.args[1]).toEqual({
      clusterId: CLUSTER_1,
      finalizingStage: 'Waiting for olm operators csv',
    });
    const bad = await call(t, 'PUT', `${CLUSTER}/progress`, { body: { finalizing_stage: 'Later' } });
    expect(expectErrorShape(bad, 400).reason).toMatch(
      /^invalid cluster-finalizing-progress: finalizing_stage: /,
    );
  });

  it('monitored operators: list (optionally by name; unknown name → empty list) and report', async () => {
    const all = await call(t, 'GET', `${CLUSTER}/monitored-operators`);
    expect((all.json as { name: string }[]).map((o) => o.name)).toEqual(['console', 'lvms']);
    const one = await call(t, 'GET', `${CLUSTER}/monitored-operators?operator_name=lvms`);
    expect(one.json).toEqual([
      { cluster_id: CLUSTER_1, name: 'lvms', operator_type: 'olm', status: 'progressing' },
    ]);
    expect((await call(t, 'GET', `${CLUSTER}/monitored-operators?operator_name=nope`)).json).toEqual([]);

    const report = await call(t, 'PUT', `${CLUSTER}/monitored-operators`, {
      body: { name: 'lvms', status: 'available', version: '4.16.0', status_info: null, extra: 1 },
    });
    expect(report.status).toBe(200);
    expect(callsTo(t, 'reportMonitoredOperatorStatus')[0]?.args[1]).toEqual({
      clusterId: CLUSTER_1,
      report: { name: 'lvms', status: 'available', version: '4.16.0' },
    });
    const bad = await call(t, 'PUT', `${CLUSTER}/monitored-operators`, {
      body: { name: 'lvms', status: 'done' },
    });
    expect(expectErrorShape(bad, 400).reason).toMatch(/^invalid operator-monitor-report: status: /);
  });

  it('ingress cert: body is a JSON string → 201; an object is refused', async () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
    const reply = await call(t, 'POST', `${CLUSTER}/uploads/ingress-cert`, { body: pem });
    expect(reply.status).toBe(201);
    expect(callsTo(t, 'uploadIngressCert')[0]?.args[1]).toEqual({ clusterId: CLUSTER_1, pem });
    const bad = await call(t, 'POST', `${CLUSTER}/uploads/ingress-cert`, { body: { pem } });
    expect(expectErrorShape(bad, 400).reason).toBe(
      'invalid ingress-cert-params: body: Invalid input: expected string, received object',
    );
  });

  it('complete-installation → 202 with the cluster; is_success is required', async () => {
    const reply = await call(t, 'POST', `${CLUSTER}/actions/complete-installation`, {
      body: { is_success: false, error_info: 'operators failed', data: { console: 'failed' } },
    });
    expect(reply.status).toBe(202);
    expect(reply.json).toMatchObject({ id: CLUSTER_1, status: 'finalizing', kind: 'Cluster' });
    expect(callsTo(t, 'completeInstallation')[0]?.args[1]).toEqual({
      clusterId: CLUSTER_1,
      isSuccess: false,
      errorInfo: 'operators failed',
      data: { console: 'failed' },
    });
    const missing = await call(t, 'POST', `${CLUSTER}/actions/complete-installation`, {
      body: { data: null },
    });
    expect(expectErrorShape(missing, 400).reason).toBe('invalid completion-params: is_success: is required');
  });

  it('sampleCluster stays the record the backend returned (wire conversion does not mutate it)', async () => {
    const cluster = sampleCluster();
    await t.close();
    t = await startTestServer({ overrides: { getCluster: async () => ok(cluster) } });
    await call(t, 'GET', CLUSTER);
    expect(cluster.pull_secret).toBeDefined();
    expect(typeof cluster.hosts[0]!.inventory).toBe('object');
  });
});
