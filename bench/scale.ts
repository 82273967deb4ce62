// `make bench-scale`: the operator in-process on a real local kube-apiserver + etcd, M SNO clusters
// (pull Secret, ClusterDeployment, AgentClusterInstall, InfraEnv) and N hosts played over the REST
// API by a worker thread of this process (bench/fleet-driver.ts; no ISO, no per-host processes).
// Prints figures and writes a JSON report; targets are read off the output, and it exits non-zero
// only when the run itself broke (a failed request, an Agent missing, a status change never seen).
// Flags: --clusters, --hosts, --concurrency, --out, --profile-wave FILE / --profile-inventory FILE /
// --profile-idle FILE / --profile-connectivity FILE / --profile-startup FILE (CPU profile of the
// operator's thread in the registration wave / inventory wave / idle-hosts phase / connectivity
// checks / in-process restart with the fleet in place, until ready), --heap-profile-wave
// FILE (sampling heap profile of what the wave allocates, collected objects included),
// --idle-hosts-seconds, --idle-poll-seconds (the idle hosts' poll interval, default 10),
// --trace-gc-idle (V8's per-collection phase breakdown, --trace-gc-nvp, on stdout for the idle
// window: every isolate of the process, the operator's and the driver's thread),
// --heap-profile-idle FILE (sampling heap profile of everything the operator's thread allocates in
// the idle window, collected objects included: what a poll allocates, by the code that does),
// --heap-snapshots-idle DIR (heap snapshots of the operator's thread 40 % and 90 % into the idle
// window, DIR/idle-early.heapsnapshot and DIR/idle-late.heapsnapshot: what a poll leaves alive for
// the next one, read with bench/heap-snapshot-diff.ts; each pauses the thread for seconds),
// --event-status-seconds, --connectivity-seconds, --installs-per-hour, --events-per-install,
// --iso-mib (base ISO size of the ISO download phase, bench/iso-throughput.ts; 0 skips it),
// --fleet-process-seconds (the shipped operator as its own process with the fleet in
// place: start-up and RSS over that window; 0 skips it), --fleet-process-variant 'WORDS' (repeatable:
// that phase again on the same fleet with node flags, NAME=value environment settings and
// memory-limit=QUANTITY|deployment, bench/memory-cgroup.ts, in place of the defaults; '' for the
// defaults again), --heap-profile-startup FILE (sampling heap profile
// of the in-process operator's first --heap-profile-startup-seconds, default 30, from start with
// the fleet in place: what is alive at the end and what major GCs collected, young garbage left
// out), --heap-profile-hosts FILE (sampling heap profile of what the operator's thread allocated from
// the registration wave on and still holds, after a full GC, with the hosts in place; summarise it
// with bench/heap-profile-summary.ts), --http-floor-seconds (after the idle-hosts window, the same
// polls for that long, at most the window's, against a bare Node HTTP server on a thread of its own,
// bench/http-floor.ts: the operator's CPU per poll as a multiple of a bare request's; default 20, 0
// skips it), --poll-during-waves (every host polls every 10 s from its registration on, as agents go
// on polling, instead of only in the polling phases), --driver-process (the host driver as a
// child process instead of a worker thread: the operator's process is then the operator and the
// bench's meters alone), --plane-nice N (kube-apiserver's and etcd's threads at nice N, so the
// operator's thread wins a contended core; 0, the default, leaves all at equal priority),
// --own-sessions (kube-apiserver and etcd, and with --driver-process the driver, each in a session
// of their own, so Linux's autogroup shares the cores between them and the operator as between
// pods, services or machines; by default every thread shares the bench's one group),
// --idle MINUTES (see idle()), --apiserver-profile DIR (kube-apiserver's CPU profile of the first
// --apiserver-profile-seconds, default 8, of the registration wave and of the same writes with the
// operator stopped, written to DIR and summarised by activity; bench/apiserver-profile.ts), --ztp
// (each SNO cluster declared as a zero-touch-provisioning site: also its NMStateConfig, BMC Secret,
// BareMetalHost and PreprovisioningImage, installs held; --hosts at most --clusters: the sites
// past the hosts' are managed but their machines never boot, as installed sites' are), --applied
// (the fleet's objects created as client-side `kubectl apply` creates them, as GitOps tools do by
// default: each carries its manifest in the kubectl.kubernetes.io/last-applied-configuration
// annotation), --namespace-per-site (each site in a namespace of its own, as ZTP hubs keep them, and
// the operator watching every namespace).
//
// Phases: the API server's own write ceiling (a plain create loop of small ConfigMaps), then a
// registration wave (register only, until the operator is quiet), an inventory wave (one inventory
// reply and one next-steps poll per host, until quiet), idle hosts (every host polls its next steps
// every 10 s), event → status (paced status-changing replies, timed to a watch on Agents) and, in
// clusters of 3 hosts or more, connectivity checks (polls as idle, each check answered). API
// requests are counted by verb and resource on the operator's own client. Each phase reports the CPU
// of the operator's thread, of the operator (the process less the driver's thread), of the whole
// process, of kube-apiserver and of etcd. After the phases, what the fleet stores in the API
// server by kind (bench/stored-objects.ts).

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import vm from 'node:vm';
import { Worker } from 'node:worker_threads';
import {
  AGENT_BMH_LABEL,
  type Agent,
  type AgentClusterInstall,
  type PreprovisioningImage,
} from '../src/api/index.ts';
import { parseConnectivity } from '../src/core/network/connectivity.ts';
import { ControlPlane } from '../src/dev/controlplane.ts';
import { installCrds, projectCrdFiles } from '../src/dev/crds.ts';
import { freePort } from '../src/dev/ports.ts';
import { loadKubeConfig, startOperator } from '../src/operator/main.ts';
import { loadOperatorConfig } from '../src/records/config.ts';
import type { OperatorContext } from '../src/records/context.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  CONFIG_MAP,
  EVENT,
  INFRA_ENV,
  NAMESPACE,
  NMSTATE_CONFIG,
  PREPROVISIONING_IMAGE,
  SECRET,
} from '../src/records/resources.ts';
import { createLogger, KubeClient, LAST_APPLIED_ANNOTATION } from '../src/runtime/index.ts';
import { captureApiServerProfile, summariseApiServerProfile } from './apiserver-profile.ts';
import { createClusters, type FleetShape, pool } from './fleet.ts';
import { type Failures, FleetDriver, type IdleResult, POLL_SECONDS } from './fleet-driver.ts';
import { measureHttpFloor } from './http-floor.ts';
import { measureIsoThroughput, serveFleetOsImage } from './iso-throughput.ts';
import { startLoopBreakdown } from './loop-breakdown.ts';
import { deploymentMemoryLimit, type MemoryCgroup, memoryCgroup, quantityBytes } from './memory-cgroup.ts';
import { pct } from './percentile.ts';
import { intervalsDuring, type LongInterval } from './slow-polls.ts';
import { measureStoredObjects } from './stored-objects.ts';
import { measureWritesCeiling } from './writes-ceiling.ts';

/**
 * Host events that change an SNO Agent's status in one install, counted from src/sim's flow:
 * registration and the inventory (2), the installer's progress reports (Starting installation,
 * Installing, Waiting for bootkube, Writing image to disk and its 5 percentage updates, Rebooting:
 * 10), then the in-cluster controller's Joined and Done (2).
 */
const SNO_STATUS_EVENTS_PER_INSTALL = 14;

