// A streaming multipart/form-data reader for log uploads (agent-api.md §2.1 V2UploadLogs: field
// `upfile`, up to 250 MiB, sent by go-openapi through a pipe, i.e. chunked). The file part is
// handed to the backend as a stream so a large upload never sits in memory.

import { Readable } from 'node:stream';

const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');
const MAX_HEADER_BYTES = 16 * 1024;

export class MultipartError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MultipartError';
  }
}

/** The boundary of a multipart/form-data Content-Type, or undefined when it is not one. */
export function multipartBoundary(contentType: string | undefined): string | undefined {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) return undefined;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

export interface MultipartPartHeaders {
  name?: string;
  filename?: string;
  contentType?: string;
}

function dispositionParam(header: string, param: string): string | undefined {
  const quoted = new RegExp(`;\\s*${param}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(header);
  if (quoted) return quoted[1]!.replace(/\\(.)/g, '$1');
  return new RegExp(`;\\s*${param}=([^;\\s]+)`, 'i').exec(header)?.[1];
}

function parsePartHeaders(block: string): MultipartPartHeaders {
  const out: MultipartPartHeaders = {};
  for (const line of block.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === 'content-disposition') {
      const fieldName = dispositionParam(value, 'name');
      const filename = dispositionParam(value, 'filename');
      if (fieldName !== undefined) out.name = fieldName;
      if (filename !== undefined) out.filename = filename;
    } else if (name === 'content-type') {
      out.contentType = value;
    }
  }
  return out;
}

/** Reads parts one after the other from a byte source. */
export class MultipartReader {
  private readonly source: AsyncIterator<Buffer>;
  private readonly delimiter: Buffer;
  /** CRLF + delimiter: what ends a part's body. */
  private readonly bodyEnd: Buffer;
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private started = false;
  private finished = false;
  /** The body of the current part has not been read to its end yet. */
  private openBody: AsyncGenerator<Buffer> | undefined;

  constructor(source: AsyncIterable<Buffer>, boundary: string) {
    this.source = source[Symbol.asyncIterator]();
    this.delimiter = Buffer.from(`--${boundary}`);
    this.bodyEnd = Buffer.concat([CRLF, this.delimiter]);
  }

  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const next = await this.source.next();
    if (next.done) {
      this.ended = true;
      return false;
    }
    this.buffer = this.buffer.length === 0 ? next.value : Buffer.concat([this.buffer, next.value]);
    return true;
  }

  private async need(bytes: number): Promise<void> {
    while (this.buffer.length < bytes) {
      if (!(await this.fill())) throw new MultipartError('multipart body ended unexpectedly');
    }
  }

  /** The next part, or undefined after the closing delimiter. Unread bodies are skipped. */
  async nextPart(): Promise<{ headers: MultipartPartHeaders; body: AsyncGenerator<Buffer> } | undefined> {
    if (this.openBody) {
      for await (const _ of this.openBody) {
        // Skip the rest of a part nobody read.
      }
    }
    if (this.finished) return undefined;
    if (!this.started) {
      // Skip the preamble up to the first delimiter.
      for (;;) {
        const at = this.buffer.indexOf(this.delimiter);
        if (at >= 0) {
          this.buffer = this.buffer.subarray(at);
          break;
        }
        if (this.buffer.length > this.delimiter.length) {
          this.buffer = this.buffer.subarray(this.buffer.length - this.delimiter.length);
        }
        if (!(await this.fill())) throw new MultipartError('multipart body has no boundary delimiter');
      }
      this.started = true;
    }
    // The buffer starts with the delimiter: "--" closes, otherwise (padding and) CRLF then headers.
    await this.need(this.delimiter.length + 2);
    let rest = this.buffer.subarray(this.delimiter.length);
    if (rest[0] === 0x2d && rest[1] === 0x2d) {
      this.finished = true;
      return undefined;
    }
    for (;;) {
      // Headers start after the delimiter line's CRLF (transport padding before it is ignored)
      // and end at the first blank line; with no headers that blank line is the very next one.
      const end = rest.indexOf(HEADER_END);
      if (end >= 0) {
        const block = rest.subarray(rest.indexOf(CRLF) + 2, end).toString('latin1');
        this.buffer = rest.subarray(end + HEADER_END.length);
        return this.startBody(parsePartHeaders(block));
      }
      if (rest.length > MAX_HEADER_BYTES) throw new MultipartError('multipart part headers are too large');
      if (!(await this.fill())) throw new MultipartError('multipart body ended inside part headers');
      rest = this.buffer.subarray(this.delimiter.length);
    }
  }

  private startBody(headers: MultipartPartHeaders) {
    const body = this.readBody();
    this.openBody = body;
    return { headers, body };
  }

  /**
   * Whether the delimiter match ending at `pos` is a real boundary: like Go's reader, it must be
   * followed by whitespace, CR/LF or "--"; `\r\n--<boundary>x` inside file data is just data.
   */
  private boundaryAt(pos: number): 'yes' | 'no' | 'need-more' {
    const c = this.buffer[pos];
    if (c === undefined) return 'need-more';
    if (c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a) return 'yes';
    if (c !== 0x2d) return 'no';
    const next = this.buffer[pos + 1];
    if (next === undefined) return 'need-more';
    return next === 0x2d ? 'yes' : 'no';
  }

  private async *readBody(): AsyncGenerator<Buffer> {
    // A delimiter split across chunks can only hide in the last bodyEnd.length - 1 bytes.
    const keep = this.bodyEnd.length - 1;
    let from = 0;
    for (;;) {
      const at = this.buffer.indexOf(this.bodyEnd, from);
      if (at >= 0) {
        const verdict = this.boundaryAt(at + this.bodyEnd.length);
        if (verdict === 'yes') {
          const last = this.buffer.subarray(0, at);
          // Leave the buffer at the delimiter for nextPart.
          this.buffer = this.buffer.subarray(at + CRLF.length);
          this.openBody = undefined;
          if (last.length > 0) yield last;
          return;
        }
        if (verdict === 'no') {
          from = at + 1;
          continue;
        }
      } else if (this.buffer.length > keep) {
        const chunk = this.buffer.subarray(0, this.buffer.length - keep);
        this.buffer = this.buffer.subarray(this.buffer.length - keep);
        from = 0;
        yield chunk;
      }
      if (!(await this.fill())) throw new MultipartError('multipart body ended inside a part');
    }
  }
}

export interface MultipartFile {
  fileName: string;
  contentType?: string;
  stream: Readable;
}

/**
 * Finds the file part named `field` and returns it as a stream (which continues reading the
 * request). Undefined when the body has no such part.
 */
export async function findFilePart(
  source: AsyncIterable<Buffer>,
  boundary: string,
  field: string,
): Promise<MultipartFile | undefined> {
  const reader = new MultipartReader(source, boundary);
  for (;;) {
    const part = await reader.nextPart();
    if (!part) return undefined;
    if (part.headers.name !== field) continue;
    return {
      fileName: part.headers.filename ?? field,
      ...(part.headers.contentType ? { contentType: part.headers.contentType } : {}),
      stream: Readable.from(part.body, { objectMode: false }),
    };
  }
}
