// The base image cache (agent-api.md §9.1, §9.5): each configured RHCOS live ISO is downloaded
// once into the data directory, and a minimal ISO template is built from it on demand. Files
// appear only complete and verified: a download goes to a temporary file which is renamed into
// place after its size, checksum and ISO layout are checked, and a sidecar `<file>.json` records
// what the file is, so a restart reuses it without hashing a gigabyte again. Concurrent requests
// for the same image share one download; a failed one leaves nothing behind and the next call
// retries.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Logger } from 'pino';
import { type Dispatcher, EnvHttpProxyAgent, interceptors, request } from 'undici';
import { withIsoFile } from './iso9660.ts';
import { type LiveIsoLayout, readLiveIsoLayout } from './live-iso.ts';
import { buildMinimalIsoTemplate, minimalRootfsUrl } from './minimal-iso.ts';

/** One entry of OS_IMAGES / AgentServiceConfig `osImages`. */
export interface OsImage {
  openshiftVersion: string;
  cpuArchitecture: string;
  url: string;
  /** Deprecated upstream; the rootfs is served from the ISO's own extent. */
  rootFSUrl?: string | undefined;
  /** RHCOS version, e.g. `416.94.202405291527-0`. */
  version?: string | undefined;
  /** Expected SHA-256 (hex) of the ISO, when known. */
  sha256?: string | undefined;
  /** Expected size in bytes, when known. */
  size?: number | undefined;
}

export type BaseImageKind = 'full-iso' | 'minimal-iso';

export interface CachedImage {
  kind: BaseImageKind;
  path: string;
  size: number;
  /** Modification time of the cached file (Last-Modified of boot artifacts). */
  mtime: Date;
  /** SHA-256 of the full ISO as downloaded (full images only). */
  sha256?: string | undefined;
  layout: LiveIsoLayout;
  osImage: OsImage;
}

export interface BaseImageCacheOptions {
  /** Where images are kept (DATA_DIR). Temporary files live next to them. */
  dataDir: string;
  /** Defaults to an agent honouring HTTP(S)_PROXY / NO_PROXY; redirects are followed on top. */
  dispatcher?: Dispatcher | undefined;
  logger?: Logger | undefined;
  /** IMAGE_SERVICE_BASE_URL: baked into minimal templates as the rootfs URL. */
  imageServiceBaseUrl?: string | undefined;
  /** The nmstate image for a minimal template (OCP ≥ 4.18), when one is available. */
  nmstateImage?: ((osImage: OsImage, full: CachedImage) => Promise<Buffer | undefined>) | undefined;
  xorrisoPath?: string | undefined;
  headersTimeoutMs?: number | undefined;
  /** Longest pause between two body chunks before a download is abandoned. */
  bodyTimeoutMs?: number | undefined;
}

interface Sidecar {
  kind: BaseImageKind;
  /** What the file was made from: the download URL, or full image sha + rootfs URL. */
  source: string;
  size: number;
  sha256?: string | undefined;
}

/** `rhcos-<full-iso|minimal-iso>-<rhcos version>-<arch>.iso`, safe as a file name. */
export function cachedIsoName(kind: BaseImageKind, os: OsImage): string {
  const safe = (s: string) => s.replace(/[^A-Za-z0-9._-]/g, '_');
  return `rhcos-${kind}-${safe(os.version || os.openshiftVersion)}-${safe(os.cpuArchitecture)}.iso`;
}

export class BaseImageCache {
  private readonly opts: BaseImageCacheOptions;
  private readonly dispatcher: Dispatcher;
  private readonly ready = new Map<string, { identity: string; image: CachedImage }>();
  private readonly inflight = new Map<string, { identity: string; promise: Promise<CachedImage> }>();
  private readonly aborts = new Set<AbortController>();

  constructor(opts: BaseImageCacheOptions) {
    this.opts = opts;
    this.dispatcher = (opts.dispatcher ?? new EnvHttpProxyAgent()).compose(
      interceptors.redirect({ maxRedirections: 5 }),
    );
  }

  /** The full ISO of an OS image, downloading it the first time. */
  ensure(os: OsImage): Promise<CachedImage> {
    if (!os.url)
      return Promise.reject(new Error(`OS image ${os.openshiftVersion}/${os.cpuArchitecture} has no url`));
    const name = cachedIsoName('full-iso', os);
    const identity = `${os.url}|${os.sha256?.toLowerCase() ?? ''}|${os.size ?? ''}`;
    return this.once(name, identity, () => this.loadOrDownload(name, os));
  }

