// Tar through tar-stream. The "all logs" archive streamed from disk: the same bytes as the
// in-memory writer, the size announced up front holds even when a file changes while it is
// streamed or a name is too long for a ustar header. Finding a file in a release layer.
import { appendFile, mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import tarStreamLib from 'tar-stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IMAGE_REFERENCES_PATH } from '../../../src/core/release/registry.ts';
import { fileInTar, tarArchive, tarStream, tarStreamSize } from '../../../src/util/tar.ts';
import { paxEntry, tarArchive as rawTar, tarEntry } from '../core/release/tar-helpers.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tar-stream-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tarStream', () => {
  it.each([
    ['empty file', 0],
    ['one byte', 1],
    ['a block exactly', 512],
    ['several blocks and a bit', 3 * 512 + 7],
    ['larger than a read chunk', 200 * 1024 + 3],
  ])('%s: same bytes as tarArchive, size as announced', async (_name, size) => {
    const content = Buffer.alloc(size, 0x61);
    const path = join(dir, 'f');
    await writeFile(path, content);
    const mtime = new Date('2026-01-02T03:04:05Z');
    const entries = [
      { name: 'a.tar.gz', path, size, mtime },
      { name: 'b.tar.gz', path, size, mtime },
    ];
    const streamed = await buffer(tarStream(entries));
    expect(streamed.length).toBe(tarStreamSize(entries));
    expect(streamed.equals(await tarArchive(entries.map((e) => ({ name: e.name, content, mtime }))))).toBe(
      true,
    );
  });

  it('a file that grew after listing is cut to its listed size', async () => {
    const path = join(dir, 'f');
    await writeFile(path, 'abc');
    const entries = [{ name: 'f', path, size: 3 }];
    await appendFile(path, 'more');
    const streamed = await buffer(tarStream(entries));
    expect(streamed.length).toBe(tarStreamSize(entries));
    expect(streamed.subarray(512, 515).toString()).toBe('abc');
    expect(streamed[515]).toBe(0);
  });

  it('a reader that leaves early closes the file being sent', async () => {
    const path = join(dir, 'big');
    await writeFile(path, Buffer.alloc(8 * 1024 * 1024, 0x62));
    const entries = [{ name: 'big', path, size: 8 * 1024 * 1024 }];
    const stream = tarStream(entries);
    for await (const _ of stream) break;
    // Open files of this process that are the archived one (Linux's view of our descriptors).
    const holding = async () => {
      const fds = await readdir('/proc/self/fd');
      const targets = await Promise.all(fds.map((fd) => readlink(`/proc/self/fd/${fd}`).catch(() => '')));
      return targets.filter((t) => t === path).length;
    };
    const deadline = Date.now() + 10_000;
    while ((await holding()) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(await holding()).toBe(0);
  });

  it('waiting for the reader leaves no listener behind (a large file waits many times)', async () => {
    const big = join(dir, 'big.log');
    await writeFile(big, Buffer.alloc(8 << 20, 'x'));
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const out = await buffer(tarStream([{ name: 'big.log', path: big, size: 8 << 20 }]));
      expect(out.length).toBe(tarStreamSize([{ name: 'big.log', size: 8 << 20 }]));
      // Warnings are emitted on the next tick.
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('a member name of 150 bytes round-trips', async () => {
    const path = join(dir, 'f');
    await writeFile(path, 'abc');
    const name = `${'d'.repeat(49)}/${'n'.repeat(100)}`;
    expect(Buffer.byteLength(name)).toBe(150);
    const entries = [
      { name, path, size: 3 },
      { name: 'é'.repeat(75), path, size: 3 },
      { name: 'short', path, size: 3 },
    ];
    const streamed = await buffer(tarStream(entries));
    expect(streamed.length).toBe(tarStreamSize(entries));
    const extract = tarStreamLib.extract();
    extract.end(streamed);
    const names: string[] = [];
    for await (const entry of extract) {
      names.push(entry.header.name);
      entry.resume();
    }
    expect(names).toEqual(entries.map((e) => e.name));
  });

  it('the size announced holds around the pax record length steps', async () => {
    const path = join(dir, 'f');
    await writeFile(path, '');
    for (const length of [100, 101, 489, 490, 491, 492, 500, 1000]) {
      const entries = [{ name: 'x'.repeat(length), path, size: 0 }];
      expect((await buffer(tarStream(entries))).length, `name of ${length}`).toBe(tarStreamSize(entries));
    }
  });
});

describe('tarArchive', () => {
  it('writes ustar headers, padded contents and the end blocks', async () => {
    const tar = await tarArchive([
      { name: 'h1.tar.gz', content: Buffer.from('hello'), mtime: new Date(1_000_000) },
      { name: 'controller_logs.tar.gz', content: Buffer.alloc(600, 1) },
    ]);
    expect(tar.length).toBe(512 + 512 + 512 + 1024 + 1024);
    expect(tar.subarray(0, 9).toString()).toBe('h1.tar.gz');
    expect(tar.subarray(257, 262).toString()).toBe('ustar');
    expect(Number.parseInt(tar.subarray(124, 135).toString(), 8)).toBe(5);
    expect(tar.subarray(512, 517).toString()).toBe('hello');
    // The checksum covers the header with its own field as spaces.
    const header = Buffer.from(tar.subarray(0, 512));
    const stored = Number.parseInt(header.subarray(148, 154).toString(), 8);
    header.fill(' ', 148, 156);
    expect(header.reduce((a, b) => a + b, 0)).toBe(stored);
    expect(tar.subarray(tar.length - 1024).every((b) => b === 0)).toBe(true);
  });
});

async function* pieces(data: Buffer, size: number): AsyncGenerator<Buffer> {
  for (let i = 0; i < data.length; i += size) yield data.subarray(i, i + size);
}

describe('fileInTar', () => {
  const content = '{"spec":{"tags":[]}}';
  const archive = rawTar(
    tarEntry('release-manifests/', '', '5'),
    tarEntry('release-manifests/other', 'x'.repeat(700)),
    tarEntry(IMAGE_REFERENCES_PATH, content),
    tarEntry('after', 'y'),
  );
  it('finds the file whatever the chunk size', async () => {
    for (const size of [1, 7, 511, 513, 1000, archive.length]) {
      const found = await fileInTar(pieces(archive, size), IMAGE_REFERENCES_PATH);
      expect(found?.toString(), `chunk ${size}`).toBe(content);
    }
  });
  it('accepts ./ prefixes, pax and GNU long names', async () => {
    const find = async (tar: Buffer) =>
      (await fileInTar(pieces(tar, 100), IMAGE_REFERENCES_PATH))?.toString();
    expect(await find(rawTar(tarEntry(`./${IMAGE_REFERENCES_PATH}`, 'a')))).toBe('a');
    expect(await find(rawTar(paxEntry(IMAGE_REFERENCES_PATH), tarEntry('short', 'b')))).toBe('b');
    expect(
      await find(
        rawTar(tarEntry('././@LongLink', `${IMAGE_REFERENCES_PATH}\0`, 'L'), tarEntry('trunc', 'c')),
      ),
    ).toBe('c');
  });
  it('is undefined for an archive without the file, junk, or a file over the limit', async () => {
    expect(await fileInTar(pieces(rawTar(tarEntry('a', 'b')), 512), IMAGE_REFERENCES_PATH)).toBeUndefined();
    expect(await fileInTar(pieces(Buffer.alloc(600, 0x41), 512), IMAGE_REFERENCES_PATH)).toBeUndefined();
    expect(await fileInTar(pieces(archive, 512), IMAGE_REFERENCES_PATH, 4)).toBeUndefined();
  });
});
