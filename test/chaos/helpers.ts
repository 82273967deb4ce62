// Shared pieces of the chaos suites: the seed (fresh per run, printed, CHAOS_SEED replays one),
// the operator as a child process that can be SIGKILLed and restarted on the same ports and data
// directory, agent tokens signed with a key pair the test puts in the operator's key Secret, and
// the figures line each suite prints.

import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairPem, importKeyPair } from '../../src/auth/keys.ts';
import { signAgentToken } from '../../src/auth/tokens.ts';
import { freePort } from '../../src/dev/ports.ts';
import { PRIVATE_KEY_FIELD, PUBLIC_KEY_FIELD } from '../../src/records/hosts/keystore.ts';
import { SECRET } from '../../src/records/resources.ts';
import type { KubeClient } from '../../src/runtime/index.ts';
import { eventually } from '../harness/env.ts';

/** CHAOS_SEED when set (to replay a run), else a fresh one; the suites print it. */
export function chaosSeed(): number {
  const fromEnv = process.env.CHAOS_SEED;
  if (fromEnv !== undefined && fromEnv !== '') return Number(fromEnv) >>> 0;
  return (Math.random() * 2 ** 32) >>> 0;
}

export function printFigures(suite: string, figures: Record<string, unknown>): void {
  const parts = Object.entries(figures).map(
    ([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
  );
  console.log(`[chaos] ${suite}: ${parts.join(' ')}`);
}

/** The key Secret the chaos operators are told to use (AUTH_KEYS_SECRET). */
export const AUTH_KEYS_SECRET = 'chaos-local-auth-key';

/**
 * Creates the local-auth key Secret before the operator starts (the operator loads it rather than
 * generating its own) and returns a signer of agent tokens, as the discovery image carries them.
 */
export async function presetAgentKeys(
  client: KubeClient,
  namespace: string,
  secretName: string,
): Promise<(infraEnvId: string) => string> {
  const pem = generateKeyPairPem();
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secretName, namespace },
    type: 'Opaque',
    data: {
      [PRIVATE_KEY_FIELD]: Buffer.from(pem.privateKeyPem).toString('base64'),
      [PUBLIC_KEY_FIELD]: Buffer.from(pem.publicKeyPem).toString('base64'),
    },
  } as never);
  const { privateKey } = importKeyPair(pem);
  return (id) => signAgentToken({ kind: 'infra-env', id }, privateKey);
}

/** The operator binary (src/cmd/operator.ts) as a child process that survives being killed. */
export class OperatorProcess {
  readonly apiPort: number;
  readonly probePort: number;
  private readonly env: Record<string, string>;
  private child?: ChildProcess;
  /** The last 64 KiB of output of every run, for failure messages. */
  private output = '';
  starts = 0;

  private constructor(env: Record<string, string>, apiPort: number, probePort: number) {
    this.env = env;
    this.apiPort = apiPort;
    this.probePort = probePort;
  }

  static async create(opts: {
    kubeconfig: string;
    namespace: string;
    env?: Record<string, string>;
  }): Promise<OperatorProcess> {
    const [apiPort, probePort] = [await freePort(), await freePort()];
    const dataDir = await mkdtemp(join(tmpdir(), 'aio-chaos-'));
    const env = {
      KUBECONFIG: opts.kubeconfig,
      POD_NAMESPACE: opts.namespace,
      WATCH_NAMESPACE: opts.namespace,
      // One replica: a restarted operator must not wait out the dead one's Lease.
      LEADER_ELECT: 'false',
      HEALTH_PROBE_BIND_ADDRESS: `127.0.0.1:${probePort}`,
      METRICS_BIND_ADDRESS: '0',
      API_PORT: String(apiPort),
      API_BIND_HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: process.env.AIO_TEST_LOG ?? 'warn',
      AUTH_KEYS_SECRET,
      ...opts.env,
    };
    return new OperatorProcess(env, apiPort, probePort);
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.apiPort}`;
  }

  /** Starts the process and waits for /readyz (caches synced). */
  async start(): Promise<void> {
    const child = spawn(process.execPath, ['src/cmd/operator.ts'], {
      env: { ...process.env, ...this.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.starts++;
    const keep = (d: Buffer) => {
      this.output = (this.output + d.toString()).slice(-65_536);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`operator exited ${child.exitCode}: ${this.tail()}`);
        return (await fetch(`http://127.0.0.1:${this.probePort}/readyz`)).ok;
      },
      { timeoutMs: 90_000, intervalMs: 200, what: `operator ready (start ${this.starts})` },
    );
  }

  /** kill -9: no drain, no status flush, no finalizer work finished. */
  async kill9(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, 'exit');
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(this.env.DATA_DIR!, { recursive: true, force: true });
  }

  tail(chars = 4000): string {
    return this.output.slice(-chars);
  }
}
