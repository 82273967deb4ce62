// The ISO download phase of `make bench-scale` (issue 16: "ISO download throughput against a raw
// file read of the same base image"). On the bench's control plane and in-process operator: a real
// ISO 9660 base image of the chosen size is built with xorriso (src/dev/test-iso.ts, as the tests
// and `make demo` do), served from loopback as the AgentServiceConfig's x86_64 OS image, and an
// InfraEnv of its own is created. Then, per ISO type (full, minimal), interleaved so the shared
// box's noise hits them alike (each round starting one pass later), after one warm-up pass of
// each, 5 rounds (up to 50 for a small image):
//   raw   - the operator's cached base file read sequentially with a stream, in the chunk size the
//           image service reads with (so both come from the page cache with the same reads);
//   loop  - the same reads into one reused buffer (FileHandle.read): what the page cache gives
//           without a stream's fresh buffer per chunk, the strictest baseline (context only);
//   plain - the same file sent by a bare node:http server (fs stream piped to the response) to the
//           same client: what loopback HTTP in this process can carry, the transport's ceiling;
//   iso   - the InfraEnv's status.isoDownloadURL fetched with undici, body counted and discarded;
//   curl  - the same URL fetched by curl, a process of its own (where curl is installed): a C
//           client, as a host's downloader is (curl, coreos-installer, a BMC's virtual media),
//           so the figure is the server's rather than the Node client's.
// The reads and the HTTP client run on a worker thread of their own (this same module), as a host
// downloading its ISO is a machine of its own: the client's buffers are collected in the worker's
// small heap, not with the operator's, and the operator's loop only serves. Medians, ratios
// iso ÷ raw (the target) and iso ÷ plain (the image path's own cost), and the process CPU
// milliseconds per MiB (operator + client; steadier than MiB/s on a shared box).
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, open, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { Agent as HttpAgent, request } from 'undici';
import type { AgentServiceConfig, InfraEnv } from '../src/api/index.ts';
import { serveFile } from '../src/dev/file-server.ts';
import { buildTestIso } from '../src/dev/test-iso.ts';
import { DEFAULT_CHUNK_SIZE } from '../src/images/iso-stream.ts';
import type { OperatorContext } from '../src/records/context.ts';
import { imageServicesOf } from '../src/records/infraenvs/services.ts';
import { AGENT_SERVICE_CONFIG, INFRA_ENV, SECRET } from '../src/records/resources.ts';
import { serviceConfigOf } from '../src/records/serviceconfig/service-config.ts';
import type { KubeClient } from '../src/runtime/index.ts';

const MiB = 1024 * 1024;
/** Rounds per ISO type: at least 5, more for a small image (a few ms per pass is all noise here). */
const MIN_ROUNDS = 5;
const MAX_ROUNDS = 50;
const BYTES_PER_TYPE = 256 * MiB;
const OCP_VERSION = '4.18';
const RHCOS_VERSION = '418.94.202501010000-0';
const NAME = 'iso-bench';

export interface IsoThroughputOptions {
  /** Admin client of the bench's control plane. */
  admin: KubeClient;
  /** The in-process operator whose image service is measured. */
  ctx: OperatorContext;
  namespace: string;
  /** Size of the generated base ISO. */
  isoMiB: number;
  line: (name: string, value: string) => void;
}

export interface TypeFigures {
  /** Bytes of the cached base file (raw, plain) and of the served ISO (download). */
  baseBytes: number;
  isoBytes: number;
  rawMiBps: number;
  readLoopMiBps: number;
  plainHttpMiBps: number;
  downloadMiBps: number;
  /** download ÷ raw: issue 16's target is ≥ 0.9. */
  downloadToRaw: number;
  /** download ÷ the reused-buffer read loop. */
  downloadToReadLoop: number;
  /** download ÷ plain HTTP: the image path's cost over the transport alone. */
  downloadToPlainHttp: number;
  /** The same download by curl, and ÷ raw; undefined where curl is not installed. */
  curlMiBps?: number;
  curlToRaw?: number;
  /** Process CPU (operator + client) per MiB downloaded, median. */
  downloadCpuMsPerMiB: number;
  plainHttpCpuMsPerMiB: number;
  samples: Record<PassName, number[]>;
}

