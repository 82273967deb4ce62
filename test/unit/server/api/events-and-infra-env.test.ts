// Events (posted by the controller, listed through eventsURL) and the infra-env reads behind the
// signed status URLs (agent-api.md §2.3, §2.4; kubeapi.md §3.11).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ok } from '../../../../src/server/api/index.ts';
import {
  API,
  CLUSTER_1,
  CLUSTER_2,
  call,
  callsTo,
  expectErrorShape,
  expectInfraErrorShape,
  HOST_A1,
  HOST_C1,
  IE_A,
  IE_B,
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

const event = {
  severity: 'info',
  message: 'Cluster operators are available',
  event_time: '2026-01-01T00:00:00Z',
};

describe('POST /v2/events', () => {
  it('201 for an event about a cluster the token opens', async () => {
    const reply = await call(t, 'POST', `${API}/events`, {
      body: { ...event, cluster_id: CLUSTER_1, category: null, props: null },
    });
    expect(reply.status).toBe(201);
    expect(callsTo(t, 'triggerEvent')[0]?.args[1]).toEqual({ event: { ...event, cluster_id: CLUSTER_1 } });
  });

  it('400 naming each missing or malformed field', async () => {
    const reply = await call(t, 'POST', `${API}/events`, {
      body: { severity: 'loud', event_time: 'yesterday' },
    });
    expect(expectErrorShape(reply, 400).reason).toBe(
      'invalid event: severity: Invalid option: expected one of "info"|"warning"|"error"|"critical"; ' +
        'message: is required; event_time: Invalid ISO datetime',
    );
  });

  it('403 for an event about a record outside the token’s scope', async () => {
    const foreignCluster = await call(t, 'POST', `${API}/events`, {
      body: { ...event, cluster_id: CLUSTER_2 },
    });
    expectInfraErrorShape(foreignCluster, 403);
    const foreignHost = await call(t, 'POST', `${API}/events`, { body: { ...event, host_id: HOST_C1 } });
    expectInfraErrorShape(foreignHost, 403);
    expect(callsTo(t, 'triggerEvent')).toEqual([]);
    expect(t.authFailures.map((e) => e.status)).toEqual([403, 403]);
  });
});

describe('GET /v2/events (eventsURL)', () => {
  it('lists with an events api_key of the named infra-env, with count headers', async () => {
    const { url } = t.auth.issueDownloadUrl(`${t.base}${API}/events?infra_env_id=${IE_A}`, 'events', {
      kind: 'infra-env',
      id: IE_A,
    });
    const reply = await call(t, 'GET', `${url.slice(t.base.length)}&severities=info,error&limit=5`, {
      token: null,
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual([
      { severity: 'info', message: 'hello', event_time: '2026-01-01T00:00:00.000Z', cluster_id: CLUSTER_1 },
    ]);
    expect(reply.headers['event-count']).toBe('1');
    expect(reply.headers['severity-count-info']).toBe('1');
    expect(reply.headers['severity-count-error']).toBe('0');
    expect(callsTo(t, 'listEvents')[0]?.args[1]).toEqual({
      infraEnvId: IE_A,
      severities: ['info', 'error'],
      limit: 5,
    });
  });

  it('an infra-env token lists its host’s events (Agent eventsURL uses host_id)', async () => {
    const { token } = t.auth.issueUrlToken('events', { kind: 'infra-env', id: IE_A });
    const reply = await call(t, 'GET', `${API}/events?host_id=${HOST_A1}&api_key=${token}`, { token: null });
    expect(reply.status).toBe(200);
    const foreign = await call(t, 'GET', `${API}/events?host_id=${HOST_C1}&api_key=${token}`, {
      token: null,
    });
    expect(expectInfraErrorShape(foreign, 404).message).toBe('Object Not Found');
  });

  it('refuses a filter naming nothing, another record, or a bad severity', async () => {
    const { token } = t.auth.issueUrlToken('events', { kind: 'cluster', id: CLUSTER_1 });
    expectInfraErrorShape(await call(t, 'GET', `${API}/events?api_key=${token}`, { token: null }), 404);
    expectInfraErrorShape(
      await call(t, 'GET', `${API}/events?infra_env_id=${IE_B}&api_key=${token}`, { token: null }),
      404,
    );
    const bad = await call(
      t,
      'GET',
      `${API}/events?cluster_id=${CLUSTER_1}&severities=loud&api_key=${token}`,
      {
        token: null,
      },
    );
    expect(expectErrorShape(bad, 400).reason).toBe(
      'severities.0 in query should be one of [info warning error critical]',
    );
    expect(callsTo(t, 'listEvents')).toEqual([]);
  });
});

describe('infra-env reads (§2.4)', () => {
  const FILES = `${API}/infra-envs/${IE_A}/downloads/files`;

  it('files: octet-stream with Content-Disposition and Last-Modified, via a signed URL', async () => {
    const { url } = t.auth.issueDownloadUrl(`${t.base}${FILES}?file_name=ipxe-script`, 'infra-env-files', {
      kind: 'infra-env',
      id: IE_A,
    });
    const reply = await call(t, 'GET', url.slice(t.base.length), { token: null });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/octet-stream');
    expect(reply.headers['content-disposition']).toBe('attachment; filename="ipxe-script"');
    expect(reply.headers['last-modified']).toBe('Fri, 02 Jan 2026 03:04:05 GMT');
    expect(reply.text).toBe('#!ipxe ipxe-script');
  });

  it('files: mac is normalised; ipxe_script_type only goes with ipxe-script', async () => {
    const ok1 = await call(
      t,
      'GET',
      `${FILES}?file_name=ipxe-script&ipxe_script_type=boot-order-control&mac=52-54-00-AA-BB-CC`,
    );
    expect(ok1.status).toBe(200);
    expect(callsTo(t, 'downloadInfraEnvFile')[0]?.args[1]).toEqual({
      infraEnvId: IE_A,
      fileName: 'ipxe-script',
      ipxeScriptType: 'boot-order-control',
      mac: '52:54:00:aa:bb:cc',
    });
    const bad = await call(
      t,
      'GET',
      `${FILES}?file_name=discovery.ign&ipxe_script_type=boot-order-control&mac=zz`,
    );
    expect(expectErrorShape(bad, 400).reason).toBe(
      'mac in query must be of type mac: "zz"; ipxe_script_type is only valid with file_name ipxe-script',
    );
  });

  it('files: a token of another infra-env → 404 Object Not Found', async () => {
    const { token } = t.auth.issueUrlToken('infra-env-files', { kind: 'infra-env', id: IE_B });
    const reply = await call(t, 'GET', `${FILES}?file_name=discovery.ign&api_key=${token}`, { token: null });
    expect(expectInfraErrorShape(reply, 404).message).toBe('Object Not Found');
    expect(callsTo(t, 'downloadInfraEnvFile')).toEqual([]);
  });

  it('GET infra-env: kernel_arguments as a JSON string, no pull secret', async () => {
    const { token } = t.auth.issueUrlToken('iso', { kind: 'infra-env', id: IE_A });
    const reply = await call(t, 'GET', `${API}/infra-envs/${IE_A}?api_key=${token}`, { token: null });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      id: IE_A,
      kind: 'InfraEnv',
      href: `/api/assisted-install/v2/infra-envs/${IE_A}`,
      name: 'ie',
      type: 'full-iso',
      pull_secret_set: true,
      kernel_arguments: '[{"operation":"append","value":"rd.debug"}]',
      updated_at: '2026-01-01T00:00:00Z',
    });
  });

  it('minimal-initrd: 204 when there is nothing to add, 200 bytes otherwise', async () => {
    const { token } = t.auth.issueUrlToken('iso', { kind: 'infra-env', id: IE_A });
    const path = `${API}/infra-envs/${IE_A}/downloads/minimal-initrd?api_key=${token}`;
    const none = await call(t, 'GET', path, { token: null });
    expect(none.status).toBe(204);
    expect(none.text).toBe('');
    await t.close();
    t = await startTestServer({
      overrides: {
        downloadMinimalInitrd: async () => ok({ content: Buffer.from([0x1f, 0x8b]), fileName: 'initrd.img' }),
      },
    });
    const { token: token2 } = t.auth.issueUrlToken('pxe-initrd', { kind: 'infra-env', id: IE_A });
    const some = await call(
      t,
      'GET',
      `${API}/infra-envs/${IE_A}/downloads/minimal-initrd?api_key=${token2}`,
      {
        token: null,
      },
    );
    expect(some.status).toBe(200);
    expect(some.headers['content-type']).toBe('application/octet-stream');
    expect(some.headers['content-length']).toBe('2');
  });
});
