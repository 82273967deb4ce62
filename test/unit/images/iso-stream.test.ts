import { open, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { gunzipSync } from 'node:zlib';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNewc } from '../../../src/images/cpio.ts';
import {
  concatView,
  createViewStream,
  discoveryIsoFilename,
  imageTypeForFilename,
  type Overlay,
  overlayView,
  parseRange,
  SEND_BUFFERS,
  sendBody,
  serveIso,
  serveView,
} from '../../../src/images/iso-stream.ts';
import { withIsoFile } from '../../../src/images/iso9660.ts';
import { discoveryOverlays, type LiveIsoLayout, readLiveIsoLayout } from '../../../src/images/live-iso.ts';
import { buildTestIso, extractWithXorriso, runXorriso, type TestIso } from '../../harness/iso.ts';
import { applyOverlays, collect, makeTempDir } from './helpers.ts';

let tmp: Awaited<ReturnType<typeof makeTempDir>>;
let fixture: TestIso;
let base: Buffer;
let layout: LiveIsoLayout;

const ignition = JSON.stringify({
  ignition: { version: '3.1.0' },
  passwd: { users: [{ name: 'core', sshAuthorizedKeys: ['ssh-ed25519 AAAA test'] }] },
});
const kargs = ['ip=dhcp', 'console=ttyS0,115200n8'];

beforeAll(async () => {
  tmp = await makeTempDir('iso-stream');
  fixture = await buildTestIso(tmp.dir);
  base = await readFile(fixture.path);
  layout = await withIsoFile(fixture.path, readLiveIsoLayout);
});
afterAll(() => tmp.cleanup());

describe('parseRange', () => {
  const size = 1000;
  it.each([
    [undefined, { kind: 'full' }],
    ['', { kind: 'full' }],
    ['bytes=0-99', { kind: 'partial', start: 0, end: 99 }],
    ['bytes=0-0', { kind: 'partial', start: 0, end: 0 }],
    ['bytes=990-', { kind: 'partial', start: 990, end: 999 }],
    ['bytes=500-5000', { kind: 'partial', start: 500, end: 999 }],
    ['bytes=999-999', { kind: 'partial', start: 999, end: 999 }],
    ['bytes=-10', { kind: 'partial', start: 990, end: 999 }],
    ['bytes=-5000', { kind: 'partial', start: 0, end: 999 }],
    [' Bytes = 1-2 ', { kind: 'partial', start: 1, end: 2 }],
    ['items=0-1', { kind: 'full' }],
    ['bytes=0-1,5-9', { kind: 'full' }],
    ['bytes=1000-', { kind: 'unsatisfiable', reason: 'failed to overlap' }],
    ['bytes=1000-2000', { kind: 'unsatisfiable', reason: 'failed to overlap' }],
    ['bytes=-0', { kind: 'unsatisfiable', reason: 'failed to overlap' }],
    ['bytes=5-2', { kind: 'unsatisfiable', reason: 'invalid range' }],
    ['bytes=abc', { kind: 'unsatisfiable', reason: 'invalid range' }],
    ['bytes=', { kind: 'unsatisfiable', reason: 'invalid range' }],
    ['bytes=-', { kind: 'unsatisfiable', reason: 'invalid range' }],
  ])('%s', (header, expected) => {
    expect(parseRange(header, size)).toEqual(expected);
  });

  it('treats every range of an empty body as unsatisfiable', () => {
    expect(parseRange('bytes=0-', 0).kind).toBe('unsatisfiable');
    expect(parseRange('bytes=-1', 0).kind).toBe('unsatisfiable');
  });
});

