// Serving an image that is "the cached base file with a few byte ranges replaced" (agent-api.md
// §9.2 step 5), or pieces of files laid end to end (PXE initrd, boot artifacts), without copying
// or buffering the file: each request gets a stream that reads the base file in chunks through
// its own file handle and splices the in-memory overlays in. HEAD and single byte ranges are
// supported the way Go's http.ServeContent does for the upstream image service.
//
// Sent to an HTTP response with sendBody, file chunks are read into a few buffers that are reused
// once the socket has taken their bytes: a fresh 256 KiB buffer per chunk made the garbage
// collector a fifth of a download's CPU (bench/iso-throughput.ts).
//
// Multi-range requests (`bytes=0-1,5-9`) are answered with the full body (200): RFC 9110 lets
// a server ignore Range, every client accepts a 200, and multipart/byteranges bodies are a lot
// of code for a case no ISO downloader uses.
import { type FileHandle, open, stat } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Extent } from './iso9660.ts';

/** `length` bytes at `offset` replaced by `data`, zero-filled past `data.length`. */
export interface Overlay {
  offset: number;
  length: number;
  data: Buffer;
}

/** A piece of a view: bytes of the base file, or in-memory bytes (zero-filled past `data`). */
export type Segment =
  | { kind: 'file'; offset: number; length: number }
  | { kind: 'bytes'; data: Buffer; length: number };

/** What a client downloads: segments laid end to end; file segments come from `path`. */
export interface ByteView {
  path: string;
  size: number;
  segments: readonly Segment[];
}

export const DEFAULT_CHUNK_SIZE = 256 * 1024;

/** Read buffers one sendBody download reuses: one being filled while the other is sent. */
export const SEND_BUFFERS = 2;

/** The whole base file with overlays applied. Overlays must lie inside the file and not overlap. */
export function overlayView(path: string, fileSize: number, overlays: readonly Overlay[]): ByteView {
  const sorted = [...overlays].sort((a, b) => a.offset - b.offset);
  const segments: Segment[] = [];
  let pos = 0;
  for (const o of sorted) {
    if (o.offset < pos) throw new Error(`overlay at ${o.offset} overlaps the previous one (ends at ${pos})`);
    if (o.offset + o.length > fileSize) {
      throw new Error(`overlay ${o.offset}+${o.length} lies beyond the end of the image (${fileSize})`);
    }
    if (o.data.length > o.length) throw new Error(`overlay at ${o.offset} has more data than its length`);
    if (o.offset > pos) segments.push({ kind: 'file', offset: pos, length: o.offset - pos });
    if (o.length > 0) segments.push({ kind: 'bytes', data: o.data, length: o.length });
    pos = o.offset + o.length;
  }
  if (pos < fileSize) segments.push({ kind: 'file', offset: pos, length: fileSize - pos });
  return { path, size: fileSize, segments };
}

/** Extents of `path` and in-memory buffers concatenated, e.g. initrd.img + ignition archive. */
export function concatView(path: string, parts: ReadonlyArray<Extent | Buffer>): ByteView {
  const segments: Segment[] = [];
  let size = 0;
  for (const p of parts) {
    const seg: Segment = Buffer.isBuffer(p)
      ? { kind: 'bytes', data: p, length: p.length }
      : { kind: 'file', offset: p.offset, length: p.length };
    if (seg.length === 0) continue;
    segments.push(seg);
    size += seg.length;
  }
  return { path, size, segments };
}

/** Inclusive byte range. */
export interface ByteRange {
  start: number;
  end: number;
}

class ViewStream extends Readable {
  private readonly view: ByteView;
  private pos: number;
  private readonly endExclusive: number;
  private handle: FileHandle | undefined;
  private readonly chunkSize: number;
  private segIndex = 0;
  private segStart = 0;

  constructor(view: ByteView, range: ByteRange, chunkSize: number, handle: FileHandle | undefined) {
    super({ highWaterMark: chunkSize });
    this.view = view;
    this.pos = range.start;
    this.endExclusive = range.end + 1;
    this.chunkSize = chunkSize;
    this.handle = handle;
  }

  private opening: Promise<void> | undefined;
  /** writeTo has taken over: the Readable side must not read as well. */
  private writing = false;

  override _construct(callback: (error?: Error | null) => void): void {
    this.ensureOpen().then(
      () => callback(),
      (err: Error) => callback(err),
    );
  }

