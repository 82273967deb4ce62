// One simulated host against the fake agent API: the exact requests of registration, polling and
// step replies; the retry and give-up rules; and the installer's progress per role.

import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { runHost } from '../../../src/sim/host.ts';
import { simulatedMachine } from '../../../src/sim/profiles.ts';
import type { SimEvent } from '../../../src/sim/stats.ts';
import {
  AGENT_IMAGE,
  errorBody,
  FakeAgentApi as Fake,
  type FakeAgentApi,
  type FakeApiOptions,
  step,
} from './fake-agent-api.ts';
import {
  addFakeHost,
  configFor,
  distinct,
  drive,
  INFRA_ENV,
  installArgs,
  stagesOf,
  TOKEN,
} from './helpers.ts';

/** §6.1 stage lists; what a host reports must be an ordered subset of its role's list. */
const ROLE_STAGES: Record<string, string[]> = {
  bootstrap: [
    'Starting installation',
    'Installing',
    'Writing image to disk',
    'Copying registry data to disk',
  ].concat([
    'Waiting for control plane',
    'Waiting for bootkube',
    'Waiting for controller',
    'Rebooting',
    'Configuring',
    'Joined',
    'Done',
  ]),
  master: [
    'Starting installation',
    'Installing',
    'Writing image to disk',
    'Copying registry data to disk',
    'Rebooting',
  ].concat(['Configuring', 'Joined', 'Done']),
  worker: [
    'Starting installation',
    'Installing',
    'Writing image to disk',
    'Waiting for control plane',
    'Rebooting',
  ].concat(['Waiting for ignition', 'Configuring', 'Joined', 'Done']),
  sno: [
    'Starting installation',
    'Installing',
    'Waiting for bootkube',
    'Writing image to disk',
    'Copying registry data to disk',
  ].concat(['Rebooting', 'Joined', 'Done']),
};

function expectOrderedSubset(stages: string[], list: string[]): void {
  let last = -1;
  for (const s of distinct(stages)) {
    const i = list.indexOf(s);
    expect(i, `${s} in ${list.join(' → ')}`).toBeGreaterThan(last);
    last = i;
  }
}

const apis: FakeAgentApi[] = [];
async function fake(opts: FakeApiOptions = {}): Promise<FakeAgentApi> {
  const api = await new Fake({ lifetimeMs: 30_000, ...opts }).start();
  apis.push(api);
  return api;
}
afterEach(async () => {
  await Promise.all(apis.splice(0).map((a) => a.close()));
});

const has = (type: SimEvent['type']) => (events: SimEvent[]) => events.some((e) => e.type === type);
const machine = simulatedMachine('master', 0);
const hostPath = `/v2/infra-envs/${INFRA_ENV}/hosts/${machine.hostId}`;