describe('views', () => {
  it('splits the file around overlays and rejects bad ones', () => {
    const o = (offset: number, length: number, data = Buffer.alloc(0)): Overlay => ({ offset, length, data });
    expect(overlayView('f', 100, [o(10, 5), o(0, 2)]).segments.map((s) => [s.kind, s.length])).toEqual([
      ['bytes', 2],
      ['file', 8],
      ['bytes', 5],
      ['file', 85],
    ]);
    expect(overlayView('f', 10, [o(5, 5)]).segments.map((s) => s.kind)).toEqual(['file', 'bytes']);
    expect(() => overlayView('f', 100, [o(0, 10), o(5, 10)])).toThrow(/overlaps/);
    expect(() => overlayView('f', 100, [o(95, 10)])).toThrow(/beyond the end/);
    expect(() => overlayView('f', 100, [o(0, 1, Buffer.alloc(2))])).toThrow(/more data/);
  });

  it('streams exactly the reference bytes for any range and chunk size', async () => {
    const overlays = discoveryOverlays(layout, { ignition, kernelArguments: kargs });
    const reference = applyOverlays(base, overlays);
    const view = overlayView(fixture.path, base.length, overlays);
    expect((await collect(createViewStream(view))).equals(reference)).toBe(true);
    expect((await collect(createViewStream(view, undefined, { chunkSize: 777 }))).equals(reference)).toBe(
      true,
    );

    const ign = layout.ignition!;
    const area = layout.kargs![0]!;
    const ranges: Array<[number, number]> = [
      [0, 0],
      [ign.offset - 10, ign.offset + 10], // across the start of the ignition area
      [ign.offset + ign.length - 3, ign.offset + ign.length + 3], // across its end (zero fill)
      [area.offset - 1, area.offset + area.length], // a whole kargs area and its neighbours
      [ign.offset + 100, ign.offset + 200], // inside the archive or its zero fill
      [base.length - 5, base.length - 1],
    ];
    for (let i = 0; i < 20; i++) {
      const a = Math.floor(Math.random() * base.length);
      ranges.push([a, Math.min(base.length - 1, a + Math.floor(Math.random() * 600_000))]);
    }
    for (const [start, end] of ranges) {
      const got = await collect(createViewStream(view, { start, end }, { chunkSize: 4096 }));
      expect(got.equals(reference.subarray(start, end + 1)), `range ${start}-${end}`).toBe(true);
    }
  });

  it('concatenates extents and buffers', async () => {
    const v = layout.pxe.vmlinuz!;
    const view = concatView(fixture.path, [Buffer.from('head'), v, Buffer.alloc(0), Buffer.from('tail')]);
    expect(view.size).toBe(8 + v.length);
    const got = await collect(createViewStream(view, undefined, { chunkSize: 1000 }));
    expect(got.equals(Buffer.concat([Buffer.from('head'), fixture.files.vmlinuz, Buffer.from('tail')]))).toBe(
      true,
    );
    expect(await collect(createViewStream(concatView(fixture.path, [])))).toEqual(Buffer.alloc(0));
  });

  it('closes its file handle when destroyed half-way', async () => {
    const handle = await open(fixture.path, 'r');
    const stream = createViewStream(overlayView(fixture.path, base.length, []), undefined, {
      handle,
      chunkSize: 1024,
    });
    await new Promise<void>((resolve) => stream.once('data', () => resolve()));
    stream.destroy();
    await new Promise((resolve) => stream.once('close', resolve));
    expect(handle.fd).toBe(-1);
  });

  it('fails the stream when the base file is shorter than the view', async () => {
    const short = join(tmp.dir, 'short.bin');
    await writeFile(short, Buffer.alloc(100));
    const stream = createViewStream(concatView(short, [{ offset: 0, length: 200 }]));
    await expect(collect(stream)).rejects.toThrow(/ended at byte 100/);
  });

  it('rejects ranges outside the view', () => {
    const view = concatView(fixture.path, [Buffer.alloc(10)]);
    expect(() => createViewStream(view, { start: 5, end: 10 })).toThrow(RangeError);
  });
});

/**
 * A destination that takes a chunk's bytes only when it calls back, a moment after the write (as
 * a socket does), and notes which memory each chunk lived in. Its high-water mark is far above a
 * chunk, so a writer that does not wait for the callbacks keeps writing (and would refill a buffer
 * whose bytes were not taken yet).
 */
function slowSocket(opts: { destroyAfter?: number } = {}) {
  const taken: Buffer[] = [];
  const memory = new Set<ArrayBufferLike>();
  let writes = 0;
  const sink = new Writable({
    highWaterMark: 64 * 1024 * 1024,
    write(chunk: Buffer, _encoding, callback) {
      memory.add(chunk.buffer);
      if (opts.destroyAfter !== undefined && ++writes >= opts.destroyAfter) {
        sink.destroy();
        return;
      }
      setTimeout(() => {
        taken.push(Buffer.from(chunk));
        callback();
      }, 1);
    },
  });
  return { sink, taken, memory };
}

