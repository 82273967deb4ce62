// Every host-facing REST operation, answered by the real router and wire mapping from realistic
// records, validated against upstream's swagger (test/harness/swagger-contract.ts): the success
// body, every error status the backend or the request pipeline can produce, and the request
// bodies the Go clients send. A body that fails here is a body the real agent, installer or
// controller cannot decode.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyInventoryUpdate } from '../../../src/core/hardware/inventory-update.ts';
import type { Cluster, Host } from '../../../src/core/model.ts';
import { ALL_API_ROUTES, fail, type HostApiBackend, ok } from '../../../src/server/api/index.ts';
import { simulatedMachine } from '../../../src/sim/profiles.ts';
import { type Problem, swaggerContract } from '../../harness/swagger-contract.ts';
import {
  AGENT_IMAGE,
  API,
  CLUSTER_1,
  call,
  HOST_A1,
  HOST_B1,
  HOST_C1,
  IE_A,
  IE_B,
  IE_C,
  sampleCluster,
  sampleHost,
  startTestServer,
  type TestServer,
} from '../server/api/helpers.ts';

const contract = swaggerContract();

/** Operations served here that the definition does not declare, and why. */
const UNDECLARED: Record<string, string> = {};

/** Operations the definition opens to agent tokens that are not served, and why. */
const AGENT_AUTH_NOT_SERVED: Record<string, string> = {
  'GET /v2/infra-envs/{infra_env_id}/hosts':
    'v2ListHosts: no agent, installer or controller calls it (the UI and user tooling do, with user auth)',
};

/**
 * Operations whose definition declares no 400, refusing a body that does not validate. Upstream
 * refuses those bodies too, before its handler (go-openapi's binding, answered 422 in the
 * ServeError shape); the Go clients treat either undeclared code as a plain error. We answer 400
 * in the `error` model, which the test checks.
 */
const UNDECLARED_400: Record<string, string> = {
  'PUT /v2/infra-envs/{infra_env_id}/hosts/{host_id}/progress':
    'host-progress refused (also 400 for an unbound host, as upstream)',
  'PUT /v2/infra-envs/{infra_env_id}/hosts/{host_id}/logs-progress': 'logs-progress-params refused',
  'PUT /v2/clusters/{cluster_id}/logs-progress': 'logs-progress-params refused',
  'PUT /v2/clusters/{cluster_id}/progress': 'cluster-finalizing-progress refused',
  'POST /v2/clusters/{cluster_id}/actions/complete-installation': 'completion-params refused',
};

/**
 * Operations the definition declares with a body model, but which upstream (go-openapi's
 * ServeError) answers in another shape before any handler runs: the refusals of the
 * authentication/authorisation middleware for codes other than 401/403, unknown paths and wrong
 * methods. We answer those exactly as upstream does (agent-api.md §0.5).
 */
const MIDDLEWARE_SHAPE = 'go-openapi ServeError {"code":<int>,"message"} as upstream sends it';

/** A host as the records layer produces it after an inventory: every JSON-string field set. */
function realisticHost(overrides: Partial<Host> = {}): Host {
  const machine = simulatedMachine('master', 0, { seed: 'contract' });
  const base = sampleHost({
    status: 'known',
    role: 'master',
    suggested_role: 'master',
    bootstrap: true,
    registered_at: '2026-01-01T00:00:00.000Z',
    checked_in_at: '2026-01-01T00:01:00.000Z',
    status_updated_at: '2026-01-01T00:01:00.000Z',
    discovery_agent_version: AGENT_IMAGE,
    timestamp: 1_767_225_600,
    ntp_sources: [{ source_name: 'clock.example.com', source_state: 'synced' }],
    progress_stages: ['Starting installation', 'Installing', 'Writing image to disk', 'Rebooting', 'Done'],
    progress: {
      current_stage: 'Installing',
      installation_percentage: 20,
      stage_started_at: '2026-01-01T00:02:00.000Z',
      stage_updated_at: '2026-01-01T00:02:00.000Z',
    },
    node_labels: { 'node-role.kubernetes.io/infra': '' },
    media_status: 'connected',
    logs_info: 'completed',
    ...overrides,
  });
  const updated = applyInventoryUpdate({ host: base, inventory: machine.inventory });
  return {
    ...base,
    inventory: updated.inventory,
    installation_disk_id: updated.installation_disk_id,
    installation_disk_path: updated.installation_disk_path,
    disks_to_be_formatted: updated.disks_to_be_formatted,
    ...overrides,
  };
}

