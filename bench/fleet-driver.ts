// The fleet driver of `make bench-scale`: N hosts played over the REST API from a worker thread, so
// the operator's main thread (its event-loop delay, its thread CPU) carries none of the driver's
// work. The main thread holds a FleetDriver; the worker runs this same file with `workerData.fleet`
// set and answers one phase command at a time with latencies and status counts. With
// `separateProcess`, the driver is a child process instead (its init the first IPC message): the
// hosts are then other machines in every respect, V8's shared GC helper threads included.

import { fork } from 'node:child_process';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Agent as HttpAgent, request } from 'undici';
import type { Agent } from '../src/api/index.ts';
import { endWithThisProcess } from '../src/dev/own-session.ts';
import { AGENT } from '../src/records/resources.ts';
import { KubeClient, loadKubeConfig } from '../src/runtime/index.ts';
import { connectivityReport, hostId, inventory, pool } from './fleet.ts';
import { startLoopBreakdown } from './loop-breakdown.ts';
import { type LongInterval, type PollTiming, type SlowPolls, slowPollEpisodes } from './slow-polls.ts';

export interface FleetInit {
  /** `http://host:port/api/assisted-install` */
  base: string;
  /** One host token per InfraEnv; host i uses InfraEnv i % infraEnvIds.length. */
  tokens: string[];
  infraEnvIds: string[];
  hosts: number;
  concurrency: number;
  agentImage: string;
  /** Admin kubeconfig: the event → status phase watches Agents through the API server. */
  kubeconfigPath: string;
  namespace: string;
  /**
   * Each host polls its next steps every `POLL_SECONDS` from its registration until the
   * idle phase, as agents go on polling while the waves last: otherwise a host of a wave longer
   * than the 3-minute check-in window is marked disconnected, and writes a real fleet does not.
   */
  pollDuringWaves?: boolean;
}

export type Failures = Record<string, number>;

export interface RegisterResult {
  seconds: number;
  latenciesMs: number[];
  failures: Failures;
}

export interface InventoryResult {
  seconds: number;
  /** Next-steps polls the hosts sent on their own since registering (`pollDuringWaves`). */
  wavePolls: number;
  /** Each inventory reply's POST, until its answer: the reply waits for its Agent's status write. */
  replyLatenciesMs: number[];
  failures: Failures;
}

export interface IdleResult {
  seconds: number;
  polls: number;
  latenciesMs: number[];
  failures: Failures;
  /** The polls of 100 ms or more, grouped into episodes (bench/slow-polls.ts). */
  slowPolls: SlowPolls;
  /**
   * The driver's own event-loop delay, ms, and its intervals of 100 ms or more: every latency it
   * measures meanwhile includes that wait, which no real host shares.
   */
  driverLoopDelayMs: { p99: number; max: number };
  driverStalls: LongInterval[];
}

export interface ConnectivityWaveResult extends IdleResult {
  /** Connectivity-check steps answered, each with a report of every host the step named. */
  reports: number;
  /** Each report's size as posted (the step reply body), in bytes. */
  reportBytes: number[];
  /** Each report's POST, sent → answered (the driver's loop delay counts here too: the report builds). */
  replyLatenciesMs: number[];
}

export interface EventStatusResult {
  seconds: number;
  sent: number;
  /** Slots left out because their host's previous change was not seen yet (too few hosts for the rate). */
  skipped: number;
  /** Reply 2xx → the change seen on a watch of Agents, one entry per event seen in time. */
  latenciesMs: number[];
  failures: Failures;
}

type Command =
  | { cmd: 'register' }
  | { cmd: 'inventory' }
  | { cmd: 'idle'; seconds: number; intervalSeconds: number; base?: string }
  | { cmd: 'connectivity'; seconds: number; intervalSeconds: number }
  | { cmd: 'events'; seconds: number; perSecond: number; settleSeconds: number }
  | { cmd: 'cpu' };

interface Step {
  step_type: string;
  step_id: string;
  args?: string[] | null;
}

type Reply = { id: number; result?: unknown; error?: string };

/** What the main thread needs of the driver's thread or process. */
interface Channel {
  post(m: unknown): void;
  onMessage(fn: (m: Reply) => void): void;
  /** An error, or the thread or process exiting. */
  onFailure(fn: (e: Error) => void): void;
  stop(): Promise<void>;
}

