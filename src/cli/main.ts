// `agent-install` command line: status, wait-for, logs and manifests. run() returns the exit code;
// output goes through the injected streams so tests can capture it.

import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import type { KubeClient } from '../runtime/client.ts';
import { cliClient, readCluster } from './kube.ts';
import {
  convertAgentInstallerFiles,
  DEFAULT_OPENSHIFT_VERSION,
  ManifestInputError,
  manifestFileName,
  renderManifests,
} from './manifests.ts';
import { formatStatus } from './status.ts';
import {
  changedLines,
  decideWait,
  EXIT_CODES,
  parseDuration,
  progressFacts,
  WAIT_TARGETS,
  type WaitTarget,
} from './waitfor.ts';

export interface CliIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Injected for tests; defaults to a client from $KUBECONFIG. */
  client?: () => KubeClient;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export const USAGE = `Usage: agent-install <command> [flags]

Commands:
  status <cluster> [-n ns]                      Cluster state, progress and hosts
  wait-for bootstrap-complete <cluster> [-n ns] [--timeout 60m] [--interval 5s]
  wait-for install-complete <cluster> [-n ns] [--timeout 90m] [--interval 5s]
                                                Wait, printing progress; exit 0 on success,
                                                5 (bootstrap) / 6 (install) on failure or timeout
  logs <cluster> [-n ns] [-o file]              Download the cluster's logs (status.debugInfo.logsURL)
  manifests --install-config FILE --agent-config FILE [-o dir] [-n ns]
            [--release-image IMAGE] [--openshift-version ${DEFAULT_OPENSHIFT_VERSION}]
                                                Convert agent-based installer files to this operator's CRs

<cluster> is the ClusterDeployment name; the namespace defaults to the cluster name.
The kubeconfig comes from $KUBECONFIG, else ~/.kube/config.
`;

/** openshift-install's defaults: 20 minutes per bootstrap phase (×3 for agent), 40 minutes for install (×2). */
const DEFAULT_TIMEOUTS: Record<WaitTarget, string> = {
  'bootstrap-complete': '60m',
  'install-complete': '90m',
};

class UsageError extends Error {}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'status':
        return await status(rest, io);
      case 'wait-for':
        return await waitFor(rest, io);
      case 'logs':
        return await logs(rest, io);
      case 'manifests':
        return await manifests(rest, io);
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE);
        return command === undefined ? EXIT_CODES.usage : EXIT_CODES.success;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (err) {
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`error: ${errorMessage(err)}\n\n${USAGE}`);
      return EXIT_CODES.usage;
    }
    if (err instanceof ManifestInputError) {
      io.err(`error: ${err.message}\n`);
      return EXIT_CODES.error;
    }
    io.err(`error: ${errorMessage(err)}\n`);
    return EXIT_CODES.error;
  }
}

const CLUSTER_OPTIONS = {
  namespace: { type: 'string', short: 'n' },
} as const;

function clusterArgs(
  args: readonly string[],
  extra: Record<string, { type: 'string'; short?: string }> = {},
) {
  const parsed = parseArgs({
    args: [...args],
    options: { ...CLUSTER_OPTIONS, ...extra },
    allowPositionals: true,
  });
  const [name, ...more] = parsed.positionals;
  if (!name) throw new UsageError('missing <cluster>');
  if (more.length > 0) throw new UsageError(`unexpected arguments: ${more.join(' ')}`);
  const values = parsed.values as Record<string, string | undefined>;
  return { name, namespace: values.namespace ?? name, values };
}