export interface IsoThroughputReport {
  isoMiB: number;
  chunkBytes: number;
  full: TypeFigures;
  minimal: TypeFigures | { skipped: string };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

interface Pass {
  bytes: number;
  seconds: number;
  cpuMs: number;
}

type ClientPass = 'raw' | 'readLoop' | 'download';

interface ClientThread {
  /** Runs one pass on the client thread; bytes and seconds as it measured them. */
  run(pass: ClientPass, target: string): Promise<Pass>;
  close(): Promise<void>;
}

function clientThread(): ClientThread {
  const worker = new Worker(new URL(import.meta.url), { workerData: { isoClient: true } });
  let last = 0;
  const waiting = new Map<number, { resolve: (p: Pass) => void; reject: (e: Error) => void }>();
  worker.on('message', (m: { id: number; bytes?: number; seconds?: number; error?: string }) => {
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve({ bytes: m.bytes ?? 0, seconds: m.seconds ?? Number.NaN, cpuMs: 0 });
  });
  worker.on('error', (err) => {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  });
  return {
    async run(pass, target) {
      const id = ++last;
      const c0 = process.cpuUsage();
      const result = await new Promise<Pass>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, pass, target });
      });
      const c = process.cpuUsage(c0);
      return { ...result, cpuMs: (c.user + c.system) / 1000 };
    },
    close: async () => {
      await worker.terminate();
    },
  };
}

/** The worker side of clientThread. */
function serveClientPasses(): void {
  const dispatcher = new HttpAgent({ connections: 1 });
  const passes: Record<ClientPass, (target: string) => Promise<number>> = {
    raw: readRaw,
    readLoop,
    download: (url) => download(url, dispatcher),
  };
  parentPort?.on('message', (m: { id: number; pass: ClientPass; target: string }) => {
    const t0 = performance.now();
    passes[m.pass](m.target).then(
      (bytes) => parentPort?.postMessage({ id: m.id, bytes, seconds: (performance.now() - t0) / 1000 }),
      (err: Error) => parentPort?.postMessage({ id: m.id, error: err.message }),
    );
  });
}

type PassName = 'raw' | 'readLoop' | 'plainHttp' | 'download' | 'curl';

let curlFound: boolean | undefined;
/** Whether curl is on PATH (asked once, and only by the phase, not by its client thread). */
function curlInstalled(): boolean {
  curlFound ??= spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;
  return curlFound;
}

/**
 * `url` fetched by curl as a process of its own, body discarded; bytes and curl's own transfer
 * time. The URL goes in on stdin, not in argv, as it carries the InfraEnv's token.
 */
function curlDownload(url: string): Promise<Pass> {
  return new Promise((resolve, reject) => {
    const c0 = process.cpuUsage();
    const args = ['--silent', '--show-error', '--fail', '--output', '/dev/null'];
    const child = spawn('curl', [...args, '--write-out', '%{size_download} %{time_total}', '--config', '-']);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0)
        return reject(new Error(`curl exited ${code}: ${err.replace(/byapikey\/[^/]+/g, 'byapikey/…')}`));
      const [bytes, seconds] = out.trim().split(' ').map(Number);
      const c = process.cpuUsage(c0);
      resolve({ bytes: bytes ?? 0, seconds: seconds ?? Number.NaN, cpuMs: (c.user + c.system) / 1000 });
    });
    child.stdin.end(`url = "${url}"\n`);
  });
}

async function readLoop(path: string): Promise<number> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(DEFAULT_CHUNK_SIZE);
    let n = 0;
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, buf.length, n);
      if (bytesRead === 0) return n;
      n += bytesRead;
    }
  } finally {
    await fh.close();
  }
}

