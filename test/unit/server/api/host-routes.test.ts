// Agent, next_step_runner and installer operations on one host (agent-api.md §2.1, §2.2).
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fail } from '../../../../src/server/api/index.ts';
import {
  AGENT_IMAGE,
  API,
  call,
  callsTo,
  expectErrorShape,
  HOST_A1,
  IE_A,
  startTestServer,
  type TestServer,
} from './helpers.ts';

let t: TestServer;
afterEach(async () => {
  await t.close();
});

const HOSTS = `${API}/infra-envs/${IE_A}/hosts`;
const HOST = `${HOSTS}/${HOST_A1}`;

describe('POST /v2/infra-envs/{id}/hosts (register)', () => {
  beforeEach(async () => {
    t = await startTestServer();
  });

  it('answers 201 with the host and next_step_runner_command', async () => {
    const reply = await call(t, 'POST', HOSTS, {
      body: { host_id: HOST_A1, discovery_agent_version: AGENT_IMAGE },
      headers: { discovery_agent_version: 'header-version' },
    });
    expect(reply.status).toBe(201);
    expect(reply.headers['content-type']).toBe('application/json');
    expect(reply.text.endsWith('\n')).toBe(true);
    const body = reply.json as Record<string, unknown>;
    expect(body).toMatchObject({
      id: HOST_A1,
      kind: 'Host',
      href: `/api/assisted-install/v2/infra-envs/${IE_A}/hosts/${HOST_A1}`,
      status: 'discovering',
    });
    // The wire carries inventory and validations as JSON strings.
    expect(JSON.parse(body.inventory as string)).toMatchObject({ hostname: 'node1' });
    expect(typeof body.validations_info).toBe('string');
    const command = body.next_step_runner_command as {
      command: string;
      args: string[];
      retry_seconds: number;
    };
    expect(command.command).toBe('');
    expect(command.retry_seconds).toBe(60);
    expect(command.args).toHaveLength(1);
    expect(JSON.parse(command.args[0]!)).toEqual({
      agent_version: AGENT_IMAGE,
      host_id: HOST_A1,
      infra_env_id: IE_A,
    });
    const [registered] = callsTo(t, 'registerHost');
    expect(registered?.args[1]).toEqual({
      infraEnvId: IE_A,
      hostId: HOST_A1,
      discoveryAgentVersion: AGENT_IMAGE,
    });
    expect(registered?.args[0]).toMatchObject({
      principal: { scheme: 'agent', subject: { kind: 'infra-env', id: IE_A } },
      agentVersionHeader: 'header-version',
    });
  });

  it('falls back to the discovery_agent_version header and ignores unknown fields and nulls', async () => {
    const reply = await call(t, 'POST', HOSTS, {
      body: { host_id: HOST_A1, discovery_agent_version: null, surprise: { nested: true } },
      headers: { discovery_agent_version: 'from-header' },
    });
    expect(reply.status).toBe(201);
    expect(callsTo(t, 'registerHost')[0]?.args[1]).toEqual({
      infraEnvId: IE_A,
      hostId: HOST_A1,
      discoveryAgentVersion: 'from-header',
    });
  });

  it('validates the body: 400 naming the field, backend untouched', async () => {
    const cases: [unknown, string][] = [
      [{}, 'invalid host-create-params: host_id: is required'],
      [{ host_id: null }, 'invalid host-create-params: host_id: is required'],
      [
        { host_id: 42 },
        'invalid host-create-params: host_id: Invalid input: expected string, received number',
      ],
      [{ host_id: 'not-a-uuid' }, 'invalid host-create-params: host_id: must be a uuid'],
      [[], 'invalid host-create-params: body: Invalid input: expected object, received array'],
    ];
    for (const [body, reason] of cases) {
      expect(expectErrorShape(await call(t, 'POST', HOSTS, { body }), 400).reason).toBe(reason);
    }
    const bad = await call(t, 'POST', HOSTS, {
      rawBody: '{"host_id":',
      headers: { 'content-type': 'application/json' },
    });
    expect(expectErrorShape(bad, 400).reason).toMatch(/^host-create-params body is not valid JSON: /);
    const empty = await call(t, 'POST', HOSTS, { rawBody: '' });
    expect(expectErrorShape(empty, 400).reason).toBe('host-create-params body is required');
    expect(callsTo(t, 'registerHost')).toEqual([]);
  });

  it('rejects a malformed infra-env id in the path with 400', async () => {
    const reply = await call(t, 'POST', `${API}/infra-envs/nope/hosts`, { body: { host_id: HOST_A1 } });
    expect(expectErrorShape(reply, 400).reason).toBe('infra_env_id in path must be of type uuid: "nope"');
  });

  it('passes backend refusals through in the error shape (409 with the rule text, 404)', async () => {
    await t.close();
    t = await startTestServer({
      overrides: {
        registerHost: async () =>
          fail(409, 'Cannot add hosts to an existing cluster using the original Discovery ISO.'),
      },
    });
    const conflict = await call(t, 'POST', HOSTS, { body: { host_id: HOST_A1 } });
    expect(expectErrorShape(conflict, 409).reason).toBe(
      'Cannot add hosts to an existing cluster using the original Discovery ISO.',
    );
  });

  it('answers 500 in the error shape when the backend throws', async () => {
    await t.close();
    t = await startTestServer({
      overrides: {
        registerHost: async () => {
          throw new Error('boom');
        },
      },
    });
    const reply = await call(t, 'POST', HOSTS, { body: { host_id: HOST_A1 } });
    expect(expectErrorShape(reply, 500).reason).toBe('internal error');
  });
});

