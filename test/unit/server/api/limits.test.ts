// Bounded input on the REST API: a size limit per body kind (413 naming the limit), deep nesting
// refused (400), slow bodies cut (408), large bodies, uploads and downloads bounded in concurrency,
// the connection count capped. Plus the pure helpers behind them.
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_LIMITS, done, ok } from '../../../../src/server/api/index.ts';
import { Budget, HEAVY_WORK_BYTES, jsonTooDeep, LoopTurns } from '../../../../src/server/api/limits.ts';
import { capForLog } from '../../../../src/util/log-text.ts';
import {
  API,
  CLUSTER_1,
  call,
  callsTo,
  expectErrorShape,
  HOST_A1,
  IE_A,
  startTestServer,
  type TestServer,
} from './helpers.ts';

let t: TestServer;
afterEach(async () => {
  await t?.close();
});

const HOST = `${API}/infra-envs/${IE_A}/hosts/${HOST_A1}`;
const KiB = 1024;

function nested(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

describe('a size limit per body kind', () => {
  const cases = [
    {
      kind: 'event',
      method: 'POST',
      path: `${API}/events`,
      limit: DEFAULT_LIMITS.eventBytes,
      body: (pad: string) => ({
        severity: 'info',
        message: pad,
        event_time: '2026-01-01T00:00:00Z',
        cluster_id: CLUSTER_1,
      }),
    },
    {
      kind: 'install progress',
      method: 'PUT',
      path: `${HOST}/progress`,
      limit: DEFAULT_LIMITS.smallBodyBytes,
      body: (pad: string) => ({ current_stage: 'Installing', progress_info: pad }),
    },
    {
      kind: 'logs progress',
      method: 'PUT',
      path: `${HOST}/logs-progress`,
      limit: DEFAULT_LIMITS.smallBodyBytes,
      body: (pad: string) => ({ logs_state: 'completed', pad }),
    },
    {
      kind: 'registration',
      method: 'POST',
      path: `${API}/infra-envs/${IE_A}/hosts`,
      limit: DEFAULT_LIMITS.smallBodyBytes,
      body: (pad: string) => ({ host_id: HOST_A1, discovery_agent_version: pad }),
    },
    {
      kind: 'step reply',
      method: 'POST',
      path: `${HOST}/instructions`,
      limit: DEFAULT_LIMITS.stepReplyBytes,
      body: (pad: string) => ({ step_type: 'free-network-addresses', exit_code: 1, output: pad }),
    },
  ];

  it.each(cases)('$kind: accepted under its limit, 413 naming the limit over it', async (c) => {
    t = await startTestServer();
    const over = await call(t, c.method, c.path, { body: c.body('x'.repeat(c.limit)) });
    expect(expectErrorShape(over, 413).reason).toBe(
      `request body is larger than the limit of ${c.limit} bytes`,
    );
    const under = await call(t, c.method, c.path, { body: c.body('x'.repeat(c.limit - 512)) });
    expect(under.status).toBeLessThan(300);
  });

  it('the documented limits', () => {
    expect(DEFAULT_LIMITS).toMatchObject({
      stepReplyBytes: 2 * 1024 * KiB,
      inventoryBytes: 192 * KiB,
      eventBytes: 64 * KiB,
      smallBodyBytes: 64 * KiB,
      logsUploadBytes: 262_144_000 + 1024 * KiB,
      bodyTimeoutMs: 60_000,
      uploadIdleTimeoutMs: 60_000,
    });
  });
});

describe('step replies over a limit', () => {
  it('an oversized body is refused 413 and the host is told why (stepReplyRefused)', async () => {
    t = await startTestServer({ limits: { stepReplyBytes: 64 * KiB } });
    const reply = await call(t, 'POST', `${HOST}/instructions`, {
      body: { step_type: 'inventory', output: 'x'.repeat(70 * KiB) },
    });
    expectErrorShape(reply, 413);
    expect(callsTo(t, 'postStepReply')).toEqual([]);
    expect(callsTo(t, 'stepReplyRefused')[0]?.args[1]).toEqual({
      infraEnvId: IE_A,
      hostId: HOST_A1,
      reason: 'step reply refused: request body is larger than the limit of 65536 bytes',
    });
  });

  it('an inventory larger than the Agent can store is refused 413 naming the inventory limit', async () => {
    t = await startTestServer();
    const disks = Array.from({ length: 10_000 }, (_, i) => ({
      name: `sd${i}`,
      path: `/dev/sd${i}`,
      model: 'model-name-x',
    }));
    const output = JSON.stringify({ hostname: 'big', disks });
    expect(output.length).toBeGreaterThan(DEFAULT_LIMITS.inventoryBytes);
    const reply = await call(t, 'POST', `${HOST}/instructions`, { body: { step_type: 'inventory', output } });
    const reason = `inventory of ${output.length} bytes is larger than the limit of ${DEFAULT_LIMITS.inventoryBytes} bytes; the host's inventory is not updated`;
    expect(expectErrorShape(reply, 413).reason).toBe(reason);
    expect(callsTo(t, 'postStepReply')).toEqual([]);
    expect(callsTo(t, 'stepReplyRefused')[0]?.args[1]).toMatchObject({
      reason: `inventory reply refused: ${reason}`,
    });
  });
});

describe('deep nesting is a bad request, not a crash', () => {
  it('400 for a body nesting past the limit', async () => {
    t = await startTestServer();
    const completion = await call(t, 'POST', `${API}/clusters/${CLUSTER_1}/actions/complete-installation`, {
      rawBody: `{"is_success":true,"data":{"x":${nested(100_000)}}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(expectErrorShape(completion, 400).reason).toBe(
      'completion-params body nests deeper than 64 levels',
    );
    const event = await call(t, 'POST', `${API}/events`, {
      rawBody: `{"severity":"info","message":"m","event_time":"2026-01-01T00:00:00Z","x":${nested(20_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(expectErrorShape(event, 400).reason).toBe('event body nests deeper than 64 levels');
    expect(callsTo(t, 'completeInstallation')).toEqual([]);
    expect(callsTo(t, 'triggerEvent')).toEqual([]);
  });

  it('400 for a step output nesting past the limit', async () => {
    t = await startTestServer();
    const reply = await call(t, 'POST', `${HOST}/instructions`, {
      body: { step_type: 'inventory', output: `{"hostname":"h","disks":${nested(50_000)}}` },
    });
    expect(expectErrorShape(reply, 400).reason).toBe('inventory output nests deeper than 64 levels');
    expect(callsTo(t, 'postStepReply')).toEqual([]);
  });
});

/** Sends the head and part of a body, then stalls; resolves with what the server answered. */
function stalledRequest(t: TestServer, path: string, sent: string, declared: number): Promise<string> {
  const url = new URL(t.base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n` +
          `x-secret-key: ${t.token()}\r\ncontent-length: ${declared}\r\n\r\n${sent}`,
      );
    });
    let answer = '';
    socket.on('data', (d) => {
      answer += d.toString();
    });
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    // Far below the server's whole-request timeout (10 min), far above the body timeout tested.
    setTimeout(() => {
      socket.destroy();
      resolve(`no answer: ${answer}`);
    }, 4000).unref();
  });
}

describe('slow bodies are cut', () => {
  it('a JSON body not received within the body timeout: 408 and the connection closed', async () => {
    t = await startTestServer({ limits: { bodyTimeoutMs: 300 } });
    const started = Date.now();
    const answer = await stalledRequest(t, `${HOST}/instructions`, '{"step_type":"inv', 200);
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(answer).toContain('"reason":"request body was not received within 300 ms"');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('a log upload stalling longer than the idle timeout: 408', async () => {
    t = await startTestServer({ limits: { uploadIdleTimeoutMs: 300 } });
    const url = new URL(t.base);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST ${API}/clusters/${CLUSTER_1}/logs?logs_type=controller HTTP/1.1\r\nhost: x\r\n` +
            `content-type: multipart/form-data; boundary=b\r\nx-secret-key: ${t.token()}\r\n` +
            'transfer-encoding: chunked\r\n\r\n',
        );
        const part = '--b\r\ncontent-disposition: form-data; name="upfile"; filename="l.tgz"\r\n\r\nabc';
        socket.write(`${part.length.toString(16)}\r\n${part}\r\n`);
      });
      let text = '';
      socket.on('data', (d) => {
        text += d.toString();
      });
      socket.on('close', () => resolve(text));
      setTimeout(() => {
        socket.destroy();
        resolve(`no answer: ${text}`);
      }, 4000).unref();
    });
    expect(answer).toMatch(/^HTTP\/1.1 408/);
    expect(answer).toContain('request body stalled: no data for 300 ms');
  });
});

