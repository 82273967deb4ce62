// The "all logs" archive streamed from disk: the same bytes as the in-memory writer, the size
// announced up front holds even when a file changes while it is streamed.
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tarArchive, tarStream, tarStreamSize } from '../../../../src/controllers/cluster/tar.ts';

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
    expect(streamed.equals(tarArchive(entries.map((e) => ({ name: e.name, content, mtime }))))).toBe(true);
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
});
