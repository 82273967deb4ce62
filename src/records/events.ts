// Assisted-installer events (the REST `event` model) kept as core/v1 Events on the CR they concern:
// a host's on its Agent, a cluster's on its AgentClusterInstall (else the ClusterDeployment), an
// infra-env's on its InfraEnv. Labels carry the record ids so GET /v2/events can list them with one
// label-selected LIST across namespaces (user-triggered, so a live read is fine) and they survive an
// operator restart. Annotations keep what a core/v1 Event has no field for (exact time, severity,
// category, name, request id, props). Writing is fire and forget: a failure is logged, never thrown.
// Up to `concurrency` writes are in flight (a 1,000-host wave records about 3,000 events in 20 s,
// more than one write at a time keeps up with under a busy API server); an event past the backlog
// bound or its object's rate limit is dropped, counted in aio_events_dropped_total and logged.

import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../api/index.ts';
import type { AuthFailureEvent, EventSink } from '../auth/types.ts';
import type { ApiEvent, EventCategory, EventFilter, EventList, EventSeverity } from '../core/event-model.ts';
import type { SmEvent } from '../core/statemachine/index.ts';
import {
  formatTime,
  isAlreadyExists,
  isTransient,
  type KubeObject,
  keyOf,
  TokenBucket,
} from '../runtime/index.ts';
import { capForLog } from '../util/log-text.ts';
import { perObject } from '../util/per-object.ts';
import type { OperatorContext } from './context.ts';
import { AGENT_BY_NAME_INDEX } from './indexes.ts';
import { EVENT } from './resources.ts';
import { aciFor } from './views.ts';

const PREFIX = 'events.agent-install.openshift.io';
/** Label keys (values are UUIDs or enum words, always valid label values). */
export const EVENT_LABEL = {
  managed: `${PREFIX}/managed`,
  clusterId: `${PREFIX}/cluster-id`,
  hostId: `${PREFIX}/host-id`,
  infraEnvId: `${PREFIX}/infra-env-id`,
  severity: `${PREFIX}/severity`,
  category: `${PREFIX}/category`,
} as const;
export const EVENT_ANNOTATION = {
  name: `${PREFIX}/name`,
  time: `${PREFIX}/event-time`,
  requestId: `${PREFIX}/request-id`,
  props: `${PREFIX}/props`,
} as const;

