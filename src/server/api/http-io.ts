// Reading request bodies under a size limit and writing the three kinds of responses (JSON,
// empty, octet-stream files) with the headers the Go clients expect (agent-api.md §0.3, §0.4).

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { FileDownload } from './backend.ts';
import { type ApiError, bodyForStatus, middlewareErrorBody } from './errors.ts';

export class PayloadTooLargeError extends Error {
  readonly limit: number;
  constructor(limit: number) {
    super(`request body is larger than the limit of ${limit} bytes`);
    this.name = 'PayloadTooLargeError';
    this.limit = limit;
  }
}

/** The body did not arrive in time (a slow or stalled client); answered 408, connection closed. */
export class BodyTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(timeoutMs: number, idle: boolean) {
    super(
      idle
        ? `request body stalled: no data for ${timeoutMs} ms`
        : `request body was not received within ${timeoutMs} ms`,
    );
    this.name = 'BodyTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

/** How long a body may take: in total (JSON bodies) and/or between two chunks (uploads). */
export interface BodyTimeouts {
  totalMs?: number;
  idleMs?: number;
}

/** Fails early on a declared Content-Length over the limit (the body is then never read). */
export function checkDeclaredLength(req: IncomingMessage, limit: number): void {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLargeError(limit);
}

/** How much more of a refused body is read and thrown away before the connection is cut. */
export const DISCARD_LIMIT_BYTES = 8 * 1024 * 1024;
/** How long the rest of a refused body may take to arrive before the connection is cut. */
export const DISCARD_TIMEOUT_MS = 30_000;

function deadlineOf(timeouts: BodyTimeouts, started: number, lastChunk: number): [number, number, boolean] {
  const total = timeouts.totalMs === undefined ? Infinity : started + timeouts.totalMs;
  const idle = timeouts.idleMs === undefined ? Infinity : lastChunk + timeouts.idleMs;
  return idle < total ? [idle, timeouts.idleMs!, true] : [total, timeouts.totalMs ?? 0, false];
}

/**
 * Reads the request's chunks without destroying it when the reader stops early: the socket must
 * stay open so the client can finish sending and read our 413 (a reset would lose it). A body
 * slower than `timeouts` fails with BodyTimeoutError.
 */
async function* chunksOf(req: IncomingMessage, timeouts: BodyTimeouts = {}): AsyncGenerator<Buffer> {
  const source = req.iterator({ destroyOnReturn: false });
  try {
    yield* timedChunks(source, timeouts, Date.now());
  } finally {
    // Detaches from the request (not awaited: after a timeout a read is still pending).
    source.return?.(undefined).catch(() => {});
  }
}

async function* timedChunks(
  source: AsyncIterator<unknown>,
  timeouts: BodyTimeouts,
  started: number,
): AsyncGenerator<Buffer> {
  let lastChunk = started;
  for (;;) {
    const [at, ms, idle] = deadlineOf(timeouts, started, lastChunk);
    const pending = source.next();
    let next: IteratorResult<unknown>;
    if (at === Infinity) next = await pending;
    else {
      // The pending read settles when the socket is closed after our answer: keep it handled.
      pending.catch(() => {});
      let timer: NodeJS.Timeout | undefined;
      const expired = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new BodyTimeoutError(ms, idle)), Math.max(0, at - Date.now()));
      });
      try {
        next = await Promise.race([pending, expired]);
      } finally {
        clearTimeout(timer);
      }
    }
    if (next.done) return;
    lastChunk = Date.now();
    yield next.value as Buffer;
  }
}

/** Reads the whole body, failing as soon as it passes `limit` bytes (chunked bodies included). */
export async function readBody(
  req: IncomingMessage,
  limit: number,
  timeouts: BodyTimeouts = {},
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of limitedChunks(req, limit, timeouts)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** Yields the request's chunks, failing once more than `limit` bytes arrived. */
export async function* limitedChunks(
  req: IncomingMessage,
  limit: number,
  timeouts: BodyTimeouts = {},
): AsyncGenerator<Buffer> {
  checkDeclaredLength(req, limit);
  let total = 0;
  for await (const chunk of chunksOf(req, timeouts)) {
    total += chunk.length;
    if (total > limit) throw new PayloadTooLargeError(limit);
    yield chunk;
  }
}

/**
 * Throws away what is left of a request body that will not be read (refused, or answered before
 * the end), keeping the connection usable; cuts it after `limit` more bytes.
 */
export function discardRest(
  req: IncomingMessage,
  limit = DISCARD_LIMIT_BYTES,
  timeoutMs = DISCARD_TIMEOUT_MS,
): void {
  if (req.complete || req.destroyed) return;
  let discarded = 0;
  const timer = setTimeout(() => req.socket.destroy(), timeoutMs);
  timer.unref();
  req.once('end', () => clearTimeout(timer));
  req.once('close', () => clearTimeout(timer));
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limit) req.socket.destroy();
  });
  req.resume();
}

