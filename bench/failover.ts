// `make bench-failover`: issue 16's two-replica target, measured. Two operator processes (the shipped
// entry point src/cmd/operator.ts, leader election on, a shared DATA_DIR as the Deployment's
// ReadWriteMany volume would be) on a real local kube-apiserver + etcd, M SNO clusters with their
// InfraEnvs, and N hosts played over the REST API from this process through a Service-like router:
// requests go only to a replica whose readiness probe (the Deployment's: GET /ready on the API port)
// answered 200 at its last probe; a refused connection or a 5xx is retried after a short backoff, as
// the agent does. Each host registers, posts one inventory step reply and polls next-steps once.
// When --kill-at of the hosts have registered, the leader gets SIGKILL.
//
// Figures: hosts registered (2xx) vs Agents in the API server; inventory replies answered 2xx vs
// Agents whose status holds that inventory (read once the survivor is quiet); time from the kill to
// the standby's /ready 200, /readyz 200 and first 2xx host-API answer, next to the Lease settings;
// registration rate and latency before and after the kill; failures by status. Asserts nothing.
// Flags: --clusters, --hosts, --concurrency, --kill-at, --lease-duration, --renew-deadline,
// --retry-period, --probe-period, --give-up, --out.

import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Agent as HttpAgent, request } from 'undici';
import type { Agent, InfraEnv } from '../src/api/index.ts';
import { importKeyPair } from '../src/auth/index.ts';
import { signAgentToken } from '../src/auth/tokens.ts';
import { ControlPlane } from '../src/dev/controlplane.ts';
import { installCrds, projectCrdFiles } from '../src/dev/crds.ts';
import { freePort } from '../src/dev/ports.ts';
import { loadKubeConfig } from '../src/operator/main.ts';
import { loadOperatorConfig } from '../src/records/config.ts';
import { SecretKeyStore } from '../src/records/hosts/keystore.ts';
import { AGENT, AGENT_CLUSTER_INSTALL, INFRA_ENV, NAMESPACE } from '../src/records/resources.ts';
import { KubeClient } from '../src/runtime/index.ts';
import { createClusters, hostId, inventory, pool } from './fleet.ts';

const { values: flags } = parseArgs({
  options: {
    clusters: { type: 'string', default: '100' },
    hosts: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '20' },
    'kill-at': { type: 'string', default: '0.4' },
    // Unset: the shipped defaults (controller-runtime's 15 s / 10 s / 2 s).
    'lease-duration': { type: 'string' },
    'renew-deadline': { type: 'string' },
    'retry-period': { type: 'string' },
    // The Deployment's readinessProbe periodSeconds.
    'probe-period': { type: 'string', default: '2000' },
    'give-up': { type: 'string', default: '300' },
    out: { type: 'string', default: '.local/bench-failover.json' },
  },
});
const CLUSTERS = Number(flags.clusters);
const HOSTS = Number(flags.hosts);
const CONCURRENCY = Number(flags.concurrency);
const KILL_AT = Math.ceil(Number(flags['kill-at']) * HOSTS);
const PROBE_PERIOD_MS = Number(flags['probe-period']);
const GIVE_UP_MS = Number(flags['give-up']) * 1000;
const NS = 'bench';
const LOG_DIR = '.local';

const leaseEnv: Record<string, string> = {
  ...(flags['lease-duration'] ? { LEADER_ELECTION_LEASE_DURATION: flags['lease-duration'] } : {}),
  ...(flags['renew-deadline'] ? { LEADER_ELECTION_RENEW_DEADLINE: flags['renew-deadline'] } : {}),
  ...(flags['retry-period'] ? { LEADER_ELECTION_RETRY_PERIOD: flags['retry-period'] } : {}),
};
const shipped = loadOperatorConfig([], { POD_NAMESPACE: NS, ...leaseEnv });

function line(name: string, value: string): void {
  console.log(`${name.padEnd(48)} ${value}`);
}

