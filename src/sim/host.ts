// One simulated host: the discovery agent and its next_step_runner (agent-api.md §1.1, §4),
// plus the installer and controller it starts (installer.ts, controller.ts). The agent is a scheduler task in
// one of three modes — registering, running (polling), or finished (rebooted / gave up) — and
// each run does one registration attempt or one poll cycle, returning the delay to the next.

import type { Dispatcher } from 'undici';
import { type DiscoveryConfig, serviceTrust } from './boot.ts';
import { ControllerTask } from './controller.ts';
import { AgentApiClient, ApiError, createDispatcher, type Limiter, type WireExchange } from './http.ts';
import { type InstallContext, type InstallPace, uploadLogs } from './install-task.ts';
import { InstallerTask } from './installer.ts';
import { SimNetwork } from './network.ts';
import { seededRandom } from './prng.ts';
import type { SimulatedMachine } from './profiles.ts';
import { Scheduler, type SimTask } from './scheduler.ts';
import { countResult, emptyStats, type SimEvent, type SimStats } from './stats.ts';
import {
  IMAGE_REF,
  type InstallRequest,
  type LogsGatherRequest,
  runStep,
  type Step,
  type StepBehaviour,
  type StepHost,
  type StepOutcome,
} from './steps.ts';

/** Register errors after which the agent blocks until restarted (§1.1). */
const REGISTER_FATAL = new Set([401, 403, 404, 409]);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The runner skips re-posting an identical successful output for this long. */
const REPLY_CACHE_MS = 3600_000;
/** next_step_runner poll back-off: 0.5 s ×1.5 up to 60 s; gives up (exits) after 15 min. */
const POLL_BACKOFF = { initialMs: 500, factor: 1.5, maxMs: 60_000, giveUpMs: 15 * 60_000 };
/** Never poll faster than this (simulated ms), even when told 0 s: a real runner would spin. */
const MIN_POLL_MS = 1000;
const MEDIA_DISCONNECTED_EXIT_CODE = 256;

export type HostPhase = 'off' | 'registering' | 'running' | 'rebooted' | 'gave-up' | 'stopped';

export interface SimHostOptions {
  /** From boot(): service URL, infra-env, agent version, token, TLS settings. */
  config: DiscoveryConfig;
  machine: SimulatedMachine;
  /** Shared with the other hosts of the process for connectivity answers. */
  network?: SimNetwork;
  /** Shared connection pool; by default the host creates its own from the config's TLS settings. */
  dispatcher?: Dispatcher;
  limiter?: Limiter;
  /** Simulated time runs this many times faster than real time. Default 1. */
  speed?: number;
  signal?: AbortSignal;
  random?: () => number;
  behaviour?: StepBehaviour;
  install?: InstallPace;
  /**
   * Run the in-cluster controller after this host's reboot (one host per cluster): true, or
   * 'bootstrap' to run it only if this host turns out to be the bootstrap host (always a control
   * plane node, which is where the real controller's pod lands first).
   */
  controller?: boolean | 'bootstrap';
  /** Simulated ms a reboot takes. Default 60 000. */
  rebootMs?: number;
  onEvent?: (ev: SimEvent) => void;
  /** Every request and answer on the wire (recording, contract checks). */
  onExchange?: (exchange: WireExchange) => void;
  stats?: SimStats;
}

interface RunnerState {
  /** agent_version from next_step_runner_command: the image the runner "runs". */
  agentVersion: string;
  cache: Map<string, { output: string; at: number }>;
  backoffMs: number;
  failingForMs: number;
}

interface NextStepCmdRequest {
  agent_version?: string;
  host_id?: string;
  infra_env_id?: string;
}

export class SimHost implements SimTask {
  readonly name: string;
  readonly machine: SimulatedMachine;
  readonly config: DiscoveryConfig;
  readonly client: AgentApiClient;
  readonly network: SimNetwork;
  readonly stats: SimStats;
  readonly speed: number;
  private readonly opts: SimHostOptions;
  private readonly ownedDispatcher?: Dispatcher;
  private readonly learnedVips: { api?: string; ingress?: string } = {};
  private scheduler?: Scheduler;
  private runner?: RunnerState;
  private installer?: InstallerTask;
  private pendingInstall?: Step;
  private mediaConnected = true;
  private registeredOnce = false;
  phase: HostPhase = 'off';
  registrations = 0;
  /** Set when the agent stopped for good. */
  gaveUpReason?: string;