  private ensureOpen(): Promise<void> {
    if (this.handle || !this.view.segments.some((s) => s.kind === 'file')) return Promise.resolve();
    this.opening ??= open(this.view.path, 'r').then((fh) => {
      this.handle = fh;
    });
    return this.opening;
  }

  override _read(): void {
    if (this.writing) return;
    this.nextChunk().then(
      (next) => this.push(next ? next.chunk : null),
      (err: Error) => this.destroy(err),
    );
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // An open still in flight finishes first, so its handle is closed too.
    (this.opening ?? Promise.resolve()).then(
      () => this.closeHandle(error, callback),
      () => this.closeHandle(error, callback),
    );
  }

  private closeHandle(error: Error | null, callback: (error?: Error | null) => void): void {
    const fh = this.handle;
    this.handle = undefined;
    if (!fh) {
      callback(error);
      return;
    }
    fh.close().then(
      () => callback(error),
      (closeErr: Error) => callback(error ?? closeErr),
    );
  }

  /**
   * Writes the bytes to `dest`, then ends it, reading file chunks into at most SEND_BUFFERS
   * buffers: a buffer is filled again only after the write callback said its bytes were taken.
   * So `dest` must be done with a chunk when it calls back (an HTTP response or a socket is; a
   * PassThrough, which hands the same chunk on, is not). Resolves once `dest` has finished, and
   * quietly when it closes early. The stream is destroyed (its file handle closed) when this settles.
   */
  async writeTo(dest: SendTarget): Promise<void> {
    if (this.writing || this.readableFlowing !== null) throw new Error('the stream is already being read');
    this.writing = true;
    const free: Buffer[] = [];
    let made = 0;
    let gone = dest.destroyed;
    let wake: (() => void) | undefined;
    const signal = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const wait = () => new Promise<void>((resolve) => (wake = resolve));
    const onClose = () => {
      gone = true;
      signal();
    };
    dest.on('close', onClose);
    dest.on('drain', signal);
    const acquire = async (): Promise<Buffer | undefined> => {
      for (;;) {
        if (gone) return undefined;
        const b = free.pop();
        if (b) return b;
        if (made < SEND_BUFFERS) {
          made++;
          return Buffer.allocUnsafe(this.chunkSize);
        }
        await wait();
      }
    };
    try {
      await this.ensureOpen();
      while (!gone) {
        const next = await this.nextChunk(acquire);
        if (!next) break;
        const { chunk, buffer } = next;
        const release = () => {
          if (buffer) free.push(buffer);
          signal();
        };
        if (!dest.write(chunk, release)) {
          while (dest.writableNeedDrain && !gone) await wait();
        }
      }
      if (!gone) {
        // Settles like pipeline: once the destination has flushed everything (or went away).
        const flushed = new Promise<void>((resolve) => {
          dest.once('finish', resolve);
          dest.once('close', resolve);
        });
        dest.end();
        await flushed;
      }
    } finally {
      dest.off('close', onClose);
      dest.off('drain', signal);
      this.destroy();
    }
  }

  /**
   * The next chunk; a file chunk is read into a buffer from `acquire` when given (undefined from
   * it: the destination went away, stop), else into a new one.
   */
  private async nextChunk(
    acquire?: () => Promise<Buffer | undefined>,
  ): Promise<{ chunk: Buffer; buffer?: Buffer } | null> {
    if (this.pos >= this.endExclusive) return null;
    let seg = this.view.segments[this.segIndex];
    while (seg && this.pos >= this.segStart + seg.length) {
      this.segStart += seg.length;
      seg = this.view.segments[++this.segIndex];
    }
    if (!seg) throw new Error(`view ends at ${this.segStart}, before byte ${this.pos}`);
    const inSeg = this.pos - this.segStart;
    let n = Math.min(this.chunkSize, this.endExclusive - this.pos, seg.length - inSeg);
    let chunk: Buffer;
    let buffer: Buffer | undefined;
    if (seg.kind === 'file') {
      if (acquire) {
        buffer = await acquire();
        if (!buffer) return null;
      }
      chunk = await this.readFile(seg.offset + inSeg, buffer?.subarray(0, n) ?? Buffer.allocUnsafe(n));
    } else if (inSeg < seg.data.length) {
      n = Math.min(n, seg.data.length - inSeg);
      chunk = seg.data.subarray(inSeg, inSeg + n);
    } else {
      chunk = Buffer.alloc(n);
    }
    this.pos += n;
    return buffer ? { chunk, buffer } : { chunk };
  }

