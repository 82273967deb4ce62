// Per-process host memory shared by the REST backend and the Agent reconciler (beyond
// ctx.facts, which holds the frequent low-value facts):
// * the inbox: step results that change the persisted record (inventory, NTP sources, media
//   state, install failure, reclaim, versions). The backend puts them here and enqueues the Agent;
//   the reconciler applies them, writes the status once, and acknowledges what it applied. A step
//   reply is answered only then (whenApplied): a 2xx means the result is in the API server, so a
//   leader killed right after answering loses nothing (docs/design/records.md, "Replicas").
// * warm-up after a restart (docs/design/records.md): a host's first poll is refused once, so its
//   runner posts every result again; until it has answered one round of its periodic steps, or
//   WARM_UP_MS have passed since the process started, validations that need in-memory facts keep
//   their stored result.
// * the state machine options (upstream's env variables) and the process start time.

import type { Agent, AgentStatus } from '../../api/index.ts';
import type { Inventory } from '../../core/inventory.ts';
import type { InfraEnv as InfraEnvRecord, NtpSource } from '../../core/model.ts';
import type { SmEvent } from '../../core/statemachine/index.ts';
import { optionsFromEnv, resolveOptions, type StateMachineOptions } from '../../core/statemachine/index.ts';
import type { OperatorContext } from '../context.ts';
import type { AgentCluster, HostRuntimeFacts } from '../index.ts';
import { PollRecords } from './poll-records.ts';

export const WARM_UP_MS = 3 * 60_000;

/** Record changes from step replies and polls, waiting for the reconciler. */
export interface PendingHostUpdate {
  inventory?: Inventory;
  ntpSources?: NtpSource[];
  /** A step reply carried exit code 256: MediaDisconnect. */
  mediaDisconnected?: boolean;
  /** The host checked in again after a media disconnection. */
  mediaConnected?: boolean;
  /** The install step failed: HostInstallationFailed with this reason. */
  installFailed?: string;
  reclaim?: { rebooting: true } | { failed: string };
  discoveryAgentVersion?: string;
  installerVersion?: string;
}

/** A step reply waiting to be answered until the reconciler has written what it put. */
interface ApplyWaiter {
  seq: number;
  settle(applied: boolean): void;
}

export class HostInbox {
  private readonly entries = new Map<string, { seq: number; update: PendingHostUpdate }>();
  private readonly waiters = new Map<string, ApplyWaiter[]>();
  private seq = 0;

  /** Returns the sequence number of this put (see whenApplied). */
  put(hostId: string, patch: PendingHostUpdate): number {
    const prev = this.entries.get(hostId)?.update ?? {};
    this.entries.set(hostId, { seq: ++this.seq, update: { ...prev, ...patch } });
    return this.seq;
  }

  peek(hostId: string): { seq: number; update: PendingHostUpdate } | undefined {
    return this.entries.get(hostId);
  }

  /**
   * The reconciler has written everything up to `seq` (an entry merges every earlier put): drops
   * the entry if nothing arrived since, and settles the replies waiting on what was written.
   */
  ack(hostId: string, seq: number): void {
    if (this.entries.get(hostId)?.seq === seq) this.entries.delete(hostId);
    this.settle(hostId, (w) => w.seq <= seq, true);
  }

  delete(hostId: string): void {
    this.entries.delete(hostId);
    this.settle(hostId, () => true, false);
  }

  /**
   * Resolves true once the put numbered `seq` is written to the record, false if it was dropped
   * (host forgotten or re-registered) or `timeoutMs` passed first. Call it right after the put,
   * before any await: an entry already gone reads as dropped.
   */
  whenApplied(hostId: string, seq: number, timeoutMs: number): Promise<boolean> {
    const current = this.entries.get(hostId);
    if (!current || current.seq < seq) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter: ApplyWaiter = {
        seq,
        settle: (applied) => {
          clearTimeout(timer);
          resolve(applied);
        },
      };
      const timer = setTimeout(() => {
        const list = this.waiters.get(hostId) ?? [];
        const rest = list.filter((w) => w !== waiter);
        if (rest.length) this.waiters.set(hostId, rest);
        else this.waiters.delete(hostId);
        resolve(false);
      }, timeoutMs);
      timer.unref();
      this.waiters.set(hostId, [...(this.waiters.get(hostId) ?? []), waiter]);
    });
  }

  private settle(hostId: string, which: (w: ApplyWaiter) => boolean, applied: boolean): void {
    const list = this.waiters.get(hostId);
    if (!list) return;
    const rest = list.filter((w) => !which(w));
    for (const w of list) if (which(w)) w.settle(applied);
    if (rest.length) this.waiters.set(hostId, rest);
    else this.waiters.delete(hostId);
  }
}