const SEVERITIES: readonly EventSeverity[] = ['info', 'warning', 'error', 'critical'];
const CATEGORIES: readonly EventCategory[] = ['user', 'metrics'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Long messages (e.g. a status_info listing every failing validation) are cut, to keep LISTs cheap. */
const MAX_MESSAGE = 4096;

interface CoreEvent extends KubeObject {
  involvedObject?: { kind?: string; name?: string; namespace?: string; uid?: string; apiVersion?: string };
  reason?: string;
  message?: string;
  type?: string;
  firstTimestamp?: string;
  lastTimestamp?: string;
}

/** `host_registration_succeeded` → `HostRegistrationSucceeded` (core/v1 reasons are CamelCase). */
export function eventReason(name: string | undefined): string {
  const words = (name ?? '').split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  if (words.length === 0) return 'Event';
  return words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

function validId(id: string | null | undefined): string | undefined {
  return id && UUID.test(id) ? id.toLowerCase() : undefined;
}

/** The REST event model of an event the installer core emitted. */
export function apiEventOf(e: SmEvent, time: Date): ApiEvent {
  return {
    name: e.name,
    severity: e.severity,
    category: 'user',
    message: e.message,
    event_time: time.toISOString(),
    ...(e.cluster_id ? { cluster_id: e.cluster_id } : {}),
    ...(e.host_id ? { host_id: e.host_id } : {}),
    ...(e.infra_env_id ? { infra_env_id: e.infra_env_id } : {}),
  };
}

/** The core/v1 Event that stores `event`, about `target`. Pure, for tests. */
export function toCoreEvent(event: ApiEvent, target: KubeObject, component: string): CoreEvent {
  const m = target.metadata;
  const time = new Date(event.event_time);
  const at = Number.isNaN(time.getTime()) ? new Date() : time;
  const labels: Record<string, string> = { [EVENT_LABEL.managed]: 'true' };
  const cluster = validId(event.cluster_id);
  const host = validId(event.host_id);
  const infraEnv = validId(event.infra_env_id);
  if (cluster) labels[EVENT_LABEL.clusterId] = cluster;
  if (host) labels[EVENT_LABEL.hostId] = host;
  if (infraEnv) labels[EVENT_LABEL.infraEnvId] = infraEnv;
  labels[EVENT_LABEL.severity] = event.severity;
  labels[EVENT_LABEL.category] = event.category ?? 'user';
  const annotations: Record<string, string> = { [EVENT_ANNOTATION.time]: at.toISOString() };
  if (event.name) annotations[EVENT_ANNOTATION.name] = event.name;
  if (event.request_id) annotations[EVENT_ANNOTATION.requestId] = event.request_id;
  if (event.props) annotations[EVENT_ANNOTATION.props] = event.props;
  const stamp = formatTime(at);
  return {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: {
      // Unique without a round trip: object name + time + randomness, as client-go names them.
      name: `${m.name}.${(BigInt(at.getTime()) * 1_000_000n + BigInt(Math.floor(Math.random() * 1e6))).toString(16)}`,
      namespace: m.namespace || 'default',
      labels,
      annotations,
    },
    involvedObject: {
      apiVersion: target.apiVersion,
      kind: target.kind,
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
    },
    type: event.severity === 'info' ? 'Normal' : 'Warning',
    reason: eventReason(event.name),
    message:
      event.message.length > MAX_MESSAGE ? `${event.message.slice(0, MAX_MESSAGE - 3)}...` : event.message,
    source: { component },
    reportingComponent: component,
    firstTimestamp: stamp,
    lastTimestamp: stamp,
    count: 1,
  } as CoreEvent;
}

/** The REST model of a stored Event (undefined for Events this operator did not write). */
export function fromCoreEvent(ev: CoreEvent): ApiEvent | undefined {
  const labels = ev.metadata.labels ?? {};
  if (labels[EVENT_LABEL.managed] !== 'true') return undefined;
  const ann = ev.metadata.annotations ?? {};
  const severity = labels[EVENT_LABEL.severity] as EventSeverity;
  const category = labels[EVENT_LABEL.category] as EventCategory;
  return {
    ...(ann[EVENT_ANNOTATION.name] ? { name: ann[EVENT_ANNOTATION.name] } : {}),
    ...(labels[EVENT_LABEL.clusterId] ? { cluster_id: labels[EVENT_LABEL.clusterId] } : {}),
    ...(labels[EVENT_LABEL.hostId] ? { host_id: labels[EVENT_LABEL.hostId] } : {}),
    ...(labels[EVENT_LABEL.infraEnvId] ? { infra_env_id: labels[EVENT_LABEL.infraEnvId] } : {}),
    severity: SEVERITIES.includes(severity) ? severity : 'info',
    category: CATEGORIES.includes(category) ? category : 'user',
    message: ev.message ?? '',
    event_time: ann[EVENT_ANNOTATION.time] ?? ev.lastTimestamp ?? ev.firstTimestamp ?? '',
    ...(ann[EVENT_ANNOTATION.requestId] ? { request_id: ann[EVENT_ANNOTATION.requestId] } : {}),
    ...(ann[EVENT_ANNOTATION.props] ? { props: ann[EVENT_ANNOTATION.props] } : {}),
  };
}

/** The label selector for the id filters (AND), `in` for host_ids. */
export function eventSelector(filter: EventFilter): string {
  const parts = [`${EVENT_LABEL.managed}=true`];
  const id = (v: string | undefined) => (v ? v.toLowerCase() : undefined);
  if (filter.clusterId) parts.push(`${EVENT_LABEL.clusterId}=${id(filter.clusterId)}`);
  if (filter.hostId) parts.push(`${EVENT_LABEL.hostId}=${id(filter.hostId)}`);
  if (filter.infraEnvId) parts.push(`${EVENT_LABEL.infraEnvId}=${id(filter.infraEnvId)}`);
  if (filter.hostIds && filter.hostIds.length > 0) {
    parts.push(`${EVENT_LABEL.hostId} in (${filter.hostIds.map((h) => h.toLowerCase()).join(',')})`);
  }
  if (filter.clusterLevel) parts.push(`!${EVENT_LABEL.hostId}`);
  return parts.join(',');
}

/** Filters, counts, orders and pages stored events as GET /v2/events does (all filters ANDed). */
export function selectEvents(all: readonly ApiEvent[], filter: EventFilter): EventList {
  const categories = filter.categories && filter.categories.length > 0 ? filter.categories : ['user'];
  const base = all.filter(
    (e) =>
      categories.includes(e.category ?? 'user') &&
      (filter.message === undefined || e.message.toLowerCase().includes(filter.message.toLowerCase())),
  );
  const severityCounts: Partial<Record<EventSeverity, number>> = {};
  for (const s of SEVERITIES) severityCounts[s] = base.filter((e) => e.severity === s).length;
  const matching = base.filter(
    (e) => !filter.severities || filter.severities.length === 0 || filter.severities.includes(e.severity),
  );
  const sorted = [...matching].sort((a, b) =>
    a.event_time < b.event_time ? -1 : a.event_time > b.event_time ? 1 : 0,
  );
  if (filter.order === 'descending') sorted.reverse();
  const offset = Math.max(0, filter.offset ?? 0);
  const limit = filter.limit !== undefined && filter.limit >= 0 ? filter.limit : undefined;
  const page = sorted.slice(offset, limit === undefined ? undefined : offset + limit);
  return { events: page, total: matching.length, severityCounts };
}

export interface OperatorEventsOptions {
  /** Per involved object: burst, then one event per refill interval. */
  burst?: number;
  refillIntervalMs?: number;
  /** Writes queued or in flight before new events are dropped. */
  maxPending?: number;
  /** Writes in flight at once. */
  concurrency?: number;
  /** Shortest interval between two log lines about dropped events. */
  dropLogIntervalMs?: number;
  /**
   * Waits before sending a write again after a transient failure (no answer, 5xx, 429), one per
   * retry. Default 1 s then 4 s: three attempts (client-go's recorder makes up to 12, 10 s apart).
   */
  retryDelaysMs?: readonly number[];
  component?: string;
}

/** A write waiting for its turn: the Event and the attempts already made. */
interface QueuedWrite {
  body: CoreEvent;
  attempts: number;
}

type DropReason = 'rate_limited' | 'backlog' | 'api_error';

export class OperatorEvents implements EventSink {
  private readonly ctx: OperatorContext;
  private readonly opts: Required<OperatorEventsOptions>;
  private readonly buckets = new Map<string, TokenBucket>();
  private readonly queue: QueuedWrite[] = [];
  private inFlight = 0;
  /** Queued plus in flight. */
  private pending = 0;
  private drained: (() => void)[] = [];
  /** Events dropped by the rate limit, the backlog bound or an API error. */
  dropped = 0;
  /** Drops not yet in a log line, and when the last line was written. */
  private unreported = { count: 0, loggedAt: Number.NEGATIVE_INFINITY };

  constructor(ctx: OperatorContext, opts: OperatorEventsOptions = {}) {
    this.ctx = ctx;
    this.opts = {
      burst: opts.burst ?? 50,
      refillIntervalMs: opts.refillIntervalMs ?? 10_000,
      maxPending: opts.maxPending ?? 1000,
      concurrency: opts.concurrency ?? 8,
      dropLogIntervalMs: opts.dropLogIntervalMs ?? 30_000,
      retryDelaysMs: opts.retryDelaysMs ?? [1_000, 4_000],
      component: opts.component ?? 'agent-install-operator',
    };
  }

  /** Records one REST-model event on the CR it concerns. Never throws. */
  record(event: ApiEvent): void {
    let target: KubeObject | undefined;
    try {
      target = this.targetOf(event);
    } catch (err) {
      this.ctx.logger.warn({ err: String(err) }, 'could not resolve the object of an event');
    }
    if (!target) {
      // Posted by hosts: every string is cut so one large event cannot flood the log.
      this.ctx.logger.info(
        {
          name: capForLog(event.name ?? ''),
          severity: event.severity,
          message: capForLog(event.message),
          cluster_id: capForLog(event.cluster_id ?? ''),
          host_id: capForLog(event.host_id ?? ''),
          infra_env_id: capForLog(event.infra_env_id ?? ''),
        },
        'event about an unknown record (not stored)',
      );
      return;
    }
    const objectId = `${target.kind}/${target.metadata.namespace}/${target.metadata.name}`;
    let bucket = this.buckets.get(objectId);
    if (!bucket) {
      bucket = new TokenBucket(1000 / this.opts.refillIntervalMs, this.opts.burst);
      if (this.buckets.size > 10_000) this.buckets.clear();
      this.buckets.set(objectId, bucket);
    }
    if (!bucket.tryTake()) {
      this.drop('rate_limited', event);
      return;
    }
    if (this.pending >= this.opts.maxPending) {
      this.drop('backlog', event);
      return;
    }
    this.queue.push({ body: toCoreEvent(event, target, this.opts.component), attempts: 0 });
    this.pending++;
    this.pump();
  }

  private pump(): void {
    while (this.inFlight < this.opts.concurrency && this.queue.length > 0) {
      const write = this.queue.shift()!;
      write.attempts++;
      this.inFlight++;
      // Started from a promise, so even a synchronous throw ends in the handlers below.
      Promise.resolve()
        .then(() => this.ctx.client.create(EVENT, write.body))
        .then(
          () => this.written(),
          (err: unknown) => this.failed(write, err),
        );
    }
  }

  /** A write ended (stored, or given up): its slot and its place in the backlog are free. */
  private written(): void {
    this.inFlight--;
    this.pending--;
    this.pump();
    if (this.pending === 0) for (const resolve of this.drained.splice(0)) resolve();
  }

  /** A transient failure is sent again after a while (still pending); anything else is dropped. */
  private failed(write: QueuedWrite, err: unknown): void {
    const delay = this.opts.retryDelaysMs[write.attempts - 1];
    if (delay !== undefined && isTransient(err)) {
      this.inFlight--;
      setTimeout(() => {
        this.queue.push(write);
        this.pump();
      }, delay);
      this.pump();
      return;
    }
    // An earlier attempt that got no answer was stored after all (the name is the Event's own).
    if (!(write.attempts > 1 && isAlreadyExists(err))) {
      this.ctx.logger.warn(
        { err: String(err), reason: write.body.reason, attempts: write.attempts },
        'could not record event',
      );
      this.count('api_error');
    }
    this.written();
  }

  private count(reason: DropReason): void {
    this.dropped++;
    this.ctx.mgr?.metrics.eventsDropped.inc({ reason });
  }

  /** Counts a dropped event; a log line at the first drop, then at most one per interval. */
  private drop(reason: DropReason, event: ApiEvent): void {
    this.count(reason);
    this.unreported.count++;
    const now = Date.now();
    if (now - this.unreported.loggedAt < this.opts.dropLogIntervalMs) return;
    this.ctx.logger.warn(
      {
        reason,
        dropped: this.unreported.count,
        name: capForLog(event.name ?? ''),
        pending: this.pending,
        limit: reason === 'backlog' ? this.opts.maxPending : this.opts.burst,
      },
      reason === 'backlog'
        ? 'events not stored: the backlog of event writes is full'
        : 'events not stored: too many events about one object',
    );
    this.unreported = { count: 0, loggedAt: now };
  }

  /** Records events the installer core emitted (one time stamp for the batch). */
  recordCore(events: readonly SmEvent[], time: Date = this.ctx.now()): void {
    for (const e of events) this.record(apiEventOf(e, time));
  }

  /** EventSink: a refused request becomes a Warning on the record the token or path named. */
  authFailure(e: AuthFailureEvent): void {
    const subject = e.subject;
    const infraEnvId = subject?.kind === 'infra-env' ? subject.id : e.target.infraEnvId;
    const clusterId = subject?.kind === 'cluster' ? subject.id : e.target.clusterId;
    const message = `Refused ${e.method} ${e.path} (${e.status}, ${e.scheme} credential${
      e.remoteAddress ? ` from ${e.remoteAddress}` : ''
    }): ${e.reason}`;
    this.ctx.logger.info(
      { status: e.status, path: capForLog(e.path), reason: capForLog(e.reason) },
      'request refused',
    );
    if (!validId(infraEnvId) && !validId(clusterId)) return;
    this.record({
      name: 'authentication_failed',
      severity: 'warning',
      category: 'user',
      message,
      event_time: e.time.toISOString(),
      ...(validId(clusterId) ? { cluster_id: clusterId } : {}),
      ...(validId(infraEnvId) && !validId(clusterId) ? { infra_env_id: infraEnvId } : {}),
    });
  }

  /** GET /v2/events: a label-selected LIST of every namespace, then the remaining filters. */
  async list(filter: EventFilter): Promise<EventList> {
    const events: ApiEvent[] = [];
    let cont: string | undefined;
    do {
      const page = await this.ctx.client.list<CoreEvent>(EVENT, {
        labelSelector: eventSelector(filter),
        limit: 500,
        ...(cont ? { continue: cont } : {}),
      });
      for (const item of page.items) {
        const e = fromCoreEvent(item);
        if (e) events.push(e);
      }
      cont = page.metadata.continue || undefined;
    } while (cont);
    return selectEvents(events, filter);
  }

  /** Resolves once no event is queued or in flight (every one recorded so far written or given up). */
  flush(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  private targetOf(event: ApiEvent): KubeObject | undefined {
    const ctx = this.ctx;
    const hostId = validId(event.host_id);
    const clusterId = validId(event.cluster_id);
    const infraEnvId = validId(event.infra_env_id);
    const infraEnv: InfraEnv | undefined = infraEnvId ? ctx.infraEnvById(infraEnvId) : undefined;
    const cd: ClusterDeployment | undefined = clusterId ? ctx.clusterDeploymentById(clusterId) : undefined;
    if (hostId) {
      const agent = findAgent(ctx, hostId, infraEnv, cd);
      if (agent) return agent;
    }
    if (cd) {
      const aci: AgentClusterInstall | undefined = aciFor(ctx, cd);
      return aci ?? cd;
    }
    return infraEnv;
  }
}

function findAgent(
  ctx: OperatorContext,
  hostId: string,
  infraEnv: InfraEnv | undefined,
  cd: ClusterDeployment | undefined,
): Agent | undefined {
  if (infraEnv) {
    const a = ctx.informers.agents.get(infraEnv.metadata.namespace, hostId);
    if (a) return a;
  }
  if (cd) {
    const key = keyOf(cd.metadata.namespace, cd.metadata.name ?? '');
    const a = ctx.agentsOfCluster(key).find((x) => x.metadata.name === hostId);
    if (a) return a;
  }
  // Host ids are UUIDs, unique across namespaces; a scan is rare (events without other ids).
  return ctx.informers.agents.store.byIndex(AGENT_BY_NAME_INDEX, hostId)[0];
}

const perContext = perObject((ctx: OperatorContext) => new OperatorEvents(ctx));

/** The process's OperatorEvents for a context (one writer queue per operator). */
export function operatorEventsFor(ctx: OperatorContext): OperatorEvents {
  return perContext.of(ctx);
}