describe('sendBody', () => {
  it('reads into SEND_BUFFERS reused buffers, each refilled only after the destination took it', async () => {
    const overlays = discoveryOverlays(layout, { ignition, kernelArguments: kargs });
    const reference = applyOverlays(base, overlays);
    const served = await serveIso({ method: 'GET', isoPath: fixture.path, overlays, chunkSize: 64 * 1024 });
    const { sink, taken } = slowSocket();
    const finished = new Promise((resolve) => sink.once('finish', resolve));
    await sendBody(served.body!, sink);
    await finished;
    expect(Buffer.concat(taken).equals(reference)).toBe(true);

    // Without overlays every chunk comes from the file: all of them in the same few buffers.
    const plain = await serveIso({
      method: 'GET',
      isoPath: fixture.path,
      overlays: [],
      chunkSize: 64 * 1024,
    });
    const second = slowSocket();
    await sendBody(plain.body!, second.sink);
    expect(second.taken.length).toBeGreaterThan(10);
    expect(second.memory.size).toBeLessThanOrEqual(SEND_BUFFERS);
    expect(Buffer.concat(second.taken).equals(base)).toBe(true);
  });

  it('sends a range exactly', async () => {
    const served = await serveView(overlayView(fixture.path, base.length, []), {
      method: 'GET',
      range: 'bytes=1000-300000',
    });
    const { sink, taken } = slowSocket();
    await sendBody(served.body!, sink);
    expect(Buffer.concat(taken).equals(base.subarray(1000, 300_001))).toBe(true);
  });

  it('stops and closes the file when the destination closes mid-way', async () => {
    const handle = await open(fixture.path, 'r');
    const body = createViewStream(overlayView(fixture.path, base.length, []), undefined, {
      handle,
      chunkSize: 4096,
    });
    const { sink } = slowSocket({ destroyAfter: 3 });
    await sendBody(body, sink);
    expect(sink.writableEnded).toBe(false);
    await new Promise((resolve) => (body.destroyed ? setImmediate(resolve) : body.once('close', resolve)));
    expect(handle.fd).toBe(-1);
  });

  it('rejects when the base file ends early, and closes it', async () => {
    const short = join(tmp.dir, 'short-send.bin');
    await writeFile(short, Buffer.alloc(100));
    const handle = await open(short, 'r');
    const body = createViewStream(concatView(short, [{ offset: 0, length: 200 }]), undefined, { handle });
    await expect(sendBody(body, slowSocket().sink)).rejects.toThrow(/ended at byte 100/);
    await new Promise((resolve) => (body.destroyed ? setImmediate(resolve) : body.once('close', resolve)));
    expect(handle.fd).toBe(-1);
  });
});

