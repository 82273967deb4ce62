// The process-level runner (controller-runtime pkg/manager):
//   start: probe/metrics servers → informers for every controller whose kinds are served → wait for
//          caches (then /readyz is ok) → campaign for the Lease → on leadership start controllers.
//          Standbys keep warm caches so a take-over does not wait for a full list.
//   optional controllers (kinds whose CRDs may be absent) start when discovery finds their kinds,
//          re-checked every discoveryInterval.
//   stop (SIGTERM): stop controllers and wait for in-flight reconciles (graceful timeout), keep
//          renewing meanwhile, then release the Lease, stop informers, close servers.
//   leadership lost: stop controllers at once; start() rejects with LeadershipLostError so the
//          process exits (as controller-runtime does) rather than run without the Lease.
//   probes: /readyz fails while caches are unsynced, while every API request has failed for longer
//          than apiUnavailableReadyWindowMs, or while a cache has heard nothing from its watch for
//          longer than a watch may stay silent. /healthz fails only when a restart would help: no
//          API request has had any answer for apiStuckLivenessWindowMs while a fresh connection to
//          the same API server is answered.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { BackoffOptions } from './backoff.ts';
import { ControllerBuilder, type ControllerHost, type ControllerRegistration } from './builder.ts';
import { InformerCache, type ResourceCacheOptions } from './cache.ts';
import { KubeClient } from './client.ts';
import type { RuntimeConfig } from './config.ts';
import { parseBindAddress } from './config.ts';
import type { Controller } from './controller.ts';
import { Discovery } from './discovery.ts';
import { EventRecorder } from './events.ts';
import { type CheckResult, HealthServer } from './health.ts';
import type { Informer } from './informer.ts';
import type { KubeConfigLike } from './kubeconfig.ts';
import { LeaderElector } from './leader-election.ts';
import { createLogger } from './logger.ts';
import { RuntimeMetrics } from './metrics.ts';
import { MetricsAuthorizer, metricsCertificate } from './metrics-auth.ts';
import { TokenBucket } from './rate-limiter.ts';
import type { ApiResource, KubeObject } from './types.ts';

export interface LeaderElectionOptions {
  namespace: string;
  name: string;
  /** Default '<hostname>_<uuid>'. */
  identity?: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
}

export interface ManagerOptions {
  kubeConfig: KubeConfigLike;
  logger?: Logger;
  metrics?: RuntimeMetrics;
  /**
   * Size of each client-side request budget (reconcilers and host API, Events, the Lease each get
   * their own); qps <= 0 (the default) turns client-side limiting off. See client.ts.
   */
  qps?: number;
  burst?: number;
  /** /readyz fails once every API request has failed for this long. Default 30 s. */
  apiUnavailableReadyWindowMs?: number;
  /** /healthz fails once no API request has been answered for this long while a fresh connection is. Default 2 min. */
  apiStuckLivenessWindowMs?: number;
  /** false runs controllers unconditionally (tests, single replica). */
  leaderElection: LeaderElectionOptions | false;
  /** /healthz and /readyz; undefined = not served. Same address as metrics = one server. */
  healthProbeAddress?: { host: string; port: number };
  metricsAddress?: { host: string; port: number };
  /**
   * Serve /metrics over HTTPS to authorised callers only (metrics-auth.ts), with tls.crt/tls.key
   * from certDir when given, else a self-signed certificate. Unset: plain HTTP, open to anyone.
   */
  secureMetrics?: { certDir?: string };
  /** Namespace, or namespaces, to restrict namespaced caches to (undefined = all). */
  namespace?: string | readonly string[];
  /** Per-kind cache restrictions (label selectors, transforms). */
  cacheByResource?: ResourceCacheOptions[];
  minWatchTimeoutSeconds?: number;
  watchIdleMarginMs?: number;
  watchBackoff?: BackoffOptions;
  /** Default 120 s (controller-runtime CacheSyncTimeout). */
  cacheSyncTimeoutMs?: number;
  /** Default 30 s (controller-runtime graceful shutdown). */
  gracefulShutdownTimeoutMs?: number;
  /** Default 30 s (see config.ts). */
  discoveryIntervalMs?: number;
  /** Workers for controllers that do not set their own. Default 1. */
  defaultWorkers?: number;
  /** Event source component. Default 'agent-install-operator'. */
  component?: string;
}

