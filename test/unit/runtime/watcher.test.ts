// Scripted list/watch scenarios (the kube-rs ApiServerVerifier idea): each test states the exact
// sequence of API answers and checks the calls the watcher makes and the events it emits.
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { Backoff } from '../../../src/runtime/backoff.ts';
import { ApiError, type ListOptions, type WatchOptions } from '../../../src/runtime/client.ts';
import {
  ConfigMapResource,
  type KubeObject,
  type ObjectList,
  type WatchEvent,
} from '../../../src/runtime/types.ts';
import {
  LAST_APPLIED_ANNOTATION,
  type ListWatchClient,
  Watcher,
  type WatcherEvent,
} from '../../../src/runtime/watcher.ts';

const logger = pino({ level: 'silent' });

type ListStep = ObjectList<KubeObject> | Error;
/** `lastsTimeout`: the clock reaches the watch's timeoutSeconds before the stream ends (fake Date). */
type WatchStep = { events: WatchEvent<KubeObject>[]; thenThrow?: Error; lastsTimeout?: boolean } | Error;

function cm(name: string, rv: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'ns', name, resourceVersion: rv, ...extra },
  };
}

function page(rv: string, items: KubeObject[], cont?: string): ObjectList<KubeObject> {
  return { metadata: { resourceVersion: rv, continue: cont }, items };
}

const gone = () =>
  new ApiError(410, { kind: 'Status', code: 410, reason: 'Expired' }, 'too old resource version');

class ScriptedClient implements ListWatchClient {
  readonly calls: { kind: 'list' | 'watch'; opts: ListOptions | WatchOptions }[] = [];
  private readonly lists: ListStep[];
  private readonly watches: WatchStep[];
  private readonly done: () => void;

  constructor(lists: ListStep[], watches: WatchStep[], done: () => void) {
    this.lists = lists;
    this.watches = watches;
    this.done = done;
  }

  async list<T extends KubeObject>(_res: unknown, opts: ListOptions): Promise<ObjectList<T>> {
    this.calls.push({ kind: 'list', opts });
    const step = this.lists.shift();
    if (!step) return this.block(opts.signal) as never;
    if (step instanceof Error) throw step;
    return structuredClone(step) as ObjectList<T>;
  }

  async *watch<T extends KubeObject>(_res: unknown, opts: WatchOptions): AsyncGenerator<WatchEvent<T>> {
    this.calls.push({ kind: 'watch', opts });
    const step = this.watches.shift();
    if (!step) {
      await this.block(opts.signal);
      return;
    }
    if (step instanceof Error) throw step;
    for (const ev of step.events) yield structuredClone(ev) as WatchEvent<T>;
    if (step.thenThrow) throw step.thenThrow;
    if (step.lastsTimeout) vi.setSystemTime(Date.now() + opts.timeoutSeconds * 1000);
  }

