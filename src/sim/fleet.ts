// Many simulated hosts in one process: they boot the same discovery media once, share one
// keep-alive connection pool, a limit on requests in flight, one simulated network and one
// scheduler (a single timer over a heap of due times — no per-host intervals), power on with
// jitter, and fold their counters into one SimStats.

import type { HostStage } from '../core/model.ts';
import { type BootOptions, boot, type DiscoveryConfig, serviceTrust } from './boot.ts';
import { SimHost } from './host.ts';
import { createDispatcher, Limiter, type WireExchange } from './http.ts';
import type { InstallPace } from './install-task.ts';
import { SimNetwork } from './network.ts';
import { hashString, seededRandom } from './prng.ts';
import { type MachineOptions, type ProfileName, simulatedMachine } from './profiles.ts';
import { Scheduler } from './scheduler.ts';
import { emptyStats, type SimEvent, type SimStats } from './stats.ts';
import type { StepBehaviour } from './steps.ts';

export interface FleetOptions {
  /** Discovery media to boot from (fetched once; every host boots the same image)… */
  media?: { isoUrl: string } | { ignitionUrl: string };
  /** …or an already parsed configuration. */
  config?: DiscoveryConfig;
  mediaOptions?: BootOptions;
  /** Replace what the media says (e.g. a service URL reachable from where the simulator runs). */
  overrides?: Partial<Pick<DiscoveryConfig, 'serviceUrl' | 'token' | 'insecure' | 'caCert' | 'agentVersion'>>;
  hosts: number;
  /** Profiles by host index, cycled. Default: one host → sno; else 3 masters, then workers. */
  profiles?: ProfileName[];
  machine?: MachineOptions;
  /** Simulated time runs this many times faster than real time. Default 1. */
  speed?: number;
  /** Max HTTP requests in flight across the fleet. Default 64. */
  concurrency?: number;
  /** Max sockets to the service. Default: concurrency. */
  connections?: number;
  /** Power-on times are spread uniformly over this many real ms. Default min(5000, 2 × hosts). */
  startJitterMs?: number;
  /**
   * Index of the host that runs the in-cluster controller; false for none. Default: whichever host
   * the service makes the bootstrap host (role assignment may make any profile a master).
   */
  controller?: number | false;
  /** Hosts whose installer fails at a stage (no hostIndex: every host). */
  failAtStage?: { stage: HostStage; hostIndex?: number }[];
  behaviour?: StepBehaviour;
  install?: InstallPace;
  rebootMs?: number;
  /** Seed of the jitter and retry randomness. */
  seed?: number;
  onEvent?: (ev: SimEvent) => void;
  /** Every request and answer on the wire, from every host (recording, contract checks). */
  onExchange?: (exchange: WireExchange) => void;
  signal?: AbortSignal;
}

export function profileFor(index: number, hosts: number, profiles?: ProfileName[]): ProfileName {
  if (profiles && profiles.length > 0) return profiles[index % profiles.length]!;
  if (hosts === 1) return 'sno';
  return index < 3 ? 'master' : 'worker';
}

interface Waiter {
  predicate: (fleet: Fleet) => boolean;
  resolve: () => void;
}

export class Fleet {
  readonly hosts: SimHost[];
  readonly stats: SimStats;
  readonly config: DiscoveryConfig;
  readonly network: SimNetwork;
  private readonly scheduler: Scheduler;
  private readonly abort = new AbortController();
  private readonly dispatcher;
  private readonly random: () => number;
  private readonly jitterMs: number;
  private waiters: Waiter[] = [];
  private stopped?: Promise<void>;