export class LeadershipLostError extends Error {
  constructor() {
    super('leader election lost');
    this.name = 'LeadershipLostError';
  }
}

interface Entry {
  registration: ControllerRegistration;
  state: 'pending' | 'syncing' | 'synced';
}

export class Manager implements ControllerHost {
  readonly client: KubeClient;
  readonly cache: InformerCache;
  readonly metrics: RuntimeMetrics;
  readonly logger: Logger;
  readonly events: EventRecorder;
  readonly defaultWorkers: number;
  private readonly opts: ManagerOptions;
  private readonly discovery: Discovery;
  private readonly entries: Entry[] = [];
  private readonly servers: HealthServer[] = [];
  private elector: LeaderElector | undefined;
  private electorClient: KubeClient | undefined;
  private leading = false;
  private synced = false;
  private discoveryTimer: NodeJS.Timeout | undefined;
  private finished: PromiseWithResolvers<void> | undefined;
  private stopping: Promise<void> | undefined;
  private processHandlers: (() => void) | undefined;
  private livenessProbe: { at: number; result: Promise<CheckResult> } | undefined;
  private readonly shutdownHooks: (() => Promise<void>)[] = [];

  constructor(opts: ManagerOptions) {
    this.opts = opts;
    this.logger = opts.logger ?? createLogger();
    this.metrics = opts.metrics ?? new RuntimeMetrics({ processMetrics: true });
    this.defaultWorkers = opts.defaultWorkers ?? 1;
    this.client = new KubeClient({
      kubeConfig: opts.kubeConfig,
      qps: opts.qps,
      burst: opts.burst,
      metrics: this.metrics.clientSink(),
      onReconnect: (reason) => this.logger.warn({ reason }, 'API connection retired; opening a new one'),
    });
    this.cache = new InformerCache({
      client: this.client,
      logger: this.logger,
      metrics: this.metrics,
      namespace: opts.namespace,
      byResource: opts.cacheByResource,
      minWatchTimeoutSeconds: opts.minWatchTimeoutSeconds,
      idleMarginMs: opts.watchIdleMarginMs,
      backoff: opts.watchBackoff,
    });
    this.discovery = new Discovery(this.client);
    this.events = new EventRecorder({
      // Its own budget: an Event backlog neither waits behind reconcilers nor takes their tokens.
      client: this.client.withBudget(new TokenBucket(opts.qps ?? 0, opts.burst ?? 30)),
      component: opts.component ?? 'agent-install-operator',
      logger: this.logger,
      metrics: this.metrics,
    });
  }

  /** Builds a Manager from validated runtime configuration. */
  static fromConfig(
    config: RuntimeConfig,
    extra: { kubeConfig: KubeConfigLike; logger?: Logger; cacheByResource?: ResourceCacheOptions[] },
  ): Manager {
    return new Manager({
      kubeConfig: extra.kubeConfig,
      logger: extra.logger ?? createLogger({ level: config.logLevel }),
      qps: config.kubeApiQps,
      burst: config.kubeApiBurst,
      apiUnavailableReadyWindowMs: config.apiUnavailableReadyWindowMs,
      apiStuckLivenessWindowMs: config.apiStuckLivenessWindowMs,
      leaderElection: config.leaderElect
        ? {
            namespace: config.leaderElectionNamespace,
            name: config.leaderElectionId,
            leaseDurationMs: config.leaseDurationMs,
            renewDeadlineMs: config.renewDeadlineMs,
            retryPeriodMs: config.retryPeriodMs,
          }
        : false,
      healthProbeAddress: parseBindAddress(config.healthProbeBindAddress),
      metricsAddress: parseBindAddress(config.metricsBindAddress),
      ...(config.metricsSecure ? { secureMetrics: { certDir: config.metricsCertDir } } : {}),
      namespace: config.watchNamespace,
      cacheByResource: extra.cacheByResource,
      minWatchTimeoutSeconds: config.minWatchTimeoutMs / 1000,
      cacheSyncTimeoutMs: config.cacheSyncTimeoutMs,
      gracefulShutdownTimeoutMs: config.gracefulShutdownTimeoutMs,
      discoveryIntervalMs: config.discoveryIntervalMs,
      defaultWorkers: config.workers,
    });
  }