export class WarmUp {
  readonly startedAt: number;
  /** Step types of the host's first poll still unanswered; `true` once warm. */
  private readonly hosts = new Map<string, Set<string> | true>();
  /** Hosts whose first poll to this process was refused (refusesFirstPoll). */
  private readonly pollRefused = new Set<string>();

  constructor(startedAt: number) {
    this.startedAt = startedAt;
  }

  /** When the warm-up window of the process ends (epoch ms). */
  get endsAt(): number {
    return this.startedAt + WARM_UP_MS;
  }

  isWarm(hostId: string, now: number): boolean {
    return now >= this.endsAt || this.hosts.get(hostId) === true;
  }

  /** The first poll since the start fixes the round of steps to wait for. */
  onPoll(hostId: string, stepTypes: readonly string[]): void {
    if (this.hosts.has(hostId)) return;
    this.hosts.set(hostId, stepTypes.length === 0 ? true : new Set(stepTypes));
  }

  onReply(hostId: string, stepType: string): void {
    const pending = this.hosts.get(hostId);
    if (pending === undefined || pending === true) return;
    pending.delete(stepType);
    if (pending.size === 0) this.hosts.set(hostId, true);
  }

  /** A (re-)registering host starts from scratch: nothing stored is worth keeping. */
  markWarm(hostId: string): void {
    this.hosts.set(hostId, true);
  }

  /**
   * True once for a host this process has neither registered nor heard poll. The runner does not
   * post a result identical to one it posted within the hour, and forgets what it posted when a
   * poll fails (agent-api.md §1.1 step 4); the facts a killed or restarted process held in memory
   * would otherwise come back only when they change or that hour is over, and a host waiting on
   * them (a DNS check, say) stayed insufficient that long. A refused first poll (a 500: the
   * agent's transport retries a 503 by itself) makes the runner send its whole next round again.
   */
  refusesFirstPoll(hostId: string): boolean {
    if (this.hosts.has(hostId) || this.pollRefused.has(hostId)) return false;
    this.pollRefused.add(hostId);
    return true;
  }

  forget(hostId: string): void {
    this.hosts.delete(hostId);
    this.pollRefused.delete(hostId);
  }
}

/** A new host's Agent as its reconciler would leave it: what to create, then the status to write. */
export interface SettledAgent {
  agent: Agent;
  status: AgentStatus;
  /** Events of the reconciler's computation (after the registration's own). */
  events: SmEvent[];
}

/** `draft`: the Agent to create with the registration's status on it; `facts`: the host's memory. */
export type SettleNewAgent = (draft: Agent, facts: HostRuntimeFacts, now: Date) => Promise<SettledAgent>;

export class HostMemory {
  readonly inbox = new HostInbox();
  /** Hosts whose new Agent this process is creating and has not written the status of yet. */
  readonly registering = new Set<string>();
  /**
   * Set by the Agent controller (it owns the computation; the host API must not import it): lets
   * a registration create the Agent with everything known, in two writes (issue 16).
   */
  settleNewAgent: SettleNewAgent | undefined;
  readonly warmUp: WarmUp;
  readonly smOptions: StateMachineOptions;
  /** The cluster and infra-env records host polls reuse (poll-records.ts). */
  readonly pollClusters = new PollRecords<AgentCluster | undefined>();
  readonly pollInfraEnvs = new PollRecords<InfraEnvRecord>();

  constructor(startedAt: number, env: Readonly<Record<string, string | undefined>>) {
    this.warmUp = new WarmUp(startedAt);
    const { options } = optionsFromEnv(env);
    this.smOptions = resolveOptions({ ...options, kubeApiEnabled: true });
  }

  forget(hostId: string): void {
    this.inbox.delete(hostId);
    this.warmUp.forget(hostId);
    this.registering.delete(hostId);
  }
}

const perContext = new WeakMap<OperatorContext, HostMemory>();

/** The host memory of an operator process (created on first use, at controller registration). */
export function hostMemory(ctx: OperatorContext): HostMemory {
  let m = perContext.get(ctx);
  if (!m) {
    m = new HostMemory(ctx.now().getTime(), process.env);
    const { errors } = optionsFromEnv(process.env);
    for (const e of errors) ctx.logger.warn(`ignoring invalid setting ${e}`);
    perContext.set(ctx, m);
  }
  return m;
}
