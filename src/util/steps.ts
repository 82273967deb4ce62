// Computations written as generators that yield between units of work, so a caller can spread a
// long one over several turns of the event loop, or run it at once with `finish`.

/** A computation that yields after each unit of work and returns its result. */
export type Steps<T> = Generator<void, T, void>;

/** Runs `steps` to the end at once. */
export function finish<T>(steps: Steps<T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