function pct(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// Replicas and the Service-like router.

interface Replica {
  name: string;
  child: ChildProcess;
  apiPort: number;
  probePort: number;
  /** Routing state: the last readiness probe answered 200 and the process is alive. */
  ready: boolean;
  answered2xx: number;
}

async function startReplica(name: string, kubeconfig: string, dataDir: string): Promise<Replica> {
  const [apiPort, probePort, metricsPort] = [await freePort(), await freePort(), await freePort()];
  await mkdir(LOG_DIR, { recursive: true });
  const log = createWriteStream(join(LOG_DIR, `bench-failover-${name}.log`));
  const child = spawn(process.execPath, ['src/cmd/operator.ts'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      KUBECONFIG: kubeconfig,
      POD_NAMESPACE: NS,
      POD_NAME: name,
      WATCH_NAMESPACE: NS,
      LEADER_ELECT: 'true',
      ...leaseEnv,
      METRICS_BIND_ADDRESS: `127.0.0.1:${metricsPort}`,
      HEALTH_PROBE_BIND_ADDRESS: `127.0.0.1:${probePort}`,
      API_BIND_HOST: '127.0.0.1',
      API_PORT: String(apiPort),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    },
  });
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  return { name, child, apiPort, probePort, ready: false, answered2xx: 0 };
}

const alive = (r: Replica) => r.child.exitCode === null && r.child.signalCode === null;

async function status(url: string): Promise<number> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

const apiReady = (r: Replica) => status(`http://127.0.0.1:${r.apiPort}/ready`);
const probeReady = (r: Replica) => status(`http://127.0.0.1:${r.probePort}/readyz`);

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 180_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Probes every replica each period, as the kubelet does; a dead process is unready at once. */
function startProber(replicas: Replica[]): () => void {
  const probeAll = () => {
    for (const r of replicas) {
      if (!alive(r)) r.ready = false;
      else void apiReady(r).then((s) => (r.ready = s === 200 && alive(r)));
    }
  };
  probeAll();
  const timer = setInterval(probeAll, PROBE_PERIOD_MS);
  return () => clearInterval(timer);
}

// ---------------------------------------------------------------------------------------------
// Fleet set-up.

/** Every InfraEnv and AgentClusterInstall has conditions: the leader has reconciled the fleet. */
async function fleetSettled(client: KubeClient): Promise<boolean> {
  const reconciled = async (resource: typeof INFRA_ENV) => {
    const items = (await client.list<InfraEnv>(resource, { namespace: NS })).items;
    return items.filter((o) => (o.status?.conditions ?? []).length > 0).length;
  };
  return (await reconciled(INFRA_ENV)) === CLUSTERS && (await reconciled(AGENT_CLUSTER_INSTALL)) === CLUSTERS;
}

/** The agent tokens the discovery images carry, signed with the replicas' shared key Secret. */
async function agentTokens(client: KubeClient, ies: InfraEnv[]): Promise<string[]> {
  const store = new SecretKeyStore(client, NS, shipped.operator.authKeysSecretName);
  const pem = await store.load();
  if (!pem) throw new Error('the operator has not created its signing-key Secret');
  const { privateKey } = importKeyPair(pem);
  return ies.map((ie) => signAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }, privateKey));
}

// ---------------------------------------------------------------------------------------------
// The driver.

type Phase = 'register' | 'inventory' | 'poll';

interface Attempt {
  phase: Phase;
  host: number;
  /** performance.now() when the request was sent and when it ended. */
  start: number;
  end: number;
  /** HTTP status, or the connection error's code ('no endpoint' when no replica was ready). */
  outcome: number | string;
  replica?: string;
}

interface Driver {
  attempts: Attempt[];
  /** Per host: first attempt of the phase and its 2xx, when reached. */
  done: Map<Phase, Map<number, { first: number; ok?: number }>>;
  gaveUp: Record<Phase, number>;
  onRegistered?: (count: number) => void;
}

class Router {
  private next = 0;
  private readonly replicas: Replica[];
  private readonly http: HttpAgent;

  constructor(replicas: Replica[], http: HttpAgent) {
    this.replicas = replicas;
    this.http = http;
  }

