// Fuzz of every REST route of the host API and the image service, with the operator in-process
// against the real API server: structure-aware bad requests (mutated bodies, raw non-JSON bodies,
// huge and deeply nested payloads, fuzzed path ids, queries, tokens and headers). Asserts: no 5xx,
// the server still answers, the operator still registers a host and gives a fresh InfraEnv its ISO
// URL, and the process RSS is back under a bound. Seeds fixed and printed (FUZZ_SEED replays).
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../../src/api/index.ts';
import { INFRA_ENV } from '../../../src/records/resources.ts';
import { ALL_API_ROUTES } from '../../../src/server/api/index.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import {
  adminClient,
  call,
  createInfraEnv,
  inventory,
  waitForAgent,
} from '../../integration/hosts/helpers.ts';
import { setTestOsImage } from '../../integration/infraenv/fixtures.ts';
import { casesFor, Fuzzer, type FuzzFigures, printFigures, seedFor } from '../gen.ts';

const API = '/api/assisted-install';
// An OS image entry of this file only (never fetched: status is written without it).
const OS_IMAGE = { cpuArchitecture: 'ppc64le', openshiftVersion: '4.13', version: '413.92.202301010000-0' };
const OS_URL = 'http://127.0.0.1:9/rhcos-ppc64le-4.13.iso';
/** Requests in flight at once. */
const CONCURRENCY = 8;
/** RSS of this process (test runner + operator) after the run, and its growth over the run. */
const RSS_LIMIT_BYTES = 1536 * 1024 * 1024;
const RSS_GROWTH_LIMIT_BYTES = 512 * 1024 * 1024;

const IMAGE_ROUTES = [
  { method: 'GET', path: '/byapikey/{token}/{version}/{arch}/{filename}' },
  { method: 'HEAD', path: '/images/{infra_env_id}' },
  { method: 'GET', path: '/images/{infra_env_id}' },
  { method: 'GET', path: '/images/{infra_env_id}/pxe-initrd' },
  { method: 'GET', path: '/boot-artifacts/{artifact}' },
];

const client = adminClient();
let op: TestOperator;
let ns: string;
let ie: InfraEnv;
let token: string;
let hostId: string;

beforeAll(async () => {
  ns = await newNamespace('fuzz-rest');
  op = await startTestOperator({ namespace: ns });
  await setTestOsImage(client, OS_URL, true, OS_IMAGE);
  ie = await createInfraEnv(client, ns, 'pool', { cpuArchitecture: 'ppc64le', osImageVersion: '4.13' });
  await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
  token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
  hostId = randomUUID();
  const reply = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
    token,
    body: { host_id: hostId, discovery_agent_version: op.ctx.settings.agentImage },
  });
  expect(reply.status, reply.text).toBe(201);
});

afterAll(async () => {
  await setTestOsImage(client, OS_URL, false, OS_IMAGE).catch(() => {});
  await op?.stop();
  await client.close();
});

/** A valid body per route (by path suffix), the base the mutations start from. */
function validBody(path: string): unknown {
  if (path.endsWith('/infra-envs/{infra_env_id}/hosts'))
    return { host_id: randomUUID(), discovery_agent_version: 'quay.io/agent:latest' };
  if (path.endsWith('/instructions'))
    return {
      step_type: 'inventory',
      step_id: 'inventory-00000001',
      exit_code: 0,
      output: inventory('fuzz-host', '52:54:00:00:00:99'),
    };
  if (path.endsWith('/hosts/{host_id}/progress')) return { current_stage: 'Installing', progress_info: '' };
  if (path.endsWith('/logs-progress')) return { logs_state: 'requested' };
  if (path.endsWith('/progress')) return { finalizing_stage: 'Waiting for cluster operators' };
  if (path.endsWith('/events'))
    return {
      cluster_id: randomUUID(),
      host_id: hostId,
      infra_env_id: ie.metadata.uid,
      message: 'fuzz',
      severity: 'info',
      category: 'user',
      event_time: new Date().toISOString(),
    };
  if (path.endsWith('/monitored-operators')) return { name: 'console', status: 'available', status_info: '' };
  if (path.endsWith('/complete-installation')) return { is_success: true, error_info: '' };
  if (path.endsWith('/ingress-cert')) return '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
  return {};
}