function workerChannel(init: FleetInit): Channel & { worker: Worker } {
  const worker = new Worker(new URL(import.meta.url), { workerData: { fleet: init } });
  return {
    worker,
    post: (m) => worker.postMessage(m),
    onMessage: (fn) => worker.on('message', fn),
    onFailure: (fn) => {
      worker.on('error', fn);
      worker.on('exit', (code) => fn(new Error(`fleet driver exited ${code}`)));
    },
    stop: async () => void (await worker.terminate()),
  };
}

function processChannel(init: FleetInit, ownSession: boolean): Channel {
  // The init (a token per InfraEnv) is too big for the environment: it is the first message.
  const child = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, FLEET_DRIVER_PROCESS: '1' },
    serialization: 'advanced',
    detached: ownSession,
  });
  if (ownSession) endWithThisProcess(child);
  child.send({ init } as never);
  return {
    post: (m) => child.send(m as never),
    onMessage: (fn) => child.on('message', fn),
    onFailure: (fn) => {
      child.on('error', fn);
      child.on('exit', (code) => fn(new Error(`fleet driver exited ${code}`)));
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The main thread's handle on the driver (a worker thread, or a child process). */
export class FleetDriver {
  private readonly channel: Channel;
  private readonly worker: Worker | undefined;
  /** True when the driver runs in a process of its own: its CPU is then not part of this process's. */
  readonly separateProcess: boolean;
  private readonly waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private nextId = 0;

  /**
   * `separateProcess`: a child process instead of a worker thread; `ownSession`: that process in a
   * session (Linux autogroup) of its own, as hosts are machines of their own.
   */
  constructor(init: FleetInit, opts: { separateProcess?: boolean; ownSession?: boolean } = {}) {
    this.separateProcess = opts.separateProcess ?? false;
    if (this.separateProcess) {
      this.channel = processChannel(init, opts.ownSession ?? false);
    } else {
      const w = workerChannel(init);
      this.channel = w;
      this.worker = w.worker;
    }
    this.channel.onMessage((m) => {
      const w = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if (m.error !== undefined) w?.reject(new Error(`fleet driver: ${m.error}`));
      else w?.resolve(m.result);
    });
    const failAll = (err: Error) => {
      for (const w of this.waiting.values()) w.reject(err);
      this.waiting.clear();
    };
    this.channel.onFailure(failAll);
  }

  private send<T>(command: Command): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.channel.post({ id, ...command });
    });
  }

  register(): Promise<RegisterResult> {
    return this.send({ cmd: 'register' });
  }

  inventory(): Promise<InventoryResult> {
    return this.send({ cmd: 'inventory' });
  }

  /** `base`: poll that server instead of the operator (bench/http-floor.ts). */
  idle(seconds: number, intervalSeconds: number, base?: string): Promise<IdleResult> {
    return this.send({ cmd: 'idle', seconds, intervalSeconds, ...(base ? { base } : {}) });
  }

  /** As idle, but every host answers the connectivity checks its polls hand it. */
  connectivity(seconds: number, intervalSeconds: number): Promise<ConnectivityWaveResult> {
    return this.send({ cmd: 'connectivity', seconds, intervalSeconds });
  }

  events(seconds: number, perSecond: number, settleSeconds: number): Promise<EventStatusResult> {
    return this.send({ cmd: 'events', seconds, perSecond, settleSeconds });
  }

  /** CPU seconds the driver has used so far: its thread's (a share of this process's), or its process's. */
  threadCpuSeconds(): Promise<number> {
    return this.send({ cmd: 'cpu' });
  }

  /** The driver thread's V8 heap (committed), part of the process's RSS; 0 for a driver process. */
  async heapBytes(): Promise<number> {
    return this.worker ? (await this.worker.getHeapStatistics()).total_heap_size : 0;
  }

  async stop(): Promise<void> {
    await this.channel.stop();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

/**
 * The calling thread's loop delay, and its intervals of 100 ms or more with the GC in them (the
 * loop breakdown without run-queue wait and run: a worker has no schedstat of its own at hand).
 */
function watchOwnLoop() {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const breakdown = startLoopBreakdown({ schedstat: false });
  return {
    stop() {
      loop.disable();
      return {
        driverLoopDelayMs: { p99: loop.percentile(99) / 1e6, max: loop.max / 1e6 },
        driverStalls: breakdown.stop().stalls,
      };
    },
  };
}

/**
 * Seconds between a host's next-steps polls: issue 16's load. The agent waits what the answer's
 * `next_instruction_seconds` says (60 s by default), so this is six times a real fleet's polls.
 */
export const POLL_SECONDS = 10;

/** The worker side: plays the hosts. */
class Fleet {
  private readonly init: FleetInit;
  private readonly http: HttpAgent;
  /** Hosts polling on their own between registration and the first polling phase. */
  private readonly beats = new Map<number, NodeJS.Timeout>();
  private wavePolls = 0;
  private readonly waveFailures: Failures = {};

  constructor(init: FleetInit) {
    this.init = init;
    this.http = new HttpAgent({ connections: init.concurrency });
  }

  private async call(method: 'GET' | 'POST', path: string, i: number, body?: unknown): Promise<number> {
    return (await this.exchange(method, path, i, body)).status;
  }

  /**
   * One request as host i to `base` (the operator's host API unless a phase plays against another
   * server); the answer's status and body. `body` is sent as is when a string.
   */
  private async exchange(
    method: 'GET' | 'POST',
    path: string,
    i: number,
    body?: unknown,
    base = this.init.base,
  ) {
    const { tokens } = this.init;
    const res = await request(`${base}${path}`, {
      method,
      dispatcher: this.http,
      headers: {
        accept: 'application/json',
        'x-secret-key': tokens[i % tokens.length]!,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      ...(body ? { body: typeof body === 'string' ? body : `${JSON.stringify(body)}\n` } : {}),
    });
    return { status: res.statusCode, text: await res.body.text() };
  }

  private hostPath(i: number): string {
    const ids = this.init.infraEnvIds;
    return `/v2/infra-envs/${ids[i % ids.length]}/hosts`;
  }

  private reply(i: number, cpuMhz?: number): Promise<number> {
    return this.call('POST', `${this.hostPath(i)}/${hostId(i)}/instructions`, i, {
      step_type: 'inventory',
      step_id: `inventory-${(cpuMhz ?? 0).toString(16).padStart(8, '0')}`,
      output: inventory(i, cpuMhz),
    });
  }

  private poll(i: number): Promise<number> {
    return this.call('GET', `${this.hostPath(i)}/${hostId(i)}/instructions`, i);
  }

  /** Host i polls every POLL_SECONDS until stopBeats(). */
  private beat(i: number): void {
    const next = setTimeout(async () => {
      const status = await this.poll(i).catch(() => 0);
      this.wavePolls++;
      if (status !== 200) count(this.waveFailures, `wave poll ${status}`);
      if (this.beats.has(i)) this.beat(i);
    }, POLL_SECONDS * 1000);
    this.beats.set(i, next);
  }

  /** The polling phases play every host's polls themselves; failures since the last report go to `into`. */
  private stopBeats(into: Failures): void {
    for (const t of this.beats.values()) clearTimeout(t);
    this.beats.clear();
    this.reportWaveFailures(into);
  }

  private reportWaveFailures(into: Failures): void {
    for (const [k, n] of Object.entries(this.waveFailures)) {
      into[k] = (into[k] ?? 0) + n;
      delete this.waveFailures[k];
    }
  }

  async register(): Promise<RegisterResult> {
    const latenciesMs: number[] = [];
    const failures: Failures = {};
    const t0 = performance.now();
    await pool(this.init.hosts, this.init.concurrency, async (i) => {
      const s = performance.now();
      const status = await this.call('POST', this.hostPath(i), i, {
        host_id: hostId(i),
        discovery_agent_version: this.init.agentImage,
      });
      latenciesMs.push(performance.now() - s);
      if (status !== 201) count(failures, `register ${status}`);
      else if (this.init.pollDuringWaves) this.beat(i);
    });
    return { seconds: (performance.now() - t0) / 1000, latenciesMs, failures };
  }

  /** One inventory reply and one next-steps poll per host. */
  async inventory(): Promise<InventoryResult> {
    const replyLatenciesMs: number[] = [];
    const failures: Failures = {};
    const t0 = performance.now();
    await pool(this.init.hosts, this.init.concurrency, async (i) => {
      const s = performance.now();
      const reply = await this.reply(i);
      replyLatenciesMs.push(performance.now() - s);
      if (reply !== 204) count(failures, `inventory ${reply}`);
      const poll = await this.poll(i);
      if (poll !== 200) count(failures, `poll ${poll}`);
    });
    this.reportWaveFailures(failures);
    return {
      seconds: (performance.now() - t0) / 1000,
      wavePolls: this.wavePolls,
      replyLatenciesMs,
      failures,
    };
  }

  /** Every host polls its next steps every `intervalSeconds`, start times spread over one interval. */
  async idle(seconds: number, intervalSeconds: number, base?: string): Promise<IdleResult> {
    return this.polling('idle poll', seconds, intervalSeconds, async () => {}, base);
  }

  /** Polls as idle does; a poll that hands out a connectivity check is answered with a full report. */
  async connectivity(seconds: number, intervalSeconds: number): Promise<ConnectivityWaveResult> {
    const reportBytes: number[] = [];
    const replyLatenciesMs: number[] = [];
    const polled = await this.polling(
      'connectivity poll',
      seconds,
      intervalSeconds,
      async (i, answer, failures) => {
        const steps = (JSON.parse(answer) as { instructions?: Step[] | null }).instructions ?? [];
        for (const step of steps.filter((st) => st.step_type === 'connectivity-check')) {
          const body = `${JSON.stringify({ step_type: step.step_type, step_id: step.step_id, exit_code: 0, output: connectivityReport(i, step.args) })}\n`;
          const s = performance.now();
          const { status } = await this.exchange(
            'POST',
            `${this.hostPath(i)}/${hostId(i)}/instructions`,
            i,
            body,
          );
          replyLatenciesMs.push(performance.now() - s);
          reportBytes.push(Buffer.byteLength(body));
          if (status !== 204) count(failures, `connectivity reply ${status}`);
        }
      },
    );
    return { ...polled, reports: reportBytes.length, reportBytes, replyLatenciesMs };
  }

  /** Every host polls `base` every `intervalSeconds` for `seconds`; `then` sees each 200 answer. */
  private async polling(
    label: string,
    seconds: number,
    intervalSeconds: number,
    then: (i: number, answer: string, failures: Failures) => Promise<void>,
    base?: string,
  ): Promise<IdleResult> {
    const timings: PollTiming[] = [];
    const failures: Failures = {};
    this.stopBeats(failures);
    const { hosts } = this.init;
    const intervalMs = intervalSeconds * 1000;
    const loop = watchOwnLoop();
    let inFlight = 0;
    const t0 = performance.now();
    const end = t0 + seconds * 1000;
    await Promise.all(
      Array.from({ length: hosts }, async (_, i) => {
        for (let at = t0 + (i / hosts) * intervalMs; at < end; at += intervalMs) {
          await sleep(at - performance.now());
          const s = performance.now();
          const timing = { sentAt: performance.timeOrigin + s, ms: 0, inFlight: ++inFlight };
          const { status, text } = await this.exchange(
            'GET',
            `${this.hostPath(i)}/${hostId(i)}/instructions`,
            i,
            undefined,
            base,
          ).finally(() => inFlight--);
          timing.ms = performance.now() - s;
          timings.push(timing);
          if (status !== 200) count(failures, `${label} ${status}`);
          else await then(i, text, failures);
        }
      }),
    );
    return {
      seconds: (performance.now() - t0) / 1000,
      polls: timings.length,
      latenciesMs: timings.map((t) => t.ms),
      failures,
      slowPolls: slowPollEpisodes(timings),
      ...loop.stop(),
    };
  }

  /**
   * `perSecond` inventory replies whose CPU clock differs from the Agent's, round-robin over the
   * hosts, for `seconds`; each is timed from sending the reply (its 2xx comes only once the status
   * holds it) to the first Agent watch event showing the new clock in status.inventory. Events not seen within `settleSeconds` after the window count
   * as failures.
   */
  async events(seconds: number, perSecond: number, settleSeconds: number): Promise<EventStatusResult> {
    const { hosts, namespace } = this.init;
    const admin = new KubeClient({ kubeConfig: loadKubeConfig(this.init.kubeconfigPath), qps: 0 });
    const failures: Failures = {};
    this.stopBeats(failures);
    const latenciesMs: number[] = [];
    const pending = new Map<string, { mhz: number; sentAt: number; answeredAt?: number; seenAt?: number }>();
    const settle = (name: string) => {
      const p = pending.get(name);
      if (p?.answeredAt === undefined || p.seenAt === undefined) return;
      latenciesMs.push(Math.max(0, p.seenAt - p.sentAt));
      pending.delete(name);
    };
    const list = await admin.list<Agent>(AGENT, { namespace });
    const stop = new AbortController();
    const watching = watchAgents(admin, namespace, list.metadata.resourceVersion ?? '', stop.signal, (a) => {
      const name = a.metadata.name ?? '';
      const p = pending.get(name);
      if (!p || p.seenAt !== undefined || a.status?.inventory?.cpu?.clockMegahertz !== p.mhz) return;
      p.seenAt = performance.now();
      settle(name);
    });
    const t0 = performance.now();
    const sends: Promise<void>[] = [];
    let sent = 0;
    let skipped = 0;
    for (let k = 0, i = 0; k < Math.floor(seconds * perSecond); k++, i = (i + 1) % hosts) {
      await sleep(t0 + (k * 1000) / perSecond - performance.now());
      const name = hostId(i);
      if (pending.has(name)) {
        skipped++;
        continue;
      }
      const mhz = 2401 + k;
      pending.set(name, { mhz, sentAt: performance.now() });
      sent++;
      sends.push(
        this.reply(i, mhz).then((status) => {
          if (status !== 204) {
            count(failures, `event reply ${status}`);
            pending.delete(name);
            return;
          }
          pending.get(name)!.answeredAt = performance.now();
          settle(name);
        }),
      );
    }
    await Promise.all(sends);
    const windowSeconds = (performance.now() - t0) / 1000;
    const deadline = performance.now() + settleSeconds * 1000;
    while (pending.size > 0 && performance.now() < deadline) await sleep(50);
    if (pending.size > 0) count(failures, 'event not seen in Agent status', pending.size);
    stop.abort();
    await watching.catch(() => undefined);
    await admin.close();
    return { seconds: windowSeconds, sent, skipped, latenciesMs, failures };
  }
}

/** Feeds every Agent the API server sends on a watch to `seen`, resuming after server timeouts. */
async function watchAgents(
  client: KubeClient,
  namespace: string,
  fromVersion: string,
  signal: AbortSignal,
  seen: (a: Agent) => void,
): Promise<void> {
  let resourceVersion = fromVersion;
  while (!signal.aborted) {
    const events = client.watch<Agent>(AGENT, {
      namespace,
      resourceVersion,
      timeoutSeconds: 300,
      idleTimeoutMs: 330_000,
      signal,
    });
    for await (const ev of events) {
      if (ev.type === 'ERROR') throw new Error(`Agent watch: ${JSON.stringify(ev.object)}`);
      const a = ev.object as Agent;
      resourceVersion = a.metadata.resourceVersion ?? resourceVersion;
      if (ev.type !== 'BOOKMARK') seen(a);
    }
  }
}

function count(failures: Failures, key: string, n = 1): void {
  failures[key] = (failures[key] ?? 0) + n;
}

/** Where the driver's commands come from and its answers go: the worker's port, or the IPC channel. */
interface CommandPort {
  onCommand(fn: (m: Command & { id: number }) => void): void;
  answer(m: Reply): void;
}

async function serve(init: FleetInit, port: CommandPort): Promise<void> {
  const fleet = new Fleet(init);
  port.onCommand((m) => {
    const run = (): Promise<unknown> => {
      switch (m.cmd) {
        case 'register':
          return fleet.register();
        case 'inventory':
          return fleet.inventory();
        case 'idle':
          return fleet.idle(m.seconds, m.intervalSeconds, m.base);
        case 'connectivity':
          return fleet.connectivity(m.seconds, m.intervalSeconds);
        case 'events':
          return fleet.events(m.seconds, m.perSecond, m.settleSeconds);
        case 'cpu': {
          const u = isMainThread ? process.cpuUsage() : process.threadCpuUsage();
          return Promise.resolve((u.user + u.system) / 1e6);
        }
      }
    };
    run().then(
      (result) => port.answer({ id: m.id, result }),
      (err: Error) => port.answer({ id: m.id, error: err.stack ?? String(err) }),
    );
  });
}

if (!isMainThread && (workerData as { fleet?: FleetInit } | undefined)?.fleet) {
  const parent = parentPort!;
  await serve((workerData as { fleet: FleetInit }).fleet, {
    onCommand: (fn) => parent.on('message', fn),
    answer: (m) => parent.postMessage(m),
  });
} else if (isMainThread && process.env.FLEET_DRIVER_PROCESS && process.send) {
  const send = process.send.bind(process);
  process.once('message', (m: { init: FleetInit }) => {
    void serve(m.init, {
      onCommand: (fn) => process.on('message', fn as (m: unknown) => void),
      answer: (a) => send(a),
    });
  });
  // The parent's IPC channel closing means the bench is done with this driver.
  process.on('disconnect', () => process.exit(0));
}
