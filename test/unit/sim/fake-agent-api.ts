// A small fake of the agent-facing REST API for simulator tests: records every request, hands out
// scripted steps, keeps just enough state (hosts, roles, progress, inventories) for the installer
// and controller flows, and injects faults. Bounded: it closes itself after `lifetimeMs` and
// refuses requests beyond `maxRequests`.

import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export const AGENT_IMAGE = 'quay.io/edge-infrastructure/assisted-installer-agent:latest';
export const PREFIX = '/api/assisted-install';

export interface RecordedRequest {
  method: string;
  /** Path without the /api/assisted-install prefix and without the query. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** Parsed JSON body, when the body is JSON. */
  json?: unknown;
}

export interface FakeResponse {
  status: number;
  body?: unknown;
  contentType?: string;
}

export interface FakeHost {
  id: string;
  infraEnvId: string;
  polls: number;
  registrations: number;
  role: string;
  bootstrap: boolean;
  stage: string;
  inventory?: string;
  replies: { step_type: string; step_id: string; exit_code?: number; output?: string; error?: string }[];
}

export interface Steps {
  next_instruction_seconds: number;
  post_step_action?: 'continue' | 'exit';
  instructions: { step_type: string; step_id: string; args: string[] }[];
}

export interface Fault {
  match: (req: RecordedRequest) => boolean;
  response: FakeResponse;
  /** How many times it fires (default 1). */
  times?: number;
}

export interface FakeApiOptions {
  /** Steps for a poll; default: inventory on the first poll, then nothing. */
  steps?: (host: FakeHost, poll: number) => Steps;
  nextInstructionSeconds?: number;
  clusterId?: string;
  controlPlaneCount?: number;
  faults?: Fault[];
  lifetimeMs?: number;
  maxRequests?: number;
  /** Keep request records (turn off for load tests). Default true. */
  record?: boolean;
  /** Answer every request after this delay (so concurrency shows up server-side). */
  latencyMs?: number;
}

export function step(type: string, args: unknown[] = []): Steps['instructions'][number] {
  return {
    step_type: type,
    step_id: `${type}-${randomUUID().slice(0, 8)}`,
    args: args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))),
  };
}

export const errorBody = (status: number, reason: string) =>
  status === 401 || status === 403
    ? { code: status, message: reason }
    : { kind: 'Error', id: status, code: String(status), href: '', reason };

export class FakeAgentApi {
  readonly requests: RecordedRequest[] = [];
  readonly hosts = new Map<string, FakeHost>();
  readonly clusterId: string;
  readonly completions: unknown[] = [];
  readonly finalizing: string[] = [];
  requestCount = 0;
  /** Most requests seen in flight at once. */
  maxInFlight = 0;
  url = '';
  private inFlight = 0;
  private readonly opts: FakeApiOptions;
  private readonly faults: (Fault & { left: number })[];
  private readonly server: Server;
  private lifetime?: NodeJS.Timeout;

