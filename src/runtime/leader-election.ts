// Leader election on a coordination.k8s.io/v1 Lease (client-go tools/leaderelection semantics):
// - a candidate takes the lease when it is free (no holder, released) or when the holder has not
//   changed the record for leaseDuration, measured on *our* clock from when we observed the record
//   (so clock skew between nodes does not matter);
// - updates are optimistic (resourceVersion): of two candidates racing, one gets a conflict;
// - the leader renews every retryPeriod and gives up leadership if it has not renewed for
//   renewDeadline (< leaseDuration, so it stops before anyone else may start);
// - stop({release}) keeps renewing until the caller has drained its work, then clears the holder so
//   a successor takes over at once instead of after leaseDuration.
// Two departures from client-go, both only making a candidate act sooner within the same rules
// (docs/design/records.md, "Replicas"): a candidate with a watch client watches the Lease, so it
// observes each renewal when it is written rather than at its next poll (up to 2.2 retry periods
// later) and tries at once when the holder releases; and it wakes exactly when the record it
// observed expires instead of at its next jittered retry. A killed leader is then replaced one
// leaseDuration after its last renewal, not up to about leaseDuration + 4.4 retry periods.
import { setTimeout as sleep } from 'node:timers/promises';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import { isAlreadyExists, isConflict, type KubeClient } from './client.ts';
import type { RuntimeMetrics } from './metrics.ts';
import type { Clock } from './rate-limiter.ts';
import { type KubeObject, LeaseResource } from './types.ts';
import { type ListWatchClient, Watcher } from './watcher.ts';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

export interface Lease extends KubeObject {
  spec?: LeaseSpec;
}

export type LeaseClient = Pick<KubeClient, 'getIfExists' | 'create' | 'replace'>;

export interface LeaderElectorOptions {
  client: LeaseClient;
  /** Lets a candidate watch the Lease (list + watch on it) instead of only polling it. */
  watchClient?: ListWatchClient;
  namespace: string;
  name: string;
  /** Unique per process, e.g. '<hostname>_<uuid>' (controller-runtime uses the same shape). */
  identity: string;
  /** Default 15 s (controller-runtime). */
  leaseDurationMs?: number;
  /** Default 10 s (controller-runtime). */
  renewDeadlineMs?: number;
  /** Default 2 s (controller-runtime). */
  retryPeriodMs?: number;
  onStartedLeading: () => void;
  /** Called when leadership is lost (not on a requested stop). */
  onStoppedLeading?: () => void;
  logger: Logger;
  metrics?: RuntimeMetrics;
  now?: Clock;
}

/** MicroTime wire format (RFC 3339 with exactly six fractional digits). */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z');
}

export class LeaderElector {
  private readonly opts: LeaderElectorOptions;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly now: Clock;
  private readonly abort = new AbortController();
  private observed: Lease | undefined;
  private observedAt = 0;
  private leading = false;
  private running: Promise<'lost' | 'stopped'> | undefined;
  /** Ends the candidate's current pause early (the watch saw the Lease released or deleted). */
  private wake: (() => void) | undefined;

