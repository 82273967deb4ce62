// multipart/form-data for log uploads (agent-api.md §2.1 V2UploadLogs: field `upfile`, up to
// 250 MiB, sent by go-openapi through a pipe, i.e. chunked), parsed by busboy. The file part is
// handed to the backend as a stream so a large upload never sits in memory; the caller bounds
// the whole body (limitedChunks), so busboy's own size limits stay off for files.

import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import busboy from 'busboy';

/** A part sent without a filename is a form field, which busboy holds in memory: keep it small. */
const MAX_FIELD_BYTES = 1024 * 1024;

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

function describeParserError(err: Error): string {
  if (err.message === 'Unexpected end of form') return 'multipart body ended before its closing delimiter';
  if (err.message === 'Malformed part header') return 'multipart part headers are malformed';
  return `multipart body is malformed: ${err.message}`;
}

export interface MultipartFile {
  fileName: string;
  contentType?: string;
  stream: Readable;
}

/**
 * Finds the part named `field` and returns it as a stream (which continues reading the request).
 * Undefined when the body has no such part. Errors of `source` (size limit, timeout) reach the
 * caller as they are: through the promise before the part is found, through the stream after.
 */
export function findFilePart(
  source: AsyncIterable<Buffer>,
  boundary: string,
  field: string,
): Promise<MultipartFile | undefined> {
  return new Promise((resolve, reject) => {
    const parser = busboy({
      headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` },
      // latin1 keeps the bytes of a filename-less part, which busboy hands over as a string.
      defCharset: 'latin1',
      limits: { fieldSize: MAX_FIELD_BYTES },
    });
    let found: PassThrough | undefined;
    let stopped = false;
    let wake = () => {};
    const stoppedNow = new Promise<void>((done) => {
      wake = done;
    });
    const fail = (err: unknown) => {
      if (found) found.destroy(err as Error);
      else reject(err);
    };
    const deliver = (fileName: string, contentType: string | undefined): PassThrough => {
      found = new PassThrough();
      // The reader gave up early: stop feeding the parser so the request is released.
      found.on('close', () => {
        stopped = true;
        wake();
      });
      resolve({ fileName, ...(contentType ? { contentType } : {}), stream: found });
      return found;
    };
    parser.on('file', (name, stream, info) => {
      if (name !== field || found) {
        stream.resume();
        return;
      }
      const out = deliver(info.filename || field, info.mimeType);
      // busboy fails a file cut short with a plain Error; callers tell a bad body by its class.
      stream.on('error', () => out.destroy(new MultipartError('multipart body ended inside a part')));
      stream.pipe(out);
    });
    parser.on('field', (name, value, info) => {
      if (name !== field || found) return;
      if (info.valueTruncated) {
        fail(
          new MultipartError(`multipart part ${field} without a filename exceeds ${MAX_FIELD_BYTES} bytes`),
        );
        return;
      }
      deliver(field, undefined).end(Buffer.from(value, 'latin1'));
    });
    parser.on('error', (err: Error) => fail(new MultipartError(describeParserError(err))));
    parser.on('close', () => {
      if (!found) resolve(undefined);
    });
    void (async () => {
      for await (const chunk of source) {
        if (stopped) break;
        if (!parser.write(chunk)) await Promise.race([once(parser, 'drain'), stoppedNow]);
      }
      parser.end();
    })().catch(fail);
  });
}
