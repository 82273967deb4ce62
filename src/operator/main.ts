// Composition root: one process runs the controller manager (caches, leader election, controllers,
// /healthz, /readyz, /metrics), the host-facing REST API with the image service, and the admission
// webhooks.
import { KubeConfig } from '@kubernetes/client-node';
import { type Logger, pino } from 'pino';
import { registerControllers } from '../controllers/index.ts';
import { Manager } from '../runtime/index.ts';
import type { OperatorConfig } from './config.ts';
import { OperatorContext, operatorCacheOptions } from './context.ts';

export interface RunningOperator {
  ctx: OperatorContext;
  /** Resolves when the manager stops; rejects on a fatal error (e.g. leadership lost). */
  done: Promise<void>;
  stop(): Promise<void>;
}

export function loadKubeConfig(path: string | undefined): KubeConfig {
  const kc = new KubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

export async function startOperator(
  config: OperatorConfig,
  opts: { kubeConfig?: KubeConfig; logger?: Logger; installSignalHandlers?: boolean } = {},
): Promise<RunningOperator> {
  const logger = opts.logger ?? pino({ level: config.runtime.logLevel });
  const kubeConfig = opts.kubeConfig ?? loadKubeConfig(config.runtime.kubeconfig);
  const mgr = Manager.fromConfig(config.runtime, {
    kubeConfig,
    logger,
    cacheByResource: operatorCacheOptions(),
  });
  const ctx = new OperatorContext({
    mgr,
    settings: config.operator,
    namespace: config.runtime.leaderElectionNamespace,
  });
  registerControllers(ctx);
  const uninstall = opts.installSignalHandlers ? mgr.installProcessHandlers() : undefined;
  logger.info(
    { server: kubeConfig.getCurrentCluster()?.server, namespace: ctx.namespace, urls: ctx.urls },
    'starting agent-install-operator',
  );
  const done = mgr.start().finally(() => uninstall?.());
  return { ctx, done, stop: () => mgr.stop() };
}