  /** The minimal ISO template of an OS image, downloading and building as needed. */
  async ensureMinimal(os: OsImage): Promise<CachedImage> {
    const base = this.opts.imageServiceBaseUrl;
    if (!base) throw new Error('minimal ISO templates need the image service base URL');
    if (os.cpuArchitecture === 's390x') throw new Error('no minimal ISO template is built for s390x');
    const full = await this.ensure(os);
    const rootfsUrl = minimalRootfsUrl(base, os.cpuArchitecture, os.version || os.openshiftVersion);
    const name = cachedIsoName('minimal-iso', os);
    const identity = `${full.sha256 ?? full.size}|${rootfsUrl}`;
    return this.once(name, identity, () => this.loadOrBuildMinimal(name, identity, os, full, rootfsUrl));
  }

  /**
   * Abandons downloads in flight (their callers get an abort error) and resolves once every
   * download and build has finished with the data directory, removed part files included.
   */
  async close(): Promise<void> {
    for (const ac of this.aborts) ac.abort(new Error('base image cache closed'));
    await Promise.allSettled([...this.inflight.values()].map((run) => run.promise));
  }

  private once(key: string, identity: string, produce: () => Promise<CachedImage>): Promise<CachedImage> {
    const done = this.ready.get(key);
    if (done?.identity === identity) return Promise.resolve(done.image);
    const running = this.inflight.get(key);
    if (running?.identity === identity) return running.promise;
    // A different source for the same file waits for the current one, then replaces it.
    const before = running ? running.promise.then(noop, noop) : Promise.resolve();
    const promise = before.then(produce).then(
      (image) => {
        this.ready.set(key, { identity, image });
        this.inflight.delete(key);
        return image;
      },
      (err: unknown) => {
        this.inflight.delete(key);
        throw err;
      },
    );
    this.inflight.set(key, { identity, promise });
    return promise;
  }

  private async reuse(
    path: string,
    kind: BaseImageKind,
    source: string,
    os: OsImage,
  ): Promise<CachedImage | undefined> {
    const meta = await readSidecar(path);
    const st = await stat(path).catch(() => undefined);
    if (!meta || !st) return undefined;
    if (meta.kind !== kind || meta.source !== source || meta.size !== st.size) return undefined;
    if (kind === 'full-iso') {
      if (os.size !== undefined && os.size !== st.size) return undefined;
      if (os.sha256 && meta.sha256 !== os.sha256.toLowerCase()) return undefined;
    }
    try {
      const layout = await withIsoFile(path, readLiveIsoLayout);
      return { kind, path, size: st.size, mtime: st.mtime, sha256: meta.sha256, layout, osImage: os };
    } catch {
      return undefined;
    }
  }

  private async loadOrDownload(name: string, os: OsImage): Promise<CachedImage> {
    await mkdir(this.opts.dataDir, { recursive: true });
    const path = join(this.opts.dataDir, name);
    const cached = await this.reuse(path, 'full-iso', os.url, os);
    if (cached) return cached;
    await forget(path, this.opts.dataDir, name);
    const log = this.opts.logger?.child({ url: os.url, file: name });
    log?.info('downloading base ISO');
    const started = Date.now();
    const tmp = `${path}.${randomBytes(6).toString('hex')}.part`;
    const ac = new AbortController();
    this.aborts.add(ac);
    try {
      const { size, sha256 } = await this.download(os, tmp, ac.signal);
      const layout = await withIsoFile(tmp, readLiveIsoLayout).catch((err: Error) => {
        throw new Error(`${os.url} is not an ISO9660 image: ${err.message}`);
      });
      await rename(tmp, path);
      await writeSidecar(path, { kind: 'full-iso', source: os.url, size, sha256 });
      log?.info({ bytes: size, ms: Date.now() - started }, 'base ISO downloaded');
      if (layout.problems.length > 0) {
        log?.warn({ problems: layout.problems }, 'base ISO is not a complete CoreOS live ISO');
      }
      const st = await stat(path);
      return { kind: 'full-iso', path, size, mtime: st.mtime, sha256, layout, osImage: os };
    } catch (err) {
      await rm(tmp, { force: true });
      log?.warn({ err }, 'base ISO download failed');
      throw err;
    } finally {
      this.aborts.delete(ac);
    }
  }

