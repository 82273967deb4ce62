// One timer for thousands of simulated actors: tasks wait in a min-heap ordered by due time and a
// single setTimeout is armed for the earliest. A task runs one unit of work (a registration, a
// poll cycle, one install stage) and returns the delay until its next run, or undefined when done.
// A task is never run concurrently with itself: it is re-queued only after its run settles.

export interface SimTask {
  readonly name: string;
  run(): Promise<number | undefined>;
}

interface Entry {
  due: number;
  seq: number;
  task: SimTask;
}

/** Binary min-heap on (due, seq); seq keeps equal due times in insertion order. */
class TaskHeap {
  private readonly items: Entry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): Entry | undefined {
    return this.items[0];
  }

  push(e: Entry): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(a[i]!, a[p]!)) break;
      [a[i], a[p]] = [a[p]!, a[i]!];
      i = p;
    }
  }

  pop(): Entry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && less(a[l]!, a[m]!)) m = l;
        if (r < a.length && less(a[r]!, a[m]!)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m]!, a[i]!];
        i = m;
      }
    }
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}

const less = (x: Entry, y: Entry) => x.due < y.due || (x.due === y.due && x.seq < y.seq);
/** setTimeout's maximum delay. */
const MAX_TIMER = 2 ** 31 - 1;

export class Scheduler {
  private readonly heap = new TaskHeap();
  private readonly running = new Set<Promise<void>>();
  private readonly onError: (task: SimTask, err: unknown) => void;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private timerDue = Number.POSITIVE_INFINITY;
  private seq = 0;
  private stopped = false;
  private idleWaiters: (() => void)[] = [];

  constructor(opts: { onError?: (task: SimTask, err: unknown) => void; now?: () => number } = {}) {
    this.onError = opts.onError ?? ((task, err) => console.error(`sim task ${task.name} failed:`, err));
    this.now = opts.now ?? (() => performance.now());
  }

  /** Tasks waiting plus tasks running. */
  get size(): number {
    return this.heap.size + this.running.size;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  add(task: SimTask, delayMs = 0): void {
    if (this.stopped) return;
    this.heap.push({ due: this.now() + Math.max(0, delayMs), seq: this.seq++, task });
    this.arm();
  }

  private arm(): void {
    const next = this.heap.peek();
    if (!next || this.stopped) return;
    if (this.timer && next.due >= this.timerDue) return;
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.min(MAX_TIMER, Math.max(0, next.due - this.now()));
    this.timerDue = next.due;
    this.timer = setTimeout(() => this.fire(), delay);
  }

  private fire(): void {
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
    const now = this.now();
    for (let e = this.heap.peek(); e && e.due <= now && !this.stopped; e = this.heap.peek()) {
      this.heap.pop();
      this.start(e.task);
    }
    this.arm();
  }

  private start(task: SimTask): void {
    const p: Promise<void> = (async () => {
      try {
        const next = await task.run();
        if (next !== undefined && !this.stopped) this.add(task, next);
      } catch (err) {
        if (!this.stopped) this.onError(task, err);
      }
    })().finally(() => {
      this.running.delete(p);
      this.notifyIdle();
    });
    this.running.add(p);
  }

  private notifyIdle(): void {
    if (this.heap.size > 0 || this.running.size > 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Resolves when no task is queued or running (every actor finished or gave up). */
  idle(): Promise<void> {
    if (this.heap.size === 0 && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Drops queued tasks and waits for running ones (abort their signal first to cut them short). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.heap.clear();
    await Promise.allSettled([...this.running]);
    this.notifyIdle();
  }
}