  constructor(opts: LeaderElectorOptions) {
    this.opts = opts;
    this.leaseDurationMs = opts.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = opts.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = opts.retryPeriodMs ?? 2_000;
    this.now = opts.now ?? Date.now;
    if (this.renewDeadlineMs >= this.leaseDurationMs)
      throw new Error('renewDeadline must be below leaseDuration');
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Campaigns, then renews. Resolves 'lost' if leadership was lost, 'stopped' after stop(). */
  run(): Promise<'lost' | 'stopped'> {
    this.running ??= this.campaign();
    return this.running;
  }

  /** Stops campaigning/renewing; with release, hands the lease back if we hold it. */
  async stop(opts: { release: boolean }): Promise<void> {
    this.abort.abort();
    await this.running;
    if (opts.release && this.leading) await this.release();
    this.setLeading(false);
  }

  private async campaign(): Promise<'lost' | 'stopped'> {
    const signal = this.abort.signal;
    const { logger } = this.opts;
    const watching = this.watchLease();
    while (!signal.aborted) {
      if ((await this.tryAcquireOrRenew(this.leaseDurationMs)) === 'acquired') break;
      await this.candidatePause(this.candidateWaitMs());
    }
    watching.abort();
    if (signal.aborted) return 'stopped';
    this.setLeading(true);
    logger.info(
      { lease: `${this.opts.namespace}/${this.opts.name}`, identity: this.opts.identity },
      'became leader',
    );
    this.opts.onStartedLeading();
    let renewedAt = this.now();
    for (;;) {
      await this.pause(this.retryPeriodMs);
      if (signal.aborted) return 'stopped';
      const budget = this.renewDeadlineMs - (this.now() - renewedAt);
      const outcome = budget > 0 ? await this.tryAcquireOrRenew(budget) : 'failed';
      if (outcome === 'acquired') {
        renewedAt = this.now();
        continue;
      }
      if (signal.aborted) return 'stopped';
      if (outcome === 'held' || this.now() - renewedAt >= this.renewDeadlineMs) {
        logger.error({ outcome, sinceRenewMs: this.now() - renewedAt }, 'leadership lost');
        this.setLeading(false);
        this.opts.onStoppedLeading?.();
        return 'lost';
      }
    }
  }

  /** 'acquired' (we hold it now), 'held' (someone else validly holds it) or 'failed' (try again). */
  private async tryAcquireOrRenew(timeoutMs: number): Promise<'acquired' | 'held' | 'failed'> {
    const { client, namespace, name, identity, logger } = this.opts;
    const signal = AbortSignal.any([this.abort.signal, AbortSignal.timeout(Math.max(1, timeoutMs))]);
    const now = this.now();
    const durationSeconds = Math.ceil(this.leaseDurationMs / 1000);
    if (this.leading && (await this.renewObserved(signal, now)) === 'acquired') return 'acquired';
    try {
      const lease = await client.getIfExists<Lease>(LeaseResource, name, namespace, signal);
      if (!lease) {
        const created = await client.create<Lease>(
          LeaseResource,
          {
            metadata: { name, namespace },
            spec: {
              holderIdentity: identity,
              leaseDurationSeconds: durationSeconds,
              acquireTime: microTime(now),
              renewTime: microTime(now),
              leaseTransitions: 0,
            },
          },
          { signal },
        );
        this.observe(created, this.now());
        return 'acquired';
      }
      if (!this.observed || !isDeepStrictEqual(lease.spec, this.observed.spec)) this.observe(lease, now);
      const spec = lease.spec ?? {};
      const holder = spec.holderIdentity ?? '';
      const heldFor = (spec.leaseDurationSeconds ?? durationSeconds) * 1000;
      if (holder && holder !== identity && this.observedAt + heldFor > now) return 'held';
      const renewing = holder === identity;
      const next: Lease = {
        ...lease,
        spec: {
          holderIdentity: identity,
          leaseDurationSeconds: durationSeconds,
          acquireTime: renewing && spec.acquireTime ? spec.acquireTime : microTime(now),
          renewTime: microTime(now),
          leaseTransitions: (spec.leaseTransitions ?? 0) + (renewing ? 0 : 1),
        },
      };
      const updated = await client.replace<Lease>(LeaseResource, next, { signal });
      this.observe(updated, this.now());
      return 'acquired';
    } catch (err) {
      if (!isConflict(err) && !isAlreadyExists(err) && !this.abort.signal.aborted) {
        logger.warn({ err: String(err) }, 'lease acquire/renew failed');
      }
      return 'failed';
    }
  }

  /**
   * The leader's fast path (as client-go's): renew the Lease we last wrote without reading it
   * first, which halves the idle leader's Lease requests. Anything unexpected (a conflict because
   * someone else wrote it, an error) answers 'failed' and the caller reads the Lease and decides.
   */
  private async renewObserved(signal: AbortSignal, now: number): Promise<'acquired' | 'failed'> {
    const lease = this.observed;
    const spec = lease?.spec;
    if (!lease || spec?.holderIdentity !== this.opts.identity) return 'failed';
    try {
      const updated = await this.opts.client.replace<Lease>(
        LeaseResource,
        { ...lease, spec: { ...spec, renewTime: microTime(now) } },
        { signal },
      );
      this.observe(updated, this.now());
      return 'acquired';
    } catch (err) {
      if (!isConflict(err) && !this.abort.signal.aborted) {
        this.opts.logger.debug({ err: String(err) }, 'lease fast renewal failed; reading it');
      }
      return 'failed';
    }
  }

  private async release(): Promise<void> {
    const { client, namespace, name, identity, logger } = this.opts;
    const signal = AbortSignal.timeout(this.renewDeadlineMs);
    // Read first: a renewal aborted by stop() may still have landed, leaving our copy stale.
    for (let attempt = 0; attempt < 3; attempt++) {
      try {
        const lease = await client.getIfExists<Lease>(LeaseResource, name, namespace, signal);
        if (!lease || lease.spec?.holderIdentity !== identity) return;
        // client-go ReleaseOnCancel: empty holder, 1 s duration; successors take it at their next try.
        await client.replace<Lease>(
          LeaseResource,
          {
            ...lease,
            spec: {
              ...lease.spec,
              holderIdentity: '',
              leaseDurationSeconds: 1,
              renewTime: microTime(this.now()),
            },
          },
          { signal },
        );
        logger.info('released leader lease');
        return;
      } catch (err) {
        if (isConflict(err)) continue;
        // Not fatal: the lease simply expires after leaseDuration.
        logger.warn({ err: String(err) }, 'could not release leader lease');
        return;
      }
    }
  }

  /**
   * client-go's jittered retry (up to 2.2 retry periods, so candidates do not march in step), cut
   * short to the moment the record we observed expires: trying then is what the rules allow, and
   * waiting longer only leaves the hosts without a leader.
   */
  private candidateWaitMs(): number {
    const jittered = this.retryPeriodMs * (1 + 1.2 * Math.random());
    const spec = this.observed?.spec;
    if (!spec?.holderIdentity || spec.holderIdentity === this.opts.identity) return jittered;
    const heldFor = (spec.leaseDurationSeconds ?? Math.ceil(this.leaseDurationMs / 1000)) * 1000;
    const untilExpiry = this.observedAt + heldFor - this.now();
    // Already expired yet not acquired (a conflict, an error): the usual retry, not a tight loop.
    return untilExpiry > 0 ? Math.min(jittered, untilExpiry + 1) : jittered;
  }

  /**
   * A candidate's watch on the Lease: each change is observed when it arrives, which is after it
   * was written, so expiry is never reckoned from before the holder's last renewal. A released or
   * deleted Lease ends the current pause. Stopped once we lead (renewals need no watch).
   */
  private watchLease(): AbortController {
    const stop = new AbortController();
    const { watchClient, namespace, name, logger } = this.opts;
    if (!watchClient) return stop;
    const watcher = new Watcher<Lease>({
      client: watchClient,
      resource: LeaseResource,
      namespace,
      fieldSelector: `metadata.name=${name}`,
      logger: logger.child({ watch: 'lease' }),
      onEvent: (ev) => {
        if (this.leading || stop.signal.aborted) return;
        if (ev.type === 'delete') return void this.wake?.();
        if (ev.type !== 'apply' && ev.type !== 'initApply') return;
        if (!this.observed || !isDeepStrictEqual(ev.object.spec, this.observed.spec)) {
          this.observe(ev.object, this.now());
        }
        if (!ev.object.spec?.holderIdentity) this.wake?.();
      },
    });
    void watcher.run(AbortSignal.any([stop.signal, this.abort.signal]));
    return stop;
  }

  private async candidatePause(ms: number): Promise<void> {
    const woken = new AbortController();
    this.wake = () => woken.abort();
    await sleep(ms, undefined, { signal: AbortSignal.any([this.abort.signal, woken.signal]) }).catch(
      () => undefined,
    );
    this.wake = undefined;
  }

  private observe(lease: Lease, at: number): void {
    this.observed = lease;
    this.observedAt = at;
  }

  private setLeading(leading: boolean): void {
    this.leading = leading;
    this.opts.metrics?.leaderStatus.set({ name: this.opts.name }, leading ? 1 : 0);
  }

  private async pause(ms: number): Promise<void> {
    await sleep(ms, undefined, { signal: this.abort.signal }).catch(() => undefined);
  }
}
