// Test-only fixtures: an in-memory backend that records every call, an in-memory record resolver
// for authentication, and a loopback server with a real LocalAuth (in-memory keys).

import { Readable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { request } from 'undici';
import {
  type AccessResolver,
  type AccessTarget,
  type AuthFailureEvent,
  LocalAuth,
  MemoryKeyStore,
  type TokenSubject,
} from '../../../../src/auth/index.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import {
  type ApiLimits,
  type ApiServer,
  createApiServer,
  done,
  type HostApiBackend,
  ok,
} from '../../../../src/server/api/index.ts';

export const IE_A = '11111111-1111-4111-8111-111111111111';
export const IE_B = '22222222-2222-4222-8222-222222222222';
export const IE_C = '77777777-7777-4777-8777-777777777777';
export const CLUSTER_1 = '33333333-3333-4333-8333-333333333333';
export const CLUSTER_2 = '44444444-4444-4444-8444-444444444444';
export const HOST_A1 = '55555555-5555-4555-8555-555555555555';
export const HOST_B1 = '66666666-6666-4666-8666-666666666666';
export const HOST_C1 = '88888888-8888-4888-8888-888888888888';
export const UNKNOWN_ID = '99999999-9999-4999-8999-999999999999';
export const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';

/**
 * Records as the resolver sees them: infra-env A and B both serve cluster 1 (A bound, B's host
 * joined it); infra-env C's host is in cluster 2.
 */
export class TestResolver implements AccessResolver {
  infraEnvs = new Set([IE_A, IE_B, IE_C]);
  clusters = new Set([CLUSTER_1, CLUSTER_2]);
  hosts = new Map<string, { infraEnvId: string; clusterId?: string }>([
    [HOST_A1, { infraEnvId: IE_A, clusterId: CLUSTER_1 }],
    [HOST_B1, { infraEnvId: IE_B, clusterId: CLUSTER_1 }],
    [HOST_C1, { infraEnvId: IE_C, clusterId: CLUSTER_2 }],
  ]);
  boundClusters = new Map<string, string>([[IE_A, CLUSTER_1]]);
  failing = false;
  coversCalls: { subject: TokenSubject; target: AccessTarget }[] = [];
  /** Token-generation annotation values by infra-env id (revocation). */
  generations = new Map<string, string>();

  generation(subject: TokenSubject): string | undefined {
    return subject.kind === 'infra-env' ? this.generations.get(subject.id) : undefined;
  }

  async exists(subject: TokenSubject): Promise<boolean> {
    if (this.failing) throw new Error('cache not synced');
    return subject.kind === 'infra-env' ? this.infraEnvs.has(subject.id) : this.clusters.has(subject.id);
  }

  private clustersOf(subject: TokenSubject): Set<string> {
    if (subject.kind === 'cluster') return new Set([subject.id]);
    const out = new Set<string>();
    const bound = this.boundClusters.get(subject.id);
    if (bound) out.add(bound);
    for (const host of this.hosts.values()) {
      if (host.infraEnvId === subject.id && host.clusterId) out.add(host.clusterId);
    }
    return out;
  }

  async covers(subject: TokenSubject, target: AccessTarget): Promise<boolean> {
    this.coversCalls.push({ subject, target });
    if (this.failing) throw new Error('cache not synced');
    const clusters = this.clustersOf(subject);
    if (target.clusterId && !clusters.has(target.clusterId)) return false;
    if (target.hostId) {
      const host = this.hosts.get(target.hostId);
      if (!host) return false;
      if (target.infraEnvId && host.infraEnvId !== target.infraEnvId) return false;
      const own = subject.kind === 'infra-env' && host.infraEnvId === subject.id;
      if (!own && !(host.clusterId && clusters.has(host.clusterId))) return false;
    } else if (target.infraEnvId) {
      if (subject.kind === 'infra-env') return target.infraEnvId === subject.id;
      return this.boundClusters.get(target.infraEnvId) === subject.id;
    }
    return true;
  }
}

export function sampleHost(overrides: Partial<Host> = {}): Host {
  return {
    id: HOST_A1,
    infra_env_id: IE_A,
    cluster_id: CLUSTER_1,
    kind: 'Host',
    status: 'known',
    status_info: 'Host is ready to be installed',
    role: 'master',
    inventory: { hostname: 'node1', cpu: { count: 4, flags: ['vmx'] }, disks: [] },
    validations_info: { hardware: [{ id: 'has-cpu-cores', status: 'success', message: 'ok' }] },
    connectivity: { remote_hosts: [] },
    progress: { current_stage: 'Installing' },
    ...overrides,
  };
}

