// Where a cluster's large files live (docs/design/records.md "Large artifacts"): the data directory,
// never the API. Layout under `<dataDir>`:
//
//   clusters/<clusterId>/             install files: install-config.yaml, bootstrap.ign, master.ign,
//                                     worker.ign, arbiter.ign, metadata.json, <role>-<hostId>.ign,
//                                     kubeconfig-noingress, kubeconfig, kubeadmin-password,
//                                     custom_manifests.json, custom_manifests.yaml,
//                                     manifests/<folder>/<file>
//   logs/<clusterId>/<hostId>/logs.tar.gz            a host's uploaded logs
//   logs/<clusterId>/cluster/controller_logs.tar.gz  the installer controller's uploaded logs
//
// (the object names upstream's storage uses). Writes are atomic (temp file + rename), so a reader
// sees a whole file or none, and a restart never leaves a half-written ignition behind.

import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { OperatorContext } from '../context.ts';

type DataDirSource = Pick<OperatorContext, 'settings'>;

/** Ids become directory names; anything but a plain token is refused (no path traversal). */
function safeSegment(value: string, what: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(value) || value.includes('..')) {
    throw new Error(`invalid ${what} ${JSON.stringify(value)}`);
  }
  return value;
}

/** A relative file name below a cluster directory ("manifests/openshift/a.yaml" is fine). */
function safeRelative(root: string, name: string): string {
  const full = resolve(root, name);
  const rel = relative(root, full);
  if (rel === '' || rel.startsWith('..') || rel.split(sep).some((p) => p === '..') || name.includes('\0')) {
    throw new Error(`invalid file name ${JSON.stringify(name)}`);
  }
  return full;
}

export function clusterDir(ctx: DataDirSource, clusterId: string): string {
  return join(ctx.settings.dataDir, 'clusters', safeSegment(clusterId, 'cluster id'));
}

export function clusterLogsDir(ctx: DataDirSource, clusterId: string): string {
  return join(ctx.settings.dataDir, 'logs', safeSegment(clusterId, 'cluster id'));
}

/** Where a host's uploaded logs are kept (the hosts' REST backend writes it). */
export function hostLogsFile(ctx: DataDirSource, clusterId: string, hostId: string): string {
  return join(clusterLogsDir(ctx, clusterId), safeSegment(hostId, 'host id'), 'logs.tar.gz');
}

/** Where the installer controller's uploaded logs are kept. */
export function controllerLogsFile(ctx: DataDirSource, clusterId: string): string {
  return join(clusterLogsDir(ctx, clusterId), 'cluster', 'controller_logs.tar.gz');
}

/** Writes `content` to `path` atomically, creating directories as needed. */
export async function writeFileAtomic(path: string, content: string | Buffer): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${randomBytes(6).toString('hex')}`;
  await writeFile(tmp, content, { mode: 0o600 });
  await rename(tmp, path);
}

/** The file's bytes, or undefined when it does not exist (yet). */
export async function readClusterFile(
  ctx: DataDirSource,
  clusterId: string,
  name: string,
): Promise<Buffer | undefined> {
  const root = clusterDir(ctx, clusterId);
  try {
    return await readFile(safeRelative(root, name));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Whether the file exists. */
export async function clusterFileExists(
  ctx: DataDirSource,
  clusterId: string,
  name: string,
): Promise<boolean> {
  try {
    await stat(safeRelative(clusterDir(ctx, clusterId), name));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Writes several files (name → content) below the cluster directory, each atomically. */
export async function writeClusterFiles(
  ctx: DataDirSource,
  clusterId: string,
  files: Readonly<Record<string, string | Buffer>>,
): Promise<void> {
  const root = clusterDir(ctx, clusterId);
  for (const [name, content] of Object.entries(files)) {
    await writeFileAtomic(safeRelative(root, name), content);
  }
}

/** Every file name (relative, `/`-separated) below the cluster directory, sorted. */
export async function listClusterFiles(ctx: DataDirSource, clusterId: string): Promise<string[]> {
  const root = clusterDir(ctx, clusterId);
  const out: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) await walk(full);
      else if (!e.name.includes('.tmp-')) out.push(relative(root, full).split(sep).join('/'));
    }
  };
  await walk(root);
  return out.sort();
}

/**
 * Removes the generated install files of a cluster (reset, deregistration). User manifests live in
 * ConfigMaps, so nothing the user wrote is lost.
 */
export async function removeClusterFiles(ctx: DataDirSource, clusterId: string): Promise<void> {
  await rm(clusterDir(ctx, clusterId), { recursive: true, force: true });
}

/** Removes a cluster's uploaded logs (deregistration). */
export async function removeClusterLogs(ctx: DataDirSource, clusterId: string): Promise<void> {
  await rm(clusterLogsDir(ctx, clusterId), { recursive: true, force: true });
}
