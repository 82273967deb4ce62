// The REST server of `make bench-abuse`, in its own process so its peak RSS is its own: the real
// createApiServer (limits, budgets, routes, multipart, step decoding) with a backend that does
// what the operator's does with the bytes — uploads streamed to a file, the all-logs archive
// streamed from files, step replies read and decoded — without the control plane.
// Usage: node bench/abuse-server.ts <data dir>; prints the port on its first line.
import { createWriteStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pino } from 'pino';
import type { Authenticator } from '../src/auth/types.ts';
import { createApiServer, done, type HostApiBackend, ok } from '../src/server/api/index.ts';
import { tarStream, tarStreamSize } from '../src/util/tar.ts';

const dir = process.argv[2] ?? '/tmp';
let uploads = 0;

const backend = {
  async postStepReply() {
    // The route has read and decoded the reply. What the operator keeps per host afterwards is the
    // fleet's size, not the abuse's (facts are replaced, not accumulated, on each reply).
    return done();
  },
  async uploadLogs(_call, input) {
    await pipeline(input.file.stream, createWriteStream(join(dir, `upload-${uploads++ % 4}.bin`)));
    return done();
  },
  async downloadClusterLogs() {
    const logs = join(dir, 'logs');
    const entries = [];
    for (const name of (await readdir(logs)).sort()) {
      const info = await stat(join(logs, name));
      entries.push({ name, path: join(logs, name), size: info.size, mtime: info.mtime });
    }
    return ok({ content: tarStream(entries), size: tarStreamSize(entries), fileName: 'logs.tar' });
  },
} as Partial<HostApiBackend> as HostApiBackend;

const principal = { kind: 'agent' } as never;
const auth: Authenticator = {
  authenticate: async () => ({ ok: true, principal }),
  authorize: async () => ({ ok: true, principal }),
} as unknown as Authenticator;

const server = createApiServer({ backend, auth, logger: pino({ level: 'silent' }) });
const address = await server.listen(0, '127.0.0.1');
console.log(address.port);