const { values: flags } = parseArgs({
  options: {
    clusters: { type: 'string', default: '100' },
    hosts: { type: 'string' },
    concurrency: { type: 'string', default: '20' },
    ceiling: { type: 'string', default: '1000' },
    out: { type: 'string', default: '.local/bench-scale.json' },
    idle: { type: 'string' },
    'idle-warmup': { type: 'string', default: '30' },
    'node-arg': { type: 'string', multiple: true, default: [] },
    'profile-wave': { type: 'string' },
    'profile-inventory': { type: 'string' },
    'profile-idle': { type: 'string' },
    'trace-gc-idle': { type: 'boolean', default: false },
    'heap-snapshots-idle': { type: 'string' },
    'profile-connectivity': { type: 'string' },
    'profile-startup': { type: 'string' },
    'heap-profile-wave': { type: 'string' },
    'heap-profile-startup': { type: 'string' },
    'heap-profile-hosts': { type: 'string' },
    'heap-profile-idle': { type: 'string' },
    'heap-profile-startup-seconds': { type: 'string', default: '30' },
    'fleet-process-seconds': { type: 'string', default: '30' },
    'fleet-process-variant': { type: 'string', multiple: true, default: [] },
    'idle-hosts-seconds': { type: 'string', default: '60' },
    'idle-poll-seconds': { type: 'string', default: String(POLL_SECONDS) },
    'http-floor-seconds': { type: 'string', default: '20' },
    'event-status-seconds': { type: 'string', default: '60' },
    'connectivity-seconds': { type: 'string', default: '120' },
    'installs-per-hour': { type: 'string', default: '500' },
    'events-per-install': { type: 'string', default: String(SNO_STATUS_EVENTS_PER_INSTALL) },
    'iso-mib': { type: 'string' },
    'driver-process': { type: 'boolean', default: false },
    'plane-nice': { type: 'string', default: '0' },
    'own-sessions': { type: 'boolean', default: false },
    'apiserver-profile': { type: 'string' },
    'apiserver-profile-seconds': { type: 'string', default: '8' },
    ztp: { type: 'boolean', default: false },
    applied: { type: 'boolean', default: false },
    'namespace-per-site': { type: 'boolean', default: false },
    'poll-during-waves': { type: 'boolean', default: false },
  },
});
const CLUSTERS = Number(flags.clusters);
const HOSTS = Number(flags.hosts ?? flags.clusters);
const CONCURRENCY = Number(flags.concurrency);
const SHAPE: FleetShape = flags.ztp ? 'ztp' : 'plain';
if (SHAPE === 'ztp' && HOSTS > CLUSTERS) {
  console.error(
    'bench-scale: --ztp plays at most one machine per SNO site: --hosts must not exceed --clusters',
  );
  process.exit(2);
}
const CEILING_CREATES = Number(flags.ceiling);
const NS = 'bench';
/** Where site i's objects live: all in NS, or (--namespace-per-site) each site in its own. */
const SITE_NAMESPACE: string | ((site: number) => string) = flags['namespace-per-site']
  ? (i) => `sno-${i}`
  : NS;
/** The operator's WATCH_NAMESPACE: the sites' namespace, or every namespace. */
const WATCH_ENV: Record<string, string> = flags['namespace-per-site'] ? {} : { WATCH_NAMESPACE: NS };
/** Where the fleet's objects are listed: NS, or every namespace (''). */
const FLEET_NS = flags['namespace-per-site'] ? '' : NS;
/**
 * A ZTP hub's metal3 ironic (never called here): the PreprovisioningImages' images carry its agent.
 * BMAC_IMAGE_COOLDOWN_MS from the environment shortens the 60 s image cool-down (CI's smoke).
 */
const SHAPE_ENV: Record<string, string> =
  SHAPE === 'ztp'
    ? {
        IRONIC_BASE_URL: 'https://10.0.0.5:6385',
        ...(process.env.BMAC_IMAGE_COOLDOWN_MS
          ? { BMAC_IMAGE_COOLDOWN_MS: process.env.BMAC_IMAGE_COOLDOWN_MS }
          : {}),
      }
    : {};
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function line(name: string, value: string): void {
  console.log(`${name.padEnd(44)} ${value}`);
}

/**
 * A worker thread of this process running `code`, which answers the one message it is sent with
 * its result; stop() sends it and ends the thread.
 */
function workerProbe<T>(code: string): { stop(): Promise<T> } {
  const worker = new Worker(`const { parentPort } = require('node:worker_threads');\n${code}`, {
    eval: true,
  });
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('message', (m: T) => {
          void worker.terminate();
          resolve(m);
        });
        worker.postMessage('stop');
      }),
  };
}

/**
 * The event-loop delay an idle worker thread of this process sees. The operator's loop (the main
 * thread; the driver is another worker) shares the process with it: delay seen by both is the
 * process not being scheduled (a loaded box, or a stop-the-world GC), delay seen only on the main
 * loop is the operator's own work.
 */
function idleThreadDelay(): { stop(): Promise<{ p99: number; max: number }> } {
  return workerProbe(
    `const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 });
     h.enable();
     parentPort.on('message', () => {
       h.disable();
       parentPort.postMessage({ p99: h.percentile(99) / 1e6, max: h.max / 1e6 });
     });`,
  );
}

/**
 * The process's peak RSS, sampled every 100 ms by a worker thread of its own: reading it costs
 * about half a millisecond of kernel time per sample on this box (a wave's CPU profile put 93–114 ms
 * of the operator's thread on the sampler when it ran there), which must not land on the thread
 * whose event-loop delay is measured.
 */
function peakRssSampler(): { stop(): Promise<number> } {
  return workerProbe(
    `let peak = process.memoryUsage.rss();
     const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 100);
     parentPort.on('message', () => {
       clearInterval(timer);
       parentPort.postMessage(Math.max(peak, process.memoryUsage.rss()));
     });`,
  );
}

interface Capture {
  stop(file: string): Promise<void>;
}

/** An inspector session that `begin`s a capture now and writes what `end` returns to a file. */
async function startCapture(
  begin: (session: Session) => Promise<unknown>,
  end: (session: Session) => Promise<object>,
): Promise<Capture> {
  const session = new Session();
  session.connect();
  await begin(session);
  return {
    async stop(file) {
      const profile = await end(session);
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** `--profile-wave`, `--profile-inventory` or `--profile-idle FILE`: a CPU profile of the operator's thread in that phase. */
function startProfiler(): Promise<Capture> {
  return startCapture(
    async (session) => {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 500 });
      await session.post('Profiler.start');
    },
    async (session) => (await session.post('Profiler.stop')).profile,
  );
}

/**
 * `--heap-profile-wave FILE`: a sampling heap profile of everything the operator's thread allocates
 * in the wave, garbage included (what the event loop waits on in GC), for DevTools or a script.
 */
function startHeapProfiler(youngGarbage = true, majorGarbage = true): Promise<Capture> {
  return startCapture(
    (session) =>
      session.post('HeapProfiler.startSampling', {
        samplingInterval: 8192,
        includeObjectsCollectedByMajorGC: majorGarbage,
        includeObjectsCollectedByMinorGC: youngGarbage,
      }),
    async (session) => (await session.post('HeapProfiler.stopSampling')).profile,
  );
}

/** Counts every request the client sends, by "VERB resource[/subresource]". */
function countRequests(client: KubeClient): Map<string, number> {
  const counts = new Map<string, number>();
  const target = client as unknown as { send: (m: string, p: string, o: unknown) => Promise<unknown> };
  const send = target.send.bind(client);
  target.send = (method, path, opts) => {
    const parts = path.split('?')[0]!.split('/');
    const ns = parts.indexOf('namespaces');
    const rest = ns >= 0 ? parts.slice(ns + 2) : parts.slice(parts[1] === 'api' ? 3 : 4);
    // A path naming no resource (a namespace read, /readyz) is counted under itself.
    const key = `${method} ${[rest[0], rest[2]].filter(Boolean).join('/') || path.split('?')[0]}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return send(method, path, opts);
  };
  return counts;
}

/**
 * A counter's value summed over the series of `name` whose labels include every `labels` pair (a
 * value also matches `value.*`, as the operator's resource ids `plural.version.group` do).
 */
function counterSum(metricsText: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  for (const row of metricsText.split('\n')) {
    if (!row.startsWith(`${name}{`) && !row.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => new RegExp(`${k}="${v}(\\.[^"]*)?"`).test(row))) {
      sum += Number(row.slice(row.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

/** Agent watches re-established by the operator, by reason, and Agent watchers the API server closed. */
async function agentWatchEnds(b: Bench): Promise<Record<string, number>> {
  const ours = await b.operatorMetrics();
  const server = await b.plane.apiServerMetrics();
  const ends: Record<string, number> = {};
  for (const reason of ['timeout', 'closed', 'gone', 'error']) {
    ends[reason] = counterSum(ours, 'aio_watch_restarts_total', { resource: 'agents', reason });
  }
  ends.serverClosedUnresponsive = counterSum(server, 'apiserver_terminated_watchers_total', {
    resource: 'agents',
  });
  return ends;
}

/** Reconciles so far by controller, from the operator's controller_runtime_reconcile_total. */
async function reconcilesByController(b: Bench): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const v of (await b.reconcileTotal.get()).values) {
    const c = String(v.labels.controller);
    out[c] = (out[c] ?? 0) + v.value;
  }
  return out;
}

/** Reconciles per host in a phase, by controller (a fan-out shows here before it shows in CPU). */
function perHost(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  const ran = Object.entries(diffRecord(after, before)).filter(([, n]) => n > 0);
  return Object.fromEntries(ran.map(([c, n]) => [c, Math.round((n / HOSTS) * 100) / 100]));
}

function writesOf(counts: Map<string, number>): number {
  let n = 0;
  for (const [k, v] of counts) if (WRITES.has(k.split(' ')[0]!)) n += v;
  return n;
}

function diff(after: Map<string, number>, before: Map<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of after) if (v - (before.get(k) ?? 0) > 0) out[k] = v - (before.get(k) ?? 0);
  return out;
}

function diffRecord(after: Record<string, number>, before: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([k, v]) => [k, v - (before[k] ?? 0)]));
}