const QUERY_NAMES = [
  'timestamp',
  'logs_type',
  'host_id',
  'file_name',
  'discovery_agent_version',
  'api_key',
  'type',
  'arch',
  'version',
  'mac',
  'infra_env_id',
  'cluster_id',
  'limit',
  'offset',
  'severities',
  'message',
  'category',
  'order',
];

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  what: string;
}

/** A header value as a client can send it (no control characters). */
const visible = (text: string) => text.replace(/[^\x20-\x7e]/g, '?');

/** Percent-encodes any string (lone surrogates made well-formed), sometimes left malformed. */
function encode(f: Fuzzer, text: string): string {
  const encoded = encodeURIComponent(text.toWellFormed());
  return f.chance(0.05) ? `${encoded}%zz%` : encoded;
}

function fuzzPathParam(f: Fuzzer, name: string): string {
  if (f.chance(0.75)) {
    if (name === 'infra_env_id') return ie.metadata.uid ?? '';
    if (name === 'host_id') return f.chance(0.7) ? hostId : randomUUID();
    if (name === 'cluster_id') return randomUUID();
    if (name === 'arch') return f.pick(['x86_64', 'ppc64le', 'arm64']);
    if (name === 'version') return f.pick(['4.13', '413.92.202301010000-0']);
    if (name === 'artifact') return f.pick(['kernel', 'rootfs', 'initrd']);
  }
  return encode(f, f.string(f.chance(0.05) ? 20_000 : 200)) || 'x';
}

function fuzzQuery(f: Fuzzer): string {
  const parts: string[] = [];
  for (let i = f.int(4); i > 0; i--) {
    const name = f.chance(0.8) ? f.pick(QUERY_NAMES) : f.string(50);
    const value = f.chance(0.3) ? String(f.number()) : f.string(f.chance(0.05) ? 30_000 : 100);
    parts.push(`${encode(f, name)}=${encode(f, value)}`);
  }
  if (f.chance(0.05)) parts.push('%zz=%', '=&&=');
  return parts.length > 0 ? `?${parts.join('&')}` : '';
}

function fuzzBody(f: Fuzzer, path: string): { body: string | Buffer; contentType: string } {
  const roll = f.int(10);
  if (roll < 5)
    return { body: `${JSON.stringify(f.mutate(validBody(path)))}\n`, contentType: 'application/json' };
  if (roll < 7) return { body: f.rawBody(), contentType: f.pick(['application/json', 'text/plain', '']) };
  if (roll === 7) {
    // Multipart with a fuzzed boundary and part headers (the logs upload).
    const boundary = f.pick(['b', visible(f.string(80)), '']);
    const part = `--${boundary}\r\nContent-Disposition: form-data; name="${f.string(30)}"; filename="${f.string(30)}"\r\n\r\n${f.string(5_000)}\r\n--${boundary}--\r\n`;
    return { body: part, contentType: `multipart/form-data; boundary=${boundary}` };
  }
  if (roll === 8)
    return { body: f.deepText(f.pick([1_000, 20_000, 200_000])), contentType: 'application/json' };
  // Big: a valid body with one huge field (size limits answer 413, not 5xx).
  const base = validBody(path);
  const big =
    typeof base === 'object' && base !== null
      ? { ...base, output: 'x'.repeat(f.pick([1 << 20, 3 << 20])) }
      : base;
  return { body: JSON.stringify(big), contentType: 'application/json' };
}

function fuzzRequest(f: Fuzzer, route: { method: string; path: string }, base: string): FuzzRequest {
  const path = route.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => fuzzPathParam(f, name));
  const method = f.chance(0.93) ? route.method : f.pick(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
  const headers: Record<string, string> = {
    accept: f.pick(['application/json', '*/*', visible(f.string(50))]),
  };
  const auth = f.int(10);
  if (auth < 7) headers['x-secret-key'] = token;
  else if (auth === 7) headers['x-secret-key'] = visible(f.string(f.chance(0.1) ? 8_000 : 300)).trim() || 'x';
  else if (auth === 8) headers.authorization = `Bearer ${token}`;
  if (f.chance(0.05))
    headers.range = f.pick(['bytes=0-10', 'bytes=-1', `bytes=${f.number()}-`, visible(f.string(30))]);
  let body: string | Buffer | undefined;
  if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
    const b = fuzzBody(f, route.path);
    body = b.body;
    if (b.contentType) headers['content-type'] = b.contentType;
  }
  return { method, url: `${base}${path}${fuzzQuery(f)}`, headers, body, what: `${method} ${route.path}` };
}

