import { createHash } from 'node:crypto';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BaseImageCache, cachedIsoName, type OsImage } from '../../../src/images/base-images.ts';
import { eventually } from '../../harness/env.ts';
import { buildTestIso, type TestIso } from '../../harness/iso.ts';
import { makeTempDir } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let fixture: TestIso;
let isoBytes: Buffer;
let isoSha: string;
let server: Server;
let origin: string;
const hits = new Map<string, number>();
let dirCount = 0;

/**
 * A local image mirror: `/good.iso` (optional `?delay=ms` pause after the first chunk),
 * `/partial.iso` (dies half-way), `/flaky.iso` (dies the first time only), `/missing.iso` (404),
 * `/page.iso` (an HTML page), `/moved.iso` (302 to good.iso).
 */
function startMirror(): Promise<void> {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const sendHalfThenDie = () => {
      res.writeHead(200, { 'content-length': isoBytes.length });
      res.write(isoBytes.subarray(0, isoBytes.length / 2), () => res.socket?.destroy());
    };
    switch (url.pathname) {
      case '/good.iso': {
        const delay = Number(url.searchParams.get('delay') ?? 0);
        res.writeHead(200, { 'content-length': isoBytes.length });
        res.write(isoBytes.subarray(0, 4096));
        const timer = setTimeout(() => res.end(isoBytes.subarray(4096)), delay);
        res.on('close', () => clearTimeout(timer));
        return;
      }
      case '/partial.iso':
        return sendHalfThenDie();
      case '/flaky.iso':
        if (hits.get('/flaky.iso') === 1) return sendHalfThenDie();
        res.writeHead(200, { 'content-length': isoBytes.length }).end(isoBytes);
        return;
      case '/page.iso':
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login first</html>');
        return;
      case '/moved.iso':
        res.writeHead(302, { location: '/good.iso' }).end();
        return;
      default:
        res.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve();
    });
  });
}

beforeAll(async () => {
  tmp = await makeTempDir('base-images');
  fixture = await buildTestIso(tmp.dir);
  isoBytes = await readFile(fixture.path);
  isoSha = createHash('sha256').update(isoBytes).digest('hex');
  await startMirror();
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await tmp.cleanup();
});

function osImage(path: string, extra: Partial<OsImage> = {}): OsImage {
  return {
    openshiftVersion: '4.16',
    cpuArchitecture: 'x86_64',
    version: '416.94.202405291527-0',
    url: `${origin}${path}`,
    ...extra,
  };
}

function newCache(dataDir?: string) {
  const dir = dataDir ?? join(tmp.dir, `data-${++dirCount}`);
  return {
    dir,
    cache: new BaseImageCache({ dataDir: dir, imageServiceBaseUrl: 'https://images.example.com' }),
  };
}

async function filesIn(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).sort();
}

const fullName = cachedIsoName('full-iso', osImage('/'));

