// `make bench-scale`: the operator in-process on a real local kube-apiserver + etcd, M SNO clusters
// (pull Secret, ClusterDeployment, AgentClusterInstall, InfraEnv) and N hosts played over the REST
// API from this one process (no ISO, no per-host processes). Prints figures and writes a JSON report;
// asserts nothing (targets are read off the output). Flags: --clusters, --hosts, --concurrency, --out,
// --profile-wave FILE (CPU profile of the registration wave), --idle MINUTES (see idle()).
//
// Phases: the API server's own write ceiling (a plain create loop of small ConfigMaps), then a
// registration wave (register only, until the operator is quiet), then an inventory wave (one
// inventory reply and one next-steps poll per host, until quiet). API requests are counted by verb
// and resource on the operator's own client. CPU and RSS are this process's: operator + driver.

import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Agent as HttpAgent, request } from 'undici';
import type { InfraEnv } from '../src/api/index.ts';
import { ControlPlane } from '../src/dev/controlplane.ts';
import { installCrds, projectCrdFiles } from '../src/dev/crds.ts';
import { freePort } from '../src/dev/ports.ts';
import { loadKubeConfig, startOperator } from '../src/operator/main.ts';
import { loadOperatorConfig } from '../src/records/config.ts';
import {
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  CONFIG_MAP,
  INFRA_ENV,
  NAMESPACE,
  SECRET,
} from '../src/records/resources.ts';
import { createLogger, KubeClient } from '../src/runtime/index.ts';

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
  },
});
const CLUSTERS = Number(flags.clusters);
const HOSTS = Number(flags.hosts ?? flags.clusters);
const CONCURRENCY = Number(flags.concurrency);
const CEILING_CREATES = Number(flags.ceiling);
const NS = 'bench';
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function line(name: string, value: string): void {
  console.log(`${name.padEnd(44)} ${value}`);
}

function pct(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * The event-loop delay an idle worker thread of this process sees. The operator's loop shares the
 * process with it: delay seen by both is the process not being scheduled (a loaded box, or a
 * stop-the-world GC), delay seen only on the main loop is the operator's own work.
 */
function idleThreadDelay(): { stop(): Promise<{ p99: number; max: number }> } {
  const worker = new Worker(
    `const { parentPort } = require('node:worker_threads');
     const h = require('node:perf_hooks').monitorEventLoopDelay({ resolution: 10 });
     h.enable();
     parentPort.on('message', () => {
       h.disable();
       parentPort.postMessage({ p99: h.percentile(99) / 1e6, max: h.max / 1e6 });
     });`,
    { eval: true },
  );
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once('message', (m: { p99: number; max: number }) => {
          void worker.terminate();
          resolve(m);
        });
        worker.postMessage('stop');
      }),
  };
}

/** `--profile-wave FILE`: a CPU profile of the registration wave alone (Chrome .cpuprofile). */
async function startProfiler(): Promise<{ stop(file: string): Promise<void> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify(profile));
      session.disconnect();
    },
  };
}