describe('registration and polling', () => {
  it('registers, polls and answers inventory with the exact wire format', async () => {
    const api = await fake({
      steps: (h, n) => ({
        next_instruction_seconds: 60,
        instructions: n <= 3 ? [step('inventory', [h.id])] : [],
      }),
    });
    const { host } = await drive(
      {
        config: configFor(api, { agentVersion: 'quay.io/edge-infrastructure/assisted-installer-agent:v1' }),
        machine,
      },
      (_e, h) => h.stats.polls >= 3,
    );

    const [register] = api.find('POST', /^\/v2\/infra-envs\/[^/]+\/hosts$/);
    expect(register!.path).toBe(`/v2/infra-envs/${INFRA_ENV}/hosts`);
    expect(register!.headers['x-secret-key']).toBe(TOKEN);
    expect(register!.headers.discovery_agent_version).toBe(
      'quay.io/edge-infrastructure/assisted-installer-agent:v1',
    );
    expect(register!.headers['content-type']).toBe('application/json');
    expect(register!.headers.accept).toBe('application/json');
    expect(register!.body.toString()).toBe(
      `${JSON.stringify({ host_id: machine.hostId, discovery_agent_version: 'quay.io/edge-infrastructure/assisted-installer-agent:v1' })}\n`,
    );

    const polls = api.find('GET', /\/instructions$/);
    expect(polls.length).toBeGreaterThanOrEqual(3);
    expect(polls[0]!.path).toBe(`${hostPath}/instructions`);
    expect(Math.abs(Number(polls[0]!.query.get('timestamp')) - Date.now() / 1000)).toBeLessThan(30);
    // The runner reports the image the service told it to run (next_step_runner_command).
    expect(polls[0]!.headers.discovery_agent_version).toBe(AGENT_IMAGE);
    expect(polls[0]!.headers['x-secret-key']).toBe(TOKEN);

    const replies = api.find('POST', /\/instructions$/);
    expect(replies).toHaveLength(1); // identical outputs are not re-posted
    expect(replies[0]!.path).toBe(`${hostPath}/instructions`);
    const reply = replies[0]!.json as Record<string, unknown>;
    expect(Object.keys(reply).sort()).toEqual(['output', 'step_id', 'step_type']); // exit_code 0 omitted
    expect(reply.step_type).toBe('inventory');
    expect(reply.step_id).toMatch(/^inventory-[0-9a-f]{8}$/);
    expect(JSON.parse(reply.output as string)).toEqual(machine.inventory);
    expect(host.stats.repliesDeduplicated).toBe(2);
  });

  it('re-registers when told post_step_action exit, and after a successful upgrade-agent', async () => {
    const api = await fake({
      steps: (h, n) =>
        h.registrations === 1 && n === 1
          ? { next_instruction_seconds: 0, post_step_action: 'exit', instructions: [] }
          : h.registrations === 2
            ? {
                next_instruction_seconds: 60,
                instructions: [step('upgrade-agent', [{ agent_image: 'quay.io/x/agent:v2' }])],
              }
            : { next_instruction_seconds: 60, instructions: [] },
    });
    const { host } = await drive({ config: configFor(api), machine }, (_e, h) => h.registrations >= 3);
    expect(host.registrations).toBe(3);
    const upgrade = api
      .find('POST', /\/instructions$/)
      .map((r) => r.json as { step_type: string; output: string });
    expect(upgrade[0]).toMatchObject({ step_type: 'upgrade-agent' });
    expect(JSON.parse(upgrade[0]!.output)).toEqual({ agent_image: 'quay.io/x/agent:v2', result: 'success' });
  });

  it('retries 503 in the transport and 500 on register after --interval', async () => {
    const register = (r: { method: string; path: string }) => r.method === 'POST' && /\/hosts$/.test(r.path);
    const api = await fake({
      faults: [
        { match: register, response: { status: 503, body: errorBody(503, 'busy') }, times: 2 },
        { match: register, response: { status: 500, body: errorBody(500, 'db down') }, times: 1 },
        {
          match: (r) => r.method === 'GET' && r.path.endsWith('/instructions'),
          response: { status: 500, body: errorBody(500, 'x') },
          times: 2,
        },
        {
          match: (r) => r.method === 'POST' && r.path.endsWith('/instructions'),
          response: { status: 503 },
          times: 1,
        },
      ],
    });
    const { host } = await drive({ config: configFor(api), machine }, (_e, h) => h.stats.stepsAnswered >= 1);
    expect(api.find('POST', /\/hosts$/)).toHaveLength(4);
    expect(host.stats.errorsByStatus).toEqual({ '500': 3, '503': 3 });
    expect(host.registrations).toBe(1);
  });

  for (const status of [401, 403, 404, 409]) {
    it(`gives up for good on a ${status} from register`, async () => {
      const api = await fake({
        faults: [
          {
            match: (r) => r.path.endsWith('/hosts'),
            response: { status, body: errorBody(status, 'no') },
            times: 100,
          },
        ],
      });
      const { host } = await drive({ config: configFor(api), machine }, has('gave-up'));
      await new Promise((r) => setTimeout(r, 100));
      expect(host.phase).toBe('gave-up');
      expect(api.requestCount).toBe(1);
    });
  }

  it('keeps retrying a 404 whose body does not decode as the declared error shape (§0.5)', async () => {
    const api = await fake({
      faults: [
        {
          match: (r) => r.path.endsWith('/hosts'),
          response: { status: 404, body: { code: 404, message: 'x' } },
          times: 2,
        },
      ],
    });
    const { host } = await drive({ config: configFor(api), machine }, has('registered'));
    expect(host.phase).toBe('running');
    expect(api.find('POST', /\/hosts$/)).toHaveLength(3);
  });

  it('freezes on a 404 from get-next-steps', async () => {
    const api = await fake({
      faults: [
        {
          match: (r) => r.path.endsWith('/instructions'),
          response: { status: 404, body: errorBody(404, 'infra-env gone') },
          times: 100,
        },
      ],
    });
    const { host } = await drive({ config: configFor(api), machine }, has('gave-up'));
    expect(host.gaveUpReason).toMatch(/404/);
    expect(api.find('GET', /\/instructions$/)).toHaveLength(1);
  });

  it('does not start a runner from an invalid next_step_runner_command', async () => {
    const api = await fake({
      faults: [
        {
          match: (r) => r.path.endsWith('/hosts'),
          response: {
            status: 201,
            body: { id: 'x', next_step_runner_command: { args: ['{}'], retry_seconds: 5 } },
          },
        },
      ],
    });
    const { events } = await drive(
      { config: configFor(api), machine },
      (e) => e.filter((x) => x.type === 'registered').length >= 2,
    );
    expect(events.find((e) => e.type === 'runner-exit')).toMatchObject({
      reason: expect.stringMatching(/host_id/),
    });
  });

  it('answers 256 (media disconnected) when the live ISO is gone', async () => {
    const api = await fake();
    const { host } = await drive({ config: configFor(api), machine }, (_e, h) => {
      h.disconnectMedia();
      return h.stats.stepsAnswered >= 1;
    });
    expect(api.find('POST', /\/instructions$/)[0]!.json).toMatchObject({ exit_code: 256 });
    expect(host.stats.stepsAnswered).toBe(1);
  });
});