export function sampleCluster(overrides: Partial<Cluster> = {}): Cluster {
  return {
    id: CLUSTER_1,
    kind: 'Cluster',
    name: 'demo',
    base_dns_domain: 'example.com',
    openshift_version: '4.16',
    status: 'installing',
    status_info: 'Installation in progress',
    control_plane_count: 3,
    platform: { type: 'baremetal' },
    user_managed_networking: false,
    cluster_networks: [],
    service_networks: [],
    machine_networks: [],
    api_vips: [],
    ingress_vips: [],
    pull_secret: '{"auths":{"secret":{}}}',
    monitored_operators: [
      { name: 'console', operator_type: 'builtin', status: 'available' },
      { name: 'lvms', operator_type: 'olm', status: 'progressing' },
    ],
    hosts: [
      sampleHost(),
      sampleHost({
        id: HOST_B1,
        infra_env_id: IE_B,
        role: 'worker',
        progress: { current_stage: 'Rebooting' },
      }),
    ],
    ...overrides,
  };
}

export interface BackendCall {
  method: keyof HostApiBackend;
  args: unknown[];
}

/** Every operation succeeds with sample data unless overridden; every call is recorded. */
export function createTestBackend(overrides: Partial<HostApiBackend> = {}): {
  backend: HostApiBackend;
  calls: BackendCall[];
  /** Files the default uploadLogs received. */
  uploaded: Buffer[];
} {
  const defaults: HostApiBackend = {
    registerHost: async (_ctx, input) =>
      ok({
        host: sampleHost({ id: input.hostId, infra_env_id: input.infraEnvId, status: 'discovering' }),
        nextStepRunner: { agentImage: AGENT_IMAGE, retrySeconds: 60 },
      }),
    getNextSteps: async () =>
      ok({
        next_instruction_seconds: 60,
        post_step_action: 'continue',
        instructions: [{ step_type: 'inventory', step_id: 'inventory-3f2a9c1d', args: [HOST_A1] }],
      }),
    postStepReply: async () => done(),
    stepReplyRefused: async () => {},
    updateHostLogsProgress: async () => done(),
    updateHostInstallProgress: async () => done(),
    downloadHostIgnition: async (_ctx, input) =>
      ok({ content: '{"ignition":{"version":"3.2.0"}}', fileName: `master-${input.hostId}.ign` }),
    uploadLogs: async (_ctx, input) => {
      const chunks: Buffer[] = [];
      for await (const chunk of input.file.stream) chunks.push(chunk as Buffer);
      uploaded.push(Buffer.concat(chunks));
      return done();
    },
    downloadClusterLogs: async () => ok({ content: Buffer.from('logs'), fileName: 'logs.tar' }),
    getCluster: async () => ok(sampleCluster()),
    downloadClusterFile: async (_ctx, input) =>
      ok({ content: Readable.from([Buffer.from('{}')]), fileName: input.fileName, size: 2 }),
    downloadClusterCredentials: async (_ctx, input) =>
      ok({ content: 'apiVersion: v1\n', fileName: input.fileName }),
    updateClusterLogsProgress: async () => done(),
    updateClusterFinalizingProgress: async () => done(),
    reportMonitoredOperatorStatus: async () => done(),
    uploadIngressCert: async () => done(),
    completeInstallation: async () => ok(sampleCluster({ status: 'finalizing' })),
    triggerEvent: async () => done(),
    listEvents: async () =>
      ok({
        events: [
          {
            severity: 'info',
            message: 'hello',
            event_time: '2026-01-01T00:00:00.000Z',
            cluster_id: CLUSTER_1,
          },
        ],
        total: 1,
        severityCounts: { info: 1, error: 0 },
      }),
    getComponentVersions: async () =>
      ok({ versions: { 'discovery-agent': AGENT_IMAGE }, release_tag: 'v0.1.0' }),
    getInfraEnv: async (_ctx, input) =>
      ok({
        id: input.infraEnvId,
        name: 'ie',
        pull_secret: 'secret',
        kernel_arguments: [{ operation: 'append', value: 'rd.debug' }],
        updated_at: '2026-01-01T00:00:00Z',
      }),
    downloadInfraEnvFile: async (_ctx, input) =>
      ok({
        content: `#!ipxe ${input.fileName}`,
        fileName: input.fileName,
        lastModified: new Date('2026-01-02T03:04:05Z'),
      }),
    downloadMinimalInitrd: async () => ok(null),
  };
  const uploaded: Buffer[] = [];
  const calls: BackendCall[] = [];
  const backend = {} as Record<string, unknown>;
  for (const name of Object.keys(defaults) as (keyof HostApiBackend)[]) {
    const impl = (overrides[name] ?? defaults[name]) as (...args: unknown[]) => Promise<unknown>;
    backend[name] = (...args: unknown[]) => {
      calls.push({ method: name, args });
      return impl(...args);
    };
  }
  return { backend: backend as unknown as HostApiBackend, calls, uploaded };
}