async function readRaw(path: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(path, { highWaterMark: DEFAULT_CHUNK_SIZE })) {
    n += (chunk as Buffer).length;
  }
  return n;
}

/** GETs `url` and counts the body's bytes; anything but a complete 200 is an error. */
async function download(url: string, dispatcher: HttpAgent): Promise<number> {
  const res = await request(url, { dispatcher });
  if (res.statusCode !== 200) {
    const text = await res.body.text();
    throw new Error(`GET ${url.replace(/byapikey\/[^/]+/, 'byapikey/…')}: ${res.statusCode} ${text}`);
  }
  let n = 0;
  for await (const chunk of res.body) n += (chunk as Buffer).length;
  const declared = Number(res.headers['content-length']);
  if (n !== declared) throw new Error(`download ended after ${n} of ${declared} bytes`);
  return n;
}

/** A bare HTTP server sending `path` whole: the loopback transport's ceiling for that file. */
async function plainServer(path: string): Promise<{ url: string; close(): Promise<void> }> {
  const { size } = await stat(path);
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-length': String(size), 'content-type': 'application/octet-stream' });
    pipeline(createReadStream(path, { highWaterMark: DEFAULT_CHUNK_SIZE }), res).catch(() => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A small generated base image served from loopback as the OS image of the fleet's release, so
 * InfraEnvs get their discovery image (`make bench-scale --ztp`: the PreprovisioningImages need
 * one) before the ISO phase replaces it with its own. Returns the server's close.
 */
export async function serveFleetOsImage(admin: KubeClient, dir: string): Promise<() => Promise<void>> {
  await mkdir(dir, { recursive: true });
  const { path } = await buildTestIso(dir, { rhcosVersion: RHCOS_VERSION, rootfsSize: MiB, initrdSize: MiB });
  const files = await serveFile(path);
  await setOsImage(admin, files.url);
  return () => files.close();
}

/** Points the AgentServiceConfig `agent` at the generated image (creating it if there is none). */
async function setOsImage(admin: KubeClient, url: string): Promise<void> {
  const entry = { openshiftVersion: OCP_VERSION, cpuArchitecture: 'x86_64', version: RHCOS_VERSION, url };
  const asc = await admin.getIfExists<AgentServiceConfig>(AGENT_SERVICE_CONFIG, 'agent');
  if (asc) {
    const others = (asc.spec.osImages ?? []).filter(
      (i) => !(i.openshiftVersion === OCP_VERSION && (i.cpuArchitecture || 'x86_64') === 'x86_64'),
    );
    await admin.replace(AGENT_SERVICE_CONFIG, {
      ...asc,
      spec: { ...asc.spec, osImages: [entry, ...others] },
    });
    return;
  }
  await admin.create<AgentServiceConfig>(AGENT_SERVICE_CONFIG, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'AgentServiceConfig',
    metadata: { name: 'agent' },
    spec: {
      filesystemStorage: { resources: { requests: { storage: '1Gi' } } },
      databaseStorage: { resources: { requests: { storage: '1Gi' } } },
      osImages: [entry],
    },
  } as AgentServiceConfig);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Resolves once every work queue is empty and no reconcile runs, for a whole second: the new OS
 * image re-reconciles every InfraEnv of the fleet, which would otherwise share the loop with the
 * downloads.
 */
async function operatorIdle(ctx: OperatorContext, timeoutMs: number): Promise<void> {
  const sum = async (g: { get(): Promise<{ values: { value: number }[] }> }) =>
    (await g.get()).values.reduce((a, v) => a + v.value, 0);
  let since = Date.now();
  await until(
    'the operator to go idle',
    async () => {
      const busy = (await sum(ctx.mgr.metrics.queueDepth)) + (await sum(ctx.mgr.metrics.activeWorkers)) > 0;
      if (busy) since = Date.now();
      return Date.now() - since >= 1000 ? true : undefined;
    },
    timeoutMs,
  );
}

/** The InfraEnv of this phase, once the operator has given it an ISO URL. */
async function createInfraEnv(o: IsoThroughputOptions): Promise<string> {
  await o.admin.create(SECRET, {
    metadata: { name: `${NAME}-pull-secret`, namespace: o.namespace },
    type: 'kubernetes.io/dockerconfigjson',
    stringData: { '.dockerconfigjson': '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}' },
  } as never);
  await o.admin.create<InfraEnv>(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name: NAME, namespace: o.namespace },
    spec: { pullSecretRef: { name: `${NAME}-pull-secret` }, cpuArchitecture: 'x86_64' },
  } as InfraEnv);
  return until(
    `${NAME} status.isoDownloadURL`,
    async () =>
      (await o.admin.get<InfraEnv>(INFRA_ENV, NAME, o.namespace)).status?.isoDownloadURL || undefined,
    300_000,
  );
}