describe('concurrency of memory-heavy requests', () => {
  /** A backend method that counts how many calls run at once. */
  function gauge<T>(value: T) {
    const g = { now: 0, max: 0 };
    const impl = async () => {
      g.max = Math.max(g.max, ++g.now);
      await sleep(50);
      g.now--;
      return value;
    };
    return { g, impl };
  }

  it('large step replies wait for room in the byte budget; small ones do not', async () => {
    const { g, impl } = gauge(done());
    t = await startTestServer({
      overrides: { postStepReply: impl },
      limits: { largeBodyBytes: 300 * KiB, largeBodyThreshold: 64 * KiB },
    });
    const big = { step_type: 'free-network-addresses', exit_code: 1, output: 'x'.repeat(200 * KiB) };
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => call(t, 'POST', `${HOST}/instructions`, { body: big })),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(6).fill(204));
    expect(g.max).toBe(1);

    g.max = 0;
    const small = { step_type: 'free-network-addresses', exit_code: 1, output: 'x'.repeat(KiB) };
    await Promise.all(
      Array.from({ length: 6 }, () => call(t, 'POST', `${HOST}/instructions`, { body: small })),
    );
    expect(g.max).toBe(6);
  });

  it('streamed downloads are served a few at a time', async () => {
    const reading = { now: 0, max: 0 };
    // Counts streams being read (the generator starts on the first read).
    const stream = () =>
      Readable.from(
        (async function* () {
          reading.max = Math.max(reading.max, ++reading.now);
          await sleep(50);
          yield Buffer.alloc(1024, 1);
          reading.now--;
        })(),
      );
    t = await startTestServer({
      limits: { downloads: 2 },
      overrides: { downloadClusterLogs: async () => ok({ content: stream(), fileName: 'l.tar' }) },
    });
    const logs = t.auth.issueUrlToken('cluster-logs', { kind: 'cluster', id: CLUSTER_1 }).token;
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(t, 'GET', `${API}/clusters/${CLUSTER_1}/logs?api_key=${logs}`, { token: null }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(replies.every((r) => r.text.length === 1024)).toBe(true);
    expect(reading.max).toBe(2);
  });

  it('log uploads are streamed a few at a time', async () => {
    const { g, impl } = gauge(done());
    t = await startTestServer({
      limits: { logUploads: 2 },
      overrides: {
        uploadLogs: async (...args) => {
          const input = args[1] as { file: { stream: Readable } };
          for await (const _ of input.file.stream) {
            // drain
          }
          return impl();
        },
      },
    });
    const body = `--b\r\ncontent-disposition: form-data; name="upfile"; filename="l.tgz"\r\n\r\nabc\r\n--b--\r\n`;
    const replies = await Promise.all(
      Array.from({ length: 6 }, () =>
        call(t, 'POST', `${API}/clusters/${CLUSTER_1}/logs?logs_type=controller`, {
          rawBody: body,
          headers: { 'content-type': 'multipart/form-data; boundary=b' },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(6).fill(204));
    expect(g.max).toBe(2);
  });
});

describe('heavy bodies and replies take a turn of the event loop each', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('a step reply over the heavy size waits for a turn; a small one does not', async () => {
    const take = vi.spyOn(LoopTurns.prototype, 'take');
    t = await startTestServer();
    const reply = (bytes: number) => ({
      step_type: 'free-network-addresses',
      exit_code: 1,
      output: 'x'.repeat(bytes),
    });
    expect((await call(t, 'POST', `${HOST}/instructions`, { body: reply(KiB) })).status).toBe(204);
    expect(take).not.toHaveBeenCalled();
    expect((await call(t, 'POST', `${HOST}/instructions`, { body: reply(HEAVY_WORK_BYTES) })).status).toBe(
      204,
    );
    expect(take).toHaveBeenCalledTimes(1);
    expect(callsTo(t, 'postStepReply')).toHaveLength(2);
  });

  it('instructions whose arguments are over the heavy size are serialised in a turn of their own', async () => {
    const take = vi.spyOn(LoopTurns.prototype, 'take');
    let arg = 'x';
    t = await startTestServer({
      overrides: {
        getNextSteps: async () =>
          ok({
            next_instruction_seconds: 10,
            post_step_action: 'continue',
            instructions: [{ step_type: 'connectivity-check', step_id: 'connectivity-check-1', args: [arg] }],
          }),
      },
    });
    expect((await call(t, 'GET', `${HOST}/instructions`)).status).toBe(200);
    expect(take).not.toHaveBeenCalled();
    arg = 'y'.repeat(HEAVY_WORK_BYTES + 1);
    const heavy = await call(t, 'GET', `${HOST}/instructions`);
    expect(heavy.status).toBe(200);
    expect((heavy.json as { instructions: { args: string[] }[] }).instructions[0]?.args[0]).toBe(arg);
    expect(take).toHaveBeenCalledTimes(1);
  });
});

describe('connections', () => {
  it('connections beyond the cap are closed on accept; the others are served', async () => {
    t = await startTestServer({ maxConnections: 2 });
    const url = new URL(t.base);
    const open = () =>
      new Promise<{ closed: Promise<void> }>((resolve) => {
        const socket = connect(Number(url.port), url.hostname, () =>
          resolve({ closed: new Promise((r) => socket.once('close', () => r())) }),
        );
        socket.on('error', () => {});
      });
    const first = await open();
    const second = await open();
    const third = await open();
    // The third is closed by the server at once; the first two stay open.
    await third.closed;
    let kept = true;
    void first.closed.then(() => (kept = false));
    void second.closed.then(() => (kept = false));
    expect(kept).toBe(true);
  });
});

describe('pure helpers', () => {
  it.each([
    ['flat object', '{"a":1}', 1, false],
    ['at the limit', nested(3), 3, false],
    ['past the limit', nested(4), 3, true],
    ['brackets inside strings do not count', '{"a":"[[[[[[[[[["}', 2, false],
    ['escaped quotes keep the string open', '{"a":"\\"[[[[[["}', 2, false],
    ['objects and arrays mixed', '{"a":[{"b":[1]}]}', 3, true],
  ])('jsonTooDeep: %s', (_name, text, max, expected) => {
    expect(jsonTooDeep(text, max)).toBe(expected);
  });

  it.each([
    ['short', 'abc', 5, 'abc'],
    ['exactly the limit', 'abcde', 5, 'abcde'],
    ['over the limit', 'abcdefgh', 5, 'abcde… (3 more characters)'],
    ['not a string', 12345678, 4, '1234… (4 more characters)'],
  ])('capForLog: %s', (_name, value, max, expected) => {
    expect(capForLog(value, max)).toBe(expected);
  });

  it('LoopTurns: one grant per turn, in order, with timers and I/O between two grants', async () => {
    const turns = new LoopTurns();
    const order: string[] = [];
    const work = (name: string) =>
      turns.take().then(() => {
        order.push(name);
        if (name !== 'first') return;
        // A timer that is due while the first piece of work runs fires before the second starts.
        setTimeout(() => order.push('timer'), 1);
        const until = performance.now() + 5;
        while (performance.now() < until) {
          // the first piece of work, busy past the timer's due time
        }
      });
    const all = Promise.all([work('first'), work('second'), work('third')]);
    expect(turns.queued).toBe(3);
    await all;
    expect(order).toEqual(['first', 'timer', 'second', 'third']);
    expect(turns.queued).toBe(0);
  });

  it('Budget: first come first served, a large ask waits without blocking forever', async () => {
    const b = new Budget(10);
    const r1 = await b.acquire(6);
    const order: string[] = [];
    const p2 = b.acquire(6).then((r) => {
      order.push('second');
      return r;
    });
    const p3 = b.acquire(1).then((r) => {
      order.push('third');
      return r;
    });
    await sleep(5);
    expect(order).toEqual([]);
    expect(b.queued).toBe(2);
    r1();
    r1();
    const r2 = await p2;
    const r3 = await p3;
    expect(order).toEqual(['second', 'third']);
    expect(b.inUse).toBe(7);
    r2();
    r3();
    const all = await b.acquire(100);
    expect(b.inUse).toBe(10);
    all();
    expect(b.inUse).toBe(0);
  });
});
