// Full-collection pauses with a record memoised for every cached Agent and cluster, as the
// operator holds them (records/agent.ts, records/cluster-hosts.ts). Kept in WeakMaps, those
// records were ephemerons, which V8 closes inside the full collection's pause; kept on the
// objects (util/memo-slot.ts) they are marked with the rest of the heap (issue 16).
import { constants, PerformanceObserver } from 'node:perf_hooks';
import type { Agent, ClusterDeployment } from '../src/api/index.ts';
import { cachedAgentToHost } from '../src/records/agent.ts';
import { clusterHosts } from '../src/records/cluster-hosts.ts';
import { pct } from './percentile.ts';

interface Fleet {
  agents: Agent[][];
  clusters: ClusterDeployment[];
  /** What the last tick's requests hold (short-lived garbage). */
  inFlight: unknown[];
}

function fleetOf(clusters: number, hostsPerCluster: number, agent: (i: number) => Agent): Fleet {
  const fleet: Fleet = { agents: [], clusters: [], inFlight: [] };
  for (let c = 0; c < clusters; c++) {
    fleet.agents.push(Array.from({ length: hostsPerCluster }, (_, k) => agent(c * hostsPerCluster + k)));
    fleet.clusters.push({
      metadata: { name: `cd-${c}`, namespace: `cluster-${c}` },
      spec: {},
    } as ClusterDeployment);
  }
  return fleet;
}

/** What a reconcile or poll of cluster `c` memoises: each host's record and the cluster's host list. */
function readCluster(fleet: Fleet, c: number): void {
  const agents = fleet.agents[c] as Agent[];
  for (const a of agents) cachedAgentToHost(a);
  clusterHosts(fleet.clusters[c] as ClusterDeployment, `cluster-${c}`, agents, undefined);
}

/**
 * Informer-like churn for `seconds`: every 5 ms 10 Agents are replaced by new objects (an update
 * event) and read again, a tenth of the clusters are read (reconciles, polls), and short-lived
 * garbage is made (requests). Returns the pauses of the full collections meanwhile.
 */
async function churn(fleet: Fleet, seconds: number): Promise<number[]> {
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) pauses.push(e.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const n = fleet.clusters.length;
  let tick = 0;
  const timer = setInterval(() => {
    for (let k = 0; k < 10; k++) {
      const c = (tick * 10 + k) % n;
      const agents = fleet.agents[c] as Agent[];
      agents[0] = structuredClone(agents[0] as Agent);
      readCluster(fleet, c);
    }
    for (let k = 0; k < n / 10; k++) readCluster(fleet, (tick * 7919 + k) % n);
    fleet.inFlight = Array.from({ length: 3000 }, (_, k) => ({ k, text: `request ${k}` }));
    tick++;
  }, 5);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  clearInterval(timer);
  await new Promise((resolve) => setImmediate(resolve)); // deliver the last entries
  observer.disconnect();
  return pauses;
}

export async function benchMemoGc(
  line: (name: string, value: string) => void,
  clusters: number,
  hostsPerCluster: number,
  agent: (i: number) => Agent,
  seconds = Number(process.env.BENCH_MEMO_GC_SECONDS ?? 30),
): Promise<void> {
  const fleet = fleetOf(clusters, hostsPerCluster, agent);
  for (let c = 0; c < clusters; c++) readCluster(fleet, c);
  const pauses = (await churn(fleet, seconds)).sort((a, b) => a - b);
  line(
    `memoised records: full-collection pauses, ${clusters * hostsPerCluster} hosts`,
    pauses.length === 0
      ? `no full collection in ${seconds} s`
      : `${pauses.length} in ${seconds} s, pause p50 / max ${pct(pauses, 50).toFixed(1)} / ${(pauses.at(-1) as number).toFixed(1)} ms`,
  );
}