function realisticCluster(overrides: Partial<Cluster> = {}): Cluster {
  return sampleCluster({
    hosts: [
      realisticHost(),
      realisticHost({ id: HOST_B1, infra_env_id: IE_B, role: 'worker', bootstrap: false }),
    ],
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    // Cleared by a reset in the core; the model's uuid has no empty value.
    openshift_cluster_id: '',
    ...overrides,
  } as Partial<Cluster>);
}

interface Case {
  /** Swagger path template. */
  template: string;
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  /** Credential: the agent token (default), a URL token appended as api_key, or none. */
  urlToken?: Parameters<TestServer['auth']['issueUrlToken']>[0];
  noToken?: boolean;
  /** The backend method the route calls (for the error-status cases). */
  backend?: keyof HostApiBackend;
  /** A body the request schema refuses, answered 400. */
  badBody?: unknown;
}

const HOST = `/v2/infra-envs/${IE_A}/hosts/${HOST_A1}`;
const CLUSTER = `/v2/clusters/${CLUSTER_1}`;
const multipart = (() => {
  const boundary = 'contractboundary';
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="upfile"; filename="logs.tar.gz"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\nlogs\r\n--${boundary}--\r\n`,
  );
  return { body, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
})();

const CASES: Case[] = [
  {
    template: '/v2/infra-envs/{infra_env_id}/hosts',
    method: 'POST',
    path: `/v2/infra-envs/${IE_A}/hosts`,
    body: { host_id: HOST_A1, discovery_agent_version: AGENT_IMAGE },
    badBody: { host_id: 7 },
    backend: 'registerHost',
  },
  {
    template: '/v2/infra-envs/{infra_env_id}/hosts/{host_id}/instructions',
    method: 'GET',
    path: `${HOST}/instructions?timestamp=1767225600`,
    backend: 'getNextSteps',
  },
  {
    template: '/v2/infra-envs/{infra_env_id}/hosts/{host_id}/instructions',
    method: 'POST',
    path: `${HOST}/instructions`,
    body: {
      step_type: 'free-network-addresses',
      step_id: 'free-network-addresses-1a2b3c4d',
      output: '[{"network":"192.168.111.0/24","free_addresses":["192.168.111.50"]}]',
    },
    badBody: { step_type: 'no-such-step' },
    backend: 'postStepReply',
  },
  {
    template: '/v2/infra-envs/{infra_env_id}/hosts/{host_id}/progress',
    method: 'PUT',
    path: `${HOST}/progress`,
    body: { current_stage: 'Writing image to disk', progress_info: '40%' },
    badBody: { current_stage: 'Sleeping' },
    backend: 'updateHostInstallProgress',
  },
  {
    template: '/v2/infra-envs/{infra_env_id}/hosts/{host_id}/logs-progress',
    method: 'PUT',
    path: `${HOST}/logs-progress`,
    body: { logs_state: 'collecting' },
    badBody: { logs_state: 'sleeping' },
    backend: 'updateHostLogsProgress',
  },
  {
    template: '/v2/infra-env/{infra_env_id}/hosts/{host_id}/downloads/ignition',
    method: 'GET',
    path: `/v2/infra-env/${IE_A}/hosts/${HOST_A1}/downloads/ignition`,
    backend: 'downloadHostIgnition',
  },
  {
    template: '/v2/clusters/{cluster_id}',
    method: 'GET',
    path: CLUSTER,
    backend: 'getCluster',
  },
  {
    template: '/v2/clusters/{cluster_id}/hosts',
    method: 'GET',
    path: `${CLUSTER}/hosts?with-inventory=true&with-connectivity=true`,
    backend: 'getCluster',
  },
  {
    template: '/v2/clusters/{cluster_id}/downloads/files',
    method: 'GET',
    path: `${CLUSTER}/downloads/files?file_name=master.ign`,
    backend: 'downloadClusterFile',
  },
  {
    template: '/v2/clusters/{cluster_id}/downloads/credentials',
    method: 'GET',
    path: `${CLUSTER}/downloads/credentials?file_name=kubeconfig-noingress`,
    backend: 'downloadClusterCredentials',
  },
  {
    template: '/v2/clusters/{cluster_id}/logs-progress',
    method: 'PUT',
    path: `${CLUSTER}/logs-progress`,
    body: { logs_state: 'completed' },
    badBody: { logs_state: 3 },
    backend: 'updateClusterLogsProgress',
  },
  {
    template: '/v2/clusters/{cluster_id}/progress',
    method: 'PUT',
    path: `${CLUSTER}/progress`,
    body: { finalizing_stage: 'Waiting for cluster operators' },
    badBody: { finalizing_stage: 'Napping' },
    backend: 'updateClusterFinalizingProgress',
  },
  {
    template: '/v2/clusters/{cluster_id}/monitored-operators',
    method: 'GET',
    path: `${CLUSTER}/monitored-operators`,
    backend: 'getCluster',
  },
  {
    template: '/v2/clusters/{cluster_id}/monitored-operators',
    method: 'PUT',
    path: `${CLUSTER}/monitored-operators`,
    body: { name: 'console', status: 'available', status_info: 'done', version: '4.16.0' },
    badBody: { name: 'console', status: 'sleeping' },
    backend: 'reportMonitoredOperatorStatus',
  },
  {
    template: '/v2/clusters/{cluster_id}/uploads/ingress-cert',
    method: 'POST',
    path: `${CLUSTER}/uploads/ingress-cert`,
    body: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    badBody: 42,
    backend: 'uploadIngressCert',
  },
  {
    template: '/v2/clusters/{cluster_id}/actions/complete-installation',
    method: 'POST',
    path: `${CLUSTER}/actions/complete-installation`,
    body: { is_success: true, data: { console: { url: 'https://console.example.com' } } },
    badBody: { is_success: 'yes' },
    backend: 'completeInstallation',
  },
  {
    template: '/v2/clusters/{cluster_id}/logs',
    method: 'POST',
    path: `/v2/clusters/${CLUSTER_1}/logs?logs_type=host&infra_env_id=${IE_A}&host_id=${HOST_A1}`,
    rawBody: multipart.body,
    headers: multipart.headers,
    backend: 'uploadLogs',
  },
  {
    template: '/v2/clusters/{cluster_id}/logs',
    method: 'GET',
    path: `/v2/clusters/${CLUSTER_1}/logs?logs_type=host&host_id=${HOST_A1}`,
    urlToken: 'cluster-logs',
    backend: 'downloadClusterLogs',
  },
  {
    template: '/v2/events',
    method: 'POST',
    path: '/v2/events',
    body: {
      cluster_id: CLUSTER_1,
      severity: 'info',
      category: 'user',
      message: 'Cluster operators are available',
      event_time: '2026-01-01T00:00:00.000Z',
    },
    badBody: { severity: 'info', message: 'x', event_time: 'yesterday' },
    backend: 'triggerEvent',
  },
  {
    template: '/v2/events',
    method: 'GET',
    path: `/v2/events?cluster_id=${CLUSTER_1}`,
    urlToken: 'events',
    backend: 'listEvents',
  },
  {
    template: '/v2/infra-envs/{infra_env_id}',
    method: 'GET',
    path: `/v2/infra-envs/${IE_A}`,
    backend: 'getInfraEnv',
  },
  {
    template: '/v2/infra-envs/{infra_env_id}/downloads/files',
    method: 'GET',
    path: `/v2/infra-envs/${IE_A}/downloads/files?file_name=discovery.ign`,
    backend: 'downloadInfraEnvFile',
  },
  {
    template: '/v2/infra-envs/{infra_env_id}/downloads/minimal-initrd',
    method: 'GET',
    path: `/v2/infra-envs/${IE_A}/downloads/minimal-initrd`,
    urlToken: 'iso',
    backend: 'downloadMinimalInitrd',
  },
  {
    template: '/v2/component-versions',
    method: 'GET',
    path: '/v2/component-versions',
    noToken: true,
    backend: 'getComponentVersions',
  },
];

/** Backend answers built from realistic records (the defaults of the helper are minimal). */
const REALISTIC: Partial<HostApiBackend> = {
  registerHost: async (_ctx, input) =>
    ok({
      host: realisticHost({ id: input.hostId, infra_env_id: input.infraEnvId, status: 'discovering' }),
      nextStepRunner: { agentImage: AGENT_IMAGE },
    }),
  getCluster: async () => ok(realisticCluster()),
  completeInstallation: async () => ok(realisticCluster({ status: 'finalizing' })),
  downloadMinimalInitrd: async () => ok({ content: Buffer.from('initrd'), fileName: 'initrd.img' }),
  getInfraEnv: async (_ctx, input) =>
    ok({
      id: input.infraEnvId,
      name: 'ie',
      // Unbound, as the records layer holds it.
      cluster_id: null,
      pull_secret: 'secret',
      kernel_arguments: [{ operation: 'append', value: 'rd.debug' }],
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
      download_url: 'https://images.example.com/x.iso',
      static_network_config: [
        {
          network_yaml: 'interfaces:\n- name: eth0\n  type: ethernet\n',
          mac_interface_map: [{ mac_address: '52:54:00:00:00:01', logical_nic_name: 'eth0' }],
        },
      ],
    }),
};

async function send(t: TestServer, c: Case, init: { token?: string | null; body?: unknown } = {}) {
  let path = c.path;
  let token: string | null | undefined = init.token;
  if (c.urlToken) {
    const subject =
      c.urlToken === 'events' || c.urlToken === 'cluster-logs'
        ? ({ kind: 'cluster', id: CLUSTER_1 } as const)
        : ({ kind: 'infra-env', id: IE_A } as const);
    path += `${path.includes('?') ? '&' : '?'}api_key=${t.auth.issueUrlToken(c.urlToken, subject).token}`;
    token ??= null;
  }
  if (c.noToken) token = null;
  const body = 'body' in init ? init.body : c.body;
  return call(t, c.method, `${API.replace('/v2', '')}${path}`, {
    ...(token !== undefined ? { token } : {}),
    ...(body !== undefined ? { body } : {}),
    ...(c.rawBody !== undefined ? { rawBody: c.rawBody } : {}),
    ...(c.headers ? { headers: c.headers } : {}),
  });
}

function check(
  c: Case,
  reply: { status: number; headers: Record<string, unknown>; text: string },
): Problem[] {
  const contentType = String(reply.headers['content-type'] ?? '');
  return contract.checkResponse(c.method, c.template, {
    status: reply.status,
    contentType,
    body: reply.text,
  });
}

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ overrides: REALISTIC });
});
afterAll(async () => {
  await t.close();
});

describe('every host-facing operation is declared upstream', () => {
  it('each mounted route is in the definition or listed with the reason', () => {
    const mounted = [...ALL_API_ROUTES.map((r) => `${r.method} ${r.path}`), 'GET /v2/component-versions'];
    const missing = mounted.filter((m) => {
      const [method, path] = m.split(' ') as [string, string];
      return !contract.has(method, path) && !(m in UNDECLARED);
    });
    expect(missing).toEqual([]);
  });

  it('every operation the definition opens to agent tokens is served or listed with the reason', () => {
    const mounted = new Set(ALL_API_ROUTES.map((r) => `${r.method} ${r.path}`));
    const paths = contract.doc.paths as Record<string, Record<string, { security?: object[] }>>;
    const agentOps = Object.entries(paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => (op.security ?? []).some((s) => 'agentAuth' in s))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(agentOps.length).toBeGreaterThan(20);
    expect(agentOps.filter((k) => !mounted.has(k) && !(k in AGENT_AUTH_NOT_SERVED))).toEqual([]);
  });

  it('the cases cover every mounted route', () => {
    const covered = new Set(CASES.map((c) => `${c.method} ${c.template}`));
    const mounted = ALL_API_ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(mounted.filter((m) => !covered.has(m))).toEqual([]);
  });

  it('boot artifacts are served by the image service, outside the REST definition', () => {
    // `/boot-artifacts/{kernel|rootfs|ins-file}` belongs to assisted-image-service (agent-api.md
    // §9.1), which has no swagger model: its answers are raw bytes checked by the image tests.
    expect(contract.declared().some((d) => d.includes('boot-artifacts'))).toBe(false);
  });
});

describe.each(CASES)('$method $template', (c) => {
  it('success body validates', async () => {
    const reply = await send(t, c);
    expect(reply.status, reply.text).toBeLessThan(300);
    expect(check(c, reply)).toEqual([]);
  });

  it('request body validates against the declared request model', () => {
    if (c.body === undefined) return;
    expect(contract.checkRequest(c.method, c.template, c.body)).toEqual([]);
  });

  it('every declared error status the backend can answer validates', async () => {
    if (!c.backend) return;
    const op = contract.operation(c.method, c.template);
    const statuses = [...op.responses.keys()]
      .map(Number)
      .filter((s) => s >= 400 && s !== 401 && s !== 403 && s !== 405);
    if (statuses.length === 0) return; // component-versions declares none
    let currentStatus = 500;
    const failing = await startTestServer({
      overrides: Object.fromEntries(
        [c.backend].map((m) => [m, async () => fail(currentStatus, `failing with ${currentStatus}`)]),
      ),
    });
    try {
      for (const status of statuses) {
        currentStatus = status;
        const reply = await send(failing, c);
        expect(reply.status).toBe(status);
        expect(check(c, reply), `status ${status}`).toEqual([]);
      }
    } finally {
      await failing.close();
    }
  });

  it('a bad request body is a declared 400 in the error model', async () => {
    if (c.badBody === undefined) return;
    expect(contract.checkRequest(c.method, c.template, c.badBody)).not.toEqual([]);
    const reply = await send(t, c, { body: c.badBody });
    expect(reply.status, reply.text).toBe(400);
    const key = `${c.method} ${c.template}`;
    if (key in UNDECLARED_400) {
      expect(contract.operation(c.method, c.template).responses.has('400')).toBe(false);
      expect(contract.checkDefinition('error', reply.json)).toEqual([]);
    } else {
      expect(check(c, reply)).toEqual([]);
    }
  });

  it('a missing credential is a declared 401 in the infra_error model', async () => {
    if (c.noToken) return;
    const reply = await send(t, { ...c, urlToken: undefined }, { token: null });
    expect(reply.status).toBe(401);
    expect(check(c, reply)).toEqual([]);
  });
});

describe('refusals of the authorisation middleware', () => {
  it('403 for an agent token of another infra-env validates as infra_error', async () => {
    const c = CASES.find((x) => x.template === '/v2/clusters/{cluster_id}')!;
    const reply = await send(t, c, { token: t.token(IE_C) });
    expect(reply.status).toBe(403);
    expect(check(c, reply)).toEqual([]);
  });

  it('a URL token for another record, unknown paths and wrong methods: the middleware shape (listed)', async () => {
    // MIDDLEWARE_SHAPE: upstream answers these before any handler, whatever the definition declares.
    const { token } = t.auth.issueUrlToken('events', { kind: 'infra-env', id: IE_C });
    const foreign = await call(t, 'GET', `${API}/events?infra_env_id=${IE_A}&api_key=${token}`, {
      token: null,
    });
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ code: 404, message: 'Object Not Found' });
    const unknown = await call(t, 'GET', `${API}/no-such-thing`);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ code: 404, message: expect.any(String) });
    const wrongMethod = await call(t, 'DELETE', `${API}/infra-envs/${IE_A}/hosts/${HOST_C1}/instructions`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.json).toEqual({ code: 405, message: expect.any(String) });
    expect(MIDDLEWARE_SHAPE).toContain('ServeError');
  });
});