describe('serveView / serveIso', () => {
  const lastModified = new Date('2024-06-01T10:20:30Z');

  it('answers GET with the whole image and the download headers', async () => {
    const overlays = discoveryOverlays(layout, { ignition });
    const res = await serveIso({
      method: 'GET',
      isoPath: fixture.path,
      overlays,
      lastModified,
      filename: discoveryIsoFilename('0b6e2e47-3b2c-4b3a-9f0e-2d4c2f2b9a11', 'full-iso', 'x86_64'),
    });
    expect(res.status).toBe(200);
    expect(res.headers).toEqual({
      'Accept-Ranges': 'bytes',
      'Content-Type': 'application/octet-stream',
      'Content-Length': String(base.length),
      'Last-Modified': 'Sat, 01 Jun 2024 10:20:30 GMT',
      'Content-Disposition': 'attachment; filename=0b6e2e47-3b2c-4b3a-9f0e-2d4c2f2b9a11-discovery.iso',
    });
    expect((await collect(res.body!)).equals(applyOverlays(base, overlays))).toBe(true);
  });

  it('answers HEAD with the same headers and no body', async () => {
    const res = await serveIso({ method: 'HEAD', isoPath: fixture.path, overlays: [], size: base.length });
    expect(res.status).toBe(200);
    expect(res.headers['Content-Length']).toBe(String(base.length));
    expect(res.body).toBeUndefined();
    const partial = await serveIso({
      method: 'HEAD',
      range: 'bytes=0-9',
      isoPath: fixture.path,
      overlays: [],
    });
    expect(partial.status).toBe(206);
    expect(partial.headers['Content-Range']).toBe(`bytes 0-9/${base.length}`);
  });

  it('answers a range with 206 and the exact bytes', async () => {
    const overlays = discoveryOverlays(layout, { ignition, kernelArguments: kargs });
    const start = layout.ignition!.offset - 100;
    const res = await serveIso({
      method: 'GET',
      range: `bytes=${start}-${start + 999}`,
      isoPath: fixture.path,
      overlays,
    });
    expect(res.status).toBe(206);
    expect(res.headers['Content-Range']).toBe(`bytes ${start}-${start + 999}/${base.length}`);
    expect(res.headers['Content-Length']).toBe('1000');
    expect(
      (await collect(res.body!)).equals(applyOverlays(base, overlays).subarray(start, start + 1000)),
    ).toBe(true);
  });

  it('answers an unsatisfiable range with 416 and the size', async () => {
    const res = await serveIso({
      method: 'GET',
      range: `bytes=${base.length}-`,
      isoPath: fixture.path,
      overlays: [],
    });
    expect(res.status).toBe(416);
    expect(res.headers['Content-Range']).toBe(`bytes */${base.length}`);
    expect(res.body).toBeUndefined();
  });

  it('answers multi-range requests with the full body', async () => {
    const res = await serveIso({
      method: 'GET',
      range: 'bytes=0-1,4-5',
      isoPath: fixture.path,
      overlays: [],
    });
    expect(res.status).toBe(200);
    res.body?.destroy();
  });

  it('honours If-Range only when it matches Last-Modified', async () => {
    const ok = await serveIso({
      method: 'HEAD',
      range: 'bytes=0-9',
      ifRange: lastModified.toUTCString(),
      lastModified,
      isoPath: fixture.path,
      overlays: [],
    });
    expect(ok.status).toBe(206);
    for (const ifRange of ['Sat, 01 Jun 2024 10:20:31 GMT', '"some-etag"', 'garbage']) {
      const res = await serveIso({
        method: 'HEAD',
        range: 'bytes=0-9',
        ifRange,
        lastModified,
        isoPath: fixture.path,
        overlays: [],
      });
      expect(res.status).toBe(200);
    }
  });

  it('answers other methods with 405', async () => {
    const res = await serveView(concatView('x', []), { method: 'POST' });
    expect(res).toEqual({ status: 405, headers: { Allow: 'GET, HEAD' } });
  });

  it('fails before answering when the base image is gone', async () => {
    await expect(
      serveIso({ method: 'GET', isoPath: join(tmp.dir, 'missing.iso'), size: 10, overlays: [] }),
    ).rejects.toThrow(/ENOENT/);
  });

  it('maps download file names', () => {
    expect(imageTypeForFilename('full.iso')).toBe('full-iso');
    expect(imageTypeForFilename('minimal.iso')).toBe('minimal-iso');
    expect(imageTypeForFilename('disconnected.iso')).toBe('disconnected-iso');
    expect(imageTypeForFilename('other.iso')).toBeUndefined();
    expect(discoveryIsoFilename('id', 'disconnected-iso', 'aarch64')).toBe('agent-ove.aarch64.iso');
  });
});

