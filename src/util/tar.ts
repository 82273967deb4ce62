// Tar archives through tar-stream: the "all logs" download (streamed from disk with its size
// announced up front), the simulator's small log bundles, and finding one file in a release layer.

import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import tarStreamLib, { type Header } from 'tar-stream';

/** A file held in memory. */
export interface TarEntry {
  name: string;
  content: Buffer;
  mtime?: Date;
}

/** A file on disk to archive; `size` is what its header declares (read at listing time). */
export interface TarFileEntry {
  name: string;
  path: string;
  size: number;
  mtime?: Date;
}

const BLOCK = 512;
/** Longest name a ustar header holds by itself; longer ones get a pax `path` record. */
const USTAR_NAME_BYTES = 100;

interface Writable extends NodeJS.EventEmitter {
  destroyed?: boolean;
  destroying?: boolean;
}

const gone = (stream: Writable): boolean => stream.destroyed === true || stream.destroying === true;

/**
 * After a write that asked to wait: true once the writable wants more, false when it is gone
 * (the reader left), so the writer stops instead of waiting for a drain that never comes.
 */
async function wantsMore(stream: Writable): Promise<boolean> {
  if (gone(stream)) return false;
  // The listener of the event that did not come is removed (abort), or every wait of a large file
  // would leave one behind on the entry's stream.
  const waiting = new AbortController();
  const drained = once(stream, 'drain', { signal: waiting.signal });
  const closed = once(stream, 'close', { signal: waiting.signal });
  try {
    await Promise.race([drained, closed]);
  } finally {
    waiting.abort();
    drained.catch(() => undefined);
    closed.catch(() => undefined);
  }
  return !gone(stream);
}

const padded = (bytes: number): number => Math.ceil(bytes / BLOCK) * BLOCK;

/** A pax record `<length> path=<name>\n`, whose length counts its own digits. */
function paxPathRecordBytes(name: string): number {
  const rest = Buffer.byteLength(` path=${name}\n`);
  let total = rest + String(rest).length;
  if (String(total).length > String(rest).length) total++;
  return total;
}

function needsPax(name: string): boolean {
  return Buffer.byteLength(name) > USTAR_NAME_BYTES;
}

/** The bytes before an entry's content: its header, after a pax header and record when needed. */
function headerBytes(name: string): number {
  return needsPax(name) ? BLOCK + padded(paxPathRecordBytes(name)) + BLOCK : BLOCK;
}

function headerOf(entry: { name: string; size: number; mtime?: Date | undefined }): Partial<Header> & {
  name: string;
} {
  // Long names always go to a pax record (never a ustar prefix split), so headerBytes can tell
  // the archive's size before it is written.
  return {
    name: entry.name,
    size: entry.size,
    mode: 0o644,
    mtime: entry.mtime ?? new Date(0),
    type: 'file',
    ...(needsPax(entry.name) ? { pax: {} } : {}),
  };
}

/** The size of the archive tarStream writes for these files (for Content-Length). */
export function tarStreamSize(entries: readonly { name: string; size: number }[]): number {
  return entries.reduce((sum, e) => sum + headerBytes(e.name) + padded(e.size), 2 * BLOCK);
}

/** Exactly `size` bytes of a file: cut where it grew since listing, zero-filled where it shrank. */
async function* fileBytes(entry: TarFileEntry): AsyncGenerator<Buffer> {
  let sent = 0;
  if (entry.size > 0) {
    for await (const chunk of createReadStream(entry.path, { start: 0, end: entry.size - 1 })) {
      sent += (chunk as Buffer).length;
      yield chunk as Buffer;
    }
  }
  if (sent < entry.size) yield Buffer.alloc(entry.size - sent);
}

async function writeEntry(pack: tarStreamLib.Pack, entry: TarFileEntry): Promise<void> {
  const done = new Promise<void>((resolve, reject) => {
    const sink = pack.entry(headerOf(entry), (err) => (err ? reject(err) : resolve()));
    void (async () => {
      for await (const chunk of fileBytes(entry)) {
        // Leaving the loop closes the file.
        if (!sink.write(chunk) && !(await wantsMore(sink))) return;
      }
      sink.end(undefined);
    })().catch((err: Error) => sink.destroy(err));
  });
  await done;
}

/**
 * The archive as a stream: each file read from disk in turn while the reader takes it (an
 * archive of several 250 MiB uploads never sits in memory), exactly `size` bytes of each, so the
 * size tarStreamSize announced holds.
 */
export function tarStream(entries: readonly TarFileEntry[]): Readable {
  const pack = tarStreamLib.pack();
  void (async () => {
    for (const entry of entries) await writeEntry(pack, entry);
    pack.finalize();
  })().catch((err: Error) => pack.destroy(err));
  // Through a generator: a reader that leaves (a broken download) ends the pack quietly, where
  // the pack's own iterator would rethrow the reader's AbortError with nobody left to catch it.
  return Readable.from(
    (async function* () {
      try {
        for await (const chunk of pack) yield chunk as Buffer;
      } finally {
        pack.destroy();
      }
    })(),
    { objectMode: false },
  );
}

/** A small archive of files held in memory. */
export async function tarArchive(entries: readonly TarEntry[]): Promise<Buffer> {
  const pack = tarStreamLib.pack();
  for (const e of entries) pack.entry(headerOf({ ...e, size: e.content.length }), e.content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The content of the regular file `path` (a leading `./` ignored) in a tar stream, read until it
 * is found; undefined when the archive ends without it, is not a tar archive, or the file is
 * larger than `maxBytes`.
 */
export async function fileInTar(
  tar: AsyncIterable<Buffer>,
  path: string,
  maxBytes = 16 * 1024 * 1024,
): Promise<Buffer | undefined> {
  const wanted = path.replace(/^\.?\//, '');
  const extract = tarStreamLib.extract();
  const feeding = (async () => {
    for await (const chunk of tar) {
      if (!extract.write(chunk) && !(await wantsMore(extract))) return;
    }
    extract.end(undefined);
  })();
  feeding.catch((err: Error) => extract.destroy(err));
  try {
    for await (const entry of extract) {
      const { name, type, size } = entry.header;
      if (type === 'file' && name.replace(/^\.?\//, '') === wanted && (size ?? 0) <= maxBytes) {
        const chunks: Buffer[] = [];
        for await (const chunk of entry) chunks.push(chunk as Buffer);
        return Buffer.concat(chunks);
      }
      entry.resume();
    }
    return undefined;
  } catch (err) {
    if (/Invalid tar header|Unexpected end of data/.test((err as Error).message)) return undefined;
    throw err;
  } finally {
    extract.destroy();
  }
}
