// Prometheus metrics emitted by the runtime (never by reconcilers), on a registry per manager so
// tests can run several managers in one process. Names follow controller-runtime and client-go.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { ClientMetricsSink } from './client.ts';
import type { QueueMetricsSink } from './queue.ts';
import type { WatchMetricsSink } from './watcher.ts';

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const QUEUE_BUCKETS = [0.001, 0.01, 0.1, 1, 10, 60, 300, 1000];

const EVENT_LOOP_SAMPLE_MS = 100;

export class RuntimeMetrics {
  readonly registry: Registry;
  readonly reconcileTotal: Counter<'controller' | 'result'>;
  readonly reconcileErrors: Counter<'controller'>;
  readonly terminalReconcileErrors: Counter<'controller'>;
  readonly reconcilePanics: Counter<'controller'>;
  readonly reconcileTime: Histogram<'controller'>;
  readonly activeWorkers: Gauge<'controller'>;
  readonly maxConcurrentReconciles: Gauge<'controller'>;
  readonly queueDepth: Gauge<'name'>;
  readonly queueAdds: Counter<'name'>;
  readonly queueLatency: Histogram<'name'>;
  readonly queueWorkDuration: Histogram<'name'>;
  readonly queueRetries: Counter<'name'>;
  readonly watchRestarts: Counter<'resource' | 'reason'>;
  readonly watchRelists: Counter<'resource'>;
  readonly watchBookmarks: Counter<'resource'>;
  readonly leaderStatus: Gauge<'name'>;
  readonly restRequests: Counter<'method' | 'code'>;
  readonly restLatency: Histogram<'method'>;
  readonly restThrottle: Histogram;
  readonly restReconnects: Counter<'cause'>;
  readonly eventsDropped: Counter<'reason'>;
  readonly unhandledRejections: Counter;