  async send(method: 'GET' | 'POST', path: string, token: string, body?: string) {
    const ready = this.replicas.filter((r) => r.ready);
    const target = ready[this.next++ % Math.max(1, ready.length)];
    if (!target) return { outcome: 'no endpoint' as const, replica: undefined };
    return this.sendTo(target, method, path, token, body);
  }

  /** One request to one replica; `count` false keeps it out of the per-replica 2xx figures. */
  async sendTo(
    target: Replica,
    method: 'GET' | 'POST',
    path: string,
    token: string,
    body?: string,
    count = true,
  ) {
    try {
      const res = await request(`http://127.0.0.1:${target.apiPort}/api/assisted-install${path}`, {
        method,
        dispatcher: this.http,
        headers: {
          accept: 'application/json',
          'x-secret-key': token,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body } : {}),
        headersTimeout: 60_000,
        bodyTimeout: 60_000,
      });
      await res.body.text();
      if (res.statusCode < 300 && count) target.answered2xx++;
      const retryAfter = Number(res.headers['retry-after']);
      return { outcome: res.statusCode, replica: target.name, retryAfterMs: retryAfter * 1000 || 0 };
    } catch (err) {
      return { outcome: String((err as { code?: string }).code ?? err), replica: target.name };
    }
  }
}

/** Sends until a 2xx or a 4xx, backing off as the agent does on 5xx and connection errors. */
async function untilAnswered(
  d: Driver,
  phase: Phase,
  host: number,
  send: () => ReturnType<Router['send']>,
): Promise<boolean> {
  const first = performance.now();
  const mine = { first } as { first: number; ok?: number };
  d.done.get(phase)!.set(host, mine);
  for (let n = 0; performance.now() - first < GIVE_UP_MS; n++) {
    const start = performance.now();
    const res = await send();
    const end = performance.now();
    d.attempts.push({ phase, host, start, end, outcome: res.outcome, replica: res.replica });
    if (typeof res.outcome === 'number' && res.outcome < 300) {
      mine.ok = end;
      return true;
    }
    if (typeof res.outcome === 'number' && res.outcome < 500 && res.outcome !== 429) return false;
    const backoff = Math.min(2000, 250 * 2 ** n) * (0.5 + Math.random() / 2);
    await sleep(Math.max(backoff, 'retryAfterMs' in res ? (res.retryAfterMs ?? 0) : 0));
  }
  d.gaveUp[phase]++;
  return false;
}

async function playHost(
  d: Driver,
  router: Router,
  i: number,
  ies: InfraEnv[],
  tokens: string[],
  agentVersion: string,
  registered: { n: number },
): Promise<void> {
  const token = tokens[i % CLUSTERS]!;
  const base = `/v2/infra-envs/${ies[i % CLUSTERS]!.metadata.uid}/hosts`;
  const reg = JSON.stringify({ host_id: hostId(i), discovery_agent_version: agentVersion });
  if (!(await untilAnswered(d, 'register', i, () => router.send('POST', base, token, reg)))) return;
  d.onRegistered?.(++registered.n);
  const reply = JSON.stringify({
    step_type: 'inventory',
    step_id: 'inventory-00000001',
    output: inventory(i),
  });
  const path = `${base}/${hostId(i)}/instructions`;
  await untilAnswered(d, 'inventory', i, () => router.send('POST', path, token, reply));
  await untilAnswered(d, 'poll', i, () => router.send('GET', path, token));
}

// ---------------------------------------------------------------------------------------------
// Failover timing and the final read.

interface Takeover {
  killedAt: number;
  killedLeader: string;
  readyAt?: number;
  readyzAt?: number;
  /** First 2xx to a next-steps poll of a host registered before the kill, sent to the standby. */
  pollDirectAt?: number;
}

/**
 * SIGKILLs the leader, then every 20 ms samples the standby's probes and polls next-steps for a
 * host it registered (`poll`, straight to the standby: when it serves hosts, whatever the router
 * knows), until all three answer 200.
 */