  /** Starts a controller definition; see ControllerBuilder. */
  controller(name: string): ControllerBuilder {
    return new ControllerBuilder(this, name);
  }

  /** A controller added under `name`, if any (tests wait on its passes). */
  registered(name: string): Controller | undefined {
    return this.entries.find((e) => e.registration.controller.name === name)?.registration.controller;
  }

  /**
   * Controllers with a key queued, in flight, or delayed and due within `horizonMs`, read in one
   * synchronous look (tests' "settled" barriers: gauges read one after the other can miss a key
   * re-queued between the two reads, and a retry due in 200 ms is work still to come).
   */
  busyControllers(horizonMs = 0): string[] {
    const busy: string[] = [];
    for (const { registration } of this.entries) {
      const { name, queue } = registration.controller;
      const [queued, inFlight, due] = [queue.len(), queue.inFlight(), queue.dueWithin(horizonMs)];
      if (queued + inFlight + due > 0)
        busy.push(`${name}: ${queued} queued, ${inFlight} in flight, ${due} due`);
    }
    return busy;
  }

  /** The shared informer (and its store) for a kind; reconcilers read from here. */
  informer<T extends KubeObject = KubeObject>(resource: ApiResource): Informer<T> {
    return this.cache.informer<T>(resource);
  }

  /**
   * The informer for a kind only if one exists already: for reads of kinds that may not be served
   * (an optional controller creates the informer once its kinds are), without starting a watch.
   */
  existingInformer<T extends KubeObject = KubeObject>(resource: ApiResource): Informer<T> | undefined {
    return this.cache.existing<T>(resource);
  }

  /**
   * Work a controller started outside its reconciles (a background job writing files): graceful
   * shutdown awaits these hooks after the controllers stop, within the same grace period.
   */
  onShutdown(hook: () => Promise<void>): void {
    this.shutdownHooks.push(hook);
  }