/** Steps: inventory, then install with `role`, then nothing. */
function installScript(args: object): FakeApiOptions['steps'] {
  return (h, n) => ({
    next_instruction_seconds: 60,
    instructions: n === 1 ? [step('inventory', [h.id])] : n === 2 ? [step('install', [args])] : [],
  });
}

describe('installation', () => {
  it('master: stages, host ignition, logs, install reply, reboot', async () => {
    const api = await fake({
      steps: installScript(installArgs(machine, 'c0ffee00-0000-4000-8000-000000000001', 'master')),
    });
    const { host, events } = await drive({ config: configFor(api), machine }, has('rebooted'));
    const stages = stagesOf(events);
    expect(distinct(stages)).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Rebooting',
    ]);
    expectOrderedSubset(stages, ROLE_STAGES.master!);
    const progress = api.find('PUT', /\/progress$/).map((r) => r.json);
    expect(progress.slice(0, 3)).toEqual([
      { current_stage: 'Starting installation', progress_info: 'master' },
      { current_stage: 'Installing', progress_info: 'master' },
      { current_stage: 'Writing image to disk', progress_info: '' },
    ]);
    expect(progress.filter((p) => (p as { progress_info: string }).progress_info.endsWith('%'))).toHaveLength(
      5,
    );
    expect(api.find('PUT', /\/progress$/)[0]!.path).toBe(`${hostPath}/progress`);

    const ign = api.find('GET', /downloads\/ignition$/);
    expect(ign.map((r) => r.path)).toEqual([
      `/v2/infra-env/${INFRA_ENV}/hosts/${machine.hostId}/downloads/ignition`,
    ]);
    expect(ign[0]!.headers['x-secret-key']).toBe(TOKEN);

    expect(
      api.find('PUT', /logs-progress$/).map((r) => (r.json as { logs_state: string }).logs_state),
    ).toEqual(['requested', 'collecting', 'completed']);
    const [upload] = api.find('POST', /\/logs$/);
    expect(upload!.path).toBe('/v2/clusters/c0ffee00-0000-4000-8000-000000000001/logs');
    expect(Object.fromEntries(upload!.query)).toEqual({
      logs_type: 'host',
      infra_env_id: INFRA_ENV,
      host_id: machine.hostId,
    });
    expect(upload!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const raw = upload!.body;
    const start = raw.indexOf('\r\n\r\n') + 4;
    const end = raw.lastIndexOf(Buffer.from('\r\n--'));
    expect(raw.toString('latin1', 0, start)).toContain('name="upfile"');
    const tarball = gunzipSync(raw.subarray(start, end));
    expect(tarball.toString('latin1', 257, 262)).toBe('ustar');

    const installReply = api
      .find('POST', /\/instructions$/)
      .map((r) => r.json as Record<string, unknown>)
      .find((r) => r.step_type === 'install');
    expect(installReply).toEqual({ step_type: 'install', step_id: expect.stringMatching(/^install-/) });
    expect(host.phase).toBe('rebooted');
    const pollsAtReboot = api.find('GET', /\/instructions$/).length;
    await new Promise((r) => setTimeout(r, 200));
    expect(api.find('GET', /\/instructions$/).length).toBe(pollsAtReboot);
  });

  it('worker: waits for two masters Done before rebooting', async () => {
    const api = await fake({
      steps: installScript(installArgs(machine, 'c0ffee00-0000-4000-8000-000000000002', 'worker')),
    });
    const m1 = addFakeHost(api, 'a0000000-0000-4000-8000-000000000001', 'master', 'Joined');
    addFakeHost(api, 'a0000000-0000-4000-8000-000000000002', 'master', 'Done');
    const { events } = await drive({ config: configFor(api), machine }, (e) => {
      // Once the worker waits, the other master finishes.
      if (e.some((x) => x.type === 'stage' && x.stage === 'Waiting for control plane')) m1.stage = 'Done';
      return e.some((x) => x.type === 'rebooted');
    });
    const stages = stagesOf(events);
    expect(distinct(stages)).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Waiting for control plane',
      'Rebooting',
    ]);
    expectOrderedSubset(stages, ROLE_STAGES.worker!);
    expect(api.find('GET', /^\/v2\/clusters\/[^/]+$/)[0]!.query.get('exclude-hosts')).toBe('true');
    expect(api.find('GET', /\/clusters\/[^/]+\/hosts$/).map((r) => r.query.get('role'))).toContain('master');
  });

  it('bootstrap: bootstrap.ign, its own waits, and moves the other masters to Configuring and Joined', async () => {
    const cid = 'c0ffee00-0000-4000-8000-000000000003';
    const api = await fake({ steps: installScript(installArgs(machine, cid, 'bootstrap')) });
    const m1 = addFakeHost(api, 'a0000000-0000-4000-8000-000000000011', 'master', 'Writing image to disk');
    const m2 = addFakeHost(api, 'a0000000-0000-4000-8000-000000000012', 'master', 'Writing image to disk');
    const { events } = await drive({ config: configFor(api), machine }, (e) => {
      if (e.some((x) => x.type === 'stage' && x.stage === 'Waiting for control plane')) {
        for (const m of [m1, m2]) if (m.stage === 'Writing image to disk') m.stage = 'Rebooting';
      }
      return e.some((x) => x.type === 'rebooted');
    });
    const own = stagesOf(events);
    expect(distinct(own)).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Waiting for control plane',
      'Waiting for bootkube',
      'Waiting for controller',
      'Rebooting',
    ]);
    expectOrderedSubset(own, ROLE_STAGES.bootstrap!);
    expect(stagesOf(events, m1.id)).toEqual(['Configuring', 'Joined']);
    expect(stagesOf(events, m2.id)).toEqual(['Configuring', 'Joined']);
    expect(api.find('GET', /downloads\/files$/)[0]!.query.get('file_name')).toBe('bootstrap.ign');
    const infos = api
      .find('PUT', new RegExp(`${machine.hostId}/progress$`))
      .map((r) => (r.json as { progress_info: string }).progress_info);
    expect(infos).toContain('Waiting for masters to join bootstrap control plane');
    expect(infos).toContain('waiting for ETCD bootstrap to be complete');
    expect(api.find('PUT', new RegExp(`/clusters/${cid}/logs-progress$`))[0]!.json).toEqual({
      logs_state: 'requested',
    });
    expect(api.find('POST', /\/logs$/).map((r) => r.query.get('logs_type'))).toEqual(['controller', 'host']);
  });

  it('single node: the SNO sequence, then the controller finishes the cluster', async () => {
    const sno = simulatedMachine('sno', 0);
    const cid = 'c0ffee00-0000-4000-8000-000000000004';
    const api = await fake({
      steps: installScript(installArgs(sno, cid, 'bootstrap', 1)),
      controlPlaneCount: 1,
    });
    const { host, events } = await drive({ config: configFor(api), machine: sno, controller: true }, (e) =>
      e.some((x) => x.type === 'cluster' && x.action === 'completed'),
    );
    const own = stagesOf(events);
    expect(distinct(own)).toEqual([
      'Starting installation',
      'Installing',
      'Waiting for bootkube',
      'Writing image to disk',
      'Rebooting',
    ]);
    const all = events.flatMap((e) => (e.type === 'stage' ? [e.stage] : []));
    expect(distinct(all)).toEqual([...distinct(own), 'Joined', 'Done']);
    expectOrderedSubset(all, ROLE_STAGES.sno!);

    expect(api.find('GET', /downloads\/credentials$/)[0]!.query.get('file_name')).toBe(
      'kubeconfig-noingress',
    );
    expect(api.finalizing).toEqual([
      'Waiting for cluster operators',
      'Adding router ca',
      'Applying olm manifests',
      'Waiting for olm operators csv initialization',
      'Waiting for olm operators csv',
      'Done',
    ]);
    expect(api.find('PUT', /monitored-operators$/).map((r) => r.json)).toEqual([
      { name: 'console', version: '4.16.0', status: 'available', status_info: 'All is well' },
      { name: 'lvms', version: '4.16', status: 'available', status_info: 'All is well' },
    ]);
    const cert = api.find('POST', /uploads\/ingress-cert$/)[0]!;
    expect(typeof cert.json).toBe('string');
    expect(cert.json as string).toMatch(/^-----BEGIN CERTIFICATE-----/);
    expect(api.find('POST', /^\/v2\/events$/)[0]!.json).toMatchObject({ cluster_id: cid, severity: 'info' });
    expect(api.completions).toEqual([{ is_success: true, data: {} }]);
    expect(host.stats.clustersCompleted).toBe(1);
  });

  it('the controller retries the router CA and operator reports until the service takes them', async () => {
    // The service refuses the CA while the cluster is not yet finalizing (a monitor that lags
    // behind); skipping it would leave the cluster in finalizing for good.
    const sno = simulatedMachine('sno', 0);
    const cid = 'c0ffee00-0000-4000-8000-000000000005';
    const notYet = (what: string) => ({
      status: 400,
      body: { code: '400', reason: `Cluster ${cid} is in installing state, ${what}` },
    });
    const api = await fake({
      steps: installScript(installArgs(sno, cid, 'bootstrap', 1)),
      controlPlaneCount: 1,
      faults: [
        {
          match: (r) => r.method === 'POST' && r.path.endsWith('/uploads/ingress-cert'),
          response: notYet('upload ingress ca can be done only in finalizing or installed state'),
          times: 2,
        },
        {
          match: (r) => r.method === 'PUT' && r.path.endsWith('/monitored-operators'),
          response: notYet('operators cannot be reported'),
          times: 1,
        },
      ],
    });
    const { events } = await drive({ config: configFor(api), machine: sno, controller: true }, (e) =>
      e.some((x) => x.type === 'cluster' && x.action === 'completed'),
    );
    expect(api.find('POST', /uploads\/ingress-cert$/)).toHaveLength(3);
    expect(api.find('PUT', /monitored-operators$/).map((r) => (r.json as { name: string }).name)).toEqual([
      'console',
      'console',
      'lvms',
    ]);
    expect(events.filter((e) => e.type === 'error' && e.status === 400)).toHaveLength(3);
    expect(api.completions).toEqual([{ is_success: true, data: {} }]);
  });

  it('fails at the chosen stage: Failed progress, install reply with exit code, host keeps polling', async () => {
    const api = await fake({
      steps: installScript(installArgs(machine, 'c0ffee00-0000-4000-8000-000000000005', 'master')),
    });
    const { host, events } = await drive(
      { config: configFor(api), machine, install: { failAtStage: 'Writing image to disk' } },
      (_e, h) => h.stats.failed === 1 && h.stats.polls >= 4,
    );
    expect(distinct(stagesOf(events))).toEqual(['Starting installation', 'Installing', 'Failed']);
    expect(api.find('PUT', /\/progress$/).at(-1)!.json).toEqual({
      current_stage: 'Failed',
      progress_info: 'simulated failure at stage "Writing image to disk"',
    });
    const reply = api
      .find('POST', /\/instructions$/)
      .map((r) => r.json as Record<string, unknown>)
      .find((r) => r.step_type === 'install');
    expect(reply).toMatchObject({
      exit_code: 1,
      error: 'simulated failure at stage "Writing image to disk"',
    });
    expect(host.phase).toBe('running');
  });

  it('the installer retries 503 on progress and 404 on the ignition download', async () => {
    const api = await fake({
      steps: installScript(installArgs(machine, 'c0ffee00-0000-4000-8000-000000000006', 'master')),
      faults: [
        {
          match: (r) => r.path.endsWith('/progress'),
          response: { status: 503, body: errorBody(503, 'x') },
          times: 2,
        },
        {
          match: (r) => r.path.endsWith('/downloads/ignition'),
          response: { status: 404, body: errorBody(404, 'x') },
          times: 3,
        },
      ],
    });
    const { host, events } = await drive(
      { config: configFor(api), machine, install: { uploadLogs: false } },
      has('rebooted'),
    );
    expect(api.find('GET', /downloads\/ignition$/)).toHaveLength(4);
    expect(distinct(stagesOf(events))).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Rebooting',
    ]);
    expect(host.stats.errorsByStatus).toEqual({ '404': 3, '503': 2 });
  });

  it('a download served as JSON fails the installation (§0.4)', async () => {
    const api = await fake({
      steps: installScript(installArgs(machine, 'c0ffee00-0000-4000-8000-000000000007', 'master')),
      faults: [
        {
          match: (r) => r.path.endsWith('/downloads/ignition'),
          response: { status: 200, body: { ignition: {} } },
        },
      ],
    });
    const { events } = await drive({ config: configFor(api), machine }, (_e, h) => h.stats.failed === 1);
    expect(distinct(stagesOf(events))).toEqual(['Starting installation', 'Installing', 'Failed']);
  });
});

