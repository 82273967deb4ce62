// Runs the whole operator in-process against the test control plane: controllers (no leader
// election), the host REST API and image service, a temp data directory. Each test gets its own
// operator namespace (its key Secret and Events live there).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DestinationStream } from 'pino';
import { freePort } from '../../src/dev/ports.ts';
import { loadKubeConfig, type RunningOperator, startOperator } from '../../src/operator/main.ts';
import { loadOperatorConfig, type OperatorSettings } from '../../src/records/config.ts';
import type { OperatorContext } from '../../src/records/context.ts';
import { createLogger } from '../../src/runtime/index.ts';
import type { HostServer } from '../../src/server/host-server.ts';
import { eventually, kubeconfigPath, newNamespace } from './env.ts';

export interface TestOperator {
  ctx: OperatorContext;
  server: HostServer;
  /** `http://127.0.0.1:<port>`: the REST API and image service. */
  baseUrl: string;
  namespace: string;
  dataDir: string;
  stop(): Promise<void>;
}

export interface TestOperatorOptions {
  /** Operator namespace (Lease, key Secret); default: a fresh one. */
  namespace?: string;
  settings?: Partial<OperatorSettings>;
  /** Extra environment for the runtime and state-machine settings (e.g. HOST_MAX_DISCONNECTION_TIME). */
  env?: Record<string, string>;
  /** Kubeconfig the operator runs with (default: the harness admin), e.g. a user minted for RBAC. */
  kubeconfigPath?: string;
  /** Wait until the caches have synced (default true). */
  waitReady?: boolean;
  /** Log level (default: $AIO_TEST_LOG, else silent). */
  logLevel?: string;
  /** Where the operator's log lines go (default stdout), e.g. to read them back in a test. */
  logDestination?: DestinationStream;
}

/**
 * Starts the operator and its host server. The API port is picked before start (not port 0) so the
 * base URLs controllers write into status are right from the first reconcile.
 */
export async function startTestOperator(opts: TestOperatorOptions = {}): Promise<TestOperator> {
  const namespace = opts.namespace ?? (await newNamespace('op'));
  const dataDir = await mkdtemp(join(tmpdir(), 'aio-op-'));
  const port = opts.settings?.apiPort ?? (await freePort());
  const kubeconfig = opts.kubeconfigPath ?? kubeconfigPath();
  const logLevel = opts.logLevel ?? process.env.AIO_TEST_LOG ?? 'silent';
  const config = loadOperatorConfig([], {
    KUBECONFIG: kubeconfig,
    POD_NAMESPACE: namespace,
    LEADER_ELECT: 'false',
    METRICS_BIND_ADDRESS: '0',
    HEALTH_PROBE_BIND_ADDRESS: '0',
    API_BIND_HOST: '127.0.0.1',
    API_PORT: String(port),
    DATA_DIR: dataDir,
    LOG_LEVEL: logLevel,
    // Test files run in parallel against one API server: each operator sees only its namespace,
    // or two of them would reconcile (and fight over) the same objects.
    WATCH_NAMESPACE: namespace,
    ...opts.env,
  });
  config.operator = { ...config.operator, ...opts.settings };
  // Some settings (state-machine timeouts) are read from the environment while the operator starts.
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(opts.env ?? {})) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  // The production logger (redaction and scrubbing included), so tests see what operators would.
  const logger = createLogger({
    level: logLevel,
    ...(opts.logDestination ? { destination: opts.logDestination } : {}),
  });
  let op: RunningOperator;
  try {
    op = await startOperator(config, { kubeConfig: loadKubeConfig(kubeconfig), logger });
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
  op.done.catch((err) => logger.error({ err }, 'operator stopped with an error'));
  const server = op.hostServer;
  if (opts.waitReady ?? true) {
    await eventually(async () => op.ctx.mgr.isReady(), { timeoutMs: 30_000, what: 'operator caches synced' });
  }
  return {
    ctx: op.ctx,
    server,
    baseUrl: `http://127.0.0.1:${server.port}`,
    namespace,
    dataDir,
    async stop() {
      await op.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