  constructor(config: DiscoveryConfig, opts: FleetOptions) {
    this.config = { ...config, ...opts.overrides };
    this.stats = emptyStats(opts.hosts);
    this.network = new SimNetwork();
    this.random = seededRandom(opts.seed ?? hashString(opts.machine?.seed ?? 'sim'));
    this.jitterMs = opts.startJitterMs ?? Math.min(5000, 2 * opts.hosts);
    const concurrency = opts.concurrency ?? 64;
    this.dispatcher = createDispatcher({
      connections: opts.connections ?? concurrency,
      ...serviceTrust(this.config),
    });
    const limiter = new Limiter(concurrency);
    this.scheduler = new Scheduler({
      onError: (task, err) =>
        this.onEvent(opts, {
          type: 'error',
          host: task.name,
          hostId: '',
          op: 'task',
          status: 0,
          message: String(err),
        }),
    });
    if (opts.signal) {
      if (opts.signal.aborted) this.abort.abort();
      else opts.signal.addEventListener('abort', () => void this.stop(), { once: true });
    }
    const profiles = Array.from({ length: opts.hosts }, (_, i) => profileFor(i, opts.hosts, opts.profiles));
    const controllerIndex = opts.controller === false ? -1 : opts.controller;
    this.hosts = profiles.map((profile, index) => {
      const fail = opts.failAtStage?.find((f) => f.hostIndex === undefined || f.hostIndex === index);
      return new SimHost({
        config: this.config,
        machine: simulatedMachine(profile, index, opts.machine),
        network: this.network,
        dispatcher: this.dispatcher,
        limiter,
        speed: opts.speed,
        signal: this.abort.signal,
        random: seededRandom(hashString(`${opts.seed ?? 0}:${index}`)),
        behaviour: opts.behaviour,
        install: fail ? { ...opts.install, failAtStage: fail.stage } : opts.install,
        controller: controllerIndex === undefined ? 'bootstrap' : index === controllerIndex,
        rebootMs: opts.rebootMs,
        stats: this.stats,
        onEvent: (ev) => this.onEvent(opts, ev),
        ...(opts.onExchange ? { onExchange: opts.onExchange } : {}),
      });
    });
  }

  private onEvent(opts: FleetOptions, ev: SimEvent): void {
    opts.onEvent?.(ev);
    if (this.waiters.length === 0) return;
    const pending: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.predicate(this)) w.resolve();
      else pending.push(w);
    }
    this.waiters = pending;
  }

  /** Powers every host on, each at a jittered time. */
  start(): this {
    for (const host of this.hosts) host.start(this.scheduler, this.random() * this.jitterMs);
    return this;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /**
   * Resolves once `predicate` holds (checked after every event); rejects after `timeoutMs`
   * (real time) or when the fleet stops first.
   */
  waitFor(predicate: (fleet: Fleet) => boolean, opts: { timeoutMs?: number } = {}): Promise<void> {
    if (predicate(this)) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timeoutMs = opts.timeoutMs ?? 60_000;
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Error(`fleet: condition not met within ${timeoutMs} ms; stats: ${JSON.stringify(this.stats)}`),
        );
      }, timeoutMs);
      const waiter: Waiter = {
        predicate,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
      this.abort.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          if (this.waiters.includes(waiter)) reject(new Error('fleet stopped'));
        },
        { once: true },
      );
    });
  }

  /** Resolves when every host finished (rebooted, gave up) and no controller is left running. */
  settled(): Promise<void> {
    return this.scheduler.idle();
  }

  /** Aborts in-flight requests, drops queued work, closes the connection pool. Idempotent. */
  stop(): Promise<void> {
    this.stopped ??= (async () => {
      this.abort.abort();
      await this.scheduler.stop();
      await this.dispatcher.destroy();
    })();
    return this.stopped;
  }
}

/** Boots the media once and starts the fleet. */
export async function startFleet(opts: FleetOptions): Promise<Fleet> {
  let config = opts.config;
  if (!config) {
    if (!opts.media) throw new Error('startFleet needs media or config');
    config = (await boot(opts.media, { ...opts.mediaOptions, signal: opts.signal })).config;
  }
  return new Fleet(config, opts).start();
}