  constructor(opts: { registry?: Registry; processMetrics?: boolean } = {}) {
    const r = opts.registry ?? new Registry();
    this.registry = r;
    // The event-loop lag histogram samples with a libuv timer; prom-client's default (every 10 ms)
    // alone costs ~0.18 CPU-s/min in an idle process, more than all the operator's own idle work.
    // Every 100 ms costs a tenth of that: stalls of 100 ms and more are still all recorded at full
    // length, shorter ones are sampled.
    if (opts.processMetrics) {
      collectDefaultMetrics({ register: r, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
    }
    const registers = [r];
    this.reconcileTotal = new Counter({
      name: 'controller_runtime_reconcile_total',
      help: 'Reconciliations per controller and result (success, requeue_after, error, terminal_error).',
      labelNames: ['controller', 'result'],
      registers,
    });
    this.reconcileErrors = new Counter({
      name: 'controller_runtime_reconcile_errors_total',
      help: 'Reconciliations that failed and will be retried.',
      labelNames: ['controller'],
      registers,
    });
    this.terminalReconcileErrors = new Counter({
      name: 'controller_runtime_terminal_reconcile_errors_total',
      help: 'Reconciliations that failed with a TerminalError and will not be retried.',
      labelNames: ['controller'],
      registers,
    });
    this.reconcilePanics = new Counter({
      name: 'controller_runtime_reconcile_panics_total',
      help: 'Reconcilers that threw something other than an Error.',
      labelNames: ['controller'],
      registers,
    });
    this.reconcileTime = new Histogram({
      name: 'controller_runtime_reconcile_time_seconds',
      help: 'Time per reconciliation.',
      labelNames: ['controller'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.activeWorkers = new Gauge({
      name: 'controller_runtime_active_workers',
      help: 'Workers currently reconciling.',
      labelNames: ['controller'],
      registers,
    });
    this.maxConcurrentReconciles = new Gauge({
      name: 'controller_runtime_max_concurrent_reconciles',
      help: 'Configured workers per controller.',
      labelNames: ['controller'],
      registers,
    });
    this.queueDepth = new Gauge({
      name: 'workqueue_depth',
      help: 'Keys waiting for a worker.',
      labelNames: ['name'],
      registers,
    });
    this.queueAdds = new Counter({
      name: 'workqueue_adds_total',
      help: 'Keys added (after dedupe).',
      labelNames: ['name'],
      registers,
    });
    this.queueLatency = new Histogram({
      name: 'workqueue_queue_duration_seconds',
      help: 'Time a key waits in the queue before a worker takes it.',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.queueWorkDuration = new Histogram({
      name: 'workqueue_work_duration_seconds',
      help: 'Time a worker holds a key.',
      labelNames: ['name'],
      buckets: QUEUE_BUCKETS,
      registers,
    });
    this.queueRetries = new Counter({
      name: 'workqueue_retries_total',
      help: 'Rate-limited re-adds.',
      labelNames: ['name'],
      registers,
    });
    this.watchRestarts = new Counter({
      name: 'aio_watch_restarts_total',
      help: 'Watches re-established, by reason (timeout, closed early by the server, gone, error).',
      labelNames: ['resource', 'reason'],
      registers,
    });
    this.watchRelists = new Counter({
      name: 'aio_watch_relists_total',
      help: 'Complete lists (initial and after 410 or errors).',
      labelNames: ['resource'],
      registers,
    });
    this.watchBookmarks = new Counter({
      name: 'aio_watch_bookmarks_total',
      help: 'BOOKMARK events received.',
      labelNames: ['resource'],
      registers,
    });
    this.leaderStatus = new Gauge({
      name: 'leader_election_master_status',
      help: '1 while this process holds the leader lease.',
      labelNames: ['name'],
      registers,
    });
    this.restRequests = new Counter({
      name: 'rest_client_requests_total',
      help: 'API requests by method and HTTP status code.',
      labelNames: ['method', 'code'],
      registers,
    });
    this.restLatency = new Histogram({
      name: 'rest_client_request_duration_seconds',
      help: 'API request latency until response headers.',
      labelNames: ['method'],
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.restThrottle = new Histogram({
      name: 'rest_client_rate_limiter_duration_seconds',
      help: 'Time requests waited for the client-side QPS limiter.',
      buckets: DURATION_BUCKETS,
      registers,
    });
    this.restReconnects = new Counter({
      name: 'aio_rest_client_reconnects_total',
      help: 'API connections retired after a transport failure or a 413, by error code.',
      labelNames: ['cause'],
      registers,
    });
    this.eventsDropped = new Counter({
      name: 'aio_events_dropped_total',
      help: 'Kubernetes Events not written (rate limited, backlog full, or API error).',
      labelNames: ['reason'],
      registers,
    });
    this.unhandledRejections = new Counter({
      name: 'aio_unhandled_rejections_total',
      help: 'Promise rejections nobody awaited (logged, process kept alive).',
      registers,
    });
  }

  queueSink(name: string): QueueMetricsSink {
    const labels = { name };
    return {
      added: () => this.queueAdds.inc(labels),
      depth: (n) => this.queueDepth.set(labels, n),
      queued: (ms) => this.queueLatency.observe(labels, ms / 1000),
      worked: (ms) => this.queueWorkDuration.observe(labels, ms / 1000),
      retried: () => this.queueRetries.inc(labels),
    };
  }

  watchSink(resource: string): WatchMetricsSink {
    return {
      restarted: (reason) => this.watchRestarts.inc({ resource, reason }),
      relisted: () => this.watchRelists.inc({ resource }),
      bookmark: () => this.watchBookmarks.inc({ resource }),
    };
  }

  clientSink(): ClientMetricsSink {
    return {
      request: (method, code, ms) => {
        this.restRequests.inc({ method, code });
        this.restLatency.observe({ method }, ms / 1000);
      },
      throttled: (ms) => this.restThrottle.observe(ms / 1000),
      reconnected: (cause) => this.restReconnects.inc({ cause }),
    };
  }
}

/** Current value of a counter or gauge for the given labels (0 when never touched). */
export async function metricValue(
  metric: Counter<string> | Gauge<string>,
  labels: Record<string, string> = {},
): Promise<number> {
  const { values } = await metric.get();
  let sum = 0;
  for (const v of values) {
    if (Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want)) sum += v.value;
  }
  return sum;
}