async function measureType(basePath: string, isoUrl: string, client: ClientThread): Promise<TypeFigures> {
  const plain = await plainServer(basePath);
  try {
    const run: Record<PassName, () => Promise<Pass>> = {
      raw: () => client.run('raw', basePath),
      readLoop: () => client.run('readLoop', basePath),
      plainHttp: () => client.run('download', plain.url),
      download: () => client.run('download', isoUrl),
      curl: () => curlDownload(isoUrl),
    };
    if (!curlInstalled()) delete (run as Partial<typeof run>).curl;
    // Warm-up: the page cache, the base image cache (minimal template), JIT and the connection.
    for (const pass of Object.values(run)) await pass();
    const passes: Record<PassName, Pass[]> = { raw: [], readLoop: [], plainHttp: [], download: [], curl: [] };
    const size = (await stat(basePath)).size;
    const rounds = Math.min(MAX_ROUNDS, Math.max(MIN_ROUNDS, Math.ceil(BYTES_PER_TYPE / size)));
    // Each round starts one pass later: a pass pays for garbage the one before it left on the
    // operator's thread (the plain server's fresh buffers), so no pass always follows the same one.
    const order = Object.entries(run);
    for (let i = 0; i < rounds; i++) {
      for (let j = 0; j < order.length; j++) {
        const [k, pass] = order[(i + j) % order.length]!;
        passes[k as PassName].push(await pass());
      }
    }
    const rate = (ps: Pass[]) => ps.map((p) => p.bytes / MiB / p.seconds);
    const cpuPerMiB = (ps: Pass[]) => median(ps.map((p) => p.cpuMs / (p.bytes / MiB)));
    const samples: Record<PassName, number[]> = {
      raw: rate(passes.raw),
      readLoop: rate(passes.readLoop),
      plainHttp: rate(passes.plainHttp),
      download: rate(passes.download),
      curl: rate(passes.curl),
    };
    const dl = median(samples.download);
    const isoBytes = passes.download[0]!.bytes;
    const short = passes.curl.find((p) => p.bytes !== isoBytes);
    if (short) throw new Error(`curl downloaded ${short.bytes} of ${isoBytes} bytes`);
    const curl = curlInstalled() ? median(samples.curl) : undefined;
    return {
      baseBytes: passes.raw[0]!.bytes,
      isoBytes,
      rawMiBps: median(samples.raw),
      readLoopMiBps: median(samples.readLoop),
      plainHttpMiBps: median(samples.plainHttp),
      downloadMiBps: dl,
      downloadToRaw: dl / median(samples.raw),
      downloadToReadLoop: dl / median(samples.readLoop),
      downloadToPlainHttp: dl / median(samples.plainHttp),
      ...(curl === undefined ? {} : { curlMiBps: curl, curlToRaw: curl / median(samples.raw) }),
      downloadCpuMsPerMiB: cpuPerMiB(passes.download),
      plainHttpCpuMsPerMiB: cpuPerMiB(passes.plainHttp),
      samples,
    };
  } finally {
    await plain.close();
  }
}