  private async download(
    os: OsImage,
    tmp: string,
    signal: AbortSignal,
  ): Promise<{ size: number; sha256: string }> {
    const fail = (why: string, cause?: unknown) => new Error(`downloading ${os.url}: ${why}`, { cause });
    const hash = createHash('sha256');
    let size = 0;
    let declared = Number.NaN;
    try {
      const res = await request(os.url, {
        dispatcher: this.dispatcher,
        signal,
        headersTimeout: this.opts.headersTimeoutMs,
        bodyTimeout: this.opts.bodyTimeoutMs,
      });
      if (res.statusCode !== 200) {
        await res.body.dump().catch(noop);
        throw fail(`HTTP ${res.statusCode}`);
      }
      declared = Number(res.headers['content-length']);
      await pipeline(
        res.body,
        async function* (source: AsyncIterable<Buffer>) {
          for await (const chunk of source) {
            hash.update(chunk);
            size += chunk.length;
            yield chunk;
          }
        },
        // flush: fsync before close, so a completed rename never points at unwritten data.
        createWriteStream(tmp, { flush: true }),
      );
    } catch (err) {
      if (err instanceof Error && err.message.startsWith('downloading ')) throw err;
      throw fail(err instanceof Error ? err.message : String(err), err);
    }
    if (Number.isSafeInteger(declared) && size !== declared) throw fail(`got ${size} of ${declared} bytes`);
    if (os.size !== undefined && size !== os.size) {
      throw fail(`size ${size} does not match the expected ${os.size}`);
    }
    const sha256 = hash.digest('hex');
    if (os.sha256 && sha256 !== os.sha256.toLowerCase()) {
      throw fail(`sha256 ${sha256} does not match the expected ${os.sha256}`);
    }
    return { size, sha256 };
  }

  private async loadOrBuildMinimal(
    name: string,
    identity: string,
    os: OsImage,
    full: CachedImage,
    rootfsUrl: string,
  ): Promise<CachedImage> {
    const path = join(this.opts.dataDir, name);
    const cached = await this.reuse(path, 'minimal-iso', identity, os);
    if (cached) return cached;
    await forget(path, this.opts.dataDir, name);
    const log = this.opts.logger?.child({ file: name });
    log?.info('building minimal ISO template');
    await buildMinimalIsoTemplate({
      fullIsoPath: full.path,
      outputPath: path,
      rootfsUrl,
      cpuArchitecture: os.cpuArchitecture,
      workDir: this.opts.dataDir,
      nmstateImage: await this.opts.nmstateImage?.(os, full),
      xorrisoPath: this.opts.xorrisoPath,
    });
    const st = await stat(path);
    await writeSidecar(path, { kind: 'minimal-iso', source: identity, size: st.size });
    const layout = await withIsoFile(path, readLiveIsoLayout);
    return { kind: 'minimal-iso', path, size: st.size, mtime: st.mtime, layout, osImage: os };
  }
}

function noop(): void {}

async function readSidecar(path: string): Promise<Sidecar | undefined> {
  try {
    const meta = JSON.parse(await readFile(`${path}.json`, 'utf8')) as Partial<Sidecar>;
    if (typeof meta.source !== 'string' || typeof meta.size !== 'number' || typeof meta.kind !== 'string') {
      return undefined;
    }
    return meta as Sidecar;
  } catch {
    return undefined;
  }
}

async function writeSidecar(path: string, meta: Sidecar): Promise<void> {
  const tmp = `${path}.json.${randomBytes(4).toString('hex')}.part`;
  await writeFile(tmp, `${JSON.stringify(meta)}\n`, { flush: true });
  await rename(tmp, `${path}.json`);
}

/**
 * Before (re)making a file: drop its sidecar, so a crash mid-way can never pair a new file with
 * an old description, and the temporary files of an earlier, interrupted attempt.
 */
async function forget(path: string, dir: string, name: string): Promise<void> {
  await rm(`${path}.json`, { force: true });
  const entries = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    entries
      .filter((e) => e.startsWith(`${name}.`) && e.endsWith('.part'))
      .map((e) => rm(join(dir, e), { force: true })),
  );
}