describe('GET …/instructions (next steps)', () => {
  beforeEach(async () => {
    t = await startTestServer();
  });

  it('answers 200 steps and passes the host clock', async () => {
    const reply = await call(t, 'GET', `${HOST}/instructions?timestamp=1767225600`, {
      headers: { discovery_agent_version: AGENT_IMAGE },
    });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({
      next_instruction_seconds: 60,
      post_step_action: 'continue',
      instructions: [{ step_type: 'inventory', step_id: 'inventory-3f2a9c1d', args: [HOST_A1] }],
    });
    expect(callsTo(t, 'getNextSteps')[0]?.args[1]).toEqual({
      infraEnvId: IE_A,
      hostId: HOST_A1,
      timestamp: 1767225600,
    });
  });

  it('refuses a non-integer timestamp', async () => {
    const reply = await call(t, 'GET', `${HOST}/instructions?timestamp=soon`);
    expect(expectErrorShape(reply, 400).reason).toBe('timestamp in query must be of type int64: "soon"');
    expect(callsTo(t, 'getNextSteps')).toEqual([]);
  });

  it('answers a vanished host with the error-shaped 404 the runner recognises', async () => {
    await t.close();
    t = await startTestServer({
      overrides: { getNextSteps: async () => fail(404, `host ${HOST_A1} not found`) },
    });
    const reply = await call(t, 'GET', `${HOST}/instructions`);
    expect(expectErrorShape(reply, 404).reason).toBe(`host ${HOST_A1} not found`);
  });
});

describe('POST …/instructions (step reply)', () => {
  beforeEach(async () => {
    t = await startTestServer({ limits: { jsonBodyBytes: 64 * 1024 } });
  });

  const inventory = JSON.stringify({
    hostname: 'node1',
    disks: null,
    interfaces: null,
    cpu: { flags: null },
  });

  it('answers 204 and hands the decoded reply to the backend', async () => {
    const reply = await call(t, 'POST', `${HOST}/instructions`, {
      body: { step_type: 'inventory', step_id: 'inventory-1', output: inventory },
    });
    expect(reply.status).toBe(204);
    expect(reply.text).toBe('');
    const input = callsTo(t, 'postStepReply')[0]?.args[1] as { reply: unknown; decoded: { ok: boolean } };
    expect(input.reply).toEqual({ step_type: 'inventory', step_id: 'inventory-1', output: inventory });
    expect(input.decoded).toMatchObject({
      ok: true,
      value: { kind: 'inventory', inventory: { hostname: 'node1' } },
    });
  });

  it('400 when a successful step’s output does not decode', async () => {
    const reply = await call(t, 'POST', `${HOST}/instructions`, {
      body: { step_type: 'inventory', step_id: 'inventory-1', exit_code: 0, output: 'not json' },
    });
    expect(expectErrorShape(reply, 400).reason).toMatch(/^failed to parse inventory reply/);
    expect(callsTo(t, 'postStepReply')).toEqual([]);
  });

  it('204 for a failed step (non-zero exit code), recorded as a failure', async () => {
    const reply = await call(t, 'POST', `${HOST}/instructions`, {
      body: { step_type: 'inventory', step_id: 'inventory-1', exit_code: -1, error: 'boom', output: '' },
    });
    expect(reply.status).toBe(204);
    const input = callsTo(t, 'postStepReply')[0]?.args[1] as { decoded: { ok: boolean; error?: string } };
    expect(input.decoded).toMatchObject({ ok: false, error: 'inventory failed with exit code -1: boom' });
  });

  it('validates types and the step type enum', async () => {
    const wrongType = await call(t, 'POST', `${HOST}/instructions`, {
      body: { step_type: 'inventory', exit_code: '0' },
    });
    expect(expectErrorShape(wrongType, 400).reason).toBe(
      'invalid step-reply: exit_code: Invalid input: expected number, received string',
    );
    const unknown = await call(t, 'POST', `${HOST}/instructions`, { body: { step_type: 'dance' } });
    expect(expectErrorShape(unknown, 400).reason).toMatch(/^invalid step-reply: step_type: Invalid option/);
  });

  it('413 over the body limit, declared or not', async () => {
    const big = { step_type: 'inventory', output: 'x'.repeat(70 * 1024) };
    const reply = await call(t, 'POST', `${HOST}/instructions`, { body: big });
    expect(expectErrorShape(reply, 413).reason).toBe('request body is larger than the limit of 65536 bytes');
    const chunks = [
      Buffer.from(`{"step_type":"inventory","output":"`),
      ...Array(80).fill(Buffer.alloc(1024, 0x78)),
      Buffer.from('"}'),
    ];
    const streamed = await call(t, 'POST', `${HOST}/instructions`, {
      rawBody: Readable.from(chunks),
      headers: { 'content-type': 'application/json' },
    });
    expectErrorShape(streamed, 413);
    expect(callsTo(t, 'postStepReply')).toEqual([]);
  });
});

