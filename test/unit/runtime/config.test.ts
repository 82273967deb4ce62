import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigError,
  describeRuntimeConfig,
  loadRuntimeConfig,
  parseBindAddress,
  runtimeSettings,
} from '../../../src/runtime/config.ts';
import { HealthServer } from '../../../src/runtime/health.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';

describe('runtime configuration', () => {
  it('defaults match controller-runtime / client-go and name their source', () => {
    const c = loadRuntimeConfig([], {});
    expect(c).toMatchObject({
      leaderElect: true,
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      kubeApiQps: 0,
      kubeApiBurst: 30,
      workers: 1,
      cacheSyncTimeoutMs: 120_000,
      gracefulShutdownTimeoutMs: 30_000,
      minWatchTimeoutMs: 300_000,
      metricsBindAddress: ':8443',
      metricsSecure: true,
      metricsCertDir: '',
      healthProbeBindAddress: ':8081',
      logLevel: 'info',
    });
    expect(c.leaderElectionNamespace).toBeTruthy();
    for (const s of Object.values(runtimeSettings)) expect(s.source.length).toBeGreaterThan(5);
    expect(describeRuntimeConfig()).toContain(
      '--leader-election-lease-duration ($LEADER_ELECTION_LEASE_DURATION) default 15000',
    );
  });

  it('flags win over environment variables; both forms of flags and Go durations parse', () => {
    const c = loadRuntimeConfig(
      [
        '--kube-api-qps=50',
        '--leader-elect',
        'false',
        '--graceful-shutdown-timeout',
        '1m',
        '--unrelated',
        'x',
      ],
      {
        KUBE_API_QPS: '5',
        KUBE_API_BURST: '200',
        CACHE_SYNC_TIMEOUT: '90s',
        POD_NAMESPACE: 'mce',
        LOG_LEVEL: 'debug',
      },
    );
    expect(c.kubeApiQps).toBe(50);
    expect(c.kubeApiBurst).toBe(200);
    expect(c.leaderElect).toBe(false);
    expect(c.gracefulShutdownTimeoutMs).toBe(60_000);
    expect(c.cacheSyncTimeoutMs).toBe(90_000);
    expect(c.leaderElectionNamespace).toBe('mce');
    expect(c.logLevel).toBe('debug');
  });

  it('reports every invalid value at once', () => {
    let err: unknown;
    try {
      loadRuntimeConfig(['--kube-api-burst=-3', '--leader-election-lease-duration=soon'], {
        LOG_LEVEL: 'loud',
        METRICS_BIND_ADDRESS: 'localhost',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const msg = (err as Error).message;
    expect(msg).toContain('--kube-api-burst');
    expect(msg).toContain('--leader-election-lease-duration');
    expect(msg).toContain('LOG_LEVEL');
    expect(msg).toContain('METRICS_BIND_ADDRESS');
  });

  it('rejects leader-election timings that cannot work', () => {
    expect(() => loadRuntimeConfig(['--leader-election-renew-deadline=20s'], {})).toThrow(
      /renew-deadline must be shorter/,
    );
    expect(() => loadRuntimeConfig(['--leader-election-retry-period=10s'], {})).toThrow(
      /retry-period must be shorter/,
    );
  });

  it('parses bind addresses', () => {
    expect(parseBindAddress(':8080')).toEqual({ host: '0.0.0.0', port: 8080 });
    expect(parseBindAddress('127.0.0.1:9')).toEqual({ host: '127.0.0.1', port: 9 });
    expect(parseBindAddress('0')).toBeUndefined();
  });
});

describe('HealthServer', () => {
  let server: HealthServer | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('serves healthz, readyz (503 until ready) and metrics', async () => {
    let ready = false;
    const metrics = new RuntimeMetrics();
    metrics.reconcileTotal.inc({ controller: 'x', result: 'success' });
    server = new HealthServer({
      host: '127.0.0.1',
      port: 0,
      healthz: () => ({ ok: true }),
      readyz: () => (ready ? { ok: true } : { ok: false, detail: 'caches not synced' }),
      registry: metrics.registry,
      logger: pino({ level: 'silent' }),
    });
    await server.start();
    const base = `http://127.0.0.1:${server.port}`;
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const notReady = await fetch(`${base}/readyz`);
    expect(notReady.status).toBe(503);
    expect(await notReady.text()).toContain('caches not synced');
    ready = true;
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    const m = await fetch(`${base}/metrics`);
    expect(m.status).toBe(200);
    expect(await m.text()).toContain('controller_runtime_reconcile_total{controller="x",result="success"} 1');
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });
});

describe('WATCH_NAMESPACE', () => {
  it.each([
    { raw: 'ns-a', list: ['ns-a'] },
    { raw: 'ns-a,ns-b', list: ['ns-a', 'ns-b'] },
    { raw: ' ns-a , ns-b ,ns-a', list: ['ns-a', 'ns-b'] },
  ])('WATCH_NAMESPACE=$raw watches $list', ({ raw, list }) => {
    expect(loadRuntimeConfig([], { WATCH_NAMESPACE: raw }).watchNamespace).toEqual(list);
  });

  it.each(['a,,b', ',', 'Upper', 'a,b_c'])('WATCH_NAMESPACE=%j is refused', (raw) => {
    expect(() => loadRuntimeConfig([], { WATCH_NAMESPACE: raw })).toThrow(ConfigError);
  });

  it('WATCH_NAMESPACE unset watches all namespaces', () => {
    expect(loadRuntimeConfig([], {}).watchNamespace).toBeUndefined();
  });
});
