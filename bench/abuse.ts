// `make bench-abuse`: the REST server's peak RSS under N concurrent maximum-size requests of each
// memory-heavy kind — step replies (2 MiB bodies that decode), log uploads (streamed to disk) and
// all-logs downloads (an archive streamed from files). Prints figures; asserts nothing (the target,
// peak RSS <= 512 MiB with 100 concurrent maximum-size requests, is read off the output).
// Bounded: sizes default small enough for a shared machine; raise them with the variables below.
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { DEFAULT_LIMITS } from '../src/server/api/index.ts';

const N = Number(process.env.BENCH_ABUSE_N ?? 100);
/** Each upload's size (the limit is 250 MiB; memory does not grow with it, disk time does). */
const UPLOAD_MIB = Number(process.env.BENCH_ABUSE_UPLOAD_MIB ?? 8);
/** The log set served by every download (sparse files: cheap to create). */
const LOGSET_MIB = Number(process.env.BENCH_ABUSE_LOGSET_MIB ?? 64);

const IE = '11111111-1111-4111-8111-111111111111';
const CLUSTER = '33333333-3333-4333-8333-333333333333';

function line(name: string, value: string): void {
  console.log(`${name.padEnd(56)} ${value}`);
}

async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

async function rss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

/** A valid free-addresses reply just under the step-reply limit (it is decoded like a real one). */
function maxStepReply(): string {
  const ips: string[] = [];
  for (let i = 0; i < 200_000; i++) ips.push(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
  const reply = (list: string[]) =>
    JSON.stringify({
      step_type: 'free-network-addresses',
      step_id: 'f-1',
      exit_code: 0,
      output: JSON.stringify([{ network: '10.0.0.0/8', free_addresses: list }]),
    });
  let text = reply(ips);
  // Shrink to just under the limit (the output is escaped inside the body, so measure the body).
  while (text.length > DEFAULT_LIMITS.stepReplyBytes - 4096) {
    ips.length = Math.floor(
      ips.length * Math.min(0.99, (DEFAULT_LIMITS.stepReplyBytes - 4096) / text.length),
    );
    text = reply(ips);
  }
  return text;
}

function upload(size: number): Readable {
  const head = Buffer.from(
    '--b\r\ncontent-disposition: form-data; name="upfile"; filename="l.tar.gz"\r\n\r\n',
  );
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  return Readable.from(
    (async function* () {
      yield head;
      for (let sent = 0; sent < size; sent += chunk.length) yield chunk;
      yield Buffer.from('\r\n--b--\r\n');
    })(),
  );
}

async function phase(pid: number, what: string, fire: (i: number) => Promise<number>): Promise<void> {
  const started = performance.now();
  const statuses = await Promise.all(Array.from({ length: N }, (_, i) => fire(i)));
  const counts = new Map<number, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  const summary = [...counts].map(([s, c]) => `${c}x${s}`).join(' ');
  line(
    `${N} concurrent ${what}`,
    `${((performance.now() - started) / 1000).toFixed(1)} s, ${summary}, peak RSS so far ${(
      (await peakRss(pid)) / 1024 / 1024
    ).toFixed(0)} MiB`,
  );
}

const dir = await mkdtemp(join(tmpdir(), 'bench-abuse-'));
const child = spawn(process.execPath, ['bench/abuse-server.ts', dir], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
try {
  const port = await new Promise<number>((resolve) =>
    child.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
  );
  const base = `http://127.0.0.1:${port}/api/assisted-install/v2`;
  const pid = child.pid ?? 0;
  await mkdir(join(dir, 'logs'));
  for (let i = 0; i < 4; i++) {
    const file = join(dir, 'logs', `host-${i}.tar.gz`);
    await writeFile(file, '');
    await truncate(file, (LOGSET_MIB / 4) * 1024 * 1024);
  }
  line('server RSS at start', `${((await rss(pid)) / 1024 / 1024).toFixed(0)} MiB`);

  const reply = maxStepReply();
  line('step reply size', `${(reply.length / 1024 / 1024).toFixed(2)} MiB`);
  await phase(pid, 'maximum-size step replies', async (i) => {
    const host = `55555555-5555-4555-8555-${i.toString(16).padStart(12, '0')}`;
    const res = await request(`${base}/infra-envs/${IE}/hosts/${host}/instructions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: reply,
    });
    await res.body.dump();
    return res.statusCode;
  });

  await phase(pid, `log uploads of ${UPLOAD_MIB} MiB`, async () => {
    const res = await request(`${base}/clusters/${CLUSTER}/logs?logs_type=controller`, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      body: upload(UPLOAD_MIB * 1024 * 1024),
    });
    await res.body.dump();
    return res.statusCode;
  });

  await phase(pid, `downloads of a ${LOGSET_MIB} MiB log set`, async () => {
    const res = await request(`${base}/clusters/${CLUSTER}/logs`, { method: 'GET' });
    let bytes = 0;
    for await (const chunk of res.body) bytes += (chunk as Buffer).length;
    return bytes === LOGSET_MIB * 1024 * 1024 + 4 * 512 + 1024 ? res.statusCode : -res.statusCode;
  });

  const peak = await peakRss(pid);
  line('server peak RSS', `${(peak / 1024 / 1024).toFixed(0)} MiB (target <= 512 MiB)`);
} finally {
  child.kill();
  await rm(dir, { recursive: true, force: true });
}