/** aio_events_dropped_total by reason (installer events and Kubernetes Events). */
async function droppedEvents(ctx: OperatorContext): Promise<Record<string, number>> {
  const { values } = await ctx.mgr.metrics.eventsDropped.get();
  return Object.fromEntries(values.filter((v) => v.value > 0).map((v) => [String(v.labels.reason), v.value]));
}

/** Resolves when the operator has made no write for `quietMs` (bounded by `maxMs`). */
async function quiet(counts: Map<string, number>, quietMs = 2000, maxMs = 600_000): Promise<void> {
  const start = Date.now();
  let last = writesOf(counts);
  let since = Date.now();
  while (Date.now() - since < quietMs && Date.now() - start < maxMs) {
    await new Promise((r) => setTimeout(r, 100));
    const now = writesOf(counts);
    if (now !== last) {
      last = now;
      since = Date.now();
    }
  }
}

/** ConfigMap creates per second, and kube-apiserver's CPU per create (the unit a registration is compared in). */
async function ceiling(
  client: KubeClient,
  plane: ControlPlane,
): Promise<{ perSec: number; apiServerMsPerWrite: number }> {
  await client.create(NAMESPACE, { metadata: { name: 'bench-ceiling' } } as never);
  const cpu = async () =>
    plane.pids.apiserver ? (await procUsage(plane.pids.apiserver)).cpuSeconds : Number.NaN;
  const cpu0 = await cpu();
  const t0 = performance.now();
  await pool(CEILING_CREATES, CONCURRENCY, async (i) => {
    await client.create(CONFIG_MAP, {
      metadata: { name: `cm-${i}`, namespace: 'bench-ceiling' },
      data: { k: 'v' },
    } as never);
  });
  const perSec = CEILING_CREATES / ((performance.now() - t0) / 1000);
  return { perSec, apiServerMsPerWrite: (((await cpu()) - cpu0) / CEILING_CREATES) * 1000 };
}

/** CPU seconds (user + system) and RSS bytes of another process, from /proc. */
async function procUsage(pid: number): Promise<{ cpuSeconds: number; rss: number }> {
  const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after the command name.
  const ticks = Number(stat[11]) + Number(stat[12]);
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return { cpuSeconds: ticks / 100, rss: rssKiB * 1024 };
}

/**
 * `--idle MINUTES`: the shipped entry point (src/cmd/operator.ts) as its own process with its
 * defaults (leader election, secure metrics, probes, host API) and no clusters and no hosts; after
 * `--idle-warmup` seconds from ready, samples its CPU seconds and RSS for MINUTES. `--node-arg`
 * passes flags to that node (e.g. --cpu-prof).
 */
/** The shipped entry point as its own process on `plane`, with its defaults (leader election, probes, host API). */
async function spawnOperator(
  plane: ControlPlane,
  dataDir: string,
  nodeArgs = flags['node-arg'] ?? [],
  env: Record<string, string> = {},
  cgroup?: MemoryCgroup,
) {
  const [health, metrics, api] = [await freePort(), await freePort(), await freePort()];
  const argv = [process.execPath, ...nodeArgs, 'src/cmd/operator.ts'];
  const { command, args } = cgroup ? cgroup.wrap(argv) : { command: argv[0]!, args: argv.slice(1) };
  const child = spawn(command, args, {
    // Node flags may print to stdout (--trace-gc): kept then, with the operator's log (LOG_LEVEL).
    stdio: ['ignore', nodeArgs.length > 0 ? 'inherit' : 'ignore', 'inherit'],
    env: {
      ...process.env,
      KUBECONFIG: plane.kubeconfigPath,
      POD_NAMESPACE: NS,
      ...WATCH_ENV,
      METRICS_BIND_ADDRESS: `127.0.0.1:${metrics}`,
      HEALTH_PROBE_BIND_ADDRESS: `127.0.0.1:${health}`,
      API_BIND_HOST: '127.0.0.1',
      API_PORT: String(api),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      ...SHAPE_ENV,
      ...env,
    },
  });
  const exited = new Promise((r) => child.once('exit', r));
  const ready = (async () => {
    while ((await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined))?.status !== 200) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`operator exited ${child.signalCode ?? child.exitCode}`);
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  return { child, ready, exited };
}

/** A process's CPU and RSS at the start and end of `ms`, and its peak RSS sampled every second. */
async function sampleProcess(pid: number, ms: number) {
  const first = await procUsage(pid);
  let peakRss = first.rss;
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 1000));
    peakRss = Math.max(peakRss, (await procUsage(pid)).rss);
  }
  const last = await procUsage(pid);
  return { first, last, peakRss: Math.max(peakRss, last.rss) };
}

/**
 * The shipped operator as its own process with the whole fleet in place (its first reconcile of
 * every object included): seconds to ready, and its RSS and CPU over `--fleet-process-seconds`.
 * The in-process figures include the driver thread; this one is the operator alone.
 */
async function operatorProcessWithFleet(plane: ControlPlane, dataDir: string, variant?: string) {
  const seconds = Number(flags['fleet-process-seconds']);
  // A variant is node flags, NAME=value environment settings and memory-limit=QUANTITY|deployment
  // (the process in a memory cgroup of that limit, as in a pod), space-separated.
  const words = variant?.split(' ').filter((a) => a !== '') ?? [];
  const isEnv = (w: string) => /^[A-Z_][A-Z0-9_]*=/.test(w);
  const limitWord = words.find((w) => w.startsWith('memory-limit='));
  const nodeArgs = variant === undefined ? undefined : words.filter((w) => !isEnv(w) && w !== limitWord);
  const env = Object.fromEntries(
    words.filter(isEnv).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]),
  );
  const label = variant === undefined ? '' : ` [${variant || 'defaults'}]`;
  const cgroup = limitWord ? await limitedCgroup(limitWord.slice('memory-limit='.length)) : undefined;
  const s0 = performance.now();
  const { child, ready, exited } = await spawnOperator(plane, dataDir, nodeArgs, env, cgroup);
  try {
    await ready;
    const startupSeconds = (performance.now() - s0) / 1000;
    const { first: atReady, last, peakRss: peak } = await sampleProcess(child.pid!, seconds * 1000);
    const mib = (b: number) => b / 1024 / 1024;
    const r = {
      startupToReadySeconds: startupSeconds,
      rssMiB: { atReady: mib(atReady.rss), peak: mib(peak), end: mib(last.rss) },
      cpuSeconds: last.cpuSeconds,
      seconds,
    };
    line(`operator process, fleet in place: to ready${label}`, `${startupSeconds.toFixed(1)} s`);
    line(
      `operator process RSS at ready / peak / after ${seconds} s${label}`,
      `${r.rssMiB.atReady.toFixed(0)} / ${r.rssMiB.peak.toFixed(0)} / ${r.rssMiB.end.toFixed(0)} MiB (CPU ${r.cpuSeconds.toFixed(1)} s)`,
    );
    if (cgroup) {
      const u = await cgroup.usage();
      line(
        `operator process cgroup peak / OOM kills${label}`,
        `${mib(u.peakBytes).toFixed(0)} MiB / ${u.oomKills}`,
      );
      return { ...r, cgroup: { peakMiB: mib(u.peakBytes), oomKills: u.oomKills } };
    }
    return r;
  } catch (err) {
    const u = await cgroup?.usage();
    line(
      `operator process${label}`,
      `${(err as Error).message}${u ? `, cgroup OOM kills ${u.oomKills}` : ''}`,
    );
    return { failed: (err as Error).message, cgroup: u };
  } finally {
    child.kill('SIGTERM');
    await exited;
    await cgroup?.remove();
  }
}

/** A memory cgroup for the operator process: QUANTITY, or `deployment` for the shipped manifest's limit. */
async function limitedCgroup(limit: string): Promise<MemoryCgroup | undefined> {
  const quantity = limit === 'deployment' ? await deploymentMemoryLimit() : limit;
  const cgroup = await memoryCgroup(quantityBytes(quantity), `aio-bench-${process.pid}`);
  if (typeof cgroup === 'string') {
    line('operator process memory limit', `${quantity}: ${cgroup}; run without`);
    return undefined;
  }
  line('operator process memory limit', `${quantity} (${cgroup.dir})`);
  return cgroup;
}

