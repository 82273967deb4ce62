// What one request costs a Node thread on this box at this moment, with nothing of the operator in
// it: a bare node:http server on a worker thread of its own answers every request with the same
// JSON, while the driver plays the idle hosts' polls against it (same hosts, rate and client). The
// idle phase prints the operator's CPU per poll as a multiple of it, a figure that, unlike CPU
// seconds, holds from a fast day of the box to a slow one.
import { createServer } from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { IdleResult } from './fleet-driver.ts';

/** About the size of a discovered host's next steps (four steps with their arguments). */
const ANSWER = `${JSON.stringify({
  next_instruction_seconds: 60,
  post_step_action: 'continue',
  instructions: ['inventory', 'free-network-addresses', 'ntp-synchronizer', 'domain-resolution'].map((t) => ({
    step_type: t,
    step_id: `${t}-0a1b2c3d`,
    args: [JSON.stringify({ note: 'x'.repeat(120) })],
  })),
})}\n`;

interface Spent {
  cpuSeconds: number;
  requests: number;
}

export interface HttpFloor {
  seconds: number;
  requests: number;
  failures: Record<string, number>;
  /** The bare server's thread CPU per request. */
  cpuMicrosPerRequest: number;
}

/** The driver's idle polls, `seconds` long, against a bare server; its thread's CPU per request. */
export async function measureHttpFloor(
  driver: {
    idle(
      seconds: number,
      intervalSeconds: number,
      base: string,
    ): Promise<Pick<IdleResult, 'seconds' | 'failures'>>;
  },
  seconds: number,
  intervalSeconds: number,
): Promise<HttpFloor> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { bareHttp: { body: ANSWER } } });
  try {
    const base = await nextMessage<string>(worker);
    const polls = await driver.idle(seconds, intervalSeconds, base);
    worker.postMessage('stop');
    const spent = await nextMessage<Spent>(worker);
    return {
      seconds: polls.seconds,
      requests: spent.requests,
      failures: polls.failures,
      cpuMicrosPerRequest: (spent.cpuSeconds / Math.max(1, spent.requests)) * 1e6,
    };
  } finally {
    await worker.terminate();
  }
}

function nextMessage<T>(worker: Worker): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

/** The worker: listens, answers its port, and on 'stop' reports what its thread spent since. */
function serveBare(body: string): void {
  const port = parentPort!;
  let requests = 0;
  const server = createServer((_req, res) => {
    requests++;
    res.writeHead(200, {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => {
    const since = process.threadCpuUsage();
    const address = server.address();
    port.postMessage(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`);
    port.once('message', () => {
      const u = process.threadCpuUsage(since);
      port.postMessage({ cpuSeconds: (u.user + u.system) / 1e6, requests } satisfies Spent);
      server.close();
      server.closeAllConnections();
    });
  });
}

if (!isMainThread && (workerData as { bareHttp?: { body: string } } | undefined)?.bareHttp) {
  serveBare((workerData as { bareHttp: { body: string } }).bareHttp.body);
}
