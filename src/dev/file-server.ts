// Serves one file at /rhcos.iso on loopback: what an AgentServiceConfig osImages url points at in
// tests and in the local demo (Range is not needed: the base image cache downloads it whole).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function serveFile(
  path: string,
): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  const size = (await stat(path)).size;
  let count = 0;
  const server: Server = createServer((req, res) => {
    count++;
    if (req.url !== '/rhcos.iso') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-length': String(size), 'content-type': 'application/octet-stream' });
    createReadStream(path).pipe(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/rhcos.iso`,
    requests: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