/** Runs `work(i)` for i in [0, n) with at most `limit` in flight. */
async function pool(n: number, limit: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < n; i = next++) await work(i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, n) }, worker));
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
    const key = `${method} ${[rest[0], rest[2]].filter(Boolean).join('/')}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
    return send(method, path, opts);
  };
  return counts;
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

async function ceiling(client: KubeClient): Promise<number> {
  await client.create(NAMESPACE, { metadata: { name: 'bench-ceiling' } } as never);
  const t0 = performance.now();
  await pool(CEILING_CREATES, CONCURRENCY, async (i) => {
    await client.create(CONFIG_MAP, {
      metadata: { name: `cm-${i}`, namespace: 'bench-ceiling' },
      data: { k: 'v' },
    } as never);
  });
  return CEILING_CREATES / ((performance.now() - t0) / 1000);
}

async function createClusters(client: KubeClient): Promise<InfraEnv[]> {
  await client.create(CLUSTER_IMAGE_SET, {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'ClusterImageSet',
    metadata: { name: 'bench-4.18' },
    spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64' },
  } as never);
  const ies: InfraEnv[] = [];
  await pool(CLUSTERS, CONCURRENCY, async (i) => {
    const name = `sno-${i}`;
    await client.create(SECRET, {
      metadata: { name: `${name}-pull-secret`, namespace: NS },
      type: 'kubernetes.io/dockerconfigjson',
      stringData: { '.dockerconfigjson': '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}' },
    } as never);
    await client.create(CLUSTER_DEPLOYMENT, {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterDeployment',
      metadata: { name, namespace: NS },
      spec: {
        baseDomain: 'example.com',
        clusterName: name,
        clusterInstallRef: {
          group: 'extensions.hive.openshift.io',
          version: 'v1beta1',
          kind: 'AgentClusterInstall',
          name,
        },
        platform: { agentBareMetal: { agentSelector: {} } },
        pullSecretRef: { name: `${name}-pull-secret` },
      },
    } as never);
    await client.create(AGENT_CLUSTER_INSTALL, {
      apiVersion: 'extensions.hive.openshift.io/v1beta1',
      kind: 'AgentClusterInstall',
      metadata: { name, namespace: NS },
      spec: {
        clusterDeploymentRef: { name },
        imageSetRef: { name: 'bench-4.18' },
        networking: {
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
          machineNetwork: [{ cidr: '192.168.122.0/24' }],
          networkType: 'OVNKubernetes',
          userManagedNetworking: true,
        },
        provisionRequirements: { controlPlaneAgents: 1 },
      },
    } as never);
    ies[i] = await client.create<InfraEnv>(INFRA_ENV, {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'InfraEnv',
      metadata: { name, namespace: NS },
      spec: {
        pullSecretRef: { name: `${name}-pull-secret` },
        cpuArchitecture: 'x86_64',
        clusterRef: { name, namespace: NS },
      },
    } as InfraEnv);
  });
  return ies;
}

function inventory(i: number): string {
  const mac = `52:54:00:${((i >> 16) & 255).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
  return JSON.stringify({
    boot: { current_boot_mode: 'uefi' },
    cpu: { architecture: 'x86_64', count: 8, flags: ['vmx'], frequency: 2400, model_name: 'Xeon' },
    disks: [
      {
        by_path: '/dev/disk/by-path/pci-0000:00:04.0',
        drive_type: 'SSD',
        id: '/dev/disk/by-path/pci-0000:00:04.0',
        installation_eligibility: { eligible: true, not_eligible_reasons: null },
        name: 'vda',
        path: '/dev/vda',
        size_bytes: 214748364800,
        serial: `disk-${i}`,
      },
    ],
    hostname: `host-${i}`,
    interfaces: [
      {
        flags: ['up'],
        has_carrier: true,
        ipv4_addresses: [`192.168.122.${10 + (i % 200)}/24`],
        ipv6_addresses: [],
        mac_address: mac,
        mtu: 1500,
        name: 'enp1s0',
        speed_mbps: 1000,
        type: 'physical',
      },
    ],
    memory: { physical_bytes: 34359738368, usable_bytes: 33285996544 },
    routes: [{ destination: '0.0.0.0', family: 2, gateway: '192.168.122.1', interface: 'enp1s0' }],
    system_vendor: { manufacturer: 'Red Hat', product_name: 'KVM', virtual: true },
  });
}