function killLeader(replicas: Replica[], poll: (standby: Replica) => Promise<number | string>) {
  const leader = replicas.find((r) => r.ready && alive(r));
  const standby = replicas.find((r) => r !== leader && alive(r));
  if (!leader || !standby) return undefined;
  leader.child.kill('SIGKILL');
  leader.ready = false;
  const t: Takeover = { killedAt: performance.now(), killedLeader: leader.name };
  void (async () => {
    while (t.readyAt === undefined || t.readyzAt === undefined || t.pollDirectAt === undefined) {
      const [api, probe, served] = await Promise.all([apiReady(standby), probeReady(standby), poll(standby)]);
      if (api === 200) t.readyAt ??= performance.now();
      if (probe === 200) t.readyzAt ??= performance.now();
      if (served === 200) t.pollDirectAt ??= performance.now();
      await sleep(20);
    }
  })();
  return t;
}

/** Lists the Agents until none has changed for `quietMs` (the survivor has applied what it had). */
async function quietAgents(client: KubeClient, quietMs = 10_000, maxMs = 600_000): Promise<Agent[]> {
  const start = Date.now();
  let signature = '';
  let since = Date.now();
  for (;;) {
    const items = (await client.list<Agent>(AGENT, { namespace: NS })).items;
    const now = items.map((a) => a.metadata.resourceVersion).join(',');
    if (now !== signature) {
      signature = now;
      since = Date.now();
    } else if (Date.now() - since >= quietMs || Date.now() - start > maxMs) {
      return items;
    }
    await sleep(1000);
  }
}

function failuresByStatus(attempts: readonly Attempt[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const a of attempts) {
    if (typeof a.outcome === 'number' && a.outcome < 300) continue;
    const key = `${a.phase} ${a.outcome}`;
    out[key] = (out[key] ?? 0) + 1;
  }
  return out;
}

function latencySummary(ms: number[]): { n: number; p50: number; p99: number; max: number } {
  ms.sort((a, b) => a - b);
  return { n: ms.length, p50: pct(ms, 50), p99: pct(ms, 99), max: ms.at(-1) ?? Number.NaN };
}

const fmt = (s: { n: number; p50: number; p99: number; max: number }) =>
  `${s.p50.toFixed(0)} / ${s.p99.toFixed(0)} / ${s.max.toFixed(0)} ms (n ${s.n})`;

function analyse(
  d: Driver,
  agents: Agent[],
  takeover: Takeover | undefined,
  waveStart: number,
  waveEnd: number,
) {
  const registered = [...d.done.get('register')!].filter(([, v]) => v.ok !== undefined).map(([i]) => i);
  const acked = [...d.done.get('inventory')!].filter(([, v]) => v.ok !== undefined).map(([i]) => i);
  const byName = new Map(agents.map((a) => [a.metadata.name ?? '', a]));
  const lostHosts = registered.filter((i) => !byName.has(hostId(i)));
  const lostReplies = acked.filter((i) => byName.get(hostId(i))?.status?.inventory?.hostname !== `host-${i}`);
  const kill = takeover?.killedAt ?? Number.POSITIVE_INFINITY;
  const regOk = d.attempts.filter(
    (a) => a.phase === 'register' && typeof a.outcome === 'number' && a.outcome < 300,
  );
  const firstAfter = d.attempts.find((a) => a.end > kill && typeof a.outcome === 'number' && a.outcome < 300);
  const before = regOk.filter((a) => a.end <= kill);
  const after = regOk.filter((a) => firstAfter && a.end >= firstAfter.end);
  const hostRegMs = [...d.done.get('register')!.values()].filter((v) => v.ok).map((v) => v.ok! - v.first);
  const invOk = d.attempts.filter(
    (a) => a.phase === 'inventory' && typeof a.outcome === 'number' && a.outcome < 300,
  );
  return {
    registered: registered.length,
    agents: agents.length,
    lostHosts: lostHosts.map(hostId),
    inventoryAcked: acked.length,
    inventoryApplied: acked.length - lostReplies.length,
    lostReplies: lostReplies.map(hostId),
    killedLeader: takeover?.killedLeader,
    registeredAtKill: before.length,
    killToReadyMs: takeover?.readyAt !== undefined ? takeover.readyAt - kill : undefined,
    killToReadyzMs: takeover?.readyzAt !== undefined ? takeover.readyzAt - kill : undefined,
    killToPollAnsweredMs: takeover?.pollDirectAt !== undefined ? takeover.pollDirectAt - kill : undefined,
    firstAfterKill: firstAfter ? `${firstAfter.phase} ${firstAfter.outcome}` : undefined,
    killToFirst2xxMs: firstAfter ? firstAfter.end - kill : undefined,
    beforeKill: {
      perSec: before.length / ((Math.min(kill, waveEnd) - waveStart) / 1000),
      latencyMs: latencySummary(before.map((a) => a.end - a.start)),
    },
    afterKill: {
      perSec: firstAfter ? after.length / ((waveEnd - firstAfter.end) / 1000) : Number.NaN,
      latencyMs: latencySummary(after.map((a) => a.end - a.start)),
    },
    hostRegistrationMs: latencySummary(hostRegMs),
    inventoryReplyMs: {
      beforeKill: latencySummary(invOk.filter((a) => a.end <= kill).map((a) => a.end - a.start)),
      afterKill: latencySummary(invOk.filter((a) => a.end > kill).map((a) => a.end - a.start)),
    },
    failures: failuresByStatus(d.attempts),
    gaveUp: d.gaveUp,
  };
}

