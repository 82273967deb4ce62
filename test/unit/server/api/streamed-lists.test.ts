// Long host lists (a cluster with its hosts, a cluster's host list) are sent host by host: the same
// bytes as the whole answer in one string, without ever holding it, and with the event loop free
// between slices. In a 1,000-host cluster whose hosts reported connectivity, the whole answer was
// over 0.5 GB, past the longest string V8 makes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Host } from '../../../../src/core/model.ts';
import { STREAMED_FROM_ITEMS, sendJsonList } from '../../../../src/server/api/http-io.ts';
import { ok } from '../../../../src/server/api/index.ts';
import { clusterToWire, hostListOf } from '../../../../src/server/api/wire.ts';
import {
  API,
  CLUSTER_1,
  call,
  sampleCluster,
  sampleHost,
  startTestServer,
  type TestServer,
} from './helpers.ts';

let t: TestServer | undefined;
let raw: Server | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
  await new Promise((r) => (raw ? raw.close(r) : r(undefined)));
  raw = undefined;
});

const CLUSTER = `${API}/clusters/${CLUSTER_1}`;

function hosts(n: number): Host[] {
  return Array.from({ length: n }, (_, i) =>
    sampleHost({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      role: i % 3 === 0 ? 'master' : 'worker',
      connectivity: { remote_hosts: [{ host_id: `peer-${i}`, l3_connectivity: [{ successful: true }] }] },
    }),
  );
}

describe('a cluster with many hosts is sent host by host', () => {
  it.each([
    ['fewer than the streaming size, in one piece', STREAMED_FROM_ITEMS - 1, false],
    ['at the streaming size, chunked', STREAMED_FROM_ITEMS, true],
  ])('GET the cluster with hosts, %s: the same bytes', async (_name, n, chunked) => {
    const cluster = sampleCluster({ hosts: hosts(n) });
    t = await startTestServer({ overrides: { getCluster: async () => ok(cluster) } });
    const reply = await call(t, 'GET', CLUSTER);
    expect(reply.status).toBe(200);
    expect(reply.text).toBe(`${JSON.stringify(clusterToWire(cluster))}\n`);
    expect(reply.headers['transfer-encoding'] === 'chunked').toBe(chunked);
    expect(reply.headers['content-length'] === undefined).toBe(chunked);
    expect(reply.headers['content-type']).toBe('application/json');
  });

  it('the host list with filters and with inventory and connectivity: the same bytes', async () => {
    const cluster = sampleCluster({ hosts: hosts(3 * STREAMED_FROM_ITEMS) });
    t = await startTestServer({ overrides: { getCluster: async () => ok(cluster) } });
    for (const [query, filter] of [
      ['', {}],
      [
        '?role=worker&with-inventory=true&with-connectivity=true',
        { role: 'worker', withInventory: true, withConnectivity: true },
      ],
    ] as const) {
      const reply = await call(t, 'GET', `${CLUSTER}/hosts${query}`);
      const list = hostListOf(cluster.hosts, filter);
      expect(list.hosts.length).toBeGreaterThanOrEqual(STREAMED_FROM_ITEMS);
      expect(reply.headers['transfer-encoding']).toBe('chunked');
      expect(reply.text).toBe(`${JSON.stringify(list.hosts.map(list.toWire))}\n`);
    }
  });

  it('complete-installation answers the cluster the same way', async () => {
    const cluster = sampleCluster({ hosts: hosts(STREAMED_FROM_ITEMS) });
    t = await startTestServer({ overrides: { completeInstallation: async () => ok(cluster) } });
    const reply = await call(t, 'POST', `${CLUSTER}/actions/complete-installation`, {
      body: { is_success: true },
    });
    expect(reply.status).toBe(202);
    expect(reply.text).toBe(`${JSON.stringify(clusterToWire(cluster))}\n`);
  });
});

/** A server answering every request with sendJsonList(list), and its handler's promise. */
async function listServer(list: Parameters<typeof sendJsonList>[2]) {
  let sent: Promise<void> | undefined;
  raw = createServer((_req, res) => {
    sent = sendJsonList(res, 200, list);
  });
  await new Promise<void>((r) => raw?.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`, sent: () => sent };
}

describe('sendJsonList', () => {
  it.each([
    ['in one piece', 0],
    ['item by item', STREAMED_FROM_ITEMS],
  ])(
    'writes a bare array and an object ending in its list as JSON.stringify does, %s',
    async (_name, more) => {
      for (const head of [undefined, {}, { id: 'c', n: 1, skipped: undefined }]) {
        const items = [{ a: 1 }, 'two', undefined, null, [3], ...Array.from({ length: more }, (_, i) => i)];
        const { url } = await listServer({
          ...(head ? { head } : {}),
          field: 'hosts',
          items,
          itemToWire: (x) => x,
        });
        const text = await (await fetch(url)).text();
        expect(text).toBe(`${JSON.stringify(head ? { ...head, hosts: items } : items)}\n`);
        await new Promise((r) => raw?.close(r));
        raw = undefined;
      }
    },
  );

  it('lets timers run while it serialises a long list', async () => {
    const order: string[] = [];
    const items = Array.from({ length: STREAMED_FROM_ITEMS }, (_, i) => i);
    const { url, sent } = await listServer({
      items,
      itemToWire: (i) => {
        if (i === 0) setTimeout(() => order.push('timer'), 0);
        // Each item takes 0.2 ms to make, so the list takes several of sendJsonList's slices.
        const until = performance.now() + 0.2;
        while (performance.now() < until) {
          // busy
        }
        if (i === items.length - 1) order.push('last item');
        return i;
      },
    });
    expect(JSON.parse(await (await fetch(url)).text())).toEqual(items);
    await sent();
    expect(order).toEqual(['timer', 'last item']);
  });

  it('stops making items when the client goes away', async () => {
    let made = 0;
    const big = 'x'.repeat(256 * 1024);
    const { url, sent } = await listServer({
      items: Array.from({ length: 10_000 }, (_, i) => i),
      itemToWire: () => {
        made++;
        return big;
      },
    });
    const abort = new AbortController();
    const res = await fetch(url, { signal: abort.signal });
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await reader.read().catch(() => undefined);
    // The socket filled while the client did not read, so the server was waiting when it left.
    await sent();
    expect(made).toBeGreaterThan(0);
    expect(made).toBeLessThan(1_000);
  });
});
