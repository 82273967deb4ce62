// Cluster downloads (agent-api.md §2.3): files and credentials from the cluster's artifact store,
// and uploaded logs (one host's, the controller's, or all as one tar streamed from the files).
// Agent tokens get only what the installer and controller fetch, while it installs
// (src/auth/host-downloads.ts).

import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { agentClusterDownload, type ClusterDownloadRoute, HOST_INSTALL_STATES } from '../../auth/index.ts';
import {
  clusterLogsDir,
  controllerLogsFile,
  hostLogsFile,
  readClusterFile,
} from '../../records/clusters/artifacts-store.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type TarFileEntry, tarStream, tarStreamSize } from '../../util/tar.ts';
import { type CallContext, type FileDownload, fail, type Outcome, ok } from '../api/backend.ts';
import type { ClusterInput, ClusterScope, Located } from './scope.ts';

type StoredFileInput = ClusterInput<'downloadClusterFile'> | ClusterInput<'downloadClusterCredentials'>;
type LogsInput = ClusterInput<'downloadClusterLogs'>;

/** A stored file of the cluster (installer files, credentials), once it has been generated. */
function storedFileRoute(route: ClusterDownloadRoute, what: string) {
  return async (s: ClusterScope, found: Located, input: StoredFileInput, call: CallContext) => {
    const refused = agentMayDownload(call, found, route, input.fileName);
    if (refused) return refused;
    return download(s.ctx, found.cluster.id, input.fileName, what);
  };
}

export const downloadClusterFile = storedFileRoute('files', 'File');
export const downloadClusterCredentials = storedFileRoute('credentials', 'Credentials file');

export async function downloadClusterLogs(s: ClusterScope, found: Located, input: LogsInput) {
  const { ctx } = s;
  const id = found.cluster.id;
  const name = found.cluster.name;
  const type = input.logsType ?? '';
  if (type === 'host' || (input.hostId && type !== 'controller' && type !== 'all')) {
    if (!input.hostId) return fail(400, 'host_id is required for host logs');
    const file = await fileDownload(hostLogsFile(ctx, id, input.hostId), `${name}_${input.hostId}.tar.gz`);
    return file ? ok(file) : fail(404, `Logs for host ${input.hostId} were not found`);
  }
  if (type === 'controller') {
    const file = await fileDownload(controllerLogsFile(ctx, id), `${name}_${id}_controller_logs.tar.gz`);
    return file ? ok(file) : fail(404, `Logs for cluster ${id} were not found`);
  }
  const entries = await allLogs(ctx, id);
  if (entries.length === 0) return fail(404, `Logs for cluster ${id} were not found`);
  // Streamed from the files: several concurrent downloads of large log sets stay small in memory.
  return ok({ content: tarStream(entries), size: tarStreamSize(entries), fileName: `${name}_${id}.tar` });
}

function agentMayDownload(
  call: CallContext,
  found: Located,
  route: ClusterDownloadRoute,
  fileName: string,
): Outcome<never> | undefined {
  // Agent tokens get only what the installer and controller fetch, while it installs.
  const { principal } = call;
  if (principal.scheme !== 'agent') return undefined;
  const { subject } = principal;
  const hosts = found.cluster.hosts;
  const participating = hosts.some(
    (h) =>
      HOST_INSTALL_STATES.includes(h.status) &&
      (subject.kind === 'cluster' || h.infra_env_id.toLowerCase() === subject.id.toLowerCase()),
  );
  const decision = agentClusterDownload({
    route,
    fileName,
    clusterId: found.cluster.id,
    clusterState: found.cluster.status,
    participating,
  });
  return decision.ok ? undefined : fail(decision.status, decision.reason);
}

async function download(
  ctx: OperatorContext,
  clusterId: string,
  name: string,
  what: string,
): Promise<Outcome<FileDownload>> {
  const bytes = await readClusterFile(ctx, clusterId, name);
  if (!bytes) return fail(409, `${what} ${name} for cluster ${clusterId} is not available yet`);
  return ok({ content: bytes, fileName: name });
}

/** Every uploaded log file of a cluster, as tar entries named `<host id>.tar.gz` / `controller_logs.tar.gz`. */
async function allLogs(ctx: OperatorContext, clusterId: string): Promise<TarFileEntry[]> {
  const dir = clusterLogsDir(ctx, clusterId);
  const names = await readdir(dir).catch(() => [] as string[]);
  const entries: TarFileEntry[] = [];
  for (const sub of names.sort()) {
    const file = sub === 'cluster' ? controllerLogsFile(ctx, clusterId) : `${dir}/${sub}/logs.tar.gz`;
    const info = await stat(file).catch(() => undefined);
    if (!info) continue;
    entries.push({
      name: sub === 'cluster' ? 'controller_logs.tar.gz' : `${sub}.tar.gz`,
      path: file,
      size: info.size,
      mtime: info.mtime,
    });
  }
  return entries;
}

/** One stored file as a streamed download (undefined when it does not exist). */
async function fileDownload(path: string, fileName: string): Promise<FileDownload | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return {
    content: createReadStream(path, { start: 0, end: Math.max(0, info.size - 1) }),
    size: info.size,
    fileName,
  };
}