describe('runHost', () => {
  it('runs one host until it has nothing left to do (installed SNO, cluster completed)', async () => {
    const sno = simulatedMachine('sno', 1);
    const api = await fake({
      steps: installScript(installArgs(sno, 'c0ffee00-0000-4000-8000-000000000009', 'bootstrap', 1)),
      controlPlaneCount: 1,
    });
    const host = await runHost({ config: configFor(api), machine: sno, controller: true, speed: 2000 });
    expect(host.phase).toBe('rebooted');
    expect(host.stats.clustersCompleted).toBe(1);
    expect(api.hosts.get(sno.hostId)!.stage).toBe('Done');
  });
});

describe('other side-effect steps', () => {
  it('logs-gather runs logs_sender; stop-installation stops a running installer', async () => {
    const cid = 'c0ffee00-0000-4000-8000-000000000008';
    const api = await fake({
      steps: (h, n) => ({
        next_instruction_seconds: 60,
        instructions:
          n === 1
            ? [step('install', [installArgs(machine, cid, 'master')])]
            : n === 2
              ? [
                  step('stop-installation'),
                  step('logs-gather', [
                    {
                      cluster_id: cid,
                      infra_env_id: INFRA_ENV,
                      host_id: h.id,
                      bootstrap: false,
                      installer_gather: true,
                    },
                  ]),
                ]
              : [],
      }),
    });
    const { host } = await drive(
      { config: configFor(api), machine, install: { stageMs: 3_600_000, uploadLogs: false } },
      (_e, h) => h.stats.stepsAnswered >= 3,
    );
    const replies = api.find('POST', /\/instructions$/).map((r) => r.json as Record<string, unknown>);
    expect(replies.map((r) => r.step_type).sort()).toEqual(['install', 'logs-gather', 'stop-installation']);
    expect(replies.find((r) => r.step_type === 'install')).toMatchObject({ exit_code: 143 });
    expect(api.find('POST', /\/logs$/)[0]!.query.get('logs_type')).toBe('host');
    expect(host.phase).toBe('running');
  });

  it('reboot-for-reclaim: the host reboots into discovery and registers again', async () => {
    const api = await fake({
      steps: (h, n) =>
        h.registrations === 1 && n === 1
          ? {
              next_instruction_seconds: 0,
              post_step_action: 'exit',
              instructions: [step('reboot-for-reclaim', [{ host_fs_mount_dir: '/host' }])],
            }
          : { next_instruction_seconds: 60, instructions: [] },
    });
    const { events } = await drive(
      { config: configFor(api), machine },
      (e) => e.filter((x) => x.type === 'registered').length >= 2,
    );
    expect(events.map((e) => e.type)).toContain('rebooted');
  });
});