async function withClient<T>(io: CliIo, fn: (c: KubeClient) => Promise<T>): Promise<T> {
  const client = (io.client ?? cliClient)();
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

async function status(args: readonly string[], io: CliIo): Promise<number> {
  const { name, namespace } = clusterArgs(args);
  return withClient(io, async (client) => {
    const snap = await readCluster(client, name, namespace);
    io.out(formatStatus(name, namespace, snap));
    return snap.clusterDeployment || snap.agentClusterInstall ? EXIT_CODES.success : EXIT_CODES.error;
  });
}

async function waitFor(args: readonly string[], io: CliIo): Promise<number> {
  const [target, ...rest] = args;
  if (!WAIT_TARGETS.includes(target as WaitTarget)) {
    throw new UsageError(`wait-for needs one of ${WAIT_TARGETS.join(', ')}`);
  }
  const waitTarget = target as WaitTarget;
  const { name, namespace, values } = clusterArgs(rest, {
    timeout: { type: 'string' },
    interval: { type: 'string' },
  });
  const timeoutMs = parseDuration(values.timeout ?? DEFAULT_TIMEOUTS[waitTarget]);
  const intervalMs = parseDuration(values.interval ?? '5s');
  if (timeoutMs === undefined) throw new UsageError(`invalid --timeout ${values.timeout}`);
  if (intervalMs === undefined || intervalMs <= 0)
    throw new UsageError(`invalid --interval ${values.interval}`);
  const now = io.now ?? Date.now;
  const sleep = io.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const stamp = () => new Date(now()).toISOString().slice(11, 19);
  return withClient(io, async (client) => {
    const started = now();
    let shown = new Map<string, string>();
    for (;;) {
      let decision: ReturnType<typeof decideWait>;
      try {
        const snap = await readCluster(client, name, namespace);
        const facts = progressFacts(snap);
        for (const line of changedLines(shown, facts)) io.out(`${stamp()} ${line}\n`);
        shown = facts;
        decision = decideWait(waitTarget, snap, now() - started, timeoutMs);
      } catch (err) {
        // A blip in API access is not a verdict: keep waiting until the deadline, as openshift-install does.
        io.err(`${stamp()} ${errorMessage(err)}\n`);
        if (timeoutMs > 0 && now() - started >= timeoutMs) return EXIT_CODES.error;
        await sleep(intervalMs);
        continue;
      }
      if (decision.done) {
        (decision.exitCode === 0 ? io.out : io.err)(`${stamp()} ${decision.message}\n`);
        return decision.exitCode;
      }
      await sleep(intervalMs);
    }
  });
}

async function logs(args: readonly string[], io: CliIo): Promise<number> {
  const { name, namespace, values } = clusterArgs(args, { output: { type: 'string', short: 'o' } });
  return withClient(io, async (client) => {
    const snap = await readCluster(client, name, namespace);
    const url = snap.agentClusterInstall?.status?.debugInfo?.logsURL;
    if (!snap.agentClusterInstall) throw new Error(`AgentClusterInstall for ${namespace}/${name} not found`);
    if (!url) {
      io.err('error: no logs yet (status.debugInfo.logsURL is empty until hosts upload logs)\n');
      return EXIT_CODES.error;
    }
    const file = values.output ?? `${name}-logs.tar`;
    await download(url, file);
    io.out(`wrote ${file}\n`);
    return EXIT_CODES.success;
  });
}

/** The URL without its query: the signed `api_key` in it opens the logs, so it is not printed. */
function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '<invalid URL>';
  }
}

/** The innermost reason of a failed fetch ("fetch failed" alone says nothing), e.g. ECONNREFUSED. */
function rootCause(err: unknown): string {
  let e = err;
  while (e instanceof Error && e.cause !== undefined) e = e.cause;
  const code = (e as { code?: unknown }).code;
  const text = errorMessage(e);
  return typeof code === 'string' && !text.includes(code) ? `${code}: ${text}` : text;
}

/** The service's `reason` from an error body, else the body's first line, kept short. */
async function errorReason(resp: Response): Promise<string> {
  const text = (await resp.text().catch(() => '')).trim();
  let reason = text;
  try {
    const parsed = JSON.parse(text) as { reason?: unknown };
    if (typeof parsed.reason === 'string') reason = parsed.reason;
  } catch {}
  reason = reason.split('\n')[0] ?? '';
  return reason.length > 300 ? `${reason.slice(0, 300)}…` : reason;
}

/**
 * Streams `url` into `file` through `file.part`, renamed when complete: a failed or cut-off download
 * leaves no file that looks like a good archive.
 */
async function download(url: string, file: string): Promise<void> {
  const where = shownUrl(url);
  let resp: Response;
  try {
    resp = await fetch(url);
  } catch (err) {
    throw new Error(`cannot reach ${where}: ${rootCause(err)}`);
  }
  if (!resp.ok || !resp.body) {
    const reason = await errorReason(resp);
    throw new Error(
      `downloading logs from ${where} failed: HTTP ${resp.status}${reason ? ` ${reason}` : ''}`,
    );
  }
  const part = `${file}.part`;
  try {
    await pipeline(Readable.fromWeb(resp.body), createWriteStream(part));
    await rename(part, file);
  } catch (err) {
    await rm(part, { force: true });
    throw new Error(`downloading logs from ${where} failed: ${rootCause(err)}`);
  }
}

async function manifests(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: {
      'install-config': { type: 'string' },
      'agent-config': { type: 'string' },
      output: { type: 'string', short: 'o' },
      namespace: { type: 'string', short: 'n' },
      'release-image': { type: 'string' },
      'openshift-version': { type: 'string' },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new UsageError(`unexpected arguments: ${positionals.join(' ')}`);
  if (!values['install-config'] || !values['agent-config']) {
    throw new UsageError('manifests needs --install-config and --agent-config');
  }
  const result = convertAgentInstallerFiles(
    await readFile(values['install-config'], 'utf8'),
    await readFile(values['agent-config'], 'utf8'),
    {
      namespace: values.namespace,
      releaseImage: values['release-image'],
      openshiftVersion: values['openshift-version'],
    },
  );
  for (const note of result.notes) io.err(`note: ${note}\n`);
  if (!values.output) {
    io.out(renderManifests(result.manifests));
    return EXIT_CODES.success;
  }
  await mkdir(values.output, { recursive: true });
  for (const [i, m] of result.manifests.entries()) {
    const file = join(values.output, manifestFileName(m, i));
    await writeFile(file, renderManifests([m]));
    io.out(`wrote ${file}\n`);
  }
  return EXIT_CODES.success;
}