  /** Fills `buf` from the base file at `position`. */
  private async readFile(position: number, buf: Buffer): Promise<Buffer> {
    const fh = this.handle;
    if (!fh) throw new Error('stream is closed');
    const length = buf.length;
    let done = 0;
    while (done < length) {
      const { bytesRead } = await fh.read(buf, done, length - done, position + done);
      if (bytesRead === 0)
        throw new Error(`${this.view.path} ended at byte ${position + done}, expected more`);
      done += bytesRead;
    }
    return buf;
  }
}

/** What sendBody writes to: an HTTP response (the write callback fires once its bytes are sent). */
export interface SendTarget {
  write(chunk: Buffer, callback: (err?: Error | null) => void): boolean;
  end(): unknown;
  readonly destroyed: boolean;
  readonly writableNeedDrain: boolean;
  on(event: 'close' | 'drain', listener: () => void): unknown;
  once(event: 'close' | 'finish', listener: () => void): unknown;
  off(event: 'close' | 'drain', listener: () => void): unknown;
}

/**
 * Sends a body from serveView to an HTTP response: a view stream through writeTo (reused read
 * buffers), any other stream through pipeline. Rejects when the body fails mid-way; a client
 * that goes away ends it quietly (writeTo) or as a rejection (pipeline).
 */
export function sendBody(body: Readable, res: SendTarget & NodeJS.WritableStream): Promise<void> {
  if (body instanceof ViewStream) return body.writeTo(res);
  return pipeline(body, res);
}

/**
 * A stream of the view's bytes (the whole view, or an inclusive range). Pass an already open
 * `handle` to have open errors surface before any response header is sent; the stream takes
 * ownership of it and closes it when it ends or is destroyed.
 */
export function createViewStream(
  view: ByteView,
  range?: ByteRange,
  opts: { handle?: FileHandle; chunkSize?: number } = {},
): Readable {
  const r = range ?? { start: 0, end: view.size - 1 };
  if (r.start < 0 || r.end >= view.size || (r.end < r.start && !(view.size === 0 && r.end === -1))) {
    throw new RangeError(`range ${r.start}-${r.end} is outside a view of ${view.size} bytes`);
  }
  return new ViewStream(view, r, opts.chunkSize ?? DEFAULT_CHUNK_SIZE, opts.handle);
}

export type RangeResult =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable'; reason: string };

/**
 * Interprets a Range header against a representation of `size` bytes.
 * - absent, a unit other than bytes, or several ranges → `full` (the header is ignored);
 * - `bytes=a-b` (b clamped to the last byte), `bytes=a-`, `bytes=-n` (last n bytes) → `partial`;
 * - a start at or past the end, `-0`, or any range of an empty body → `unsatisfiable` (416);
 * - malformed byte ranges (`bytes=5-2`, `bytes=x`) → `unsatisfiable` as well, like Go's ServeContent.
 */
