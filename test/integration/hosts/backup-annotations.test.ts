// The Agent's backup annotations (upstream reads them on restore) follow its status: a new
// inventory is patched into `agent.…/inventory` once, and never patched back to an older one.
// Found by `make bench-scale`'s event → status phase: about four in ten inventory changes were
// followed by a second reconcile on the reconciler's own half-written Agent (patched metadata, old
// status) that sent a PATCH putting the previous inventory back. The API server refused it (409,
// stale resourceVersion), so nothing was lost, but each cost a reconcile and a refused write.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import { AGENT_INVENTORY_ANNOTATION } from '../../../src/api/index.ts';
import { AGENT } from '../../../src/records/resources.ts';
import { KubeClient } from '../../../src/runtime/index.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import {
  clusterDeploymentObject,
  createCluster,
  createImageSet,
  createPullSecret,
  snoAciObject,
} from '../cluster/harness.ts';
import { adminClient, call, createInfraEnv, inventory, waitForAgent } from './helpers.ts';

const client = adminClient();
let op: TestOperator;
let ns: string;

/** Every inventory the operator patched into an Agent's annotation, as its CPU frequency. */
function recordInventoryPatches(kube: KubeClient): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const target = kube as unknown as {
    send: (m: string, p: string, o: { body?: unknown }) => Promise<unknown>;
  };
  const send = target.send.bind(kube);
  target.send = (method, path, opts) => {
    const annotation = (
      opts.body as { metadata?: { annotations?: Record<string, string | null> } } | undefined
    )?.metadata?.annotations?.[AGENT_INVENTORY_ANNOTATION];
    if (method === 'PATCH' && path.includes('/agents/') && typeof annotation === 'string') {
      const name = path.split('?')[0]!.split('/').pop() ?? '';
      out.set(name, [...(out.get(name) ?? []), JSON.parse(annotation).cpu.frequency as number]);
    }
    return send(method, path, opts);
  };
  return out;
}

const clockOf = (a: Agent) => a.status?.inventory?.cpu?.clockMegahertz;
const annotatedClockOf = (a: Agent) => {
  const raw = a.metadata.annotations?.[AGENT_INVENTORY_ANNOTATION];
  return raw ? (JSON.parse(raw).cpu.frequency as number) : undefined;
};

/**
 * Agent watch events reach the operator's cache WATCH_DELAY_MS after they arrive, in order: the
 * event of a reconcile's metadata PATCH then requeues its Agent after the reconcile has also
 * written the status, and the next reconcile runs on the patched version whose status is the old
 * one (what a loaded hub does now and then, here every time).
 */
const WATCH_DELAY_MS = 300;
function delayAgentWatchEvents(): () => void {
  const proto = KubeClient.prototype as unknown as { watch: KubeClient['watch'] };
  const original = proto.watch;
  proto.watch = async function* (this: KubeClient, res, opts) {
    const inner = original.call(this, res, opts);
    if (res.plural !== 'agents') return yield* inner;
    for await (const event of timestamped(inner)) {
      await sleep(event.at + WATCH_DELAY_MS - Date.now());
      yield event.event;
    }
  } as KubeClient['watch'];
  return () => {
    proto.watch = original;
  };
}