async function idle(minutes: number): Promise<void> {
  const warmupMs = Number(flags['idle-warmup']) * 1000;
  console.log(`bench-scale --idle: operator process, no clusters, no hosts, ${minutes} min`);
  const plane = await startPlane();
  const dataDir = await mkdtemp(join(tmpdir(), 'aio-bench-'));
  const admin = new KubeClient({ kubeConfig: loadKubeConfig(plane.kubeconfigPath), qps: 0 });
  try {
    await installCrds(plane.kubeconfigPath, await projectCrdFiles());
    await admin.create(NAMESPACE, { metadata: { name: NS } } as never);
    const s0 = performance.now();
    const { child, ready, exited } = await spawnOperator(plane, dataDir);
    try {
      await ready;
      line('start-up to ready', `${((performance.now() - s0) / 1000).toFixed(1)} s`);
      await new Promise((r) => setTimeout(r, warmupMs));
      const { first: u0, last: u1, peakRss: peak } = await sampleProcess(child.pid!, minutes * 60_000);
      const mib = (b: number) => `${(b / 1024 / 1024).toFixed(0)} MiB`;
      line('CPU while idle', `${((u1.cpuSeconds - u0.cpuSeconds) / minutes).toFixed(3)} CPU-s/min`);
      line('RSS while idle: start / end / peak', `${mib(u0.rss)} / ${mib(u1.rss)} / ${mib(peak)}`);
      line('CPU from start to end of sample', `${u1.cpuSeconds.toFixed(2)} s`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  } finally {
    await admin.close();
    await plane.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

type Usage = Awaited<ReturnType<Awaited<ReturnType<typeof startMeter>>['stop']>>;

/**
 * Where the box's cores go during a phase: CPU seconds of the operator's thread (the main thread;
 * the driver is a worker), of the whole process, of kube-apiserver and of etcd (from /proc), and the
 * event-loop delay of the operator's thread and of an idle worker thread.
 */
async function startMeter(plane: ControlPlane, driver: FleetDriver) {
  const { apiserver, etcd } = plane.pids;
  const driver0 = await driver.threadCpuSeconds();
  const cpuOf = async (pid: number | undefined) => (pid ? (await procUsage(pid)).cpuSeconds : Number.NaN);
  const [apiserver0, etcd0] = [await cpuOf(apiserver), await cpuOf(etcd)];
  const thread0 = process.threadCpuUsage();
  const process0 = process.cpuUsage();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const idleThread = idleThreadDelay();
  const breakdown = startLoopBreakdown();
  const t0 = performance.now();
  const seconds = (u: { user: number; system: number }) => (u.user + u.system) / 1e6;
  return {
    async stop() {
      const thread = process.threadCpuUsage(thread0);
      const whole = process.cpuUsage(process0);
      loop.disable();
      const loopBreakdown = breakdown.stop();
      const wallSeconds = (performance.now() - t0) / 1000;
      const [apiserver1, etcd1] = [await cpuOf(apiserver), await cpuOf(etcd)];
      const driverThread = (await driver.threadCpuSeconds()) - driver0;
      return {
        wallSeconds,
        cpuSeconds: {
          operatorThread: seconds(thread),
          // The process without the driver's thread: the operator with its GC and libuv threads.
          operator: driver.separateProcess ? seconds(whole) : seconds(whole) - driverThread,
          process: seconds(whole),
          apiserver: apiserver1 - apiserver0,
          etcd: etcd1 - etcd0,
        },
        eventLoopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
        idleThreadDelayMs: await idleThread.stop(),
        loopBreakdown,
      };
    },
  };
}

/**
 * `--apiserver-profile DIR`: kube-apiserver's CPU profile of a phase's first seconds; stop() waits
 * for it, prints where the samples went and returns that (or why it could not be read).
 */
function apiServerProfiler(kubeconfigPath: string, phase: string) {
  const dir = flags['apiserver-profile'];
  if (!dir) return undefined;
  const seconds = Number(flags['apiserver-profile-seconds']);
  const file = join(dir, `apiserver-${phase}.pprof`);
  const written = mkdir(dir, { recursive: true }).then(() =>
    captureApiServerProfile(kubeconfigPath, seconds, file),
  );
  // A failed capture is reported by stop(), not left unhandled while the phase runs.
  const settled = written.then(
    () => undefined,
    (err: Error) => err,
  );
  return {
    async stop() {
      const err = await settled;
      const summary = err ? `capture failed: ${err.message}` : await summariseApiServerProfile(file);
      const shown =
        typeof summary === 'string'
          ? summary
          : `${summary.sampledCpuSeconds.toFixed(1)} CPU-s sampled in ${seconds} s; ${Object.entries(
              summary.shares,
            )
              .map(([k, v]) => `${k} ${(v * 100).toFixed(0)} %`)
              .join(', ')} (overlapping; ${file})`;
      line(`apiserver profile (${phase})`, shown);
      return summary;
    },
  };
}

function usageLines(phase: string, u: Usage): void {
  const c = u.cpuSeconds;
  line(
    `CPU-s ${phase}: op thread/operator/process/apiserver/etcd`,
    `${c.operatorThread.toFixed(2)} / ${c.operator.toFixed(2)} / ${c.process.toFixed(2)} / ${c.apiserver.toFixed(2)} / ${c.etcd.toFixed(2)} in ${u.wallSeconds.toFixed(1)} s`,
  );
  line(
    `event-loop delay p99 / max (${phase})`,
    `${u.eventLoopDelayMs.p99.toFixed(1)} / ${u.eventLoopDelayMs.max.toFixed(1)} ms operator thread, ` +
      `${u.idleThreadDelayMs.p99.toFixed(1)} / ${u.idleThreadDelayMs.max.toFixed(1)} ms idle thread`,
  );
  const b = u.loopBreakdown;
  const l = b.longIntervals;
  line(
    `loop intervals (${phase}): p99 / p99 without run-queue wait`,
    `${b.intervalP99Ms.toFixed(1)} / ${b.withoutWaitP99Ms.toFixed(1)} ms; run-queue wait ` +
      `${b.waitSeconds.toFixed(2)} s (${(100 * b.waitShare).toFixed(1)} % of wall); ${l.count} intervals ≥ p99, ` +
      `mean ${l.meanMs.toFixed(1)} ms = wait ${l.waitMs.toFixed(1)} + run ${l.runMs.toFixed(1)} ` +
      `(gc ${l.gcMs.toFixed(1)}) + idle ${l.idleMs.toFixed(1)}`,
  );
}

function latencySummary(ms: number[]): { p50: number; p99: number; max: number; count: number } {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    p50: pct(sorted, 50),
    p99: pct(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    count: sorted.length,
  };
}

function ms3(l: { p50: number; p99: number; max: number }, digits = 0): string {
  return `${l.p50.toFixed(digits)} / ${l.p99.toFixed(digits)} / ${l.max.toFixed(digits)} ms`;
}

/** What every phase needs: the control plane, the in-process operator, its request counts, the driver. */
interface Bench {
  plane: ControlPlane;
  counts: Map<string, number>;
  driver: FleetDriver;
  ceilingPerSec: number;
  failures: Failures;
  /** The operator's own Prometheus metrics (text format). */
  operatorMetrics: () => Promise<string>;
  /** The operator's controller_runtime_reconcile_total. */
  reconcileTotal: OperatorContext['mgr']['metrics']['reconcileTotal'];
  /** The AgentClusterInstalls in the operator's cache. */
  acis: () => AgentClusterInstall[];
}

function addFailures(into: Failures, from: Failures): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

async function registrationWave(b: Bench) {
  const before = new Map(b.counts);
  const watchEnds0 = await agentWatchEnds(b);
  const profiler = flags['profile-wave'] ? await startProfiler() : undefined;
  const heapProfiler = flags['heap-profile-wave'] ? await startHeapProfiler() : undefined;
  const reconciles0 = await reconcilesByController(b);
  const meter = await startMeter(b.plane, b.driver);
  const apiServerProfile = apiServerProfiler(b.plane.kubeconfigPath, 'registration');
  const reg = await b.driver.register();
  await quiet(b.counts);
  const usage = await meter.stop();
  const reconcilesPerHost = perHost(await reconcilesByController(b), reconciles0);
  if (profiler) await profiler.stop(flags['profile-wave']!);
  if (heapProfiler) await heapProfiler.stop(flags['heap-profile-wave']!);
  addFailures(b.failures, reg.failures);
  const requests = diff(b.counts, before);
  const agentWatchEndsInWave = diffRecord(await agentWatchEnds(b), watchEnds0);
  const perSec = HOSTS / reg.seconds;
  const writesPerReg = writesOf(new Map(Object.entries(requests))) / HOSTS;
  const r = {
    seconds: reg.seconds,
    perSec,
    latencyMs: latencySummary(reg.latenciesMs),
    apiWritesPerHost: writesPerReg,
    requests,
    ceilingFraction: (perSec * writesPerReg) / b.ceilingPerSec,
    ceilingBoundPerSec: b.ceilingPerSec / writesPerReg,
    agentWatchEnds: agentWatchEndsInWave,
    reconcilesPerHost,
    ...usage,
  };
  line('registrations', `${HOSTS} in ${r.seconds.toFixed(1)} s = ${perSec.toFixed(1)} /s`);
  line('register latency p50 / p99 / max', ms3(r.latencyMs));
  line('API writes per registration (until quiet)', writesPerReg.toFixed(2));
  line('registration requests by verb', JSON.stringify(requests));
  line('reconciles per registration by controller', JSON.stringify(reconcilesPerHost));
  line('Agent watch ends (ours by reason / server)', JSON.stringify(agentWatchEndsInWave));
  line(
    'write rate as fraction of ceiling',
    `${(r.ceilingFraction * 100).toFixed(0)} % (ceiling ÷ writes/host = ${r.ceilingBoundPerSec.toFixed(0)} hosts/s)`,
  );
  usageLines('registration', usage);
  const c = usage.cpuSeconds;
  line('apiserver CPU per registration', `${((c.apiserver / HOSTS) * 1000).toFixed(1)} ms`);
  if (apiServerProfile) Object.assign(r, { apiServerProfile: await apiServerProfile.stop() });
  line(
    'CPU per registered host: op thread / operator / process',
    `${((c.operatorThread / HOSTS) * 1000).toFixed(1)} / ${((c.operator / HOSTS) * 1000).toFixed(1)} / ${((c.process / HOSTS) * 1000).toFixed(1)} ms`,
  );
  return r;
}

/** One inventory reply and one next-steps poll per host, until quiet. */
async function inventoryWave(b: Bench) {
  const before = new Map(b.counts);
  const reconciles0 = await reconcilesByController(b);
  const profiler = flags['profile-inventory'] ? await startProfiler() : undefined;
  const meter = await startMeter(b.plane, b.driver);
  const inv = await b.driver.inventory();
  await quiet(b.counts);
  const usage = await meter.stop();
  if (profiler) await profiler.stop(flags['profile-inventory']!);
  addFailures(b.failures, inv.failures);
  const requests = diff(b.counts, before);
  const r = {
    seconds: inv.seconds,
    wavePolls: inv.wavePolls,
    replyLatencyMs: latencySummary(inv.replyLatenciesMs),
    apiWritesPerHost: writesOf(new Map(Object.entries(requests))) / HOSTS,
    requests,
    reconcilesPerHost: perHost(await reconcilesByController(b), reconciles0),
    ...usage,
  };
  line('inventory wave', `${inv.seconds.toFixed(1)} s, ${r.apiWritesPerHost.toFixed(2)} writes/host`);
  if (flags['poll-during-waves']) line('polls the hosts sent since registering', String(inv.wavePolls));
  line('inventory reply latency p50 / p99 / max', ms3(r.replyLatencyMs));
  line('inventory requests by verb', JSON.stringify(requests));
  line('reconciles per host by controller', JSON.stringify(r.reconcilesPerHost));
  usageLines('inventory', usage);
  return r;
}

/** `--heap-snapshots-idle DIR`: two snapshots of this thread's heap, 40 % and 90 % into the idle window. */
async function idleSnapshots(seconds: number): Promise<NodeJS.Timeout[]> {
  const dir = flags['heap-snapshots-idle'];
  if (!dir) return [];
  await mkdir(dir, { recursive: true });
  return (
    [
      [0.4, 'idle-early'],
      [0.9, 'idle-late'],
    ] as const
  ).map(([at, name]) =>
    setTimeout(
      () => {
        const file = v8.writeHeapSnapshot(join(dir, `${name}.heapsnapshot`));
        line(`heap snapshot (${name})`, file);
      },
      at * seconds * 1000,
    ),
  );
}

/**
 * `--idle-hosts-seconds`: every host polls its next steps every `--idle-poll-seconds` (10, as
 * issue 16's figures were taken); writes and CPU per idle host.
 */
async function idleHosts(b: Bench) {
  const seconds = Number(flags['idle-hosts-seconds']);
  const every = Number(flags['idle-poll-seconds']);
  const before = new Map(b.counts);
  const meter = await startMeter(b.plane, b.driver);
  const profiler = flags['profile-idle'] ? await startProfiler() : undefined;
  const heapProfiler = flags['heap-profile-idle'] ? await startHeapProfiler() : undefined;
  const startedAt = performance.timeOrigin + performance.now();
  const snapshots = await idleSnapshots(seconds);
  if (flags['trace-gc-idle']) v8.setFlagsFromString('--trace-gc-nvp');
  const polls = await b.driver.idle(seconds, every);
  for (const t of snapshots) clearTimeout(t);
  if (flags['trace-gc-idle']) v8.setFlagsFromString('--no-trace-gc-nvp');
  if (profiler) await profiler.stop(flags['profile-idle']!);
  if (heapProfiler) await heapProfiler.stop(flags['heap-profile-idle']!);
  const usage = await meter.stop();
  const steadyRssMiB = process.memoryUsage().rss / 1024 / 1024;
  const driverHeapMiB = (await b.driver.heapBytes()) / 1024 / 1024;
  addFailures(b.failures, polls.failures);
  const requests = diff(b.counts, before);
  const writes = writesOf(new Map(Object.entries(requests)));
  const perHostMinute = (cpu: number) => cpu / HOSTS / (usage.wallSeconds / 60);
  const r = {
    seconds: usage.wallSeconds,
    polls: polls.polls,
    pollLatencyMs: latencySummary(polls.latenciesMs),
    apiWrites: writes,
    apiWritesPerIdleHostPerHour: writes / HOSTS / (usage.wallSeconds / 3600),
    requests,
    cpuSecondsPerIdleHostPerMinute: {
      operatorThread: perHostMinute(usage.cpuSeconds.operatorThread),
      operator: perHostMinute(usage.cpuSeconds.operator),
      process: perHostMinute(usage.cpuSeconds.process),
    },
    steadyRssMiB,
    driverHeapMiB,
    slowPolls: polls.slowPolls,
    driverLoopDelayMs: polls.driverLoopDelayMs,
    driverStalls: polls.driverStalls,
    ...usage,
  };
  line('idle hosts', `${HOSTS} polling every ${every} s for ${r.seconds.toFixed(0)} s, ${r.polls} polls`);
  line('idle poll latency p50 / p99 / max', ms3(r.pollLatencyMs, 1));
  slowPollLines(polls, usage.loopBreakdown.stalls, startedAt);
  line(
    'API writes while idle',
    `${writes} = ${r.apiWritesPerIdleHostPerHour.toFixed(2)} per idle host per hour`,
  );
  line(
    'CPU-s per idle host per minute: op thread / operator / process',
    `${r.cpuSecondsPerIdleHostPerMinute.operatorThread.toFixed(4)} / ${r.cpuSecondsPerIdleHostPerMinute.operator.toFixed(4)} / ${r.cpuSecondsPerIdleHostPerMinute.process.toFixed(4)}`,
  );
  usageLines('idle hosts', usage);
  line(
    'steady RSS (end of idle window)',
    b.driver.separateProcess
      ? `${steadyRssMiB.toFixed(0)} MiB (the driver is a process of its own)`
      : `${steadyRssMiB.toFixed(0)} MiB, of which the driver thread's heap ${driverHeapMiB.toFixed(0)} MiB`,
  );
  const floorSeconds = Math.min(Number(flags['http-floor-seconds']), seconds);
  if (floorSeconds <= 0) return r;
  const floor = await measureHttpFloor(b.driver, floorSeconds, every);
  addFailures(b.failures, floor.failures);
  const pollMicros = (usage.cpuSeconds.operatorThread / Math.max(1, r.polls)) * 1e6;
  line(
    'bare HTTP server, the same polls: CPU per request',
    `${floor.cpuMicrosPerRequest.toFixed(0)} µs (${floor.requests} requests in ${floor.seconds.toFixed(0)} s); a poll on the operator's thread ${pollMicros.toFixed(0)} µs = ${(pollMicros / floor.cpuMicrosPerRequest).toFixed(1)} ×`,
  );
  return { ...r, httpFloor: { ...floor, operatorThreadMicrosPerPoll: pollMicros } };
}

/**
 * Where the slow polls of a polling phase came from: their episodes, each beside the operator's
 * and the driver's long loop intervals that overlap it (bench/slow-polls.ts).
 */
function slowPollLines(polls: IdleResult, operatorStalls: LongInterval[], startedAt: number): void {
  const s = polls.slowPolls;
  const d = polls.driverLoopDelayMs;
  line(
    `slow polls (≥ ${s.thresholdMs} ms)`,
    `${s.slow} in ${s.episodes} episodes; driver loop delay p99 / max ${d.p99.toFixed(1)} / ${d.max.toFixed(1)} ms`,
  );
  const list = (xs: LongInterval[]) =>
    xs.length === 0
      ? 'none'
      : xs
          .sort((a, b) => a.at - b.at)
          .map((x) =>
            Number.isNaN(x.waitMs)
              ? `${x.ms.toFixed(0)} (gc ${x.gcMs.toFixed(0)})`
              : `${x.ms.toFixed(0)} (wait ${x.waitMs.toFixed(0)}, run ${x.runMs.toFixed(0)}, gc ${x.gcMs.toFixed(0)})`,
          )
          .join(', ');
  for (const e of s.largest) {
    line(
      `  episode at +${((e.from - startedAt) / 1000).toFixed(1)} s`,
      `${e.polls} polls over ${((e.to - e.from) / 1000).toFixed(2)} s, max ${e.maxMs.toFixed(0)} ms, driver in flight max ${e.maxInFlight}; operator intervals ≥ 100 ms: ${list(intervalsDuring(e, operatorStalls))}; driver's: ${list(intervalsDuring(e, polls.driverStalls))}`,
    );
  }
}

/** The largest IPv4 majority group in any cluster's status (0 while none is stored). */
function largestIpv4Group(acis: AgentClusterInstall[]): number {
  let largest = 0;
  for (const aci of acis) {
    const groups = parseConnectivity(aci.status?.connectivityMajorityGroups)?.majority_groups;
    largest = Math.max(largest, groups?.IPv4?.length ?? 0);
  }
  return largest;
}

/**
 * `--connectivity-seconds`: the hosts poll as idle hosts do and answer every connectivity check
 * they are handed with a full report (each names every other host of the cluster, so at 1,000
 * hosts a report is about 0.5 MiB). Above 150 hosts the operator admits 150 checks per cluster per
 * minute, and the idle phase's polls took the first minute's (the default 120 s spans a fresh
 * one). Each report that changes a cluster's inputs starts a majority-group computation, in slices
 * from 200 hosts. Run last: its reports make every later inventory change recompute the groups.
 */
async function connectivityWave(b: Bench) {
  const seconds = Number(flags['connectivity-seconds']);
  const perCluster = HOSTS / CLUSTERS;
  if (seconds <= 0 || perCluster < 3) {
    line('connectivity checks', `skipped (${seconds <= 0 ? '0 s' : 'fewer than 3 hosts per cluster'})`);
    return undefined;
  }
  const before = new Map(b.counts);
  const meter = await startMeter(b.plane, b.driver);
  const profiler = flags['profile-connectivity'] ? await startProfiler() : undefined;
  const wave = await b.driver.connectivity(seconds, POLL_SECONDS);
  await quiet(b.counts);
  if (profiler) await profiler.stop(flags['profile-connectivity']!);
  const usage = await meter.stop();
  addFailures(b.failures, wave.failures);
  const requests = diff(b.counts, before);
  const kib = latencySummary(wave.reportBytes.map((n) => n / 1024));
  const r = {
    seconds: wave.seconds,
    polls: wave.polls,
    reports: wave.reports,
    reportKiB: kib,
    replyLatencyMs: latencySummary(wave.replyLatenciesMs),
    pollLatencyMs: latencySummary(wave.latenciesMs),
    driverLoopDelayMs: wave.driverLoopDelayMs,
    apiWrites: writesOf(new Map(Object.entries(requests))),
    requests,
    largestIpv4Group: largestIpv4Group(b.acis()),
    ...usage,
  };
  line(
    'connectivity checks',
    `${HOSTS} hosts polling every ${POLL_SECONDS} s for ${wave.seconds.toFixed(0)} s: ${wave.polls} polls, ${wave.reports} reports`,
  );
  line('report size p50 / max', `${kib.p50.toFixed(0)} / ${kib.max.toFixed(0)} KiB`);
  line('report POST p50 / p99 / max', ms3(r.replyLatencyMs));
  line('poll p50 / p99 / max (connectivity)', ms3(r.pollLatencyMs, 1));
  line(
    'driver event-loop delay p99 / max',
    `${wave.driverLoopDelayMs.p99.toFixed(1)} / ${wave.driverLoopDelayMs.max.toFixed(1)} ms (in the latencies above; the report builds)`,
  );
  line('connectivity API writes', `${r.apiWrites} ${JSON.stringify(requests)}`);
  line('largest IPv4 majority group stored', `${r.largestIpv4Group} hosts`);
  usageLines('connectivity', usage);
  return r;
}

/**
 * `--event-status-seconds`: status-changing host events (inventory replies with a new CPU clock) at
 * `--installs-per-hour` × `--events-per-install` per hour; the driver times each from the reply's
 * 2xx answer to the change on its own watch of Agents through the API server.
 */
async function eventStatus(b: Bench) {
  const seconds = Number(flags['event-status-seconds']);
  const installsPerHour = Number(flags['installs-per-hour']);
  const eventsPerInstall = Number(flags['events-per-install']);
  const perSecond = (installsPerHour * eventsPerInstall) / 3600;
  const before = new Map(b.counts);
  const meter = await startMeter(b.plane, b.driver);
  const ev = await b.driver.events(seconds, perSecond, 30);
  const usage = await meter.stop();
  addFailures(b.failures, ev.failures);
  const requests = diff(b.counts, before);
  const writesPerEvent = writesOf(new Map(Object.entries(requests))) / Math.max(1, ev.sent);
  const r = {
    installsPerHour,
    eventsPerInstall,
    eventsPerSecond: perSecond,
    seconds: ev.seconds,
    sent: ev.sent,
    skipped: ev.skipped,
    latencyMs: latencySummary(ev.latenciesMs),
    apiWritesPerEvent: writesPerEvent,
    ceilingFraction: (perSecond * writesPerEvent) / b.ceilingPerSec,
    requests,
    ...usage,
  };
  line(
    'event → status',
    `${perSecond.toFixed(2)} events/s (${installsPerHour} installs/h × ${eventsPerInstall}) for ${ev.seconds.toFixed(0)} s: ${ev.sent} sent, ${r.latencyMs.count} seen, ${ev.skipped} skipped`,
  );
  line('event → status p50 / p99 / max', ms3(r.latencyMs));
  line(
    'API writes per event',
    `${writesPerEvent.toFixed(2)} (${(r.ceilingFraction * 100).toFixed(1)} % of ceiling) ${JSON.stringify(requests)}`,
  );
  usageLines('event → status', usage);
  return r;
}

/**
 * Sets the nice value of every thread of `pid`: Linux keeps it per thread, and threads created
 * later inherit it from the thread that creates them.
 */
async function reniceThreads(pid: number, nice: number): Promise<void> {
  for (const tid of await readdir(`/proc/${pid}/task`)) setPriority(Number(tid), nice);
}

/** The local control plane, in a session of its own with --own-sessions, its threads at --plane-nice. */
async function startPlane(): Promise<ControlPlane> {
  const ownSession = flags['own-sessions'];
  const plane = await ControlPlane.start({ ownSession });
  if (ownSession) line('kube-apiserver and etcd', 'a session (autogroup) of their own');
  const nice = Number(flags['plane-nice']);
  if (nice !== 0) {
    for (const pid of [plane.pids.apiserver, plane.pids.etcd]) if (pid) await reniceThreads(pid, nice);
    line('kube-apiserver and etcd threads', `nice ${nice}`);
  }
  return plane;
}

async function main(): Promise<void> {
  const started = Date.now();
  console.log(
    `bench-scale: ${CLUSTERS} SNO clusters${SHAPE === 'ztp' ? ' as ZTP sites' : ''}, ${HOSTS} hosts, concurrency ${CONCURRENCY}`,
  );
  const plane = await startPlane();
  const dataDir = await mkdtemp(join(tmpdir(), 'aio-bench-'));
  const admin = new KubeClient({ kubeConfig: loadKubeConfig(plane.kubeconfigPath), qps: 0 });
  let driver: FleetDriver | undefined;
  let closeOsImage: (() => Promise<void>) | undefined;
  try {
    await installCrds(plane.kubeconfigPath, await projectCrdFiles());
    const createLoop = await ceiling(admin, plane);
    const ceilingPerSec = createLoop.perSec;
    line(
      'API server write ceiling (create loop)',
      `${ceilingPerSec.toFixed(0)} writes/s, apiserver CPU ${createLoop.apiServerMsPerWrite.toFixed(2)} ms per create`,
    );
    await admin.create(NAMESPACE, { metadata: { name: NS } } as never);

    const port = await freePort();
    const config = loadOperatorConfig([], {
      KUBECONFIG: plane.kubeconfigPath,
      POD_NAMESPACE: NS,
      ...WATCH_ENV,
      LEADER_ELECT: 'false',
      METRICS_BIND_ADDRESS: '0',
      HEALTH_PROBE_BIND_ADDRESS: '0',
      API_BIND_HOST: '127.0.0.1',
      API_PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      ...SHAPE_ENV,
    });
    const logger = createLogger({ level: config.runtime.logLevel });
    const op = await startOperator(config, { kubeConfig: loadKubeConfig(plane.kubeconfigPath), logger });
    op.done.catch((err) => logger.error({ err }, 'operator stopped'));
    const counts = countRequests(op.ctx.client);
    while (!op.ctx.mgr.isReady()) await new Promise((r) => setTimeout(r, 50));

    if (SHAPE === 'ztp') closeOsImage = await serveFleetOsImage(admin, join(dataDir, 'fleet-os-image'));
    const t0 = performance.now();
    const beforeFleet = new Map(counts);
    const ies = await createClusters(admin, SITE_NAMESPACE, CLUSTERS, CONCURRENCY, SHAPE, flags.applied);
    while (
      ies.some((ie) => !op.ctx.infraEnvById(ie.metadata.uid ?? '')) ||
      op.ctx.informers.agentClusterInstalls.store.list().length < CLUSTERS
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await quiet(counts);
    // A ZTP site's image waits out the InfraEnv image cool-down (60 s by default), then BMAC boots it.
    if (SHAPE === 'ztp') await ztpImagesServed(op.ctx, counts);
    const settle = settled(diff(counts, beforeFleet), (performance.now() - t0) / 1000);
    if (SHAPE === 'ztp') Object.assign(settle, { ztp: ztpProgress(op.ctx, 'ZTP sites settled') });
    Object.assign(settle, { cached: cachedJson(op.ctx, 'fleet settled') });
    driver = new FleetDriver(
      {
        base: `http://127.0.0.1:${op.hostServer.port}/api/assisted-install`,
        tokens: ies.map((ie) =>
          op.hostServer.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
        ),
        infraEnvIds: ies.map((ie) => ie.metadata.uid ?? ''),
        hosts: HOSTS,
        concurrency: CONCURRENCY,
        agentImage: op.ctx.settings.agentImage,
        kubeconfigPath: plane.kubeconfigPath,
        namespace: FLEET_NS,
        pollDuringWaves: flags['poll-during-waves'],
      },
      { separateProcess: flags['driver-process'], ownSession: flags['own-sessions'] },
    );
    line(
      'host driver',
      flags['driver-process']
        ? `a child process${flags['own-sessions'] ? ' in a session of its own' : ''}`
        : 'a worker thread of this process',
    );
    const b: Bench = {
      plane,
      counts,
      driver,
      ceilingPerSec,
      failures: {},
      operatorMetrics: () => op.ctx.mgr.metrics.registry.metrics(),
      reconcileTotal: op.ctx.mgr.metrics.reconcileTotal,
      acis: () => op.ctx.informers.agentClusterInstalls.store.list(),
    };

    const rssSampler = peakRssSampler();
    // Only what is still alive when it stops: what the hosts keep in the operator's memory.
    const hostsHeapProfiler = flags['heap-profile-hosts'] ? await startHeapProfiler(false, false) : undefined;
    const registration = await registrationWave(b);
    const afterWave = snapshotAfterWave(op.ctx);
    const inventory = await inventoryWave(b);
    if (SHAPE === 'ztp') {
      const ztp = ztpProgress(op.ctx, 'ZTP after inventory');
      if (ztp.agentsPaired < HOSTS) b.failures['Agents not paired with their BMH'] = HOSTS - ztp.agentsPaired;
      if (ztp.ppisWithImage < CLUSTERS) b.failures['PPIs without an image'] = CLUSTERS - ztp.ppisWithImage;
      Object.assign(inventory, { ztp });
    }
    const idleHostsReport = await idleHosts(b);
    const eventToStatus = await eventStatus(b);
    const connectivity = await connectivityWave(b);
    const peakRss = await rssSampler.stop();
    const cachedWithHosts = cachedJson(op.ctx, 'hosts in place');
    if (hostsHeapProfiler) await hostsHeapProfiler.stop(flags['heap-profile-hosts']!);
    const stored = await storedObjects(admin, plane);
    const agents = op.ctx.informers.agents.store.list().length;
    if (agents !== HOSTS) b.failures[`Agents in cache ${agents}, not ${HOSTS}`] = 1;
    const eventsDropped = await droppedEvents(op.ctx);
    line('events not stored, by reason', JSON.stringify(eventsDropped));
    // A rate-limited object is by design; a full backlog or a failed write loses an event.
    for (const reason of ['backlog', 'api_error']) {
      if (eventsDropped[reason]) b.failures[`events not stored (${reason})`] = eventsDropped[reason];
    }
    line('peak RSS (operator + driver)', `${(peakRss / 1024 / 1024).toFixed(0)} MiB`);
    line('Agents in cache / failures', `${agents} / ${JSON.stringify(b.failures)}`);

    const report = {
      clusters: CLUSTERS,
      shape: SHAPE,
      hosts: HOSTS,
      concurrency: CONCURRENCY,
      settle,
      node: process.version,
      apiServerWriteCeilingPerSec: Math.round(ceilingPerSec),
      apiServerMsPerCeilingCreate: createLoop.apiServerMsPerWrite,
      registration,
      inventory,
      idleHosts: idleHostsReport,
      eventToStatus,
      connectivity,
      peakRssMiB: peakRss / 1024 / 1024,
      cachedWithHosts,
      stored,
      agentsInCache: agents,
      failures: b.failures,
      totalSeconds: (Date.now() - started) / 1000,
    };
    await driver.stop();
    driver = undefined;
    await op.stop();
    const sameWrites = await sameWritesCeiling(admin, plane, afterWave, registration.perSec);
    const isoMiB = Number(flags['iso-mib'] ?? (CLUSTERS >= 1000 ? 256 : 64));
    let iso: Awaited<ReturnType<typeof measureIsoThroughput>> | undefined;
    const startupSeconds = await startupWithFleet(plane, config, logger, async (ctx) => {
      if (isoMiB > 0) iso = await measureIsoThroughput({ admin, ctx, namespace: NS, isoMiB, line });
    });
    const operatorProcess =
      Number(flags['fleet-process-seconds']) > 0 ? await operatorProcessWithFleet(plane, dataDir) : undefined;
    const operatorProcessVariants = [];
    for (const variant of flags['fleet-process-variant'] ?? []) {
      operatorProcessVariants.push({ variant, ...(await operatorProcessWithFleet(plane, dataDir, variant)) });
    }
    await mkdir(dirname(flags.out!), { recursive: true });
    const full = {
      ...report,
      sameWritesCeiling: sameWrites,
      startupToReadySeconds: startupSeconds,
      isoThroughput: iso,
      operatorProcess,
      operatorProcessVariants,
    };
    await writeFile(flags.out!, `${JSON.stringify(full, null, 2)}\n`);
    console.log(`report written to ${flags.out}`);
    if (Object.keys(b.failures).length > 0) {
      console.error(`bench-scale: the run broke: ${JSON.stringify(b.failures)}`);
      process.exitCode = 1;
    }
    for (const run of [operatorProcess, ...operatorProcessVariants]) {
      if (run && 'failed' in run) {
        console.error(`bench-scale: the run broke: the shipped operator process: ${run.failed}`);
        process.exitCode = 1;
      }
    }
  } finally {
    await driver?.stop();
    await closeOsImage?.();
    await admin.close();
    await plane.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/**
 * How far the ZTP sites got, read from the operator's caches (no API request): PreprovisioningImages
 * given an image, Agents paired with their BareMetalHost (BMAC's label) and approved. After the
 * inventory wave every site should have its image and every host's Agent its BMH; main() counts a
 * shortfall as a failure of the run.
 */
function ztpProgress(ctx: OperatorContext, what: string) {
  const agents = ctx.informers.agents.store.list();
  const r = {
    ppisWithImage: ppisWithImage(ctx),
    agents: agents.length,
    agentsPaired: agents.filter((a) => a.metadata.labels?.[AGENT_BMH_LABEL]).length,
    agentsApproved: agents.filter((a) => a.spec.approved).length,
  };
  line(
    what,
    `PPIs with an image ${r.ppisWithImage}/${CLUSTERS}, Agents ${r.agents}, paired with their BMH ${r.agentsPaired}, approved ${r.agentsApproved}`,
  );
  return r;
}

/**
 * What the operator's caches hold per cluster, as JSON (the heap they take follows it): all cached
 * objects of the fleet's kinds, and of that the kubectl last-applied annotations (`--applied`);
 * `when` the fleet's hosts are in place, the cached Agents' JSON per Agent too.
 */
function cachedJson(ctx: OperatorContext, when: 'fleet settled' | 'hosts in place') {
  const kinds = [
    CLUSTER_DEPLOYMENT,
    AGENT_CLUSTER_INSTALL,
    INFRA_ENV,
    NMSTATE_CONFIG,
    BARE_METAL_HOST,
    PREPROVISIONING_IMAGE,
    SECRET,
    AGENT,
    CLUSTER_IMAGE_SET,
  ];
  let all = 0;
  let lastApplied = 0;
  let agentJson = 0;
  let agents = 0;
  for (const kind of kinds) {
    for (const obj of ctx.mgr.cache.existing(kind)?.store.list() ?? []) {
      const bytes = JSON.stringify(obj).length;
      all += bytes;
      if (kind === AGENT) {
        agentJson += bytes;
        agents += 1;
      }
      lastApplied += obj.metadata.annotations?.[LAST_APPLIED_ANNOTATION]?.length ?? 0;
    }
  }
  // The driver is a worker thread or a process: this isolate's heap is the operator's and the bench's.
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
  const r = {
    kibPerCluster: all / 1024 / CLUSTERS,
    lastAppliedKibPerCluster: lastApplied / 1024 / CLUSTERS,
    ...(agents > 0 ? { kibPerAgent: agentJson / 1024 / agents } : {}),
    heapAfterGcMiB: process.memoryUsage().heapUsed / 2 ** 20,
  };
  line(
    `cached JSON per cluster (of it last-applied), ${when}`,
    `${r.kibPerCluster.toFixed(2)} KiB (${r.lastAppliedKibPerCluster.toFixed(2)} KiB)${flags.applied ? ', objects created as kubectl apply does' : ''}`,
  );
  if (r.kibPerAgent !== undefined) line('cached JSON per Agent', `${r.kibPerAgent.toFixed(2)} KiB`);
  line(`operator thread heap after a full GC, ${when}`, `${r.heapAfterGcMiB.toFixed(0)} MiB`);
  return r;
}

/** PreprovisioningImages in the operator's cache that have been given an image. */
function ppisWithImage(ctx: OperatorContext): number {
  const ppis = ctx.mgr.informer<PreprovisioningImage>(PREPROVISIONING_IMAGE).store.list();
  return ppis.filter((p) => p.status?.imageUrl).length;
}

/** Resolves once every site's PreprovisioningImage has its image and the operator is quiet (≤ 10 min). */
async function ztpImagesServed(ctx: OperatorContext, counts: Map<string, number>): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (ppisWithImage(ctx) < CLUSTERS && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
  }
  await quiet(counts);
}

/** The fleet's creation until the operator was quiet: seconds, and the operator's requests for it. */
function settled(requests: Record<string, number>, seconds: number) {
  const writesPerCluster = writesOf(new Map(Object.entries(requests))) / CLUSTERS;
  line('clusters created and settled', `${seconds.toFixed(1)} s`);
  line('operator writes per cluster to settle', `${writesPerCluster.toFixed(2)} ${JSON.stringify(requests)}`);
  return { seconds, writesPerCluster, requests };
}

/** What the fleet holds in the API server after the phases, by kind, and the API server's RSS then. */
async function storedObjects(admin: KubeClient, plane: ControlPlane) {
  const kinds = [CLUSTER_DEPLOYMENT, AGENT_CLUSTER_INSTALL, INFRA_ENV, AGENT, SECRET, CONFIG_MAP, EVENT];
  if (SHAPE === 'ztp') kinds.push(NMSTATE_CONFIG, BARE_METAL_HOST, PREPROVISIONING_IMAGE);
  const stored = await measureStoredObjects(admin, kinds, FLEET_NS);
  const kib = (n: number) => (n / 1024).toFixed(1);
  for (const k of stored) {
    if (k.objects === 0) continue;
    line(
      `stored ${k.kind}s: objects, KiB each (managedFields)`,
      `${k.objects}, ${kib(k.bytes / k.objects)} (${kib(k.managedFieldsBytes / k.objects)})`,
    );
  }
  const bytes = stored.reduce((sum, k) => sum + k.bytes, 0);
  const apiserverRss = plane.pids.apiserver ? (await procUsage(plane.pids.apiserver)).rss : Number.NaN;
  line(
    'stored in all: MiB, KiB per cluster; apiserver RSS',
    `${(bytes / 1024 / 1024).toFixed(1)}, ${kib(bytes / CLUSTERS)}; ${(apiserverRss / 1024 / 1024).toFixed(0)} MiB`,
  );
  return { kinds: stored, bytes, apiserverRssMiB: apiserverRss / 1024 / 1024 };
}

/** The Agents and AgentClusterInstalls as the registration wave left them. */
function snapshotAfterWave(ctx: OperatorContext): {
  agents: Agent[];
  acis: Map<string, AgentClusterInstall>;
} {
  const acis = ctx.informers.agentClusterInstalls.store.list();
  return {
    agents: ctx.informers.agents.store.list(),
    acis: new Map(acis.map((a) => [a.metadata.name ?? '', a])),
  };
}

/**
 * The registration wave's writes again, with the operator stopped (bench/writes-ceiling.ts): how
 * fast the API server takes these writes, and the registration rate as a share of that.
 */
async function sameWritesCeiling(
  admin: KubeClient,
  plane: ControlPlane,
  wave: ReturnType<typeof snapshotAfterWave>,
  registrationsPerSec: number,
) {
  const aciOf = (a: Agent) => wave.acis.get(a.spec.clusterDeploymentName?.name ?? '');
  const apiServerProfile = apiServerProfiler(plane.kubeconfigPath, 'same-writes');
  const cpu0 = plane.pids.apiserver ? (await procUsage(plane.pids.apiserver)).cpuSeconds : Number.NaN;
  const wc = await measureWritesCeiling(admin, wave.agents, aciOf, CONCURRENCY);
  const cpu1 = plane.pids.apiserver ? (await procUsage(plane.pids.apiserver)).cpuSeconds : Number.NaN;
  const share = registrationsPerSec / wc.registrationsPerSec;
  const apiServerMsPerRegistration = ((cpu1 - cpu0) / wave.agents.length) * 1000;
  line(
    'same writes, operator stopped',
    `${wc.registrationsPerSec.toFixed(1)} registrations/s (${wc.writesPerSec.toFixed(0)} writes/s), Agent create + status p50 / p99 ${wc.latencyMs.p50.toFixed(0)} / ${wc.latencyMs.p99.toFixed(0)} ms`,
  );
  line('registration rate ÷ same-writes rate', `${(share * 100).toFixed(0)} %`);
  line('apiserver CPU per registration (same writes)', `${apiServerMsPerRegistration.toFixed(1)} ms`);
  const profile = await apiServerProfile?.stop();
  return { ...wc, registrationShare: share, apiServerMsPerRegistration, apiServerProfile: profile };
}

/** A restart with the whole fleet in place: how long until the caches have synced. */
async function startupWithFleet(
  plane: ControlPlane,
  config: ReturnType<typeof loadOperatorConfig>,
  logger: ReturnType<typeof createLogger>,
  /** Runs on the restarted operator after the figure (the ISO download phase). */
  thenWhileUp?: (ctx: OperatorContext) => Promise<void>,
): Promise<number> {
  const heapProfiler = flags['heap-profile-startup'] ? await startHeapProfiler(false) : undefined;
  const profiler = flags['profile-startup'] ? await startProfiler() : undefined;
  const s0 = performance.now();
  const cpu0 = process.threadCpuUsage();
  const again = await startOperator(config, { kubeConfig: loadKubeConfig(plane.kubeconfigPath), logger });
  try {
    while (!again.ctx.mgr.isReady()) await new Promise((r) => setTimeout(r, 50));
    const startupSeconds = (performance.now() - s0) / 1000;
    const cpu = process.threadCpuUsage(cpu0);
    if (profiler) await profiler.stop(flags['profile-startup']!);
    line(
      'operator start-up to ready (fleet in place)',
      `${startupSeconds.toFixed(1)} s, operator thread CPU ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`,
    );
    if (heapProfiler) {
      const windowMs = Number(flags['heap-profile-startup-seconds']) * 1000;
      await new Promise((r) => setTimeout(r, windowMs - (performance.now() - s0)));
      await heapProfiler.stop(flags['heap-profile-startup']!);
    }
    await thenWhileUp?.(again.ctx);
    return startupSeconds;
  } finally {
    await again.stop();
  }
}

if (flags.idle) await idle(Number(flags.idle));
else await main();