/** JSON as Go's encoder writes it (with a trailing newline). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers?: Record<string, string>,
) {
  const text = `${JSON.stringify(body)}\n`;
  const own = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) };
  // Merged only when there are others: most replies (every host poll) have none.
  res.writeHead(status, headers ? { ...headers, ...own } : own);
  res.end(text);
}

/** A JSON list sent item by item: a bare array, or an object whose last member is the list. */
export interface JsonList<T = unknown> {
  /** The object's other members; none for a bare array. */
  readonly head?: Record<string, unknown>;
  /** The list's member name in `head`'s object. */
  readonly field?: string;
  readonly items: readonly T[];
  /** One item as it goes on the wire, made while writing (one item's copy at a time). */
  itemToWire(item: T): unknown;
}

/**
 * Lists of at least this many items are sent item by item; shorter ones as one string with a
 * Content-Length. Each host of a cluster can carry a connectivity report that names every other
 * host, so a cluster's host list grows with the square of its size.
 */
export const STREAMED_FROM_ITEMS = 100;
/** Text gathered before a write while sending a list. */
const LIST_CHUNK_CHARS = 64 * 1024;
/** Serialising time after which a list being sent lets the event loop run. */
const LIST_SLICE_MS = 8;

/** Resolves once the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * The bytes sendJson writes for the whole list. A long list is written as it is made (chunked),
 * waiting for the client when its socket is full and letting the event loop run every few
 * milliseconds. A
 * 1,000-host cluster with hosts (the installer and the controller read it every few seconds)
 * holds 0.5 MiB of connectivity report per host: as one string that was over 0.5 GB, past V8's
 * longest string, and seconds of the event loop.
 */
export async function sendJsonList<T>(res: ServerResponse, status: number, list: JsonList<T>): Promise<void> {
  if (list.items.length < STREAMED_FROM_ITEMS) {
    const items = list.items.map((item) => list.itemToWire(item));
    return sendJson(res, status, list.head ? { ...list.head, [list.field ?? 'items']: items } : items);
  }
  res.writeHead(status, { 'content-type': 'application/json' });
  let text = '[';
  if (list.head) {
    const head = JSON.stringify(list.head);
    text = `${head.slice(0, -1)}${head === '{}' ? '' : ','}${JSON.stringify(list.field ?? 'items')}:[`;
  }
  let sliceStart = performance.now();
  let first = true;
  for (const item of list.items) {
    if (res.destroyed) return;
    if (!first) text += ',';
    first = false;
    // As JSON.stringify writes an array element that has no JSON form.
    text += JSON.stringify(list.itemToWire(item)) ?? 'null';
    if (text.length >= LIST_CHUNK_CHARS) {
      const more = res.write(text);
      text = '';
      if (!more) await drained(res);
    }
    if (performance.now() - sliceStart >= LIST_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStart = performance.now();
    }
  }
  if (!res.destroyed) res.end(`${text}]${list.head ? '}' : ''}\n`);
}

export function sendEmpty(res: ServerResponse, status: number) {
  res.writeHead(status, { 'content-length': '0' });
  res.end();
}

/** A handler-level error in the body shape declared for its status. */
export function sendError(res: ServerResponse, error: ApiError) {
  sendJson(res, error.status, bodyForStatus(error));
}

/** A refusal made before any handler ran (authentication, routing). */
export function sendMiddlewareError(res: ServerResponse, status: number, message: string, headers = {}) {
  sendJson(res, status, middlewareErrorBody(status, message), headers);
}

function contentDisposition(fileName: string): string {
  const safe = fileName.replace(/["\\\r\n]/g, '_');
  return `attachment; filename="${safe}"`;
}

/** Bytes as application/octet-stream (the only type the Go clients stream into a file). */
export async function sendFile(res: ServerResponse, file: FileDownload): Promise<void> {
  const headers: Record<string, string> = {
    'content-type': 'application/octet-stream',
    'content-disposition': contentDisposition(file.fileName),
  };
  if (file.lastModified) headers['last-modified'] = file.lastModified.toUTCString();
  if (typeof file.content === 'string' || Buffer.isBuffer(file.content)) {
    const bytes = typeof file.content === 'string' ? Buffer.from(file.content) : file.content;
    headers['content-length'] = String(bytes.length);
    res.writeHead(200, headers);
    res.end(bytes);
    return;
  }
  if (file.size !== undefined) headers['content-length'] = String(file.size);
  res.writeHead(200, headers);
  await pipeline(file.content as Readable, res);
}
