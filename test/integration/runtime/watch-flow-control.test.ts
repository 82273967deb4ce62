// A watch whose reader falls behind during a burst of events, on the real API server (HTTP/2).
// The API server's watch cache closes a watcher whose buffer stays full ("watcher close due to
// unresponsiveness"); the buffer fills once the HTTP/2 stream's receive window is used up. With
// undici's default 256 KiB window a short stall of our event loop during a registration wave ended
// the Agent watch every 20-40 hosts; with client-go's 4 MiB window the same burst fits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KubeClient, STREAM_WINDOW_BYTES } from '../../../src/runtime/client.ts';
import type { ApiResource, KubeObject, WatchEvent } from '../../../src/runtime/types.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { adminClient, deleteCrd, installTestCrd } from './helpers.ts';

// A kind of our own: its watch cache (and so the per-watcher buffer size) sees only this file.
let Blobs: ApiResource;
const clients: KubeClient[] = [];
beforeAll(async () => {
  const admin = adminClient();
  clients.push(admin);
  Blobs = await installTestCrd(admin, `${uniqueName('burst')}.runtime.test`, 'Blob');
});
afterAll(async () => {
  if (Blobs) await deleteCrd(clients[0]!, Blobs);
  for (const c of clients) await c.close();
});

/** 32 KiB per object: the burst is 7.5 times undici's default window, under half of ours. */
const PAYLOAD = 'x'.repeat(32 * 1024);
const BURST = 60;

function blob(namespace: string, name: string): KubeObject & { spec: { payload: string } } {
  return { metadata: { namespace, name }, spec: { payload: PAYLOAD } };
}

/** The name in the next non-bookmark event, or undefined once the stream has ended. */
async function nextName(it: AsyncIterator<WatchEvent<KubeObject>>): Promise<string | undefined> {
  for (;;) {
    const r = await it.next();
    if (r.done) return undefined;
    if (r.value.type !== 'BOOKMARK') return (r.value.object as KubeObject).metadata?.name ?? '';
  }
}

describe('watch flow control', () => {
  it('keeps a watch open through a burst it reads only afterwards', async () => {
    expect(BURST * PAYLOAD.length).toBeLessThan(STREAM_WINDOW_BYTES / 2);
    const namespace = await newNamespace('rt-burst');
    const watching = adminClient();
    const fast = adminClient();
    const writer = adminClient();
    clients.push(watching, fast, writer);
    const rv = (await writer.list(Blobs, { namespace, limit: 1 })).metadata.resourceVersion;
    const stopFast = new AbortController();
    const open = (c: KubeClient, signal?: AbortSignal) =>
      c
        .watch<KubeObject>(Blobs, {
          namespace,
          resourceVersion: rv,
          timeoutSeconds: 600,
          idleTimeoutMs: 600_000,
          signal,
        })
        [Symbol.asyncIterator]();
    const slow = open(watching);
    // The watch is streaming once it has delivered an event.
    await writer.create(Blobs, blob(namespace, 'first'));
    expect(await nextName(slow)).toBe('first');

    // The burst, while `slow` is not read. A second watch, read as events come, tells when the
    // API server has handed every event of the burst to its watchers.
    const seen = open(fast, stopFast.signal);
    let fastCount = 0;
    const fastReader = (async () => {
      while ((await nextName(seen)) !== undefined) fastCount++;
    })().catch(() => undefined); // ends with the abort below
    for (let i = 0; i < BURST; i++) await writer.create(Blobs, blob(namespace, `b-${i}`));
    await eventually(async () => fastCount >= BURST + 1, { timeoutMs: 60_000, what: 'burst dispatched' });

    // Read it all now: every event of the burst, and the stream is still open for a later one.
    const names: string[] = [];
    for (let i = 0; i < BURST; i++) {
      const name = await nextName(slow);
      if (name === undefined) break;
      names.push(name);
    }
    expect(names.length, 'events before the API server ended the watch').toBe(BURST);
    expect(names).toEqual(Array.from({ length: BURST }, (_, i) => `b-${i}`));
    await writer.create(Blobs, blob(namespace, 'after'));
    expect(await nextName(slow)).toBe('after');
    await slow.return?.(undefined);
    stopFast.abort();
    await fastReader;
  });
});