  constructor(opts: SimHostOptions) {
    this.opts = opts;
    this.machine = opts.machine;
    this.config = opts.config;
    this.name = opts.machine.hostname;
    this.speed = opts.speed ?? 1;
    this.network = opts.network ?? new SimNetwork();
    this.stats = opts.stats ?? emptyStats(1);
    let dispatcher = opts.dispatcher;
    if (!dispatcher) {
      dispatcher = this.ownedDispatcher = createDispatcher({ connections: 4, ...serviceTrust(opts.config) });
    }
    this.client = new AgentApiClient({
      serviceUrl: opts.config.serviceUrl,
      token: opts.config.token,
      dispatcher,
      limiter: opts.limiter,
      signal: opts.signal,
      speed: this.speed,
      random: opts.random ?? seededRandom(opts.machine.index + 1),
      onResult: (_op, outcome) => countResult(this.stats, outcome),
      ...(opts.onExchange ? { onExchange: opts.onExchange } : {}),
    });
  }

  get hostId(): string {
    return this.machine.hostId;
  }

  get infraEnvId(): string {
    return this.config.infraEnvId;
  }

  /** Powers the host on: it joins the network and its agent starts registering. */
  start(scheduler: Scheduler, delayMs = 0): void {
    this.scheduler = scheduler;
    this.network.attach(this.hostId, this.machine.addresses);
    this.network.setHostUp(this.hostId, true);
    this.phase = 'registering';
    scheduler.add(this, delayMs);
  }

  /** Makes the live-ISO media unreadable: every reply then carries exit code 256. */
  disconnectMedia(connected = false): void {
    this.mediaConnected = connected;
  }

  async close(): Promise<void> {
    await this.ownedDispatcher?.close();
  }

  private emit(ev: SimEvent): void {
    this.opts.onEvent?.(ev);
  }

  private sim(ms: number): number {
    return ms / this.speed;
  }

  private emitError(op: string, err: unknown): void {
    this.emit({
      type: 'error',
      host: this.name,
      hostId: this.hostId,
      op,
      status: err instanceof ApiError ? err.status : 0,
      message: (err as Error).message,
    });
  }

  private giveUp(reason: string): undefined {
    this.phase = 'gave-up';
    this.gaveUpReason = reason;
    this.stats.gaveUp++;
    this.emit({ type: 'gave-up', host: this.name, hostId: this.hostId, reason });
    return undefined;
  }

  /** One scheduler run of the agent. */
  async run(): Promise<number | undefined> {
    if (this.opts.signal?.aborted) {
      this.phase = 'stopped';
      return undefined;
    }
    if (this.phase === 'registering') return this.register();
    if (this.phase === 'running') return this.pollCycle();
    return undefined;
  }

  private async register(): Promise<number | undefined> {
    const retryMs = (this.config.intervalSeconds ?? 60) * 1000;
    let body: { next_step_runner_command?: { args?: string[] | null; retry_seconds?: number } };
    try {
      const res = await this.client.call({
        op: 'v2RegisterHost',
        method: 'POST',
        path: `/v2/infra-envs/${this.infraEnvId}/hosts`,
        json: { host_id: this.hostId, discovery_agent_version: this.config.agentVersion },
        agentVersion: this.config.agentVersion,
        expect: 201,
        retry: 'agent',
        decode: 'host_registration_response',
      });
      body = res.json as typeof body;
    } catch (err) {
      if (this.opts.signal?.aborted) return undefined;
      this.emitError('v2RegisterHost', err);
      // Only a typed 401/403/404/409 stops the agent; an undecodable body is a generic error (§0.5).
      if (err instanceof ApiError && REGISTER_FATAL.has(err.status) && err.typed) {
        return this.giveUp(`register answered ${err.status}: ${err.body.slice(0, 200)}`);
      }
      return this.sim(retryMs);
    }
    this.registrations++;
    this.stats.registrations++;
    if (!this.registeredOnce) {
      this.registeredOnce = true;
      this.stats.registered++;
    }
    this.emit({ type: 'registered', host: this.name, hostId: this.hostId, count: this.registrations });
    const cmd = body.next_step_runner_command;
    const problem = this.invalidRunnerCommand(cmd?.args);
    if (problem) {
      // The runner cannot start: sleep retry_seconds (else an hour) and register again.
      this.emit({ type: 'runner-exit', host: this.name, hostId: this.hostId, reason: problem });
      return this.sim((cmd?.retry_seconds && cmd.retry_seconds > 0 ? cmd.retry_seconds : 3600) * 1000);
    }
    const req = JSON.parse(cmd!.args![0]!) as NextStepCmdRequest;
    this.runner = {
      agentVersion: req.agent_version!,
      cache: new Map(),
      backoffMs: POLL_BACKOFF.initialMs,
      failingForMs: 0,
    };
    this.phase = 'running';
    return 0;
  }