describe('the served discovery ISO', () => {
  let served: string;

  beforeAll(async () => {
    const res = await serveIso({
      method: 'GET',
      isoPath: fixture.path,
      overlays: discoveryOverlays(layout, { ignition, kernelArguments: kargs }),
    });
    served = join(tmp.dir, 'served.iso');
    const out = await open(served, 'w');
    await pipeline(res.body!, out.createWriteStream());
  });

  it('carries the exact ignition in images/ignition.img (read by xorriso)', async () => {
    const area = await extractWithXorriso(served, '/images/ignition.img', tmp.dir);
    expect(area.length).toBe(fixture.ignitionAreaSize);
    const entries = readNewc(gunzipSync(area));
    expect(entries).toHaveLength(1);
    expect(entries[0]?.name).toBe('config.ign');
    expect(entries[0]?.data.toString()).toBe(ignition);
  });

  it('carries the kernel arguments on both boot loaders’ kernel lines', async () => {
    const grub = (await extractWithXorriso(served, '/EFI/redhat/grub.cfg', tmp.dir)).toString();
    expect(grub.length).toBe(fixture.files.grubCfg.length);
    expect(grub).toContain(`\tlinux /images/pxeboot/vmlinuz ${fixture.defaultKargs} ${kargs.join(' ')}\n###`);
    expect(grub).toMatch(
      /\n#+ COREOS_KARG_EMBED_AREA\n\tinitrd \/images\/pxeboot\/initrd.img \/images\/ignition.img\n/,
    );
    const isolinux = (await extractWithXorriso(served, '/isolinux/isolinux.cfg', tmp.dir)).toString();
    expect(isolinux).toContain(
      `append initrd=/images/pxeboot/initrd.img,/images/ignition.img ${fixture.defaultKargs} ${kargs.join(' ')}\n#`,
    );
  });

  it('is still a valid ISO9660 image with its boot records', async () => {
    const { stdout, stderr } = await runXorriso([
      '-indev',
      served,
      '-ls',
      '/coreos',
      '--',
      '-report_el_torito',
      'plain',
    ]);
    const report = stdout + stderr;
    expect(report).toContain("'igninfo.json'");
    expect(report).toContain("'kargs.json'");
    expect(report).toMatch(/El Torito img path : +1 +\/isolinux\/isolinux.bin/);
    expect(report).toMatch(/El Torito img path : +2 +\/images\/efiboot.img/);
    // Our own reader sees the arguments the way coreos-installer reads them.
    const servedLayout = await withIsoFile(served, readLiveIsoLayout);
    expect(servedLayout.kargs?.map((a) => a.current)).toEqual([
      `${fixture.defaultKargs} ${kargs.join(' ')}`,
      `${fixture.defaultKargs} ${kargs.join(' ')}`,
    ]);
    // Everything outside the overlays is untouched, including the system area (MBR/GPT).
    const bytes = await readFile(served);
    expect(bytes.length).toBe(base.length);
    expect(bytes.subarray(0, 32768).equals(base.subarray(0, 32768))).toBe(true);
  });
});

describe.each([
  [
    'pipeline',
    (body: import('node:stream').Readable, res: import('node:http').ServerResponse) => pipeline(body, res),
  ],
  ['sendBody', sendBody],
])('over HTTP (%s)', (_name, send) => {
  let server: Server;
  let url: string;
  let overlays: Overlay[];

  beforeAll(async () => {
    overlays = discoveryOverlays(layout, { ignition, kernelArguments: kargs });
    server = createServer((req, res) => {
      serveIso({
        method: req.method ?? 'GET',
        range: req.headers.range,
        ifRange: req.headers['if-range'],
        isoPath: fixture.path,
        overlays,
      }).then(
        (r) => {
          res.writeHead(r.status, r.headers);
          if (r.body) send(r.body, res).catch(() => {});
          else res.end();
        },
        () => {
          res.writeHead(500).end();
        },
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/iso`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('serves the full image and ranges byte for byte', async () => {
    const reference = applyOverlays(base, overlays);
    const full = await request(url);
    expect(full.statusCode).toBe(200);
    expect(Buffer.from(await full.body.arrayBuffer()).equals(reference)).toBe(true);

    const start = layout.kargs![1]!.offset - 7;
    const part = await request(url, { headers: { range: `bytes=${start}-${start + 2047}` } });
    expect(part.statusCode).toBe(206);
    expect(Buffer.from(await part.body.arrayBuffer()).equals(reference.subarray(start, start + 2048))).toBe(
      true,
    );

    const tail = await request(url, { headers: { range: 'bytes=-100' } });
    expect(
      Buffer.from(await tail.body.arrayBuffer()).equals(reference.subarray(reference.length - 100)),
    ).toBe(true);
  });

  it('survives a client that goes away mid-download', async () => {
    const res = await request(url);
    for await (const _ of res.body) break; // read one chunk, then abort
    const again = await request(url, { method: 'HEAD' });
    expect(again.statusCode).toBe(200);
    await again.body.dump();
  });
});