  /** Script exhausted: tell the test, then hang until the watcher is stopped. */
  private block(signal?: AbortSignal): Promise<void> {
    this.done();
    return new Promise((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
  }
}

async function run(
  lists: ListStep[],
  watches: WatchStep[],
  backoff = new Backoff({ initialMs: 1, maxMs: 8, jitter: 0 }),
) {
  const events: WatcherEvent<KubeObject>[] = [];
  const delays: number[] = [];
  const next = backoff.next.bind(backoff);
  vi.spyOn(backoff, 'next').mockImplementation(() => {
    const d = next();
    delays.push(d);
    return d;
  });
  const metrics = { restarted: vi.fn(), relisted: vi.fn(), bookmark: vi.fn() };
  const exhausted = Promise.withResolvers<void>();
  const client = new ScriptedClient(lists, watches, exhausted.resolve);
  const watcher = new Watcher({
    client,
    resource: ConfigMapResource,
    namespace: 'ns',
    labelSelector: 'a=b',
    pageSize: 2,
    minWatchTimeoutSeconds: 300,
    backoff,
    logger,
    metrics,
    onEvent: (ev) => events.push(ev),
  });
  const abort = new AbortController();
  const running = watcher.run(abort.signal);
  await exhausted.promise;
  abort.abort();
  await running;
  const summary = events.map((e) =>
    'object' in e ? `${e.type}:${e.object.metadata.name}@${e.object.metadata.resourceVersion}` : e.type,
  );
  return { events, summary, calls: client.calls, delays, metrics };
}

const rvOf = (c: { opts: ListOptions | WatchOptions }) => (c.opts as WatchOptions).resourceVersion;

describe('Watcher', () => {
  it('lists page by page, then watches from the list resourceVersion with a 5–10 min server timeout', async () => {
    const r = await run(
      [page('10', [cm('a', '5'), cm('b', '6')], 'tok'), page('10', [cm('c', '7')])],
      [
        {
          events: [
            { type: 'ADDED', object: cm('d', '11') },
            { type: 'MODIFIED', object: cm('a', '12') },
            { type: 'DELETED', object: cm('b', '13') },
            { type: 'BOOKMARK', object: { metadata: { resourceVersion: '20' } } },
          ],
        },
      ],
    );
    expect(r.summary).toEqual([
      'init',
      'initApply:a@5',
      'initApply:b@6',
      'initApply:c@7',
      'initDone',
      'apply:d@11',
      'apply:a@12',
      'delete:b@13',
    ]);
    expect(r.calls.map((c) => c.kind)).toEqual(['list', 'list', 'watch', 'watch']);
    expect(r.calls[0]!.opts).toMatchObject({
      namespace: 'ns',
      labelSelector: 'a=b',
      limit: 2,
      continue: undefined,
    });
    expect(r.calls[1]!.opts).toMatchObject({ continue: 'tok' });
    const w = r.calls[2]!.opts as WatchOptions;
    expect(w).toMatchObject({ resourceVersion: '10', namespace: 'ns', labelSelector: 'a=b' });
    expect(w.timeoutSeconds).toBeGreaterThanOrEqual(300);
    expect(w.timeoutSeconds).toBeLessThan(600);
    expect(w.idleTimeoutMs).toBe(w.timeoutSeconds * 1000 + 5000);
    // The server closed the watch: re-watch from the bookmark's resourceVersion, no relist, no delay.
    expect(rvOf(r.calls[3]!)).toBe('20');
    expect(r.delays).toEqual([]);
    expect(r.metrics.bookmark).toHaveBeenCalledTimes(1);
    // Long before its timeout: the server's choice (a watch cache dropping a slow reader looks so).
    expect(r.metrics.restarted).toHaveBeenCalledWith('closed');
    expect(r.metrics.relisted).toHaveBeenCalledTimes(1);
  });

  it("counts a watch the server ends at the requested timeout as 'timeout', an earlier end as 'closed'", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const r = await run(
        [page('10', [])],
        [
          { events: [{ type: 'ADDED', object: cm('a', '11') }], lastsTimeout: true },
          { events: [{ type: 'ADDED', object: cm('b', '12') }] },
        ],
      );
      expect(r.calls.map((c) => c.kind)).toEqual(['list', 'watch', 'watch', 'watch']);
      expect(r.metrics.restarted.mock.calls).toEqual([['timeout'], ['closed']]);
      expect(rvOf(r.calls[3]!)).toBe('12');
      expect(r.delays).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('relists at once on a 410 ERROR event', async () => {
    const r = await run(
      [page('10', [cm('a', '5')]), page('30', [cm('a', '25')])],
      [
        {
          events: [
            { type: 'MODIFIED', object: cm('a', '11') },
            { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old' } },
          ],
        },
      ],
    );
    expect(r.summary).toEqual([
      'init',
      'initApply:a@5',
      'initDone',
      'apply:a@11',
      'init',
      'initApply:a@25',
      'initDone',
    ]);
    expect(r.calls.map((c) => c.kind)).toEqual(['list', 'watch', 'list', 'watch']);
    expect(rvOf(r.calls[3]!)).toBe('30');
    expect(r.delays).toEqual([]);
    expect(r.metrics.restarted).toHaveBeenCalledWith('gone');
  });

  it('relists at once when the watch request itself answers 410', async () => {
    const r = await run([page('10', []), page('40', [])], [gone()]);
    expect(r.calls.map((c) => c.kind)).toEqual(['list', 'watch', 'list', 'watch']);
    expect(r.delays).toEqual([]);
  });

  it('backs off when 410s keep coming right after each relist', async () => {
    const r = await run(
      [page('10', []), page('20', []), page('30', []), page('40', [])],
      [gone(), gone(), gone()],
    );
    expect(r.calls.map((c) => c.kind)).toEqual([
      'list',
      'watch',
      'list',
      'watch',
      'list',
      'watch',
      'list',
      'watch',
    ]);
    expect(r.delays).toEqual([1, 2]); // first 410 relists at once, the repeats wait
  });

  it('on a dropped connection backs off and resumes the watch from the last resourceVersion (no relist)', async () => {
    const r = await run(
      [page('10', [])],
      [
        { events: [{ type: 'ADDED', object: cm('a', '11') }], thenThrow: new Error('other side closed') },
        new Error('connect ECONNREFUSED'),
        new Error('connect ECONNREFUSED'),
        { events: [{ type: 'MODIFIED', object: cm('a', '12') }] },
      ],
    );
    expect(r.calls.map((c) => c.kind)).toEqual(['list', 'watch', 'watch', 'watch', 'watch', 'watch']);
    expect(r.calls.slice(1).map(rvOf)).toEqual(['10', '11', '11', '11', '12']);
    expect(r.delays).toEqual([1, 2, 4]);
    expect(r.summary).toEqual(['init', 'initDone', 'apply:a@11', 'apply:a@12']);
  });

  it('never gives up on a failing list: backoff grows to its ceiling', async () => {
    const boom = () => new ApiError(500, { kind: 'Status', reason: 'InternalError' }, 'boom');
    const r = await run([boom(), boom(), boom(), boom(), boom(), page('10', [cm('a', '1')])], []);
    expect(r.delays).toEqual([1, 2, 4, 8, 8]);
    expect(r.summary.filter((s) => s === 'init')).toHaveLength(6);
    expect(r.summary.slice(-2)).toEqual(['initApply:a@1', 'initDone']);
  });

  it('a non-410 ERROR event is a failure with backoff, then the watch resumes', async () => {
    const r = await run(
      [page('10', [])],
      [{ events: [{ type: 'ERROR', object: { kind: 'Status', code: 500, reason: 'InternalError' } }] }],
    );
    expect(r.delays).toEqual([1]);
    expect(r.calls.map((c) => c.kind)).toEqual(['list', 'watch', 'watch']);
  });

  it('treats a watch that closes at once without events as a failure (no hot loop)', async () => {
    const r = await run([page('10', [])], [{ events: [] }, { events: [] }]);
    expect(r.delays).toEqual([1, 2]);
  });

  it('strips managedFields before handing objects on', async () => {
    const r = await run(
      [page('10', [cm('a', '1', { managedFields: [{ manager: 'kubectl' }] })])],
      [{ events: [{ type: 'ADDED', object: cm('b', '11', { managedFields: [{ manager: 'x' }] }) }] }],
    );
    const objs = r.events.flatMap((e) => ('object' in e ? [e.object] : []));
    expect(objs).toHaveLength(2);
    for (const o of objs) expect(o.metadata.managedFields).toBeUndefined();
  });

  it("strips kubectl's last-applied annotation and keeps the others, and the map", async () => {
    const applied = (name: string) => `{"kind":"ConfigMap","metadata":{"name":"${name}"}}\n`;
    const r = await run(
      [page('10', [cm('a', '1', { annotations: { [LAST_APPLIED_ANNOTATION]: applied('a'), keep: 'x' } })])],
      [
        {
          events: [
            {
              type: 'ADDED',
              object: cm('b', '11', { annotations: { [LAST_APPLIED_ANNOTATION]: applied('b') } }),
            },
          ],
        },
      ],
    );
    const objs = r.events.flatMap((e) => ('object' in e ? [e.object] : []));
    expect(objs.map((o) => o.metadata.annotations)).toEqual([{ keep: 'x' }, {}]);
  });
});