/** Reads `events` as they arrive and yields each with its arrival time. */
async function* timestamped<T>(events: AsyncGenerator<T>): AsyncGenerator<{ event: T; at: number }> {
  const arrived: { event: T; at: number }[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  let failure: unknown;
  void (async () => {
    try {
      for await (const event of events) {
        arrived.push({ event, at: Date.now() });
        wake?.();
      }
    } catch (err) {
      failure = err;
    }
    done = true;
    wake?.();
  })();
  for (;;) {
    const next = arrived.shift();
    if (next) {
      yield next;
      continue;
    }
    if (done) {
      if (failure) throw failure;
      return;
    }
    await new Promise<void>((r) => {
      wake = r;
    });
    wake = undefined;
  }
}

let restoreWatch: (() => void) | undefined;

beforeAll(async () => {
  restoreWatch = delayAgentWatchEvents();
  ns = await newNamespace('backup');
  op = await startTestOperator({ namespace: ns });
});

afterAll(async () => {
  await op?.stop();
  restoreWatch?.();
  await client.close();
});

describe('backup annotations', () => {
  it('patch each new inventory into the annotation once and never an older one', async () => {
    // Each host bound to an SNO cluster of its own, as the benchmark's are: its cluster's status
    // writes requeue the Agent too.
    await createPullSecret(client, ns);
    const imageSet = await createImageSet(client);
    const hosts: { id: string; ie: InfraEnv; token: string }[] = [];
    for (let i = 0; i < 2; i++) {
      const name = uniqueName('sno');
      await createCluster(client, clusterDeploymentObject(ns, name), snoAciObject(ns, name, imageSet));
      const ie = await createInfraEnv(client, ns, name, { clusterRef: { name, namespace: ns } });
      await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
      const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
      hosts.push({ id: randomUUID(), ie, token });
    }
    const reply = (h: (typeof hosts)[number], i: number, frequency: number) =>
      call(op.baseUrl, 'POST', `/v2/infra-envs/${h.ie.metadata.uid}/hosts/${h.id}/instructions`, {
        token: h.token,
        body: {
          step_type: 'inventory',
          step_id: `inventory-${frequency}`,
          output: inventory(`host-${i}`, `52:54:00:00:00:${i.toString(16).padStart(2, '0')}`, {
            cpu: { architecture: 'x86_64', count: 8, flags: ['vmx'], frequency, model_name: 'Xeon' },
          }),
        },
      });
    for (const [i, h] of hosts.entries()) {
      const reg = await call(op.baseUrl, 'POST', `/v2/infra-envs/${h.ie.metadata.uid}/hosts`, {
        token: h.token,
        body: { host_id: h.id, discovery_agent_version: op.ctx.settings.agentImage },
      });
      expect(reg.status, reg.text).toBe(201);
      expect((await reply(h, i, 2400)).status).toBe(204);
    }
    for (const h of hosts)
      await waitForAgent(client, ns, h.id, (a) => clockOf(a) === 2400, 'first inventory');

    const patches = recordInventoryPatches(op.ctx.client);
    const rounds = 4;
    for (let round = 1; round <= rounds; round++) {
      const frequency = 2400 + round * 10;
      for (const [i, h] of hosts.entries()) expect((await reply(h, i, frequency)).status).toBe(204);
      for (const h of hosts) {
        await waitForAgent(
          client,
          ns,
          h.id,
          (a) => clockOf(a) === frequency,
          `inventory ${frequency} in status`,
        );
      }
    }
    // Settled: the annotation of every Agent, live and cached, holds what its status holds.
    const last = 2400 + rounds * 10;
    for (const { id: h } of hosts) {
      await waitForAgent(client, ns, h, (a) => annotatedClockOf(a) === last, 'last inventory annotated');
      await eventually(
        async () => {
          const live = await client.get<Agent>(AGENT, h, ns);
          const cached = op.ctx.informers.agents.get(ns, h);
          return cached?.metadata.resourceVersion === live.metadata.resourceVersion || undefined;
        },
        { what: 'cache caught up' },
      );
    }
    const m = op.ctx.mgr.metrics;
    const sum = async (g: { get(): Promise<{ values: { value: number }[] }> }) =>
      (await g.get()).values.reduce((a, v) => a + v.value, 0);
    await eventually(
      async () => (await sum(m.queueDepth)) + (await sum(m.activeWorkers)) === 0 || undefined,
      {
        what: 'no reconcile waiting or running',
      },
    );
    for (const { id: h } of hosts) {
      const seen = patches.get(h) ?? [];
      // Each round's inventory once, in order: an older value after a newer one is a revert.
      expect(seen, `inventory annotation patches of ${h}`).toEqual(
        Array.from({ length: rounds }, (_, k) => 2400 + (k + 1) * 10),
      );
      const live = await client.get<Agent>(AGENT, h, ns);
      expect(annotatedClockOf(live)).toBe(clockOf(live));
    }
  }, 120_000);
});