function print(r: ReturnType<typeof analyse>, replicas: Replica[]): void {
  const rt = shipped.runtime;
  const ms = (v: number | undefined) => (v === undefined ? 'never' : `${(v / 1000).toFixed(2)} s`);
  line(
    'Lease duration / renew deadline / retry period',
    `${rt.leaseDurationMs / 1000} / ${rt.renewDeadlineMs / 1000} / ${rt.retryPeriodMs / 1000} s`,
  );
  line('readiness probe period (router)', `${PROBE_PERIOD_MS} ms`);
  line('hosts registered (2xx) / Agents in API server', `${r.registered} / ${r.agents}`);
  line(
    'lost hosts',
    `${r.lostHosts.length}${r.lostHosts.length ? ` ${r.lostHosts.slice(0, 5).join(' ')}` : ''}`,
  );
  line('inventory replies 2xx / applied to Agent status', `${r.inventoryAcked} / ${r.inventoryApplied}`);
  line(
    'lost step replies',
    `${r.lostReplies.length}${r.lostReplies.length ? ` ${r.lostReplies.slice(0, 5).join(' ')}` : ''}`,
  );
  line(
    'leader killed (SIGKILL) after registrations',
    `${r.registeredAtKill} (${r.killedLeader ?? 'no kill'})`,
  );
  line('kill → standby /ready 200 (API port)', ms(r.killToReadyMs));
  line('kill → standby /readyz 200 (probe port)', ms(r.killToReadyzMs));
  line('kill → standby answers a host poll 200 (direct)', ms(r.killToPollAnsweredMs));
  line('kill → first 2xx of the wave (via router)', `${ms(r.killToFirst2xxMs)} (${r.firstAfterKill ?? '-'})`);
  line(
    'registrations/s before / after the kill',
    `${r.beforeKill.perSec.toFixed(1)} / ${r.afterKill.perSec.toFixed(1)}`,
  );
  line('register call p50 / p99 / max before the kill', fmt(r.beforeKill.latencyMs));
  line('register call p50 / p99 / max after the kill', fmt(r.afterKill.latencyMs));
  line('host registration incl. retries p50 / p99 / max', fmt(r.hostRegistrationMs));
  line('inventory reply 2xx p50 / p99 / max before the kill', fmt(r.inventoryReplyMs.beforeKill));
  line('inventory reply 2xx p50 / p99 / max after the kill', fmt(r.inventoryReplyMs.afterKill));
  line('failed attempts by phase and status', JSON.stringify(r.failures));
  line('hosts that gave up', JSON.stringify(r.gaveUp));
  line('2xx answers by replica', replicas.map((x) => `${x.name} ${x.answered2xx}`).join(', '));
}