async function send(r: FuzzRequest): Promise<{ status: number; text: string }> {
  const res = await request(r.url, {
    method: r.method as 'GET',
    headers: r.headers,
    body: r.body,
    headersTimeout: 60_000,
    bodyTimeout: 60_000,
  });
  // Read at most a little of the answer (downloads may be large); the rest is discarded.
  let text = '';
  for await (const chunk of res.body) {
    if (text.length < 500) text += chunk.toString();
  }
  return { status: res.statusCode, text: text.slice(0, 300) };
}

async function runPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: limit }, async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await work(item);
    }
  });
  await Promise.all(workers);
}

describe('fuzz: REST routes and image service', () => {
  it('answers every generated request without a 5xx, and the operator carries on', {
    timeout: 180_000,
  }, async () => {
    const routes = [
      ...ALL_API_ROUTES.map((r) => ({ method: r.method, path: r.path, base: `${op.baseUrl}${API}` })),
      ...IMAGE_ROUTES.map((r) => ({ ...r, base: op.baseUrl })),
    ];
    const seed = seedFor(1420);
    const f = new Fuzzer(seed);
    const total = casesFor(2_400);
    const requests = Array.from({ length: total }, (_, i) => {
      const route = routes[i % routes.length]!;
      return fuzzRequest(f, route, route.base);
    });
    const perRoute = new Map<string, { cases: number; failures: number; ms: number }>();
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const rssBefore = process.memoryUsage().rss;
    let rssPeak = rssBefore;
    const started = Date.now();
    await runPool(requests, CONCURRENCY, async (r) => {
      const t0 = Date.now();
      const stat = perRoute.get(r.what) ?? { cases: 0, failures: 0, ms: 0 };
      perRoute.set(r.what, stat);
      stat.cases++;
      try {
        const res = await send(r);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status >= 500) {
          stat.failures++;
          failures.push(`${r.what} → ${res.status} ${res.text} (url ${r.url.slice(0, 200)})`);
        }
      } catch (err) {
        stat.failures++;
        failures.push(`${r.what} → ${(err as Error).message}`);
      }
      stat.ms += Date.now() - t0;
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    });
    const figures: FuzzFigures[] = [...perRoute.entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([target, s]) => ({ target, cases: s.cases, seed, failures: s.failures, ms: s.ms }));
    printFigures(`rest (${Date.now() - started} ms wall)`, figures);
    const byStatus = [...statuses.entries()].sort(([a], [b]) => a - b).map(([code, n]) => `${code}×${n}`);
    console.log(`[fuzz] rest answers by status: ${byStatus.join(' ')}`);
    expect(failures.slice(0, 10), `seed ${seed}`).toEqual([]);

    // The server still answers, and the operator still does its work.
    const get = await call(op.baseUrl, 'GET', `/v2/infra-envs/${ie.metadata.uid}`, { token });
    expect(get.status, get.text).toBe(200);
    expect(op.ctx.mgr.isReady()).toBe(true);
    const fresh = randomUUID();
    const reg = await call(op.baseUrl, 'POST', `/v2/infra-envs/${ie.metadata.uid}/hosts`, {
      token,
      body: { host_id: fresh, discovery_agent_version: op.ctx.settings.agentImage },
    });
    expect(reg.status, reg.text).toBe(201);
    await waitForAgent(client, ns, fresh, (a) => !!a.status?.conditions, 'Agent of a fresh host', 30_000);
    await createInfraEnv(client, ns, 'after-fuzz', { cpuArchitecture: 'ppc64le', osImageVersion: '4.13' });
    await eventually(
      async () => (await client.get<InfraEnv>(INFRA_ENV, 'after-fuzz', ns)).status?.isoDownloadURL,
      { what: 'ISO URL of a fresh InfraEnv', timeoutMs: 30_000 },
    );

    // Memory: what the run left behind, once the garbage collector had a chance.
    await new Promise((r) => setTimeout(r, 1_000));
    const rssAfter = process.memoryUsage().rss;
    const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
    console.log(`[fuzz] rest RSS before ${mib(rssBefore)}, peak ${mib(rssPeak)}, after ${mib(rssAfter)}`);
    expect(rssAfter).toBeLessThan(RSS_LIMIT_BYTES);
    expect(rssAfter - rssBefore).toBeLessThan(RSS_GROWTH_LIMIT_BYTES);
  });
});
