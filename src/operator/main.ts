// Composition root: one process runs the controller manager (caches, leader election, controllers,
// /healthz, /readyz, /metrics), the host-facing REST API with the image service, and the admission
// webhooks.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { registerControllers } from '../controllers/index.ts';
import type { OperatorConfig } from '../records/config.ts';
import { OperatorContext, operatorCacheOptions } from '../records/context.ts';
import { closeSpokeClients } from '../records/spoke.ts';
import {
  createLogger,
  type KubeConfigLike,
  loadKubeConfig as loadKubeConfigFile,
  Manager,
} from '../runtime/index.ts';
import { type HostServer, startHostServer } from '../server/host-server.ts';
import { accessReviewer, clusterDeploymentGetter, selfUserName } from '../webhooks/kube.ts';
import { startWebhookServer, type WebhookServer, watchCertificateFiles } from '../webhooks/server.ts';
import { BaseUrlDiscovery, baseUrlCacheOptions } from './base-url-discovery.ts';
import { decideConvergedFlow } from './converged-flow.ts';
import { preferShortGcPauses } from './gc-pauses.ts';

export interface RunningOperator {
  ctx: OperatorContext;
  hostServer: HostServer;
  webhookServer: WebhookServer | undefined;
  /** Resolves when the manager stops; rejects on a fatal error (e.g. leadership lost). */
  done: Promise<void>;
  stop(): Promise<void>;
}

export function loadKubeConfig(path: string | undefined): KubeConfigLike {
  return loadKubeConfigFile(path);
}

async function startWebhooks(ctx: OperatorContext, port: number, certDir: string): Promise<WebhookServer> {
  const [certPem, keyPem] = await Promise.all([
    readFile(join(certDir, 'tls.crt'), 'utf8'),
    readFile(join(certDir, 'tls.key'), 'utf8'),
  ]);
  const logger = ctx.logger.child({ component: 'webhooks' });
  // The operator's own writes (Agents bound to an admitted InfraEnv clusterRef) are not reviewed
  // again: it holds no `update` on ClusterDeployments, and its controllers gate references themselves.
  const self = await selfUserName(ctx.client).catch((err: unknown) => {
    logger.warn(
      { err },
      'could not learn the operator user name; its own requests are reviewed like any other',
    );
    return undefined;
  });
  const server = await startWebhookServer({
    certPem,
    keyPem,
    port,
    host: '0.0.0.0',
    logger,
    getClusterDeployment: clusterDeploymentGetter(ctx.client),
    reviewAccess: accessReviewer(ctx.client),
    ...(self ? { relaxedUsers: [self] } : {}),
  });
  // A rotated certificate is picked up without a restart (an expired one would block every write).
  const watch = watchCertificateFiles(server, certDir, { certPem, keyPem }, { logger });
  return {
    ...server,
    close: async () => {
      watch.stop();
      await server.close();
    },
  };
}

/**
 * Starts everything. The host server runs on every replica (agents may reach any of them); the
 * controllers run only on the leader.
 */
export async function startOperator(
  config: OperatorConfig,
  opts: { kubeConfig?: KubeConfigLike; logger?: Logger; installSignalHandlers?: boolean } = {},
): Promise<RunningOperator> {
  const logger = opts.logger ?? createLogger({ level: config.runtime.logLevel });
  if (!preferShortGcPauses())
    logger.info("the node command line sets V8's memory-reducer-favors-memory: left as given");
  const kubeConfig = opts.kubeConfig ?? loadKubeConfig(config.runtime.kubeconfig);
  const namespace = config.runtime.leaderElectionNamespace;
  const mgr = Manager.fromConfig(config.runtime, {
    kubeConfig,
    logger,
    cacheByResource: [...operatorCacheOptions(), ...baseUrlCacheOptions(config.operator, namespace)],
  });
  const ctx = new OperatorContext({ mgr, settings: config.operator, namespace });
  // Once, before BMAC and the PPI controller register: both read ctx.convergedFlow.
  ctx.convergedFlow = (
    await decideConvergedFlow(ctx.client, config.operator.allowConvergedFlow, logger)
  ).converged;
  registerControllers(ctx);
  // Before the manager starts, so its first cache sync includes the Route/Ingress/Service.
  const baseUrls = new BaseUrlDiscovery(ctx, { routeCheckIntervalMs: config.runtime.discoveryIntervalMs });
  await baseUrls.start();
  const uninstall = opts.installSignalHandlers ? mgr.installProcessHandlers() : undefined;
  logger.info(
    { server: kubeConfig.getCurrentCluster()?.server, namespace: ctx.namespace },
    'starting agent-install-operator',
  );
  const done = mgr.start();
  // Observed here so a failure during the host server's start-up is not an unhandled rejection;
  // callers still see it through `done`.
  done.catch(() => undefined);
  let hostServer: HostServer | undefined;
  let webhookServer: WebhookServer | undefined;
  try {
    hostServer = await startHostServer(ctx);
    if (config.operator.webhookPort > 0) {
      webhookServer = await startWebhooks(ctx, config.operator.webhookPort, config.operator.webhookCertDir);
    }
  } catch (err) {
    baseUrls.stop();
    await hostServer?.close();
    await mgr.stop();
    uninstall?.();
    throw err;
  }
  const closeServers = async () => {
    await Promise.allSettled([hostServer.close(), webhookServer?.close(), closeSpokeClients(ctx)]);
  };
  return {
    ctx,
    hostServer,
    webhookServer,
    done: done.finally(async () => {
      baseUrls.stop();
      await closeServers();
      uninstall?.();
    }),
    stop: async () => {
      baseUrls.stop();
      await mgr.stop();
      await closeServers();
    },
  };
}
