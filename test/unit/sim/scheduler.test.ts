import { afterEach, describe, expect, it, vi } from 'vitest';
import { Scheduler, type SimTask } from '../../../src/sim/scheduler.ts';

describe('Scheduler', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('runs tasks in due order, re-queues by returned delay, and becomes idle', async () => {
    // A fake clock: on a loaded machine real timers fire late, and a late run re-queues later.
    vi.useFakeTimers();
    const order: string[] = [];
    const s = new Scheduler({ now: () => Date.now() });
    const task = (name: string, delays: number[]): SimTask => ({
      name,
      run: async () => {
        order.push(name);
        return delays.shift();
      },
    });
    s.add(task('b', [30]), 20);
    s.add(task('a', [5, 5]), 10);
    s.add(task('c', []), 0);
    const idle = s.idle();
    await vi.runAllTimersAsync();
    await idle;
    expect(order).toEqual(['c', 'a', 'a', 'b', 'a', 'b']);
  });

  it('never overlaps runs of one task, even with thousands queued', async () => {
    const s = new Scheduler();
    let overlaps = 0;
    let runs = 0;
    for (let i = 0; i < 2000; i++) {
      let left = 3;
      let active = false;
      s.add(
        {
          name: `t${i}`,
          run: async () => {
            if (active) overlaps++;
            active = true;
            // Longer than the 0–1 ms delay it asks for next: a naive timer would re-enter.
            await new Promise((r) => setTimeout(r, 3));
            active = false;
            runs++;
            return --left > 0 ? 0 : undefined;
          },
        },
        Math.random() * 5,
      );
    }
    await s.idle();
    expect(runs).toBe(6000);
    expect(overlaps).toBe(0);
  });

  it('stop() drops queued work and waits for running tasks', async () => {
    const s = new Scheduler();
    let ran = 0;
    s.add({ name: 'later', run: async () => void ran++ }, 10_000);
    let release!: () => void;
    const running = new Promise<void>((r) => {
      release = r;
    });
    s.add(
      {
        name: 'now',
        run: async () => {
          await running;
          ran++;
          return 1;
        },
      },
      0,
    );
    await new Promise((r) => setTimeout(r, 10));
    const stopped = s.stop();
    release();
    await stopped;
    expect(ran).toBe(1);
    expect(s.size).toBe(0);
  });
});
