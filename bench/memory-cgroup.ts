// The shipped operator under the Deployment's memory limit, as a pod runs it: Node sizes V8's heap
// from the cgroup's limit (1,120 MiB of heap under 2 GiB, against 4,288 on this 24 GiB box), so a
// process started without one collects garbage on another schedule than the pod does. A child
// memory cgroup of the bench's own (cgroup v2 or v1's memory controller) when the box allows one.

import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readManifests } from '../src/dev/apply.ts';

const UNITS: Record<string, number> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, K: 1e3, M: 1e6, G: 1e9 };

/** A Kubernetes memory quantity ("2Gi", "512Mi", "1G", "1073741824") in bytes. */
export function quantityBytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(q.trim());
  if (!m) throw new Error(`memory quantity ${JSON.stringify(q)} not understood`);
  return Math.round(Number(m[1]) * (m[2] ? UNITS[m[2]]! : 1));
}

/** The manager container's `resources.limits.memory` in config/manager/manager.yaml. */
export async function deploymentMemoryLimit(file = 'config/manager/manager.yaml'): Promise<string> {
  type Container = { name?: string; resources?: { limits?: { memory?: string } } };
  for (const obj of await readManifests(file)) {
    if (obj.kind !== 'Deployment') continue;
    const spec = (obj as { spec?: unknown }).spec as
      | { template?: { spec?: { containers?: Container[] } } }
      | undefined;
    const limit = spec?.template?.spec?.containers?.find((c) => c.name === 'manager')?.resources?.limits
      ?.memory;
    if (limit) return limit;
  }
  throw new Error(`${file}: no memory limit on the manager container`);
}

export interface MemoryCgroup {
  dir: string;
  /** The command line that runs `argv` inside the cgroup. */
  wrap(argv: string[]): { command: string; args: string[] };
  /** Peak memory the cgroup saw (bytes), and whether the kernel killed for lack of it. */
  usage(): Promise<{ peakBytes: number; oomKills: number }>;
  remove(): Promise<void>;
}

async function ownCgroupPaths(): Promise<{ v2?: string; v1Memory?: string }> {
  const lines = (await readFile('/proc/self/cgroup', 'utf8')).trim().split('\n');
  const out: { v2?: string; v1Memory?: string } = {};
  for (const line of lines) {
    const [, controllers, path] = line.split(':') as [string, string, string];
    if (controllers === '') out.v2 = path;
    if (controllers.split(',').includes('memory')) out.v1Memory = path;
  }
  return out;
}

/** A fresh child memory cgroup limited to `bytes`, or why none could be made. */
export async function memoryCgroup(bytes: number, name: string): Promise<MemoryCgroup | string> {
  const own = await ownCgroupPaths();
  const v1 = own.v1Memory !== undefined;
  const base = v1 ? join('/sys/fs/cgroup/memory', own.v1Memory!) : join('/sys/fs/cgroup', own.v2 ?? '/');
  const dir = join(base, name);
  try {
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, v1 ? 'memory.limit_in_bytes' : 'memory.max'), String(bytes));
  } catch (err) {
    return `no memory cgroup (${(err as Error).message})`;
  }
  const read = (f: string) => readFile(join(dir, f), 'utf8').catch(() => '');
  return {
    dir,
    wrap: (argv) => ({
      command: '/bin/sh',
      args: ['-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', dir, ...argv],
    }),
    async usage() {
      const peak = Number((await read(v1 ? 'memory.max_usage_in_bytes' : 'memory.peak')).trim()) || 0;
      const events = await read(v1 ? 'memory.oom_control' : 'memory.events');
      const oomKills = Number(/oom_kill (\d+)/.exec(events)?.[1] ?? 0);
      return { peakBytes: peak, oomKills };
    },
    remove: () => rmdir(dir).catch(() => undefined),
  };
}
