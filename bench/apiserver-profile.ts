// kube-apiserver's own CPU profile over a phase of the benchmark (its /debug/pprof/profile, with the
// admin's credentials), and where its samples went, read with `go tool pprof` (Go builds the local
// control plane, so it is on the box). This is the API server's account of what a write costs it,
// not ours: why a status write of an Agent costs several ConfigMap creates.

import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { loadKubeConfig } from '../src/operator/main.ts';

/** Cumulative share of the profile's samples per activity; activities overlap (a decode is inside an update). */
export interface ApiServerProfile {
  file: string;
  sampledCpuSeconds: number;
  shares: Record<string, number>;
}

/** pprof function names (cumulative) that say what the API server was doing. */
const ACTIVITIES: [string, RegExp][] = [
  ['status writes of custom resources', /customresource\.\(\*StatusREST\)\.Update$/],
  ['creates', /registry\.\(\*Store\)\.Create$/],
  ['decoding custom resources (bodies, stored objects)', /apiserver\.schemaCoercingDecoder\.Decode$/],
  ['decoding changed objects for the watch cache', /etcd3\.\(\*watchChan\)\.prepareObjs$/],
  ['schema validation', /validate\.\(\*SchemaValidator\)\.Validate$/],
  ['managed fields', /managedfields\/internal\.\(\*FieldManager\)\.Update$/],
  ['encoding', /versioning\.\(\*codec\)\.Encode$/],
  ['garbage collection (background)', /^runtime\.gcBgMarkWorker$/],
];

/** Starts a `seconds` CPU profile of the API server; resolves once it is written to `file`. */
export async function captureApiServerProfile(
  kubeconfigPath: string,
  seconds: number,
  file: string,
): Promise<string> {
  const kc = loadKubeConfig(kubeconfigPath);
  const tls: { ca?: Buffer; cert?: Buffer; key?: Buffer; headers?: Record<string, string> } = {};
  await kc.applyToHTTPSOptions(tls);
  const dispatcher = new Agent({ connect: { ca: tls.ca, cert: tls.cert, key: tls.key } });
  try {
    const server = kc.getCurrentCluster()?.server ?? '';
    const resp = await request(`${server}/debug/pprof/profile?seconds=${seconds}`, {
      dispatcher,
      headers: tls.headers ?? {},
    });
    const body = Buffer.from(await resp.body.arrayBuffer());
    if (resp.statusCode !== 200)
      throw new Error(`pprof: HTTP ${resp.statusCode}: ${body.toString().slice(0, 200)}`);
    await writeFile(file, body);
    return file;
  } finally {
    await dispatcher.close();
  }
}

/** Where the samples of a profile went, or undefined (with the reason) when `go` cannot read it. */
export async function summariseApiServerProfile(file: string): Promise<ApiServerProfile | string> {
  let text: string;
  try {
    const out = await promisify(execFile)(
      'go',
      ['tool', 'pprof', '-top', '-cum', '-nodecount=100000', file],
      {
        maxBuffer: 64 << 20,
      },
    );
    text = out.stdout;
  } catch (err) {
    return `go tool pprof failed: ${(err as Error).message.split('\n')[0]}`;
  }
  return { file, ...parsePprofTop(text) };
}

/** Parses `go tool pprof -top -cum` text: the total sampled CPU and each activity's cumulative share. */
export function parsePprofTop(text: string): Omit<ApiServerProfile, 'file'> {
  const total = /Total samples = ([\d.]+)(m?s)/.exec(text);
  const sampledCpuSeconds = total ? Number(total[1]) / (total[2] === 'ms' ? 1000 : 1) : Number.NaN;
  const shares: Record<string, number> = {};
  for (const [name] of ACTIVITIES) shares[name] = 0;
  for (const row of text.split('\n')) {
    const cols = row.trim().split(/\s+/);
    if (cols.length < 6 || !/^[\d.]+m?s$/.test(cols[3] ?? '')) continue;
    const fn = cols.slice(5).join(' ');
    const cum = cols[3] as string;
    const seconds = Number.parseFloat(cum) / (cum.endsWith('ms') ? 1000 : 1);
    for (const [name, re] of ACTIVITIES) {
      if (re.test(fn)) shares[name] = Math.max(shares[name] ?? 0, seconds / sampledCpuSeconds);
    }
  }
  return { sampledCpuSeconds, shares };
}
