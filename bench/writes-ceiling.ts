// The API server's ceiling for the writes a registration costs, measured without the operator: the
// registration wave's own objects (each Agent as created and its status as written, its cluster's
// AgentClusterInstall status, a registration Event like the operator's) are written again into a
// namespace nobody watches, by a plain loop with the wave's concurrency. The registration rate
// divided by this rate is the share of the API server's capacity *for these writes* the operator
// reaches; the ConfigMap ceiling says what the box does for the cheapest write there is.

import { performance } from 'node:perf_hooks';
import type { Agent, AgentClusterInstall } from '../src/api/index.ts';
import { apiEventOf, toCoreEvent } from '../src/records/events.ts';
import { AGENT, AGENT_CLUSTER_INSTALL, EVENT, NAMESPACE } from '../src/records/resources.ts';
import type { KubeClient, KubeObject } from '../src/runtime/index.ts';
import { pool } from './fleet.ts';
import { pct } from './percentile.ts';

export interface WritesCeiling {
  /** Registrations' worth of writes per second (Agent create and status, Event, its ACI's status once). */
  registrationsPerSec: number;
  writesPerSec: number;
  seconds: number;
  latencyMs: { p50: number; p99: number };
}

const REPLAY_NS = 'bench-replay';

/** A copy to create elsewhere: no server-set metadata, no owner (it lives in another namespace), no finalizer. */
function copyOf<T extends KubeObject>(obj: T, withStatus: boolean): T {
  const m = obj.metadata;
  const copy = {
    ...obj,
    metadata: {
      name: m.name,
      namespace: REPLAY_NS,
      ...(m.labels ? { labels: m.labels } : {}),
      ...(m.annotations ? { annotations: m.annotations } : {}),
    },
  } as T & { status?: unknown };
  if (!withStatus) delete copy.status;
  return copy;
}

/**
 * Replays `agents` (as cached after the wave) with the ACI of each one's cluster. `aciOf` maps an
 * Agent to its ACI. Setup (namespace, bare ACIs) is not timed.
 */
export async function measureWritesCeiling(
  admin: KubeClient,
  agents: Agent[],
  aciOf: (agent: Agent) => AgentClusterInstall | undefined,
  concurrency: number,
): Promise<WritesCeiling> {
  await admin.create(NAMESPACE, { metadata: { name: REPLAY_NS } } as never);
  const pairs = agents.flatMap((a) => {
    const aci = aciOf(a);
    return aci ? [{ agent: a, aci }] : [];
  });
  const created = new Map<string, AgentClusterInstall>();
  await pool(pairs.length, concurrency, async (i) => {
    const aci = pairs[i]!.aci;
    const name = aci.metadata.name ?? '';
    if (created.has(name)) return;
    created.set(name, aci);
    created.set(name, await admin.create(AGENT_CLUSTER_INSTALL, copyOf(aci, false)));
  });
  const latencies: number[] = [];
  const statusWritten = new Set<string>();
  let writes = 0;
  const t0 = performance.now();
  await pool(pairs.length, concurrency, async (i) => {
    const { agent, aci } = pairs[i]!;
    const s = performance.now();
    const fresh = await admin.create<Agent>(AGENT, copyOf(agent, false));
    await admin.replaceStatus(AGENT, { ...fresh, status: agent.status });
    latencies.push(performance.now() - s);
    const event = apiEventOf(
      {
        name: 'host_registration_succeeded',
        severity: 'info',
        message: `Host ${agent.metadata.name}: Successfully registered`,
        host_id: agent.metadata.name ?? '',
      } as never,
      new Date(),
    );
    const aciName = aci.metadata.name ?? '';
    // One status write per cluster (an SNO cluster has one host; hosts of a larger one share it).
    const target = statusWritten.has(aciName) ? undefined : created.get(aciName);
    statusWritten.add(aciName);
    writes += target ? 4 : 3;
    await Promise.all([
      admin.create(EVENT, toCoreEvent(event, fresh, 'agent-install-operator') as never),
      target ? admin.replaceStatus(AGENT_CLUSTER_INSTALL, { ...target, status: aci.status }) : undefined,
    ]);
  });
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    registrationsPerSec: pairs.length / seconds,
    writesPerSec: writes / seconds,
    seconds,
    latencyMs: { p50: pct(latencies, 50), p99: pct(latencies, 99) },
  };
}