  add(registration: ControllerRegistration): void {
    if (this.entries.some((e) => e.registration.controller.name === registration.controller.name)) {
      throw new Error(`duplicate controller name ${registration.controller.name}`);
    }
    const entry: Entry = { registration, state: 'pending' };
    this.entries.push(entry);
    if (this.finished && !this.stopping) void this.activate(entry, false);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  /** Caches of every started controller have synced. */
  isReady(): boolean {
    return this.synced && this.cache.hasSynced();
  }

  /** Health server ports after start (0 when not served); useful with port 0 in tests. */
  get ports(): number[] {
    return this.servers.map((s) => s.port);
  }

  /**
   * Runs until stop() (resolves) or a fatal error: caches not synced in time, leadership lost
   * (rejects). Callers exit the process on rejection.
   */
  start(): Promise<void> {
    if (this.finished) throw new Error('manager already started');
    this.finished = Promise.withResolvers<void>();
    // Boot in the background so that stop() (SIGTERM during start-up) ends start() at once.
    void this.boot();
    return this.finished.promise;
  }

  private async boot(): Promise<void> {
    try {
      await this.startServers();
      this.cache.start();
      await Promise.all(this.entries.map((e) => this.activate(e, true)));
      // Every informer created so far, including ones reconcilers only read from (mgr.informer()
      // at setup time): a reconciler must never act on a cache that has not listed yet.
      await this.cache.waitForSync(this.opts.cacheSyncTimeoutMs ?? 120_000);
    } catch (err) {
      await this.shutdown(err);
      return;
    }
    if (this.stopping) return;
    this.synced = true;
    this.logger.info('caches synced');
    this.discoveryTimer = setInterval(() => this.activatePending(), this.opts.discoveryIntervalMs ?? 30_000);
    if (this.opts.leaderElection) this.campaign(this.opts.leaderElection);
    else this.startLeading();
  }

  /** Graceful stop: drain controllers, release the Lease, stop informers and servers. */
  stop(): Promise<void> {
    return this.shutdown(undefined);
  }

  /**
   * SIGTERM/SIGINT → graceful stop (a second signal exits at once); unhandled promise rejections
   * are logged and counted instead of killing the process. Returns a function that uninstalls them.
   */
  installProcessHandlers(): () => void {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) process.exit(1);
      signalled = true;
      this.logger.info({ signal }, 'shutting down');
      void this.stop();
    };
    const onRejection = (reason: unknown) => {
      this.metrics.unhandledRejections.inc();
      this.logger.error({ err: reason }, 'unhandled promise rejection');
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    process.on('unhandledRejection', onRejection);
    this.processHandlers = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.off('unhandledRejection', onRejection);
    };
    return this.processHandlers;
  }

  private campaign(le: LeaderElectionOptions): void {
    // Its own client (budget and connection): renewals never queue behind reconcile traffic, and a
    // broken main connection does not cost the Lease.
    this.electorClient = new KubeClient({
      kubeConfig: this.opts.kubeConfig,
      qps: this.opts.qps,
      burst: this.opts.burst,
      metrics: this.metrics.clientSink(),
    });
    this.elector = new LeaderElector({
      client: this.electorClient,
      watchClient: this.electorClient,
      namespace: le.namespace,
      name: le.name,
      identity: le.identity ?? `${hostname()}_${randomUUID()}`,
      leaseDurationMs: le.leaseDurationMs,
      renewDeadlineMs: le.renewDeadlineMs,
      retryPeriodMs: le.retryPeriodMs,
      logger: this.logger.child({ component: 'leader-election' }),
      metrics: this.metrics,
      onStartedLeading: () => this.startLeading(),
    });
    void this.elector.run().then((outcome) => {
      if (outcome === 'lost') void this.shutdown(new LeadershipLostError());
    });
  }

  private startLeading(): void {
    this.leading = true;
    for (const e of this.entries) if (e.state === 'synced') e.registration.controller.start();
  }

  /** Wires a controller if its kinds are served; returns its informers (none if deferred). */
  private async activate(entry: Entry, initial: boolean): Promise<Informer[]> {
    if (entry.state !== 'pending') return [];
    const reg = entry.registration;
    if (reg.optional) {
      const served = await this.discovery.allServed(reg.resources).catch((err) => {
        this.logger.warn({ err: String(err), controller: reg.controller.name }, 'discovery failed');
        return false;
      });
      if (!served) {
        if (initial)
          this.logger.info({ controller: reg.controller.name }, 'kinds not served; controller deferred');
        return [];
      }
    }
    if (entry.state !== 'pending') return [];
    entry.state = 'syncing';
    const informers = reg.wire();
    const ready = this.cache.waitForSync(this.opts.cacheSyncTimeoutMs ?? 120_000, informers).then(
      () => {
        entry.state = 'synced';
        if (this.leading && !this.stopping) reg.controller.start();
      },
      (err) => void this.shutdown(err),
    );
    if (!initial) await ready;
    return informers;
  }

  private activatePending(): void {
    for (const e of this.entries) {
      if (e.state === 'pending') {
        void this.activate(e, false).then((informers) => {
          if (informers.length)
            this.logger.info({ controller: e.registration.controller.name }, 'kinds now served');
        });
      }
    }
  }

  private async startServers(): Promise<void> {
    const { healthProbeAddress: probe, metricsAddress: metrics } = this.opts;
    const checks = { healthz: () => this.liveness(), readyz: () => this.readiness() };
    const secure = this.opts.secureMetrics;
    // Probes stay plain HTTP (the kubelet), so a secure metrics server never shares their port.
    const same =
      !secure &&
      probe &&
      metrics &&
      probe.host === metrics.host &&
      probe.port === metrics.port &&
      probe.port !== 0;
    if (probe) {
      const registry = same ? this.metrics.registry : undefined;
      this.servers.push(new HealthServer({ ...probe, ...checks, registry, logger: this.logger }));
    }
    if (metrics && !same) {
      const authorizer = secure ? new MetricsAuthorizer(this.client) : undefined;
      this.servers.push(
        new HealthServer({
          ...metrics,
          registry: this.metrics.registry,
          logger: this.logger,
          ...(secure ? { tls: await metricsCertificate(secure.certDir, this.logger) } : {}),
          ...(authorizer ? { authorizeMetrics: (h) => authorizer.check(h) } : {}),
        }),
      );
    }
    await Promise.all(this.servers.map((s) => s.start()));
  }

  /** /readyz: caches synced, the API server answering, every cache hearing from its watch. */
  readiness(): CheckResult {
    if (!this.isReady()) return { ok: false, detail: 'caches not synced' };
    const failingMs = this.client.health.failingForMs();
    if (failingMs > (this.opts.apiUnavailableReadyWindowMs ?? 30_000)) {
      return {
        ok: false,
        detail: `every API request failed for ${Math.round(failingMs / 1000)} s (last: ${this.client.health.lastFailure})`,
      };
    }
    const stale = this.cache.stale();
    if (stale.length) {
      const s = stale[0]!;
      return {
        ok: false,
        detail: `cache ${s.resource} heard nothing from its watch for ${Math.round(s.silentMs / 1000)} s (limit ${Math.round(s.maxSilenceMs / 1000)} s)${stale.length > 1 ? ` and ${stale.length - 1} more` : ''}`,
      };
    }
    return { ok: true };
  }

  /**
   * /healthz: fails only when a restart would help, i.e. our connection gets no answers while a
   * fresh one does. An API server that is down fails /readyz instead: restarting would not help.
   * The fresh-connection probe runs at most every 10 s.
   */
  liveness(): Promise<CheckResult> | CheckResult {
    const stuckMs = this.client.health.unreachableForMs();
    if (stuckMs <= (this.opts.apiStuckLivenessWindowMs ?? 120_000)) return { ok: true };
    const now = Date.now();
    if (!this.livenessProbe || now - this.livenessProbe.at > 10_000) {
      const result = this.client.probeFresh().then((answer): CheckResult => {
        if (typeof answer !== 'number' || answer >= 500) return { ok: true };
        const detail = `no API request answered for ${Math.round(stuckMs / 1000)} s (last: ${this.client.health.lastFailure}) while a new connection is (HTTP ${answer})`;
        this.logger.error({ detail }, 'API client stuck; failing /healthz so the process is restarted');
        return { ok: false, detail };
      });
      this.livenessProbe = { at: now, result };
    }
    return this.livenessProbe.result;
  }

  private async runShutdownHooks(graceMs: number): Promise<void> {
    if (this.shutdownHooks.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((r) => {
      timer = setTimeout(r, graceMs);
    });
    const hooks = Promise.allSettled(this.shutdownHooks.map((h) => h()));
    await Promise.race([hooks, grace]);
    clearTimeout(timer);
  }

  private shutdown(cause: unknown): Promise<void> {
    this.stopping ??= (async () => {
      const lost = cause instanceof LeadershipLostError;
      if (cause) this.logger.error({ err: cause }, 'manager stopping after a fatal error');
      clearInterval(this.discoveryTimer);
      // Lost leadership: someone else may already lead, so do not wait for in-flight reconciles.
      const graceMs = lost ? 0 : (this.opts.gracefulShutdownTimeoutMs ?? 30_000);
      await Promise.all(this.entries.map((e) => e.registration.controller.stop(graceMs)));
      await this.runShutdownHooks(graceMs);
      this.leading = false;
      await this.elector?.stop({ release: !lost });
      await this.cache.stop();
      await Promise.race([this.events.flush(), new Promise((r) => setTimeout(r, 2_000))]);
      await Promise.all(this.servers.map((s) => s.close()));
      await this.client.close();
      await this.electorClient?.close();
      this.processHandlers?.();
      this.logger.info('manager stopped');
      if (cause) this.finished?.reject(cause);
      else this.finished?.resolve();
    })();
    return this.stopping;
  }
}
