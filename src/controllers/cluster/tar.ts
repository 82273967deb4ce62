// A minimal ustar writer for the "all logs" download: regular files only, names up to 100 bytes.
// `tarStream` streams files from disk (an archive of several 250 MiB uploads never sits in memory).

import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';

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

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(entry: { name: string; size: number; mtime?: Date }): Buffer {
  const h = Buffer.alloc(BLOCK);
  const name = Buffer.from(entry.name.slice(0, 100));
  name.copy(h, 0);
  h.write(octal(0o644, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(entry.size, 12), 124, 'ascii');
  h.write(octal(Math.floor((entry.mtime ?? new Date(0)).getTime() / 1000), 12), 136, 'ascii');
  h.write('        ', 148, 'ascii');
  h.write('0', 156, 'ascii');
  h.write('ustar\0', 257, 'ascii');
  h.write('00', 263, 'ascii');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return h;
}

/** The archive bytes: each entry's header and padded content, then two zero blocks. */
export function tarArchive(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header({ ...e, size: e.content.length }), e.content);
    const pad = (BLOCK - (e.content.length % BLOCK)) % BLOCK;
    if (pad > 0) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}

/** The padded size of an archive of these files (for Content-Length). */
export function tarStreamSize(entries: readonly TarFileEntry[]): number {
  return entries.reduce((sum, e) => sum + BLOCK + Math.ceil(e.size / BLOCK) * BLOCK, BLOCK * 2);
}

/**
 * The archive as a stream: each file read from disk in turn, exactly `size` bytes of it (a file
 * that grew is cut, one that shrank is zero-filled), so the size announced up front holds.
 */
export function tarStream(entries: readonly TarFileEntry[]): Readable {
  return Readable.from(
    (async function* () {
      for (const e of entries) {
        yield header(e);
        let sent = 0;
        if (e.size > 0) {
          for await (const chunk of createReadStream(e.path, { start: 0, end: e.size - 1 })) {
            sent += (chunk as Buffer).length;
            yield chunk as Buffer;
          }
        }
        const pad = (BLOCK - (e.size % BLOCK)) % BLOCK;
        if (e.size - sent + pad > 0) yield Buffer.alloc(e.size - sent + pad);
      }
      yield Buffer.alloc(BLOCK * 2);
    })(),
    { objectMode: false },
  );
}
