import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkQueue } from '../../../src/runtime/queue.ts';
import {
  BucketRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
  TokenBucket,
} from '../../../src/runtime/rate-limiter.ts';

/** Resolves if get() yields within the current macrotask, else 'pending'. */
async function poll(q: WorkQueue): Promise<string | undefined | 'pending'> {
  return Promise.race([q.get(), new Promise<'pending'>((r) => setImmediate(() => r('pending')))]);
}

describe('WorkQueue', () => {
  it('dedupes keys that are waiting', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(2);
    expect(await q.get()).toBe('a');
    expect(await q.get()).toBe('b');
    expect(q.len()).toBe(0);
  });

  it('never hands a key being processed to a second worker; re-queues it once on done', async () => {
    const q = new WorkQueue();
    q.add('a');
    const first = await q.get();
    expect(first).toBe('a');
    // Events arrive while 'a' is processed: they must not make 'a' available to another worker.
    q.add('a');
    q.add('a');
    q.add('b');
    expect(await q.get()).toBe('b');
    const racing = q.get();
    let got: string | undefined;
    void racing.then((k) => {
      got = k;
    });
    await new Promise((r) => setImmediate(r));
    expect(got).toBeUndefined();
    q.done('a');
    expect(await racing).toBe('a');
    q.done('a');
    // Three adds while processing collapsed into exactly one extra run.
    expect(await poll(q)).toBe('pending');
  });

  it('a key not re-added during processing is not re-queued', async () => {
    const q = new WorkQueue();
    q.add('a');
    const k = (await q.get())!;
    q.done(k);
    expect(q.len()).toBe(0);
    expect(await poll(q)).toBe('pending');
  });

  it('concurrent workers each get distinct keys', async () => {
    const q = new WorkQueue();
    const inFlight = new Set<string>();
    let maxSame = 0;
    const seen: string[] = [];
    const worker = async () => {
      for (;;) {
        const key = await q.get();
        if (key === undefined) return;
        if (inFlight.has(key)) maxSame++;
        inFlight.add(key);
        seen.push(key);
        await new Promise((r) => setTimeout(r, 1));
        // Keep re-adding while processing: a storm of events for the same few keys.
        if (seen.length < 200) for (const k of ['x', 'y', 'z']) q.add(k);
        inFlight.delete(key);
        q.done(key);
      }
    };
    for (const k of ['x', 'y', 'z']) q.add(k);
    const workers = Array.from({ length: 5 }, worker);
    await vi.waitFor(() => expect(seen.length).toBeGreaterThanOrEqual(200), { timeout: 10_000 });
    await q.shutDownWithDrain();
    await Promise.all(workers);
    expect(maxSame).toBe(0);
  });

  // Low priority (an informer's initial list): each row runs its steps on a fresh queue, then takes
  // every waiting key; `order` is what the workers get. 'get:x' takes a key (expecting x) and holds
  // it as in flight; 'done:x' finishes it.
  const lanes: { name: string; steps: string[]; order: string[] }[] = [
    {
      name: 'low keys wait behind normal ones',
      steps: ['low:a', 'low:b', 'add:c', 'add:d'],
      order: ['c', 'd', 'a', 'b'],
    },
    {
      name: 'a normal add moves a waiting low key up',
      steps: ['low:a', 'low:b', 'add:c', 'add:b'],
      order: ['c', 'b', 'a'],
    },
    { name: 'a low add never moves a key down', steps: ['add:a', 'low:b', 'low:a'], order: ['a', 'b'] },
    { name: 'a moved-up key is handed out once', steps: ['low:a', 'add:a', 'low:b'], order: ['a', 'b'] },
    {
      name: 'a key re-added low while in flight comes back low',
      steps: ['add:a', 'get:a', 'low:a', 'add:b', 'done:a'],
      order: ['b', 'a'],
    },
    {
      name: 'a key re-added low, then normally, while in flight comes back normal',
      steps: ['add:a', 'get:a', 'low:a', 'add:a', 'low:b', 'done:a'],
      order: ['a', 'b'],
    },
    {
      name: 'a key moved up, taken and re-added low is handed out once more',
      steps: ['low:a', 'add:a', 'get:a', 'done:a', 'low:a', 'low:b'],
      order: ['a', 'b'],
    },
  ];

  it.each(lanes)('$name', async ({ steps, order }) => {
    const q = new WorkQueue();
    for (const step of steps) {
      const [op, key] = step.split(':') as [string, string];
      if (op === 'add') q.add(key);
      else if (op === 'low') q.addLowPriority(key);
      else if (op === 'get') expect(await q.get()).toBe(key);
      else q.done(key);
    }
    expect(q.len()).toBe(order.length);
    const got: string[] = [];
    while (q.len() > 0) {
      const k = (await q.get())!;
      got.push(k);
      q.done(k);
    }
    expect(got).toEqual(order);
    expect(await poll(q)).toBe('pending');
  });

  // Informer handlers run one after another for one event, and several map it to the same key (the
  // Agent watch and the bus both wake a ClusterDeployment): handing the key to a waiting worker on
  // the first add made the second one find it in flight, hence a second reconcile of the same
  // state (issue 16: 3.8 cluster reconciles per host inventory where 2 Agent writes happen).
  it('a burst of adds of one key while a worker waits hands it out once', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.add('a');
    q.add('a');
    q.addLowPriority('a');
    expect(await waiting).toBe('a');
    q.done('a');
    expect(q.len()).toBe(0);
    expect(await poll(q)).toBe('pending');
  });

  it('a waiting worker takes a normal key before a low one added in the same burst', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.addLowPriority('a');
    q.add('b');
    expect(await waiting).toBe('b');
    expect(await q.get()).toBe('a');
  });

  it('a waiting worker takes a low-priority key at once', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.addLowPriority('a');
    expect(await waiting).toBe('a');
  });

  it('shutdown drops low-priority keys too', async () => {
    const q = new WorkQueue();
    q.addLowPriority('a');
    q.shutDown();
    expect(q.len()).toBe(0);
    expect(await q.get()).toBeUndefined();
  });

  it('get() after shutdown resolves undefined; waiting getters are released', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutDown();
    expect(await waiting).toBeUndefined();
    q.add('a');
    expect(await q.get()).toBeUndefined();
  });

  it('shutDownWithDrain waits for in-flight keys and drops queued ones', async () => {
    const q = new WorkQueue();
    q.add('a');
    q.add('b');
    const a = (await q.get())!;
    let drained = false;
    const drain = q.shutDownWithDrain().then(() => {
      drained = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    expect(await q.get()).toBeUndefined(); // 'b' dropped, no new work handed out
    q.done(a);
    await drain;
    expect(drained).toBe(true);
  });

  describe('delays (fake timers)', () => {
    beforeEach(() => {
      vi.useFakeTimers();
    });
    afterEach(() => {
      vi.useRealTimers();
    });

    it('addAfter delivers after the delay, earliest request wins', async () => {
      const q = new WorkQueue();
      q.addAfter('a', 1000);
      q.addAfter('a', 5000); // later: ignored
      q.addAfter('a', 300); // earlier: wins
      expect(q.len()).toBe(0);
      await vi.advanceTimersByTimeAsync(299);
      expect(q.len()).toBe(0);
      await vi.advanceTimersByTimeAsync(1);
      expect(q.len()).toBe(1);
      expect(await q.get()).toBe('a');
      q.done('a');
      // The superseded 1000 ms and 5000 ms requests do not fire again.
      await vi.advanceTimersByTimeAsync(10_000);
      expect(q.len()).toBe(0);
    });

    it('counts keys in flight and delayed keys due within a horizon (settle barriers)', async () => {
      const q = new WorkQueue();
      q.addAfter('soon', 200);
      q.addAfter('later', 60_000);
      expect([q.dueWithin(0), q.dueWithin(199), q.dueWithin(200), q.dueWithin(60_000)]).toEqual([0, 0, 1, 2]);
      await vi.advanceTimersByTimeAsync(200);
      expect([q.len(), q.dueWithin(1000)]).toEqual([1, 0]);
      expect(await q.get()).toBe('soon');
      expect([q.len(), q.inFlight()]).toEqual([0, 1]);
      q.done('soon');
      expect(q.inFlight()).toBe(0);
    });

    it('addAfter orders several keys by ready time', async () => {
      const q = new WorkQueue();
      q.addAfter('c', 30);
      q.addAfter('a', 10);
      q.addAfter('b', 20);
      await vi.advanceTimersByTimeAsync(30);
      expect([await q.get(), await q.get(), await q.get()]).toEqual(['a', 'b', 'c']);
    });

    it('a direct add is not held back by a pending delayed add', async () => {
      const q = new WorkQueue();
      q.addAfter('a', 10_000);
      q.add('a');
      expect(await q.get()).toBe('a');
    });

    it('addRateLimited backs off exponentially per key and forget resets it', async () => {
      const q = new WorkQueue({ rateLimiter: new ItemExponentialRateLimiter(5, 1_000_000) });
      const readyAfter = async (key: string): Promise<number> => {
        const start = Date.now();
        q.addRateLimited(key);
        for (;;) {
          if (q.len() > 0) break;
          await vi.advanceTimersByTimeAsync(1);
        }
        const k = (await q.get())!;
        q.done(k);
        return Date.now() - start;
      };
      expect(await readyAfter('a')).toBe(5);
      expect(await readyAfter('a')).toBe(10);
      expect(await readyAfter('a')).toBe(20);
      expect(await readyAfter('a')).toBe(40);
      expect(q.numRequeues('a')).toBe(4);
      expect(await readyAfter('b')).toBe(5); // per key
      q.forget('a');
      expect(q.numRequeues('a')).toBe(0);
      expect(await readyAfter('a')).toBe(5);
    });

    it('the default limiter caps per-key backoff at 1000 s and the global bucket throttles bursts', () => {
      const exp = new ItemExponentialRateLimiter(5, 1_000_000);
      const delays = Array.from({ length: 30 }, () => exp.when('k'));
      expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40]);
      expect(delays[17]).toBe(655_360);
      expect(delays[18]).toBe(1_000_000);
      expect(delays[29]).toBe(1_000_000);

      // Combined limiter: 100 distinct failing keys pass on the per-key delay; the 101st waits on
      // the 10 qps bucket (client-go DefaultControllerRateLimiter).
      const limiter = new MaxOfRateLimiter(
        new ItemExponentialRateLimiter(5, 1_000_000),
        new BucketRateLimiter(new TokenBucket(10, 100)),
      );
      const first = Array.from({ length: 100 }, (_, i) => limiter.when(`key-${i}`));
      expect(Math.max(...first)).toBe(5);
      expect(limiter.when('key-100')).toBe(100);
      expect(limiter.when('key-101')).toBe(200);
    });

    it('shutdown cancels delayed keys', async () => {
      const q = new WorkQueue();
      q.addAfter('a', 100);
      q.shutDown();
      await vi.advanceTimersByTimeAsync(1000);
      expect(q.len()).toBe(0);
    });
  });
});