  constructor(opts: FakeApiOptions = {}) {
    this.opts = opts;
    this.clusterId = opts.clusterId ?? randomUUID();
    this.faults = (opts.faults ?? []).map((f) => ({ ...f, left: f.times ?? 1 }));
    this.server = createServer((req, res) => {
      this.inFlight++;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      res.on('close', () => this.inFlight--);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://x');
        const body = Buffer.concat(chunks);
        const rec: RecordedRequest = {
          method: req.method ?? '',
          path: url.pathname.startsWith(PREFIX) ? url.pathname.slice(PREFIX.length) : url.pathname,
          query: url.searchParams,
          headers: req.headers,
          body,
        };
        if (String(req.headers['content-type']).startsWith('application/json') && body.length > 0) {
          try {
            rec.json = JSON.parse(body.toString('utf8'));
          } catch {
            rec.json = undefined;
          }
        }
        this.requestCount++;
        if (opts.record !== false) this.requests.push(rec);
        const out =
          this.requestCount > (opts.maxRequests ?? 200_000)
            ? { status: 503, body: errorBody(503, 'fake API request budget exhausted') }
            : (this.fault(rec) ?? this.handle(rec));
        const isJson = out.contentType === undefined || out.contentType === 'application/json';
        const payload =
          out.body === undefined
            ? ''
            : Buffer.isBuffer(out.body)
              ? out.body
              : isJson
                ? JSON.stringify(out.body)
                : String(out.body);
        const send = () => {
          res.writeHead(
            out.status,
            payload === '' ? {} : { 'content-type': out.contentType ?? 'application/json' },
          );
          res.end(payload);
        };
        if (opts.latencyMs) setTimeout(send, opts.latencyMs);
        else send();
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    this.lifetime = setTimeout(() => void this.close(), this.opts.lifetimeMs ?? 60_000);
    this.lifetime.unref();
    return this;
  }

  async close(): Promise<void> {
    if (this.lifetime) clearTimeout(this.lifetime);
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Requests matching method and a path regex. */
  find(method: string, path: RegExp): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && path.test(r.path));
  }

  private fault(req: RecordedRequest): FakeResponse | undefined {
    const f = this.faults.find((x) => x.left > 0 && x.match(req));
    if (!f) return undefined;
    f.left--;
    return f.response;
  }

  private hostJson(h: FakeHost) {
    return {
      kind: 'Host',
      id: h.id,
      href: '',
      status: 'installing-in-progress',
      status_info: '',
      infra_env_id: h.infraEnvId,
      cluster_id: this.clusterId,
      role: h.role,
      bootstrap: h.bootstrap,
      inventory: h.inventory,
      progress: { current_stage: h.stage },
    };
  }

  private handle(req: RecordedRequest): FakeResponse {
    const p = req.path;
    const octet = (text: string): FakeResponse => ({
      status: 200,
      body: Buffer.from(text),
      contentType: 'application/octet-stream',
    });
    let m = /^\/v2\/infra-envs\/([^/]+)\/hosts$/.exec(p);
    if (m && req.method === 'POST') {
      const hostId = (req.json as { host_id: string }).host_id;
      const host = this.hosts.get(hostId) ?? {
        id: hostId,
        infraEnvId: m[1]!,
        polls: 0,
        registrations: 0,
        role: 'auto-assign',
        bootstrap: false,
        stage: '',
        replies: [],
      };
      host.registrations++;
      this.hosts.set(hostId, host);
      const cmd = { agent_version: AGENT_IMAGE, host_id: hostId, infra_env_id: m[1] };
      return {
        status: 201,
        body: {
          ...this.hostJson(host),
          next_step_runner_command: { command: '', args: [JSON.stringify(cmd)] },
        },
      };
    }
    m = /^\/v2\/infra-envs\/[^/]+\/hosts\/([^/]+)\/(instructions|progress|logs-progress)$/.exec(p);
    if (m) {
      const host = this.hosts.get(m[1]!);
      if (!host) return { status: 404, body: errorBody(404, `host ${m[1]} not found`) };
      if (m[2] === 'instructions' && req.method === 'GET') {
        host.polls++;
        const steps = this.opts.steps
          ? this.opts.steps(host, host.polls)
          : {
              next_instruction_seconds: this.opts.nextInstructionSeconds ?? 60,
              instructions: host.polls === 1 ? [step('inventory', [host.id])] : [],
            };
        return { status: 200, body: { post_step_action: 'continue', ...steps } };
      }
      if (m[2] === 'instructions' && req.method === 'POST') {
        const reply = req.json as FakeHost['replies'][number];
        host.replies.push(reply);
        if (reply.step_type === 'inventory' && !reply.exit_code) host.inventory = reply.output;
        return { status: 204 };
      }
      if (m[2] === 'progress' && req.method === 'PUT') {
        host.stage = (req.json as { current_stage: string }).current_stage;
        return { status: 200 };
      }
      if (m[2] === 'logs-progress' && req.method === 'PUT') return { status: 204 };
    }
    if (/^\/v2\/infra-env\/[^/]+\/hosts\/[^/]+\/downloads\/ignition$/.test(p))
      return octet('{"ignition":{"version":"3.2.0"}}');
    m = /^\/v2\/clusters\/([^/]+)(\/.*)?$/.exec(p);
    if (m) {
      const rest = m[2] ?? '';
      const hosts = [...this.hosts.values()];
      if (rest === '' && req.method === 'GET') {
        return {
          status: 200,
          body: {
            kind: 'Cluster',
            id: m[1],
            href: '',
            status: 'installing',
            status_info: '',
            openshift_version: '4.16.0',
            control_plane_count: this.opts.controlPlaneCount ?? 3,
            ...(req.query.get('exclude-hosts') === 'true'
              ? {}
              : { hosts: hosts.map((h) => this.hostJson(h)) }),
          },
        };
      }
      if (rest === '/hosts') {
        const role = req.query.get('role');
        return {
          status: 200,
          body: hosts.filter((h) => !role || h.role === role).map((h) => this.hostJson(h)),
        };
      }
      if (rest === '/downloads/files' || rest === '/downloads/credentials')
        return octet(`file ${req.query.get('file_name')}`);
      if (rest === '/logs' || rest === '/logs-progress') return { status: 204 };
      if (rest === '/progress') {
        this.finalizing.push((req.json as { finalizing_stage: string }).finalizing_stage);
        return { status: 200 };
      }
      if (rest === '/monitored-operators') {
        return req.method === 'GET'
          ? {
              status: 200,
              body: [
                { name: 'console', operator_type: 'builtin' },
                { name: 'lvms', operator_type: 'olm', version: '4.16' },
              ],
            }
          : { status: 200 };
      }
      if (rest === '/uploads/ingress-cert') return { status: 201 };
      if (rest === '/actions/complete-installation') {
        this.completions.push(req.json);
        return {
          status: 202,
          body: { kind: 'Cluster', id: m[1], href: '', status: 'installed', status_info: '' },
        };
      }
    }
    if (p === '/v2/events' && req.method === 'POST') return { status: 201 };
    return { status: 404, body: errorBody(404, `no route ${req.method} ${p}`) };
  }
}