  private invalidRunnerCommand(args: string[] | null | undefined): string | undefined {
    if (!args || args.length < 1) return 'next_step_runner_command has no args';
    let req: NextStepCmdRequest;
    try {
      req = JSON.parse(args[0]!);
    } catch {
      return 'next_step_runner_command.args[0] is not JSON';
    }
    if (!req.host_id || !UUID.test(req.host_id))
      return 'next_step_runner_command: host_id missing or not a uuid';
    if (!req.infra_env_id || !UUID.test(req.infra_env_id))
      return 'next_step_runner_command: infra_env_id missing or not a uuid';
    if (!req.agent_version || !IMAGE_REF.test(req.agent_version))
      return 'next_step_runner_command: agent_version missing or not an image reference';
    return undefined;
  }

  /** The runner exits; the agent registers again at once (exit status 0). */
  private runnerExit(reason: string): number {
    this.emit({ type: 'runner-exit', host: this.name, hostId: this.hostId, reason });
    this.runner = undefined;
    this.phase = 'registering';
    return 0;
  }

  private async pollCycle(): Promise<number | undefined> {
    const runner = this.runner!;
    let steps: { next_instruction_seconds?: number; post_step_action?: string; instructions?: Step[] | null };
    try {
      const res = await this.client.call({
        op: 'v2GetNextSteps',
        method: 'GET',
        path: `/v2/infra-envs/${this.infraEnvId}/hosts/${this.hostId}/instructions`,
        query: { timestamp: Math.floor(Date.now() / 1000) },
        agentVersion: runner.agentVersion,
        expect: 200,
        retry: 'agent',
        decode: 'steps',
      });
      steps = res.json as typeof steps;
    } catch (err) {
      if (this.opts.signal?.aborted) return undefined;
      this.emitError('v2GetNextSteps', err);
      if (err instanceof ApiError && err.status === 404 && err.typed) {
        // "infra-env … not found": the runner freezes for good.
        return this.giveUp('get-next-steps answered 404');
      }
      runner.cache.clear();
      const delay = runner.backoffMs;
      runner.failingForMs += delay;
      runner.backoffMs = Math.min(POLL_BACKOFF.maxMs, runner.backoffMs * POLL_BACKOFF.factor);
      if (runner.failingForMs >= POLL_BACKOFF.giveUpMs)
        return this.runnerExit('polling failed for 15 minutes');
      return this.sim(delay);
    }
    this.stats.polls++;
    runner.backoffMs = POLL_BACKOFF.initialMs;
    runner.failingForMs = 0;

    const outcomes = await Promise.all((steps.instructions ?? []).map((s) => this.handleStep(s, runner)));
    if (this.phase !== 'running') return undefined; // rebooted or stopped meanwhile
    const upgraded = outcomes.find((o) => o.runnerExit);
    if (upgraded) return this.runnerExit(upgraded.runnerExit!);
    if (outcomes.some((o) => o.reboot)) {
      // reboot-for-reclaim: the host comes back from the discovery boot artifacts and registers anew.
      this.runner = undefined;
      this.phase = 'registering';
      this.emit({ type: 'rebooted', host: this.name, hostId: this.hostId });
      return this.sim(this.opts.rebootMs ?? 60_000);
    }
    if (steps.post_step_action === 'exit') return this.runnerExit('post_step_action exit');
    return this.sim(Math.max(MIN_POLL_MS, (steps.next_instruction_seconds ?? 60) * 1000));
  }

  private async handleStep(step: Step, runner: RunnerState): Promise<StepOutcome> {
    const outcome = await runStep(step, this.stepHost());
    if (outcome.deferred) {
      this.pendingInstall = step;
      return outcome;
    }
    const reply = this.mediaConnected
      ? outcome
      : {
          ...outcome,
          exitCode: MEDIA_DISCONNECTED_EXIT_CODE,
          error: 'failed to read the live ISO: media disconnected',
        };
    const cached = runner.cache.get(step.step_type);
    const now = performance.now();
    if (
      reply.exitCode === 0 &&
      cached &&
      cached.output === reply.output &&
      now - cached.at < this.sim(REPLY_CACHE_MS)
    ) {
      this.stats.repliesDeduplicated++;
      this.emit({
        type: 'step',
        host: this.name,
        hostId: this.hostId,
        stepType: step.step_type,
        exitCode: 0,
        posted: false,
      });
      return outcome;
    }
    if (await this.postReply(step, reply, runner.agentVersion)) {
      if (reply.exitCode === 0) runner.cache.set(step.step_type, { output: reply.output, at: now });
    }
    return outcome;
  }

