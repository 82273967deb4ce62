// Two replicas (docs/design/records.md, "Replicas"): only the Lease holder serves the host API, a
// standby answers /ready 503, and a Service routes to the ready one. Two real operator processes,
// a proxy that routes like a Service (to the backend whose /ready answers 200; no ready backend:
// the connection is refused), simulated hosts that retry as the agent does; the leader is killed
// with SIGKILL during the registration wave. No host and no step result may be lost: every host
// ends known-unbound with its inventory stored.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { Agent } from '../../../src/api/index.ts';
import { AGENT } from '../../../src/records/resources.ts';
import { type Fleet, startFleet } from '../../../src/sim/index.ts';
import { eventually, kubeconfigPath, newNamespace } from '../../harness/env.ts';
import { adminClient, call, createInfraEnv, inventory } from './helpers.ts';

const REPLY_HOSTS = 40;
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'operator-child.ts');
const LEASE_MS = 4000;
const HOSTS = 60;

interface Replica {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  port?: number;
  ready: boolean;
}

const client = adminClient();
const replicas: Replica[] = [];
let proxy: Server | undefined;
let fleet: Fleet | undefined;
let poller: NodeJS.Timeout | undefined;

function spawnReplica(ns: string, identity: string, infraEnvUid: string): Replica {
  const child = spawn(process.execPath, [FIXTURE, kubeconfigPath(), ns, identity, infraEnvUid], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const r: Replica = { child, lines: [], ready: false };
  createInterface({ input: child.stdout! }).on('line', (line) => {
    if (!line.startsWith('{')) return;
    const o = JSON.parse(line) as Record<string, unknown>;
    r.lines.push(o);
    if (o.event === 'started') r.port = o.port as number;
  });
  replicas.push(r);
  return r;
}

const event = (r: Replica, name: string) => r.lines.find((l) => l.event === name);

/** GET /ready of a replica's API port: true on 200. */
async function probe(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(1000) });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** A Service in front of the replicas: requests go round the ready ones, as endpoints do. */
function startServiceProxy(): Promise<number> {
  let next = 0;
  poller = setInterval(() => {
    for (const r of replicas) {
      if (r.port && r.child.exitCode === null && r.child.signalCode === null)
        void probe(r.port).then((ok) => (r.ready = ok));
      else r.ready = false;
    }
  }, 100);
  proxy = createServer((req, res) => {
    const ready = replicas.filter((r) => r.ready);
    const target = ready[next++ % Math.max(1, ready.length)];
    if (!target) return void req.socket.destroy();
    const up = httpRequest(
      { host: '127.0.0.1', port: target.port, path: req.url, method: req.method, headers: req.headers },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => req.socket.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) =>
    proxy!.listen(0, '127.0.0.1', () => resolve((proxy!.address() as AddressInfo).port)),
  );
}

afterAll(async () => {
  clearInterval(poller);
  await fleet?.stop();
  for (const r of replicas) r.child.kill('SIGKILL');
  await new Promise((r) => (proxy ? proxy.close(() => r(undefined)) : r(undefined)));
  await client.close();
});

describe('two replicas', () => {
  it('loses no host and no step result when the leader is killed during a registration wave', async () => {
    const ns = await newNamespace('replicas');
    const ie = await createInfraEnv(client, ns, 'pool');
    const uid = ie.metadata.uid ?? '';
    const first = spawnReplica(ns, 'replica-a', uid);
    await eventually(async () => event(first, 'leading'), { timeoutMs: 60_000, what: 'first replica leads' });
    const second = spawnReplica(ns, 'replica-b', uid);
    await eventually(async () => event(second, 'started'), {
      timeoutMs: 60_000,
      what: 'second replica started',
    });
    // The standby serves nothing: not ready, and 503 to a host that reaches it directly.
    expect(await probe(second.port!)).toBe(false);
    const direct = await fetch(
      `http://127.0.0.1:${second.port}/api/assisted-install/v2/infra-envs/${uid}/hosts`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-secret-key': event(second, 'started')!.token as string,
        },
        body: JSON.stringify({ host_id: '00000000-0000-4000-8000-000000000fff' }),
      },
    );
    expect(direct.status).toBe(503);
    expect(direct.headers.get('retry-after')).toBe('1');
    const port = await startServiceProxy();
    await eventually(async () => first.ready || undefined, { what: 'leader ready behind the proxy' });

    const started = event(first, 'started')!;
    fleet = await startFleet({
      config: {
        serviceUrl: `http://127.0.0.1:${port}`,
        infraEnvId: uid,
        agentVersion: started.agentImage as string,
        insecure: true,
        trustAnchors: [],
        token: started.token as string,
        proxy: {},
        agentFlags: {},
      },
      hosts: HOSTS,
      speed: 20,
      seed: 16,
      startJitterMs: 4000,
    });
    await fleet.waitFor((f) => f.stats.registered >= HOSTS / 3, { timeoutMs: 60_000 });
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await eventually(async () => second.ready || undefined, {
      timeoutMs: 60_000,
      intervalMs: 20,
      what: 'the standby serves',
    });
    const servingAfterMs = Date.now() - killedAt;
    console.log(`new leader serving ${servingAfterMs} ms after the kill (Lease ${LEASE_MS} ms)`);

    const agents = await eventually(
      async () => {
        const list = (await client.list<Agent>(AGENT, { namespace: ns })).items;
        const done = list.filter(
          (a) => a.status?.debugInfo?.state === 'known-unbound' && a.status.inventory?.hostname,
        );
        return done.length === HOSTS ? list : undefined;
      },
      { timeoutMs: 180_000, intervalMs: 500, what: `all ${HOSTS} Agents known-unbound with their inventory` },
    );
    expect(agents).toHaveLength(HOSTS);
    expect(fleet.stats.gaveUp).toBe(0);
  }, 300_000);

  // A 2xx to a step reply must mean the result is in the Agent: the standby never saw the reply,
  // so one the leader acknowledged and then lost with its memory would be lost for good.
  it('answers a step reply 2xx only once it is in the Agent, so a kill right after loses none', async () => {
    const ns = await newNamespace('replicas-replies');
    const ie = await createInfraEnv(client, ns, 'pool');
    const uid = ie.metadata.uid ?? '';
    const leader = spawnReplica(ns, 'replies-a', uid);
    await eventually(async () => event(leader, 'leading'), {
      timeoutMs: 60_000,
      what: 'first replica leads',
    });
    const standby = spawnReplica(ns, 'replies-b', uid);
    await eventually(async () => event(standby, 'started'), { timeoutMs: 60_000, what: 'standby started' });
    const { token, agentImage } = event(leader, 'started') as { token: string; agentImage: string };
    const hostId = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const hostPath = (i: number) => `/v2/infra-envs/${uid}/hosts/${hostId(i)}`;
    const at = (r: Replica) => `http://127.0.0.1:${r.port}`;
    for (let i = 0; i < REPLY_HOSTS; i++) {
      const reg = await call(at(leader), 'POST', `/v2/infra-envs/${uid}/hosts`, {
        token,
        body: { host_id: hostId(i), discovery_agent_version: agentImage },
      });
      expect(reg.status).toBe(201);
    }
    // Every reply at once; the leader dies as soon as half of them have been acknowledged.
    const acked = new Set<number>();
    const reply = (r: Replica, i: number) =>
      call(at(r), 'POST', `${hostPath(i)}/instructions`, {
        token,
        body: {
          step_type: 'inventory',
          step_id: 'inventory-1',
          output: inventory(`reply-${i}`, `52:54:00:00:01:${i.toString(16).padStart(2, '0')}`),
        },
      }).then(
        (res) => res.status,
        () => 0,
      );
    await Promise.all(
      Array.from({ length: REPLY_HOSTS }, (_, i) =>
        reply(leader, i).then((status) => {
          if (status !== 204) return;
          acked.add(i);
          if (acked.size === REPLY_HOSTS / 2) leader.child.kill('SIGKILL');
        }),
      ),
    );
    expect(acked.size).toBeGreaterThanOrEqual(REPLY_HOSTS / 2);
    const stored = async () => {
      const agents = (await client.list<Agent>(AGENT, { namespace: ns })).items;
      return new Set(agents.map((a) => a.status?.inventory?.hostname).filter((h) => h?.startsWith('reply-')));
    };
    // Read at once: an acknowledged reply is already written, whoever leads now.
    const now = await stored();
    expect([...acked].filter((i) => !now.has(`reply-${i}`))).toEqual([]);
    // The unacknowledged ones are sent again, as the agent does, once the standby serves.
    await eventually(async () => (await probe(standby.port!)) || undefined, {
      timeoutMs: 60_000,
      what: 'the standby serves',
    });
    for (let i = 0; i < REPLY_HOSTS; i++) if (!acked.has(i)) expect(await reply(standby, i)).toBe(204);
    expect((await stored()).size).toBe(REPLY_HOSTS);
  }, 300_000);
});