async function main(): Promise<void> {
  const started = Date.now();
  console.log(
    `bench-failover: ${CLUSTERS} SNO clusters, ${HOSTS} hosts, concurrency ${CONCURRENCY}, kill after ${KILL_AT} registrations`,
  );
  const plane = await ControlPlane.start();
  const dataDir = await mkdtemp(join(tmpdir(), 'aio-bench-failover-'));
  const http = new HttpAgent({ connections: CONCURRENCY * 2 });
  const admin = new KubeClient({ kubeConfig: loadKubeConfig(plane.kubeconfigPath), qps: 0 });
  const replicas: Replica[] = [];
  let stopProber = () => {};
  try {
    await installCrds(plane.kubeconfigPath, await projectCrdFiles());
    await admin.create(NAMESPACE, { metadata: { name: NS } } as never);
    const a = await startReplica('replica-a', plane.kubeconfigPath, dataDir);
    replicas.push(a);
    await until('replica-a ready (leading)', async () => (await apiReady(a)) === 200);
    const b = await startReplica('replica-b', plane.kubeconfigPath, dataDir);
    replicas.push(b);
    await until('replica-b caches synced (standby)', async () => (await probeReady(b)) === 200);
    if ((await apiReady(b)) === 200) throw new Error('both replicas answer /ready 200');
    const t0 = performance.now();
    const ies = await createClusters(admin, NS, CLUSTERS, CONCURRENCY);
    await until('the leader reconciled every InfraEnv', () => fleetSettled(admin), 600_000);
    line('clusters created and settled', `${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const tokens = await agentTokens(admin, ies);
    stopProber = startProber(replicas);
    await until('router sees the leader', async () => replicas.some((r) => r.ready));

    const router = new Router(replicas, http);
    const driver: Driver = {
      attempts: [],
      done: new Map([
        ['register', new Map()],
        ['inventory', new Map()],
        ['poll', new Map()],
      ]),
      gaveUp: { register: 0, inventory: 0, poll: 0 },
    };
    let takeover: Takeover | undefined;
    const firstPath = `/v2/infra-envs/${ies[0]!.metadata.uid}/hosts/${hostId(0)}/instructions`;
    const poll = async (standby: Replica) =>
      (await router.sendTo(standby, 'GET', firstPath, tokens[0]!, undefined, false)).outcome;
    driver.onRegistered = (n) => {
      if (n === KILL_AT && !takeover) takeover = killLeader(replicas, poll);
    };
    const registered = { n: 0 };
    const waveStart = performance.now();
    await pool(HOSTS, CONCURRENCY, (i) =>
      playHost(driver, router, i, ies, tokens, shipped.operator.agentImage, registered),
    );
    const waveEnd = performance.now();
    line('wave (register, inventory, poll)', `${((waveEnd - waveStart) / 1000).toFixed(1)} s`);
    const q0 = performance.now();
    const agents = await quietAgents(admin);
    line('survivor quiet after the wave', `${((performance.now() - q0) / 1000).toFixed(1)} s`);
    const report = analyse(driver, agents, takeover, waveStart, waveEnd);
    print(report, replicas);
    await mkdir(dirname(flags.out!), { recursive: true });
    const summary = {
      clusters: CLUSTERS,
      hosts: HOSTS,
      concurrency: CONCURRENCY,
      node: process.version,
      lease: {
        durationMs: shipped.runtime.leaseDurationMs,
        renewDeadlineMs: shipped.runtime.renewDeadlineMs,
        retryPeriodMs: shipped.runtime.retryPeriodMs,
      },
      probePeriodMs: PROBE_PERIOD_MS,
      ...report,
      answered2xxByReplica: Object.fromEntries(replicas.map((r) => [r.name, r.answered2xx])),
      totalSeconds: (Date.now() - started) / 1000,
    };
    await writeFile(flags.out!, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(`report written to ${flags.out}; operator logs in ${LOG_DIR}/bench-failover-replica-*.log`);
  } finally {
    stopProber();
    for (const r of replicas) if (alive(r)) r.child.kill('SIGTERM');
    await Promise.all(
      replicas.map((r) => (alive(r) ? new Promise((ok) => r.child.once('exit', ok)) : undefined)),
    );
    await http.close();
    await admin.close();
    await plane.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
