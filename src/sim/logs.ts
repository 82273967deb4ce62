// The log bundle a simulated host uploads (logs_sender, agent-api.md §1.2): a small but valid
// tar.gz sent as the multipart field `upfile`, as the go-openapi client sends file parameters.

import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { tarArchive } from '../util/tar.ts';

/** The logs a host would collect: journal excerpts named like the real logs_sender's. */
export async function hostLogsTarGz(
  hostId: string,
  hostname: string,
  what: 'host' | 'controller',
): Promise<Buffer> {
  const now = new Date();
  const stamp = now.toISOString();
  const files =
    what === 'host'
      ? [
          {
            name: `${hostname}_agent.logs`,
            content: `${stamp} agent-install-sim: host ${hostId} agent log\n`,
          },
          { name: `${hostname}_installer.logs`, content: `${stamp} agent-install-sim: installer log\n` },
        ]
      : [
          {
            name: 'assisted-installer-controller.logs',
            content: `${stamp} agent-install-sim: controller log\n`,
          },
        ];
  return gzipSync(
    await tarArchive(files.map((f) => ({ name: f.name, content: Buffer.from(f.content), mtime: now }))),
  );
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
