// Polling until something is up, for the dev tools (control plane, image smoke test).

/**
 * Polls `probe` every 100 ms until it returns a value other than false/undefined/null and returns
 * that value; throws after `timeoutMs` (with the last probe error) or as soon as `exited` reports
 * that the process being waited for is gone.
 */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | false | undefined | null>,
  exited?: () => string | undefined,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < deadline) {
    const why = exited?.();
    if (why) throw new Error(`gave up waiting for ${what}: the process exited (${why})`);
    try {
      const v = await probe();
      if (v !== false && v !== undefined && v !== null) return v;
    } catch (err) {
      lastErr = err;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms${lastErr ? `: ${String(lastErr)}` : ''}`);
}