function print(o: IsoThroughputOptions, type: string, f: TypeFigures): void {
  const r = (x: number) => x.toFixed(0);
  const p = (x: number) => `${(x * 100).toFixed(0)} %`;
  o.line(
    `ISO ${type} ${(f.isoBytes / MiB).toFixed(1)} MiB: raw/loop/plain/ISO`,
    `${r(f.rawMiBps)} / ${r(f.readLoopMiBps)} / ${r(f.plainHttpMiBps)} / ${r(f.downloadMiBps)} MiB/s (medians of ${f.samples.raw.length})`,
  );
  o.line(
    `ISO ${type}: download ÷ raw (target ≥ 90 %)`,
    `${p(f.downloadToRaw)} (÷ read loop ${p(f.downloadToReadLoop)}, ÷ plain HTTP ${p(f.downloadToPlainHttp)})`,
  );
  o.line(
    `ISO ${type}: curl download, ÷ raw`,
    f.curlMiBps === undefined
      ? 'skipped: curl is not installed'
      : `${r(f.curlMiBps)} MiB/s, ${p(f.curlToRaw ?? Number.NaN)} (÷ read loop ${p(f.curlMiBps / f.readLoopMiBps)})`,
  );
  o.line(
    `ISO ${type}: CPU per MiB, ISO / plain HTTP`,
    `${f.downloadCpuMsPerMiB.toFixed(2)} / ${f.plainHttpCpuMsPerMiB.toFixed(2)} ms (operator + client)`,
  );
}

/** The ISO download phase; see the file comment. */
export async function measureIsoThroughput(o: IsoThroughputOptions): Promise<IsoThroughputReport> {
  const work = await mkdtemp(join(tmpdir(), 'aio-bench-iso-'));
  const client = clientThread();
  let files: Awaited<ReturnType<typeof serveFile>> | undefined;
  try {
    // RHCOS's proportions: the initrd (most of a minimal ISO) about a tenth of the image, the
    // rootfs most of the rest; the kernel, EFI image and ignition area take about 1 MiB.
    const initrdSize = Math.floor(o.isoMiB / 10) * MiB + 7;
    const rootfsSize = Math.max(1, o.isoMiB - 1 - Math.floor(o.isoMiB / 10)) * MiB;
    const { path } = await buildTestIso(work, { rhcosVersion: RHCOS_VERSION, rootfsSize, initrdSize });
    files = await serveFile(path);
    await setOsImage(o.admin, files.url);
    // The status URL names the InfraEnv's image type (minimal by default); both are served.
    const statusUrl = await createInfraEnv(o);
    const urlOf = (file: string) => statusUrl.replace(/\/(full|minimal)\.iso$/, `/${file}`);
    await operatorIdle(o.ctx, 600_000);
    const os = serviceConfigOf(o.ctx).current.osImages.forDownload(OCP_VERSION, 'x86_64');
    if (!os) throw new Error('the operator does not list the generated OS image');
    const cache = imageServicesOf(o.ctx).cache;
    const fullBase = await cache.ensure(os);
    const full = await measureType(fullBase.path, urlOf('full.iso'), client);
    print(o, 'full', full);
    let minimal: TypeFigures | { skipped: string };
    try {
      const minimalBase = await cache.ensureMinimal(os);
      minimal = await measureType(minimalBase.path, urlOf('minimal.iso'), client);
      print(o, 'minimal', minimal);
    } catch (err) {
      minimal = { skipped: (err as Error).message };
      o.line('ISO minimal', `skipped: ${minimal.skipped}`);
    }
    return { isoMiB: o.isoMiB, chunkBytes: DEFAULT_CHUNK_SIZE, full, minimal };
  } finally {
    await client.close();
    await files?.close();
    await rm(work, { recursive: true, force: true });
  }
}

if (!isMainThread && (workerData as { isoClient?: boolean } | null)?.isoClient) serveClientPasses();