  /** POST the step-reply, with Go's omitempty habits (no exit_code 0, no empty output/error). */
  private async postReply(step: Step, reply: StepOutcome, agentVersion: string): Promise<boolean> {
    try {
      await this.client.call({
        op: 'v2PostStepReply',
        method: 'POST',
        path: `/v2/infra-envs/${this.infraEnvId}/hosts/${this.hostId}/instructions`,
        json: {
          step_type: step.step_type,
          step_id: step.step_id,
          ...(reply.exitCode !== 0 ? { exit_code: reply.exitCode } : {}),
          ...(reply.output !== '' ? { output: reply.output } : {}),
          ...(reply.error !== '' ? { error: reply.error } : {}),
        },
        agentVersion,
        expect: 204,
        retry: 'agent',
      });
    } catch (err) {
      if (!this.opts.signal?.aborted) this.emitError(`v2PostStepReply(${step.step_type})`, err);
      return false;
    }
    this.stats.stepsAnswered++;
    this.stats.stepsByType[step.step_type] = (this.stats.stepsByType[step.step_type] ?? 0) + 1;
    this.emit({
      type: 'step',
      host: this.name,
      hostId: this.hostId,
      stepType: step.step_type,
      exitCode: reply.exitCode,
      posted: true,
    });
    return true;
  }

  private stepHost(): StepHost {
    return {
      machine: this.machine,
      network: this.network,
      behaviour: this.opts.behaviour ?? {},
      learnedVips: this.learnedVips,
      startInstall: (req) => this.startInstall(req),
      stopInstall: () => this.installer?.abort('installation stopped (podman stop assisted-installer)'),
      gatherLogs: (req) => this.logsSender(req),
    };
  }

  private startInstall(req: InstallRequest): 'started' | 'already-running' {
    if (this.installer) return 'already-running';
    this.installer = new InstallerTask(this.installContext(), req);
    this.scheduler?.add(this.installer, 0);
    return 'started';
  }

  /** logs_sender: logs-progress requested → collecting → upload → completed. */
  private async logsSender(req: Pick<LogsGatherRequest, 'cluster_id'>): Promise<void> {
    const progress = (logs_state: string) =>
      this.client.call({
        op: 'v2UpdateHostLogsProgress',
        method: 'PUT',
        path: `/v2/infra-envs/${this.infraEnvId}/hosts/${this.hostId}/logs-progress`,
        json: { logs_state },
        expect: 204,
        retry: 'agent',
      });
    await progress('requested');
    await progress('collecting');
    await uploadLogs(this.installContext(), req.cluster_id, 'host');
    await progress('completed');
  }

  private installContext(): InstallContext {
    return {
      name: this.name,
      hostId: this.hostId,
      infraEnvId: this.infraEnvId,
      client: this.client,
      speed: this.speed,
      pace: this.opts.install ?? {},
      stats: this.stats,
      emit: (ev) => this.emit(ev),
      sendLogs: (clusterId) => this.logsSender({ cluster_id: clusterId }),
      installerExited: (code, error) => this.installerExited(code, error),
    };
  }

  private async installerExited(exitCode: number, error: string): Promise<void> {
    const installer = this.installer;
    const step = this.pendingInstall;
    this.pendingInstall = undefined;
    this.installer = undefined;
    if (step && this.runner)
      await this.postReply(step, { exitCode, output: '', error }, this.runner.agentVersion);
    if (exitCode !== 0 || !installer) return;
    // The installer rebooted the host into the installed system: the discovery agent is gone.
    this.phase = 'rebooted';
    this.runner = undefined;
    this.stats.rebooted++;
    this.emit({ type: 'rebooted', host: this.name, hostId: this.hostId });
    const runsController =
      this.opts.controller === true ||
      (this.opts.controller === 'bootstrap' && installer.request.role === 'bootstrap');
    if (runsController && this.scheduler) {
      this.scheduler.add(
        new ControllerTask(this.installContext(), installer.request.cluster_id),
        this.sim(this.opts.rebootMs ?? 60_000),
      );
    }
  }
}

/**
 * Runs one host until it finishes (rebooted into the installed system and, if it is the
 * controller, completed the cluster) or gives up, or until `signal` aborts.
 */
export async function runHost(
  opts: Omit<SimHostOptions, 'signal'> & { signal?: AbortSignal },
): Promise<SimHost> {
  const controller = new AbortController();
  const onAbort = () => controller.abort(opts.signal?.reason);
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  const scheduler = new Scheduler();
  const host = new SimHost({ ...opts, signal: controller.signal });
  try {
    host.start(scheduler);
    await Promise.race([
      scheduler.idle(),
      new Promise((resolve) => controller.signal.addEventListener('abort', resolve, { once: true })),
    ]);
  } finally {
    controller.abort();
    await scheduler.stop();
    opts.signal?.removeEventListener('abort', onAbort);
    await host.close();
  }
  return host;
}
