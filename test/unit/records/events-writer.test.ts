// The writer of installer events: several writes in flight at once (a 1,000-host wave records
// about 3,000 events in 20 s; one write at a time fell behind a busy API server and dropped a
// third of them), flush waits for all of them, a transient failure is retried, and every dropped
// event is counted in aio_events_dropped_total and reported in a log line (at most one per interval).
import { describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import type { ApiEvent } from '../../../src/core/event-model.ts';
import type { OperatorContext } from '../../../src/records/context.ts';
import { OperatorEvents } from '../../../src/records/events.ts';
import { ApiError } from '../../../src/runtime/client.ts';
import { RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import { capturingLogger } from '../../harness/log-capture.ts';

const IE = '22222222-0000-4000-8000-000000000002';
const host = (i: number) => `11111111-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** A context whose client holds every create until the test settles it. */
function writerContext() {
  const { logger, lines } = capturingLogger();
  // settle(true) stores the Event, settle(false) fails it with an error of no particular kind.
  const held: { body: { reason?: string }; settle: (outcome: boolean | Error) => void }[] = [];
  const metrics = new RuntimeMetrics();
  const infraEnv = { kind: 'InfraEnv', metadata: { name: 'ie', namespace: 'ns', uid: IE } } as InfraEnv;
  const ctx = {
    logger,
    infraEnvById: (id: string) => (id === IE ? infraEnv : undefined),
    clusterDeploymentById: () => undefined,
    informers: {
      agents: {
        get: (_ns: string, name: string) =>
          ({ kind: 'Agent', metadata: { name, namespace: 'ns', uid: `u-${name}` } }) as Agent,
      },
    },
    mgr: { metrics },
    client: {
      create: (_res: unknown, body: { reason?: string }) =>
        new Promise<void>((resolve, reject) => {
          held.push({
            body,
            settle: (outcome) =>
              outcome === true ? resolve() : reject(outcome || new Error('etcdserver: timeout')),
          });
        }),
    },
  } as unknown as OperatorContext;
  return { ctx, lines, held, metrics };
}

function event(i: number): ApiEvent {
  return {
    name: 'host_validation_fixed',
    severity: 'info',
    category: 'user',
    message: `Host h-${i}: validation 'has-inventory' is now fixed`,
    event_time: '2026-11-29T00:00:00.000Z',
    host_id: host(i),
    infra_env_id: IE,
  };
}

async function droppedBy(metrics: RuntimeMetrics): Promise<Record<string, number>> {
  const { values } = await metrics.eventsDropped.get();
  return Object.fromEntries(values.map((v) => [String(v.labels.reason), v.value]));
}

const turn = () => new Promise((r) => setImmediate(r));

/** Turns of the event loop (timers included) until `done`, at most a second's worth. */
async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(done()).toBe(true);
}

describe('OperatorEvents writer', () => {
  it('keeps up to `concurrency` writes in flight and flushes once all are written', async () => {
    const { ctx, held } = writerContext();
    const events = new OperatorEvents(ctx, { concurrency: 4 });
    for (let i = 0; i < 10; i++) events.record(event(i));
    await turn();
    expect(held).toHaveLength(4);
    let flushed = false;
    const flushing = events.flush().then(() => {
      flushed = true;
    });
    for (let written = 0; written < 10; written++) {
      held[written]!.settle(true);
      await turn();
      expect(held.length).toBe(Math.min(10, written + 5));
    }
    await flushing;
    expect(flushed).toBe(true);
    expect(events.dropped).toBe(0);
  });

  it('counts and logs what it drops: a full backlog, then a failed write', async () => {
    const { ctx, held, lines, metrics } = writerContext();
    const events = new OperatorEvents(ctx, { concurrency: 2, maxPending: 5, dropLogIntervalMs: 60_000 });
    for (let i = 0; i < 8; i++) events.record(event(i));
    await turn();
    expect(held).toHaveLength(2);
    expect(await droppedBy(metrics)).toEqual({ backlog: 3 });
    // One line for the first drop; the next two wait for the interval.
    const dropLines = lines.filter((l) => String(l.msg).startsWith('events not stored'));
    expect(dropLines).toEqual([
      expect.objectContaining({
        msg: 'events not stored: the backlog of event writes is full',
        reason: 'backlog',
        dropped: 1,
        limit: 5,
      }),
    ]);
    held[0]!.settle(false);
    await turn();
    expect(await droppedBy(metrics)).toEqual({ backlog: 3, api_error: 1 });
    expect(lines.some((l) => l.msg === 'could not record event' && l.reason === 'HostValidationFixed')).toBe(
      true,
    );
    // The rest are written; settling a write lets the next queued one start.
    for (let i = 1; i < held.length; i++) {
      held[i]!.settle(true);
      await turn();
    }
    await events.flush();
    expect(held).toHaveLength(5);
    expect(events.dropped).toBe(4);
  });

  it('sends a write again after a transient failure; a retry answered AlreadyExists was stored', async () => {
    const { ctx, held, lines, metrics } = writerContext();
    const events = new OperatorEvents(ctx, { retryDelaysMs: [0, 0] });
    for (let i = 0; i < 3; i++) events.record(event(i));
    await turn();
    expect(held).toHaveLength(3);
    // No answer, an overloaded server, a refusal: only the first two are worth another try.
    held[0]!.settle(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    held[1]!.settle(new ApiError(503, undefined, 'the server is currently unable to handle the request'));
    held[2]!.settle(new ApiError(403, undefined, 'events is forbidden'));
    await until(() => held.length === 5);
    expect(held[3]!.body).toBe(held[0]!.body);
    expect(held[4]!.body).toBe(held[1]!.body);
    held[3]!.settle(true);
    held[4]!.settle(new ApiError(409, { reason: 'AlreadyExists' } as never, 'already exists'));
    await events.flush();
    expect(held).toHaveLength(5);
    expect(await droppedBy(metrics)).toEqual({ api_error: 1 });
    expect(events.dropped).toBe(1);
    expect(lines.filter((l) => l.msg === 'could not record event')).toEqual([
      expect.objectContaining({ attempts: 1, err: 'ApiError: events is forbidden' }),
    ]);
  });

  it('drops a write after its last retry and counts it once', async () => {
    const { ctx, held, metrics } = writerContext();
    const events = new OperatorEvents(ctx, { retryDelaysMs: [0] });
    events.record(event(0));
    await turn();
    held[0]!.settle(new ApiError(500, undefined, 'etcdserver: request timed out'));
    await until(() => held.length === 2);
    let flushed = false;
    const flushing = events.flush().then(() => {
      flushed = true;
    });
    await turn();
    // Still pending while its retry is in flight.
    expect(flushed).toBe(false);
    held[1]!.settle(new ApiError(500, undefined, 'etcdserver: request timed out'));
    await flushing;
    expect(held).toHaveLength(2);
    expect(await droppedBy(metrics)).toEqual({ api_error: 1 });
  });

  it('never throws, even when the client throws before sending', async () => {
    const { ctx, metrics } = writerContext();
    (ctx.client as { create: unknown }).create = () => {
      throw new Error('invalid object');
    };
    const events = new OperatorEvents(ctx);
    expect(() => events.record(event(0))).not.toThrow();
    await events.flush();
    expect(await droppedBy(metrics)).toEqual({ api_error: 1 });
  });
});