export function parseRange(header: string | undefined | null, size: number): RangeResult {
  if (header === undefined || header === null || header.trim() === '') return { kind: 'full' };
  const unit = /^\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=(.*)$/s.exec(header);
  if (unit?.[1]?.toLowerCase() !== 'bytes') return { kind: 'full' };
  const specs = (unit[2] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  if (specs.length === 0) return { kind: 'unsatisfiable', reason: 'invalid range' };
  if (specs.length > 1) return { kind: 'full' };
  const spec = specs[0] ?? '';
  const suffix = /^-\s*(\d+)$/.exec(spec);
  if (suffix) {
    const n = Number(suffix[1]);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable', reason: 'failed to overlap' };
    return { kind: 'partial', start: Math.max(0, size - n), end: size - 1 };
  }
  const bounded = /^(\d+)\s*-\s*(\d*)$/.exec(spec);
  if (!bounded) return { kind: 'unsatisfiable', reason: 'invalid range' };
  const start = Number(bounded[1]);
  const last = bounded[2] === '' || bounded[2] === undefined ? undefined : Number(bounded[2]);
  if (last !== undefined && last < start) return { kind: 'unsatisfiable', reason: 'invalid range' };
  if (start >= size) return { kind: 'unsatisfiable', reason: 'failed to overlap' };
  return { kind: 'partial', start, end: Math.min(last ?? size - 1, size - 1) };
}

/** Header values as node:http hands them over (a repeated header may arrive as a list). */
type HeaderValue = string | readonly string[] | undefined;

export interface ServeRequest {
  method: string;
  /** The `Range` request header. */
  range?: HeaderValue;
  /** The `If-Range` request header. */
  ifRange?: HeaderValue;
}

function single(v: HeaderValue): string | undefined {
  return typeof v === 'string' ? v : v?.[0];
}

export interface ServeOptions {
  /** Sent as Last-Modified and checked against If-Range. */
  lastModified?: Date | undefined;
  /** Sent as `Content-Disposition: attachment; filename=<filename>`. */
  filename?: string | undefined;
  /** Defaults to application/octet-stream (agent-api.md §11.4). */
  contentType?: string | undefined;
  chunkSize?: number | undefined;
}

export interface ServeResponse {
  status: number;
  headers: Record<string, string>;
  /** Absent for HEAD, 405 and 416. Pipe it to the response; destroy it if the client goes away. */
  body?: Readable;
}

/**
 * If-Range holds an entity tag (we send none, so it never matches) or an HTTP date that must
 * equal Last-Modified; when it does not match, the Range header is ignored and the full body sent.
 */
function ifRangeMatches(ifRange: string, lastModified: Date | undefined): boolean {
  const v = ifRange.trim();
  if (v.startsWith('"') || v.startsWith('W/')) return false;
  if (!lastModified) return false;
  const t = Date.parse(v);
  return !Number.isNaN(t) && Math.floor(t / 1000) === Math.floor(lastModified.getTime() / 1000);
}

/** Status, headers and body for a GET/HEAD of a view. The base file is opened before answering. */
export async function serveView(
  view: ByteView,
  req: ServeRequest,
  opts: ServeOptions = {},
): Promise<ServeResponse> {
  const method = req.method.toUpperCase();
  if (method !== 'GET' && method !== 'HEAD') {
    return { status: 405, headers: { Allow: 'GET, HEAD' } };
  }
  const headers: Record<string, string> = {
    'Accept-Ranges': 'bytes',
    'Content-Type': opts.contentType ?? 'application/octet-stream',
  };
  if (opts.lastModified) headers['Last-Modified'] = opts.lastModified.toUTCString();
  if (opts.filename) headers['Content-Disposition'] = `attachment; filename=${opts.filename}`;

  let range = parseRange(single(req.range), view.size);
  const ifRange = single(req.ifRange);
  if (range.kind !== 'full' && ifRange !== undefined && !ifRangeMatches(ifRange, opts.lastModified)) {
    range = { kind: 'full' };
  }
  if (range.kind === 'unsatisfiable') {
    return {
      status: 416,
      headers: { 'Content-Range': `bytes */${view.size}`, 'Content-Length': '0' },
    };
  }
  const bounds =
    range.kind === 'partial' ? { start: range.start, end: range.end } : { start: 0, end: view.size - 1 };
  headers['Content-Length'] = String(bounds.end - bounds.start + 1);
  const status = range.kind === 'partial' ? 206 : 200;
  if (status === 206) headers['Content-Range'] = `bytes ${bounds.start}-${bounds.end}/${view.size}`;
  if (method === 'HEAD') return { status, headers };

  const needsFile = view.segments.some((s) => s.kind === 'file');
  const handle = needsFile ? await open(view.path, 'r') : undefined;
  const body = createViewStream(view, bounds, { handle, chunkSize: opts.chunkSize });
  return { status, headers, body };
}

export interface ServeIsoParams extends ServeRequest, ServeOptions {
  /** The cached base ISO (full image or minimal template). */
  isoPath: string;
  /** Its size when already known (saves a stat). */
  size?: number | undefined;
  overlays: readonly Overlay[];
}

/** GET/HEAD of a discovery ISO: the base ISO with the infra-env's overlays. */
export async function serveIso(p: ServeIsoParams): Promise<ServeResponse> {
  const size = p.size ?? (await stat(p.isoPath)).size;
  return serveView(overlayView(p.isoPath, size, p.overlays), p, p);
}

export type DiscoveryImageType = 'full-iso' | 'minimal-iso' | 'disconnected-iso';

/** `full.iso` → `full-iso` etc.; undefined for any other name (the route answers 404). */
export function imageTypeForFilename(filename: string): DiscoveryImageType | undefined {
  switch (filename) {
    case 'full.iso':
      return 'full-iso';
    case 'minimal.iso':
      return 'minimal-iso';
    case 'disconnected.iso':
      return 'disconnected-iso';
    default:
      return undefined;
  }
}

/** The attachment name of a discovery ISO download. */
export function discoveryIsoFilename(infraEnvId: string, type: DiscoveryImageType, arch: string): string {
  return type === 'disconnected-iso' ? `agent-ove.${arch}.iso` : `${infraEnvId}-discovery.iso`;
}