function hostId(i: number): string {
  return `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
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
async function idle(minutes: number): Promise<void> {
  const warmupMs = Number(flags['idle-warmup']) * 1000;
  console.log(`bench-scale --idle: operator process, no clusters, no hosts, ${minutes} min`);
  const plane = await ControlPlane.start();
  const dataDir = await mkdtemp(join(tmpdir(), 'aio-bench-'));
  const admin = new KubeClient({ kubeConfig: loadKubeConfig(plane.kubeconfigPath), qps: 0 });
  try {
    await installCrds(plane.kubeconfigPath, await projectCrdFiles());
    await admin.create(NAMESPACE, { metadata: { name: NS } } as never);
    const [health, metrics, api] = [await freePort(), await freePort(), await freePort()];
    const s0 = performance.now();
    const child = spawn(process.execPath, [...(flags['node-arg'] ?? []), 'src/cmd/operator.ts'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        KUBECONFIG: plane.kubeconfigPath,
        POD_NAMESPACE: NS,
        WATCH_NAMESPACE: NS,
        METRICS_BIND_ADDRESS: `127.0.0.1:${metrics}`,
        HEALTH_PROBE_BIND_ADDRESS: `127.0.0.1:${health}`,
        API_BIND_HOST: '127.0.0.1',
        API_PORT: String(api),
        DATA_DIR: dataDir,
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
      },
    });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      while ((await fetch(`http://127.0.0.1:${health}/readyz`).catch(() => undefined))?.status !== 200) {
        if (child.exitCode !== null) throw new Error(`operator exited ${child.exitCode}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      line('start-up to ready', `${((performance.now() - s0) / 1000).toFixed(1)} s`);
      await new Promise((r) => setTimeout(r, warmupMs));
      const pid = child.pid!;
      const u0 = await procUsage(pid);
      let peak = u0.rss;
      const end = Date.now() + minutes * 60_000;
      while (Date.now() < end) {
        await new Promise((r) => setTimeout(r, 1000));
        peak = Math.max(peak, (await procUsage(pid)).rss);
      }
      const u1 = await procUsage(pid);
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

async function main(): Promise<void> {
  const started = Date.now();
  console.log(`bench-scale: ${CLUSTERS} SNO clusters, ${HOSTS} hosts, concurrency ${CONCURRENCY}`);
  const plane = await ControlPlane.start();
  const dataDir = await mkdtemp(join(tmpdir(), 'aio-bench-'));
  const http = new HttpAgent({ connections: CONCURRENCY });
  const admin = new KubeClient({ kubeConfig: loadKubeConfig(plane.kubeconfigPath), qps: 0 });
  try {
    await installCrds(plane.kubeconfigPath, await projectCrdFiles());
    const ceilingPerSec = await ceiling(admin);
    line('API server write ceiling (create loop)', `${ceilingPerSec.toFixed(0)} writes/s`);
    await admin.create(NAMESPACE, { metadata: { name: NS } } as never);

    const port = await freePort();
    const config = loadOperatorConfig([], {
      KUBECONFIG: plane.kubeconfigPath,
      POD_NAMESPACE: NS,
      WATCH_NAMESPACE: NS,
      LEADER_ELECT: 'false',
      METRICS_BIND_ADDRESS: '0',
      HEALTH_PROBE_BIND_ADDRESS: '0',
      API_BIND_HOST: '127.0.0.1',
      API_PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    });
    const logger = createLogger({ level: config.runtime.logLevel });
    const op = await startOperator(config, { kubeConfig: loadKubeConfig(plane.kubeconfigPath), logger });
    op.done.catch((err) => logger.error({ err }, 'operator stopped'));
    const counts = countRequests(op.ctx.client);
    const base = `http://127.0.0.1:${op.hostServer.port}/api/assisted-install`;
    while (!op.ctx.mgr.isReady()) await new Promise((r) => setTimeout(r, 50));

    const t0 = performance.now();
    const ies = await createClusters(admin);
    while (
      ies.some((ie) => !op.ctx.infraEnvById(ie.metadata.uid ?? '')) ||
      op.ctx.informers.agentClusterInstalls.store.list().length < CLUSTERS
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await quiet(counts);
    line('clusters created and settled', `${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const tokens = ies.map((ie) =>
      op.hostServer.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
    );
    const call = async (method: 'GET' | 'POST', path: string, i: number, body?: unknown) => {
      const res = await request(`${base}${path}`, {
        method,
        dispatcher: http,
        headers: {
          accept: 'application/json',
          'x-secret-key': tokens[i % CLUSTERS]!,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        ...(body ? { body: `${JSON.stringify(body)}\n` } : {}),
      });
      await res.body.text();
      return res.statusCode;
    };
    const iePath = (i: number) => `/v2/infra-envs/${ies[i % CLUSTERS]!.metadata.uid}/hosts`;

    // Registration wave.
    const loop = monitorEventLoopDelay({ resolution: 10 });
    let peakRss = process.memoryUsage().rss;
    const rssTimer = setInterval(() => {
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    }, 100);
    const before = new Map(counts);
    const cpu0 = process.cpuUsage();
    const latencies: number[] = [];
    const failures: Record<string, number> = {};
    const profiler = flags['profile-wave'] ? await startProfiler() : undefined;
    loop.enable();
    const idleThread = idleThreadDelay();
    const r0 = performance.now();
    await pool(HOSTS, CONCURRENCY, async (i) => {
      const s = performance.now();
      const status = await call('POST', iePath(i), i, {
        host_id: hostId(i),
        discovery_agent_version: op.ctx.settings.agentImage,
      });
      latencies.push(performance.now() - s);
      if (status !== 201) failures[`register ${status}`] = (failures[`register ${status}`] ?? 0) + 1;
    });
    const registerSeconds = (performance.now() - r0) / 1000;
    await quiet(counts);
    loop.disable();
    if (profiler) await profiler.stop(flags['profile-wave']!);
    const threadDelay = await idleThread.stop();
    const cpu1 = process.cpuUsage(cpu0);
    const regCounts = diff(counts, before);
    const regWrites = writesOf(new Map(Object.entries(regCounts)));

    // Inventory wave: one inventory reply and one next-steps poll per host.
    const before2 = new Map(counts);
    const cpu2 = process.cpuUsage();
    const i0 = performance.now();
    await pool(HOSTS, CONCURRENCY, async (i) => {
      const reply = await call('POST', `${iePath(i)}/${hostId(i)}/instructions`, i, {
        step_type: 'inventory',
        step_id: 'inventory-00000001',
        output: inventory(i),
      });
      if (reply !== 204) failures[`inventory ${reply}`] = (failures[`inventory ${reply}`] ?? 0) + 1;
      const poll = await call('GET', `${iePath(i)}/${hostId(i)}/instructions`, i);
      if (poll !== 200) failures[`poll ${poll}`] = (failures[`poll ${poll}`] ?? 0) + 1;
    });
    const inventorySeconds = (performance.now() - i0) / 1000;
    await quiet(counts);
    const cpu3 = process.cpuUsage(cpu2);
    const invCounts = diff(counts, before2);
    const invWrites = writesOf(new Map(Object.entries(invCounts)));
    clearInterval(rssTimer);
    const agents = op.ctx.informers.agents.store.list().length;

    latencies.sort((a, b) => a - b);
    const perSec = HOSTS / registerSeconds;
    const writesPerReg = regWrites / HOSTS;
    const report = {
      clusters: CLUSTERS,
      hosts: HOSTS,
      concurrency: CONCURRENCY,
      node: process.version,
      apiServerWriteCeilingPerSec: Math.round(ceilingPerSec),
      registration: {
        seconds: registerSeconds,
        perSec,
        latencyMs: { p50: pct(latencies, 50), p99: pct(latencies, 99), max: latencies.at(-1) },
        apiWritesPerHost: writesPerReg,
        requests: regCounts,
        ceilingFraction: (perSec * writesPerReg) / ceilingPerSec,
        ceilingBoundPerSec: ceilingPerSec / writesPerReg,
        cpuSeconds: (cpu1.user + cpu1.system) / 1e6,
        eventLoopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
        idleThreadDelayMs: threadDelay,
      },
      inventory: {
        seconds: inventorySeconds,
        apiWritesPerHost: invWrites / HOSTS,
        requests: invCounts,
        cpuSeconds: (cpu3.user + cpu3.system) / 1e6,
      },
      peakRssMiB: peakRss / 1024 / 1024,
      agentsInCache: agents,
      failures,
      totalSeconds: (Date.now() - started) / 1000,
    };
    const r = report.registration;
    line('registrations', `${HOSTS} in ${r.seconds.toFixed(1)} s = ${perSec.toFixed(1)} /s`);
    line(
      'register latency p50 / p99 / max',
      `${r.latencyMs.p50.toFixed(0)} / ${r.latencyMs.p99.toFixed(0)} / ${r.latencyMs.max?.toFixed(0)} ms`,
    );
    line('API writes per registration (until quiet)', writesPerReg.toFixed(2));
    line('registration requests by verb', JSON.stringify(regCounts));
    line(
      'write rate as fraction of ceiling',
      `${(r.ceilingFraction * 100).toFixed(0)} % (ceiling ÷ writes/host = ${r.ceilingBoundPerSec.toFixed(0)} hosts/s)`,
    );
    line(
      'CPU during registration (operator+driver)',
      `${r.cpuSeconds.toFixed(2)} s (${((r.cpuSeconds / HOSTS) * 1000).toFixed(1)} ms/host)`,
    );
    line(
      'event-loop delay p99 / max (registration)',
      `${r.eventLoopDelayMs.p99.toFixed(1)} / ${r.eventLoopDelayMs.max.toFixed(1)} ms`,
    );
    line(
      'idle worker thread delay p99 / max (same)',
      `${r.idleThreadDelayMs.p99.toFixed(1)} / ${r.idleThreadDelayMs.max.toFixed(1)} ms (process not scheduled)`,
    );
    line(
      'inventory wave',
      `${inventorySeconds.toFixed(1)} s, ${report.inventory.apiWritesPerHost.toFixed(2)} writes/host, CPU ${report.inventory.cpuSeconds.toFixed(2)} s`,
    );
    line('inventory requests by verb', JSON.stringify(invCounts));
    line('peak RSS (operator+driver)', `${report.peakRssMiB.toFixed(0)} MiB`);
    line('Agents in cache / failures', `${agents} / ${JSON.stringify(failures)}`);
    await op.stop();
    // A restart with the whole fleet in place: how long until the caches have synced.
    const s0 = performance.now();
    const again = await startOperator(config, { kubeConfig: loadKubeConfig(plane.kubeconfigPath), logger });
    while (!again.ctx.mgr.isReady()) await new Promise((r) => setTimeout(r, 50));
    const startupSeconds = (performance.now() - s0) / 1000;
    await again.stop();
    line('operator start-up to ready (fleet in place)', `${startupSeconds.toFixed(1)} s`);
    await mkdir(dirname(flags.out!), { recursive: true });
    await writeFile(
      flags.out!,
      `${JSON.stringify({ ...report, startupToReadySeconds: startupSeconds }, null, 2)}\n`,
    );
    console.log(`report written to ${flags.out}`);
  } finally {
    await http.close();
    await admin.close();
    await plane.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (flags.idle) await idle(Number(flags.idle));
else await main();