describe('PUT …/progress and …/logs-progress, GET host ignition', () => {
  beforeEach(async () => {
    t = await startTestServer();
  });

  it('progress: 200 with an empty body; progress_info over 2048 characters is cut, not refused', async () => {
    const reply = await call(t, 'PUT', `${HOST}/progress`, {
      body: { current_stage: 'Failed', progress_info: 'e'.repeat(3000) },
    });
    expect(reply.status).toBe(200);
    expect(reply.text).toBe('');
    const input = callsTo(t, 'updateHostInstallProgress')[0]?.args[1] as {
      progress: { progress_info: string };
    };
    expect(input.progress.progress_info).toHaveLength(2048);
  });

  it('progress: unknown stage → 400; state-machine refusal → 409', async () => {
    const bad = await call(t, 'PUT', `${HOST}/progress`, { body: { current_stage: 'Dancing' } });
    expect(expectErrorShape(bad, 400).reason).toMatch(
      /^invalid host-progress: current_stage: Invalid option/,
    );
    await t.close();
    t = await startTestServer({
      overrides: {
        updateHostInstallProgress: async () =>
          fail(409, 'Can\'t assign lower stage "Installing" after host has been in stage "Rebooting"'),
      },
    });
    const lower = await call(t, 'PUT', `${HOST}/progress`, { body: { current_stage: 'Installing' } });
    expect(expectErrorShape(lower, 409).reason).toContain("Can't assign lower stage");
  });

  it('logs-progress: 204; empty logs_state is allowed, missing is not', async () => {
    expect((await call(t, 'PUT', `${HOST}/logs-progress`, { body: { logs_state: '' } })).status).toBe(204);
    const missing = await call(t, 'PUT', `${HOST}/logs-progress`, { body: {} });
    expect(expectErrorShape(missing, 400).reason).toBe(
      'invalid logs-progress-params: logs_state: is required',
    );
    expect(callsTo(t, 'updateHostLogsProgress').map((c) => c.args[1])).toEqual([
      { infraEnvId: IE_A, hostId: HOST_A1, logsState: '' },
    ]);
  });

  it('host ignition: singular infra-env path, application/octet-stream with a filename', async () => {
    const reply = await call(t, 'GET', `${API}/infra-env/${IE_A}/hosts/${HOST_A1}/downloads/ignition`);
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/octet-stream');
    expect(reply.headers['content-disposition']).toBe(`attachment; filename="master-${HOST_A1}.ign"`);
    expect(reply.headers['content-length']).toBe(String(reply.text.length));
    expect(reply.text).toBe('{"ignition":{"version":"3.2.0"}}');
    // The plural form is not a route.
    const plural = await call(t, 'GET', `${API}/infra-envs/${IE_A}/hosts/${HOST_A1}/downloads/ignition`);
    expect(plural.status).toBe(404);
  });

  it('host ignition: 409 before installation, in the error shape', async () => {
    await t.close();
    t = await startTestServer({
      overrides: { downloadHostIgnition: async () => fail(409, 'cluster is not in installing state') },
    });
    const reply = await call(t, 'GET', `${API}/infra-env/${IE_A}/hosts/${HOST_A1}/downloads/ignition`);
    expect(expectErrorShape(reply, 409).reason).toBe('cluster is not in installing state');
  });
});
