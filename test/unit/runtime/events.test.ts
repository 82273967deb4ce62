import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ApiError, type KubeClient } from '../../../src/runtime/client.ts';
import { EventRecorder } from '../../../src/runtime/events.ts';
import { metricValue, RuntimeMetrics } from '../../../src/runtime/metrics.ts';
import type { KubeObject } from '../../../src/runtime/types.ts';

const logger = pino({ level: 'silent' });

interface Call {
  op: 'create' | 'patch';
  name: string;
  body: Record<string, unknown>;
}

function fakeClient(opts: { patchNotFound?: boolean; fail?: boolean } = {}) {
  const calls: Call[] = [];
  const client = {
    async create(_r: unknown, obj: KubeObject) {
      if (opts.fail) throw new Error('apiserver down');
      calls.push({ op: 'create', name: obj.metadata.name!, body: obj as unknown as Record<string, unknown> });
      return obj;
    },
    async patch(_r: unknown, name: string, _ns: string, _type: string, body: Record<string, unknown>) {
      if (opts.patchNotFound) throw new ApiError(404, { reason: 'NotFound' }, 'gone');
      calls.push({ op: 'patch', name, body });
      return {};
    },
  } as unknown as KubeClient;
  return { client, calls };
}

const agent: KubeObject = {
  apiVersion: 'agent-install.openshift.io/v1beta1',
  kind: 'Agent',
  metadata: { name: 'a1', namespace: 'ns', uid: 'u1', resourceVersion: '7' },
};

describe('EventRecorder', () => {
  it('creates an Event once and bumps count on repeats of the same reason and message', async () => {
    const { client, calls } = fakeClient();
    let now = Date.parse('2026-03-01T00:00:00Z');
    const rec = new EventRecorder({ client, component: 'op', host: 'h', logger, now: () => now });
    rec.event(agent, 'Normal', 'Registered', 'host registered');
    now += 5000;
    rec.event(agent, 'Normal', 'Registered', 'host registered');
    rec.event(agent, 'Normal', 'Registered', 'host registered');
    rec.event(agent, 'Warning', 'Registered', 'host registered'); // different type: new Event
    await rec.flush();
    expect(calls.map((c) => c.op)).toEqual(['create', 'patch', 'patch', 'create']);
    const created = calls[0]!.body;
    expect(created).toMatchObject({
      metadata: { namespace: 'ns' },
      involvedObject: {
        kind: 'Agent',
        name: 'a1',
        namespace: 'ns',
        uid: 'u1',
        apiVersion: 'agent-install.openshift.io/v1beta1',
      },
      type: 'Normal',
      reason: 'Registered',
      message: 'host registered',
      count: 1,
      source: { component: 'op', host: 'h' },
      firstTimestamp: '2026-03-01T00:00:00Z',
    });
    expect(calls[0]!.name).toMatch(/^a1\.[0-9a-f]+$/);
    expect(calls[1]).toMatchObject({
      name: calls[0]!.name,
      body: { count: 2, lastTimestamp: '2026-03-01T00:00:05Z' },
    });
    expect(calls[2]!.body.count).toBe(3);
  });

  it('starts a new Event when the aggregated one has expired', async () => {
    const { client, calls } = fakeClient({ patchNotFound: true });
    const rec = new EventRecorder({ client, component: 'op', logger });
    rec.event(agent, 'Normal', 'R', 'm');
    rec.event(agent, 'Normal', 'R', 'm');
    await rec.flush();
    expect(calls.map((c) => c.op)).toEqual(['create', 'create']);
  });

  it('drops events beyond the per-object burst, refilling over time', async () => {
    const { client, calls } = fakeClient();
    const metrics = new RuntimeMetrics();
    let now = 0;
    const rec = new EventRecorder({
      client,
      component: 'op',
      logger,
      metrics,
      burst: 3,
      refillIntervalMs: 60_000,
      now: () => now,
    });
    for (let i = 0; i < 10; i++) rec.event(agent, 'Normal', 'R', `m${i}`);
    const other = { ...agent, metadata: { ...agent.metadata, name: 'a2', uid: 'u2' } };
    rec.event(other, 'Normal', 'R', 'x'); // separate bucket
    await rec.flush();
    expect(calls).toHaveLength(4);
    expect(await metricValue(metrics.eventsDropped, { reason: 'rate_limited' })).toBe(7);
    now += 60_000;
    rec.event(agent, 'Normal', 'R', 'later');
    await rec.flush();
    expect(calls).toHaveLength(5);
  });

  it('never throws when the API fails; counts the loss', async () => {
    const { client } = fakeClient({ fail: true });
    const metrics = new RuntimeMetrics();
    const rec = new EventRecorder({ client, component: 'op', logger, metrics });
    expect(() => rec.event(agent, 'Warning', 'R', 'm')).not.toThrow();
    await rec.flush();
    expect(await metricValue(metrics.eventsDropped, { reason: 'api_error' })).toBe(1);
  });

  it('sends a write again after a transient failure, under the same name', async () => {
    const metrics = new RuntimeMetrics();
    const names: string[] = [];
    // The first create gets no answer but was stored; the second is told so.
    const outcomes: (Error | undefined)[] = [
      Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
      new ApiError(409, { reason: 'AlreadyExists' } as never, 'already exists'),
      new ApiError(503, undefined, 'unavailable'),
      new ApiError(503, undefined, 'unavailable'),
      new ApiError(503, undefined, 'unavailable'),
    ];
    const client = {
      async create(_r: unknown, obj: KubeObject) {
        names.push(obj.metadata.name!);
        const err = outcomes.shift();
        if (err) throw err;
        return obj;
      },
      async patch() {
        return {};
      },
    } as unknown as KubeClient;
    const rec = new EventRecorder({ client, component: 'op', logger, metrics, retryDelaysMs: [0, 0] });
    rec.event(agent, 'Warning', 'R', 'stored on the first attempt');
    rec.event(agent, 'Warning', 'R', 'never stored');
    await rec.flush();
    expect(names).toHaveLength(5);
    expect(names[1]).toBe(names[0]);
    expect(new Set(names.slice(2)).size).toBe(1);
    expect(names[2]).not.toBe(names[0]);
    // Three attempts for the second event, then it is counted as lost: only that one.
    expect(await metricValue(metrics.eventsDropped, { reason: 'api_error' })).toBe(1);
  });
});
