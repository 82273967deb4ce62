// The log bundle a simulated host uploads (logs_sender, agent-api.md §1.2): a small but valid
// tar.gz sent as the multipart field `upfile`, as the go-openapi client sends file parameters.

import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

/** A ustar archive of regular files (mode 0644, owner root). */
export function tar(files: { name: string; content: string | Buffer }[], mtime = 0): Buffer {
  const parts: Buffer[] = [];
  for (const f of files) {
    const data = Buffer.isBuffer(f.content) ? f.content : Buffer.from(f.content, 'utf8');
    const h = Buffer.alloc(BLOCK);
    h.write(f.name.slice(0, 100), 0, 'utf8');
    h.write(octal(0o644, 8), 100, 'latin1');
    h.write(octal(0, 8), 108, 'latin1');
    h.write(octal(0, 8), 116, 'latin1');
    h.write(octal(data.length, 12), 124, 'latin1');
    h.write(octal(mtime, 12), 136, 'latin1');
    h.write('        ', 148, 'latin1');
    h.write('0', 156, 'latin1');
    h.write('ustar\0', 257, 'latin1');
    h.write('00', 263, 'latin1');
    h.write('root', 265, 'latin1');
    h.write('root', 297, 'latin1');
    let sum = 0;
    for (const b of h) sum += b;
    h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
    parts.push(h, data, Buffer.alloc((BLOCK - (data.length % BLOCK)) % BLOCK));
  }
  parts.push(Buffer.alloc(2 * BLOCK));
  return Buffer.concat(parts);
}

/** The logs a host would collect: journal excerpts named like the real logs_sender's. */
export function hostLogsTarGz(hostId: string, hostname: string, what: 'host' | 'controller'): Buffer {
  const now = new Date().toISOString();
  const files =
    what === 'host'
      ? [
          { name: `${hostname}_agent.logs`, content: `${now} agent-install-sim: host ${hostId} agent log\n` },
          { name: `${hostname}_installer.logs`, content: `${now} agent-install-sim: installer log\n` },
        ]
      : [
          {
            name: 'assisted-installer-controller.logs',
            content: `${now} agent-install-sim: controller log\n`,
          },
        ];
  return gzipSync(tar(files, Math.floor(Date.now() / 1000)));
}

/** multipart/form-data with one file field. */
export function multipartFile(
  field: string,
  filename: string,
  content: Buffer,
): { body: Buffer; contentType: string } {
  const boundary = randomBytes(30).toString('hex');
  const head =
    `--${boundary}\r\n` +
    `Content-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
    'Content-Type: application/x-gzip\r\n\r\n';
  return {
    body: Buffer.concat([Buffer.from(head), content, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}