export interface TestServer {
  server: ApiServer;
  base: string;
  auth: LocalAuth;
  resolver: TestResolver;
  calls: BackendCall[];
  uploaded: Buffer[];
  authFailures: AuthFailureEvent[];
  /** Agent token for an infra-env (X-Secret-Key). */
  token(infraEnvId?: string): string;
  close(): Promise<void>;
}

const silent = pino({ level: 'silent' });

export async function startTestServer(
  options: {
    overrides?: Partial<HostApiBackend>;
    limits?: Partial<ApiLimits>;
    now?: () => Date;
    maxConnections?: number;
    /** The replica's serving state (default: always serving). */
    serving?: () => boolean;
    /** Default: a silent one. */
    logger?: Logger;
  } = {},
): Promise<TestServer> {
  const resolver = new TestResolver();
  const authFailures: AuthFailureEvent[] = [];
  const auth = await LocalAuth.create({
    keyStore: new MemoryKeyStore(),
    resolver,
    events: { authFailure: (e) => authFailures.push(e) },
    ...(options.now ? { now: options.now } : {}),
  });
  const { backend, calls, uploaded } = createTestBackend(options.overrides);
  const server = createApiServer({
    backend,
    auth,
    logger: options.logger ?? silent,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.maxConnections ? { maxConnections: options.maxConnections } : {}),
    probes: { ready: () => options.serving?.() ?? true },
    ...(options.serving ? { serving: options.serving } : {}),
  });
  const address = await server.listen(0, '127.0.0.1');
  return {
    server,
    base: `http://127.0.0.1:${address.port}`,
    auth,
    resolver,
    calls,
    uploaded,
    authFailures,
    token: (id = IE_A) => auth.issueAgentToken({ kind: 'infra-env', id }),
    close: () => server.close(),
  };
}

export const API = '/api/assisted-install/v2';

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** One request with the Go clients' habits (JSON body with a trailing newline). */
export async function call(
  t: TestServer,
  method: string,
  path: string,
  init: {
    token?: string | null;
    body?: unknown;
    rawBody?: string | Buffer | Readable;
    headers?: Record<string, string>;
  } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { accept: 'application/json', ...init.headers };
  if (init.token !== null) headers['x-secret-key'] = init.token ?? t.token();
  let body: string | Buffer | Readable | undefined = init.rawBody;
  if (init.body !== undefined) {
    body = `${JSON.stringify(init.body)}\n`;
    headers['content-type'] ??= 'application/json';
  }
  const res = await request(`${t.base}${path}`, {
    method: method as 'GET',
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

/** The `error` model (every status but 401/403). */
export function expectErrorShape(reply: Reply, status: number): { reason: string } {
  const body = reply.json as Record<string, unknown>;
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.status}: ${reply.text}`);
  if (
    body?.kind !== 'Error' ||
    body.id !== status ||
    body.code !== String(status) ||
    body.href !== '' ||
    typeof body.reason !== 'string'
  ) {
    throw new Error(`not an error-model body: ${reply.text}`);
  }
  if (!String(reply.headers['content-type']).startsWith('application/json')) throw new Error('not JSON');
  return { reason: body.reason as string };
}

/** The `infra_error` model (401/403, and refusals before a handler runs). */
export function expectInfraErrorShape(reply: Reply, status: number): { message: string } {
  const body = reply.json as Record<string, unknown>;
  if (reply.status !== status) throw new Error(`expected ${status}, got ${reply.status}: ${reply.text}`);
  if (body?.code !== status || typeof body.message !== 'string' || Object.keys(body).length !== 2) {
    throw new Error(`not an infra_error body: ${reply.text}`);
  }
  return { message: body.message as string };
}

export function callsTo(t: TestServer, method: keyof HostApiBackend): BackendCall[] {
  return t.calls.filter((c) => c.method === method);
}