describe('BaseImageCache.ensure', () => {
  it('names files after the RHCOS version and arch', () => {
    expect(fullName).toBe('rhcos-full-iso-416.94.202405291527-0-x86_64.iso');
    expect(
      cachedIsoName('minimal-iso', { ...osImage('/'), version: undefined, cpuArchitecture: 'a/b' }),
    ).toBe('rhcos-minimal-iso-4.16-a_b.iso');
  });

  it('downloads once for concurrent callers and verifies the checksum', async () => {
    hits.clear();
    const { dir, cache } = newCache();
    const os = osImage('/good.iso', { sha256: isoSha.toUpperCase(), size: isoBytes.length });
    os.url += '?delay=200';
    const results = await Promise.all(Array.from({ length: 5 }, () => cache.ensure(os)));
    expect(hits.get('/good.iso')).toBe(1);
    for (const r of results) expect(r).toBe(results[0]);
    const img = results[0]!;
    expect(img.path).toBe(join(dir, fullName));
    expect(img.size).toBe(isoBytes.length);
    expect(img.sha256).toBe(isoSha);
    expect(img.layout.volumeId).toBe(fixture.volumeId);
    expect(img.layout.ignition?.length).toBe(fixture.ignitionAreaSize);
    expect((await readFile(img.path)).equals(isoBytes)).toBe(true);
    expect(await filesIn(dir)).toEqual([fullName, `${fullName}.json`]);

    await cache.ensure(os);
    expect(hits.get('/good.iso')).toBe(1);

    // After a restart the verified file is reused without downloading or re-hashing.
    const restarted = newCache(dir).cache;
    const again = await restarted.ensure(os);
    expect(hits.get('/good.iso')).toBe(1);
    expect(again.sha256).toBe(isoSha);
    expect(again.layout).toEqual(img.layout);
  });

  it('rejects a checksum or size mismatch and keeps nothing', async () => {
    const { dir, cache } = newCache();
    await expect(cache.ensure(osImage('/good.iso', { sha256: '00'.repeat(32) }))).rejects.toThrow(
      /sha256 [0-9a-f]{64} does not match the expected 0000/,
    );
    expect(await filesIn(dir)).toEqual([]);
    await expect(cache.ensure(osImage('/good.iso', { size: 12345 }))).rejects.toThrow(
      /does not match the expected 12345/,
    );
    expect(await filesIn(dir)).toEqual([]);
    // The failure is not remembered: the right expectation downloads fine.
    await expect(cache.ensure(osImage('/good.iso', { sha256: isoSha }))).resolves.toMatchObject({
      size: isoBytes.length,
    });
  });

  it('recovers from a download cut half-way', async () => {
    hits.clear();
    const { dir, cache } = newCache();
    const os = osImage('/flaky.iso');
    await expect(cache.ensure(os)).rejects.toThrow();
    expect(await filesIn(dir)).toEqual([]);
    const img = await cache.ensure(os);
    expect(hits.get('/flaky.iso')).toBe(2);
    expect((await readFile(img.path)).equals(isoBytes)).toBe(true);
  });

  it('reports a download that always breaks', async () => {
    const { dir, cache } = newCache();
    await expect(cache.ensure(osImage('/partial.iso'))).rejects.toThrow(/^downloading http:.*partial.iso: /);
    expect(await filesIn(dir)).toEqual([]);
  });

  it('reports HTTP errors and content that is not an ISO', async () => {
    const { dir, cache } = newCache();
    await expect(cache.ensure(osImage('/missing.iso'))).rejects.toThrow(/HTTP 404/);
    await expect(cache.ensure(osImage('/page.iso'))).rejects.toThrow(/is not an ISO9660 image/);
    expect(await filesIn(dir)).toEqual([]);
  });

  it('follows redirects', async () => {
    const { cache } = newCache();
    await expect(cache.ensure(osImage('/moved.iso'))).resolves.toMatchObject({ size: isoBytes.length });
  });

  it('replaces leftovers of an interrupted earlier run', async () => {
    hits.clear();
    const { dir, cache } = newCache();
    await import('node:fs/promises').then((fs) => fs.mkdir(dir, { recursive: true }));
    await writeFile(join(dir, `${fullName}.1234abcd.part`), 'half a download');
    await writeFile(join(dir, fullName), isoBytes.subarray(0, 1000)); // renamed but no sidecar
    const img = await cache.ensure(osImage('/good.iso'));
    expect(hits.get('/good.iso')).toBe(1);
    expect((await readFile(img.path)).equals(isoBytes)).toBe(true);
    expect(await filesIn(dir)).toEqual([fullName, `${fullName}.json`]);
  });

  it('downloads again when the configured URL changes', async () => {
    hits.clear();
    const { cache } = newCache();
    await cache.ensure(osImage('/good.iso'));
    const moved = await cache.ensure(osImage('/moved.iso'));
    expect(hits.get('/good.iso')).toBe(2);
    expect(moved.osImage.url).toContain('/moved.iso');
  });

  it('close resolves once abandoned downloads have removed their part files', async () => {
    const { dir, cache } = newCache();
    const pending = cache.ensure(osImage('/good.iso?delay=30000'));
    pending.catch(() => undefined);
    // The download has begun writing once its part file exists.
    await eventually(async () => (await filesIn(dir)).some((f) => f.endsWith('.part')), {
      what: 'the part file',
    });
    await cache.close();
    expect(await filesIn(dir)).toEqual([]);
  });

  it('abandons downloads on close', async () => {
    const { dir, cache } = newCache();
    const pending = cache.ensure(osImage('/good.iso?delay=30000'));
    await new Promise((r) => setTimeout(r, 100));
    cache.close();
    await expect(pending).rejects.toThrow();
    expect(await filesIn(dir)).toEqual([]);
  });
});

describe('BaseImageCache.ensureMinimal', () => {
  it('builds the template once, next to the full image, and reuses it after a restart', async () => {
    const { dir, cache } = newCache();
    const os = osImage('/good.iso');
    const [a, b] = await Promise.all([cache.ensureMinimal(os), cache.ensureMinimal(os)]);
    expect(a).toBe(b);
    const minimalName = cachedIsoName('minimal-iso', os);
    expect(a.path).toBe(join(dir, minimalName));
    expect(a.kind).toBe('minimal-iso');
    expect(a.layout.ramdisk?.length).toBe(1024 * 1024);
    expect(a.layout.pxe.rootfs).toBeUndefined();
    expect(a.layout.kargs?.[0]?.current).toContain(
      'coreos.live.rootfs_url="https://images.example.com/boot-artifacts/rootfs?arch=x86_64&version=416.94.202405291527-0"',
    );
    expect(await filesIn(dir)).toEqual(
      [fullName, `${fullName}.json`, minimalName, `${minimalName}.json`].sort(),
    );

    const built = (await stat(a.path)).mtimeMs;
    const again = await newCache(dir).cache.ensureMinimal(os);
    expect((await stat(again.path)).mtimeMs).toBe(built);
  });

  it('is not built for s390x', async () => {
    const { cache } = newCache();
    await expect(cache.ensureMinimal(osImage('/good.iso', { cpuArchitecture: 's390x' }))).rejects.toThrow(
      /s390x/,
    );
  });
});
