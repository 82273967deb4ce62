// Manager behaviour that needs no API server: construction from config, registration rules and
// the process-level safety net. Start-up, leadership and shutdown are integration-tested.
import { KubeConfig } from '@kubernetes/client-node';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadRuntimeConfig } from '../../../src/runtime/config.ts';
import { Manager } from '../../../src/runtime/manager.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { ConfigMapResource } from '../../../src/runtime/types.ts';

function kubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:1' }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}

const uninstall: (() => void)[] = [];
afterEach(() => {
  for (const u of uninstall.splice(0)) u();
});

describe('Manager', () => {
  it('builds from runtime configuration and gives controllers the configured default workers', () => {
    const config = loadRuntimeConfig(['--max-concurrent-reconciles=4', '--leader-elect=false'], {});
    const mgr = Manager.fromConfig(config, { kubeConfig: kubeConfig(), logger: pino({ level: 'silent' }) });
    expect(mgr.defaultWorkers).toBe(4);
    expect(
      mgr
        .controller('a')
        .for(ConfigMapResource)
        .complete(() => undefined).workers,
    ).toBe(4);
    expect(
      mgr
        .controller('b')
        .for(ConfigMapResource)
        .withWorkers(2)
        .complete(() => undefined).workers,
    ).toBe(2);
  });

  it('refuses two controllers with the same name (their metrics would merge)', () => {
    const mgr = new Manager({
      kubeConfig: kubeConfig(),
      logger: pino({ level: 'silent' }),
      leaderElection: false,
    });
    mgr
      .controller('same')
      .for(ConfigMapResource)
      .complete(() => undefined);
    expect(() =>
      mgr
        .controller('same')
        .for(ConfigMapResource)
        .complete(() => undefined),
    ).toThrow(/duplicate/);
  });

  it('logs and counts unhandled rejections instead of crashing, once process handlers are installed', async () => {
    const metrics = new RuntimeMetrics();
    const mgr = new Manager({
      kubeConfig: kubeConfig(),
      logger: pino({ level: 'silent' }),
      metrics,
      leaderElection: false,
    });
    uninstall.push(mgr.installProcessHandlers());
    // What a reconciler's forgotten floating promise produces.
    process.emit('unhandledRejection', new Error('floating'), Promise.resolve());
    expect(await metricValue(metrics.unhandledRejections)).toBe(1);
  });

  it('stop() during start-up (API unreachable, caches never sync) ends start() promptly', async () => {
    const mgr = new Manager({
      kubeConfig: kubeConfig(),
      logger: pino({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
      leaderElection: false,
    });
    mgr
      .controller('c')
      .for(ConfigMapResource)
      .complete(() => undefined);
    const running = mgr.start();
    await new Promise((r) => setTimeout(r, 200));
    expect(mgr.isReady()).toBe(false);
    const stoppedAt = Date.now();
    await mgr.stop();
    await running;
    expect(Date.now() - stoppedAt).toBeLessThan(5000);
  });

  it('stop() waits for shutdown hooks (background work) and bounds them by the grace period', async () => {
    const mgr = new Manager({
      kubeConfig: kubeConfig(),
      logger: pino({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
      leaderElection: false,
      gracefulShutdownTimeoutMs: 60_000,
    });
    let finish!: () => void;
    const work = new Promise<void>((r) => {
      finish = r;
    });
    let hookDone = false;
    mgr.onShutdown(async () => {
      await work;
      hookDone = true;
    });
    const running = mgr.start();
    let stopped = false;
    const stopping = mgr.stop().then(() => {
      stopped = true;
    });
    // stop() is still waiting: the hook's work has not finished.
    await new Promise((r) => setImmediate(r));
    expect(stopped).toBe(false);
    finish();
    await stopping;
    await running;
    expect(hookDone).toBe(true);

    const bounded = new Manager({
      kubeConfig: kubeConfig(),
      logger: pino({ level: 'silent' }),
      metrics: new RuntimeMetrics(),
      leaderElection: false,
      gracefulShutdownTimeoutMs: 50,
    });
    bounded.onShutdown(() => new Promise<void>(() => undefined));
    const boundedRun = bounded.start();
    await bounded.stop();
    await boundedRun;
  });

  it('the informer for a kind is shared between controllers and reconcilers', () => {
    const mgr = new Manager({
      kubeConfig: kubeConfig(),
      logger: pino({ level: 'silent' }),
      leaderElection: false,
    });
    expect(mgr.informer(ConfigMapResource)).toBe(mgr.cache.informer(ConfigMapResource));
  });
});
