// Serves files over HTTP for boot tests: byte ranges like the image service (http.ServeContent),
// or — to test the fallback — ignoring Range and sending everything. Records each request.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MediaRequest {
  path: string;
  range?: string;
  status: number;
  bytes: number;
}

export class MediaServer {
  readonly requests: MediaRequest[] = [];
  url = '';
  private readonly server: Server;

  constructor(files: Record<string, Buffer>, opts: { ignoreRange?: boolean; contentType?: string } = {}) {
    this.server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      const file = files[path];
      const log = (status: number, bytes: number) =>
        this.requests.push({
          path,
          status,
          bytes,
          ...(req.headers.range ? { range: req.headers.range } : {}),
        });
      if (!file) {
        log(404, 0);
        res.writeHead(404).end('not found');
        return;
      }
      const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
      if (m && !opts.ignoreRange) {
        const start = Number(m[1]);
        const end = Math.min(m[2] ? Number(m[2]) : file.length - 1, file.length - 1);
        if (start >= file.length) {
          log(416, 0);
          res.writeHead(416, { 'content-range': `bytes */${file.length}` }).end();
          return;
        }
        const slice = file.subarray(start, end + 1);
        log(206, slice.length);
        res.writeHead(206, {
          'content-type': opts.contentType ?? 'application/octet-stream',
          'content-range': `bytes ${start}-${end}/${file.length}`,
          'content-length': slice.length,
        });
        res.end(slice);
        return;
      }
      log(200, file.length);
      res.writeHead(200, {
        'content-type': opts.contentType ?? 'application/octet-stream',
        'content-length': file.length,
      });
      // Chunked writes so a client that stops early really saves the transfer.
      let pos = 0;
      const pump = () => {
        while (pos < file.length) {
          const chunk = file.subarray(pos, pos + 65536);
          pos += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('error', () => {});
      pump();
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
