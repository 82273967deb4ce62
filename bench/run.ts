// `npm run bench`: throughput and memory figures for the pieces that scale with the fleet. Prints
// figures; asserts nothing (targets are read off the output, never enforced by timed tests).
import { performance } from 'node:perf_hooks';
import type { Agent } from '../src/api/index.ts';
import { agentToHost, hostToAgentStatus } from '../src/records/index.ts';
import {
  AGENT_BY_CLUSTER_INDEX,
  AGENT_BY_MAC_INDEX,
  agentByCluster,
  agentByMac,
} from '../src/records/indexes.ts';
import { Store, WorkQueue } from '../src/runtime/index.ts';
import { benchConnectivity, benchStoredReports } from './connectivity.ts';
import { benchMemoGc } from './memo-gc.ts';
import { benchOneNamespace } from './one-namespace.ts';
import { benchRoleSuggestion } from './roles.ts';

const CLUSTERS = Number(process.env.BENCH_CLUSTERS ?? 10_000);
const HOSTS_PER_CLUSTER = Number(process.env.BENCH_HOSTS_PER_CLUSTER ?? 3);

function line(name: string, value: string): void {
  console.log(`${name.padEnd(48)} ${value}`);
}

function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function gc(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

function agent(i: number): Agent {
  const cluster = Math.floor(i / HOSTS_PER_CLUSTER);
  const mac = `52:54:${((i >> 24) & 255).toString(16).padStart(2, '0')}:${((i >> 16) & 255).toString(16).padStart(2, '0')}:${((i >> 8) & 255).toString(16).padStart(2, '0')}:${(i & 255).toString(16).padStart(2, '0')}`;
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: {
      name: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
      namespace: `cluster-${cluster}`,
      uid: `uid-${i}`,
      resourceVersion: String(i),
      labels: { 'infraenvs.agent-install.openshift.io': `ie-${cluster}` },
    },
    spec: {
      approved: true,
      role: '',
      clusterDeploymentName: { name: `cd-${cluster}`, namespace: `cluster-${cluster}` },
    },
    status: {
      inventory: {
        hostname: `host-${i}`,
        cpu: { count: 8, architecture: 'x86_64' },
        memory: { physicalBytes: 34359738368, usableBytes: 33285996544 },
        interfaces: [
          {
            name: 'enp1s0',
            macAddress: mac,
            ipV4Addresses: ['192.168.111.10/24'],
            ipV6Addresses: [],
            flags: [],
          },
        ],
        disks: [
          {
            id: '/dev/vda',
            name: 'vda',
            path: '/dev/vda',
            sizeBytes: 128849018880,
            driveType: 'HDD',
            installationEligibility: { eligible: true, notEligibleReasons: [] },
          },
        ],
      },
      debugInfo: { state: 'known', stateInfo: 'Host is ready to be installed' },
    },
  } as unknown as Agent;
}

async function benchQueue(): Promise<void> {
  const n = 200_000;
  const q = new WorkQueue();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) q.add(`ns/key-${i % (n / 2)}`); // half are duplicates
  let processed = 0;
  for (;;) {
    if (q.len() === 0) break;
    const key = await q.get();
    if (key === undefined) break;
    q.done(key);
    processed++;
  }
  const ms = performance.now() - t0;
  q.shutDown();
  line(
    'work queue: adds (50% duplicates) + get/done',
    `${n} adds, ${processed} processed in ${ms.toFixed(0)} ms (${Math.round((n / ms) * 1000)} adds/s)`,
  );
}

function benchStore(): void {
  const total = CLUSTERS * HOSTS_PER_CLUSTER;
  gc();
  const before = process.memoryUsage().heapUsed;
  const store = new Store<Agent>();
  store.addIndex(AGENT_BY_CLUSTER_INDEX, agentByCluster);
  store.addIndex(AGENT_BY_MAC_INDEX, agentByMac);
  const t0 = performance.now();
  for (let i = 0; i < total; i++) store.upsert(agent(i));
  const insertMs = performance.now() - t0;
  gc();
  const after = process.memoryUsage().heapUsed;
  line(
    `store: ${total} Agents with 2 indexes`,
    `${insertMs.toFixed(0)} ms insert, ${mb(after - before)} heap (${((after - before) / total / 1024).toFixed(1)} KiB/Agent)`,
  );
  const lookups = 100_000;
  const t1 = performance.now();
  let found = 0;
  for (let i = 0; i < lookups; i++) {
    const c = i % CLUSTERS;
    found += store.byIndex(AGENT_BY_CLUSTER_INDEX, `cluster-${c}/cd-${c}`).length;
  }
  const lookupMs = performance.now() - t1;
  line(
    'store: agents-of-cluster index lookups',
    `${lookups} in ${lookupMs.toFixed(0)} ms (${((lookupMs * 1000) / lookups).toFixed(2)} µs each, ${found} hits)`,
  );
}

function benchProjection(): void {
  const n = 5_000;
  const agents = Array.from({ length: n }, (_, i) => agent(i));
  const now = new Date('2026-11-21T00:00:00Z');
  const t0 = performance.now();
  let unchanged = 0;
  for (const a of agents) {
    const host = agentToHost(a);
    const status = hostToAgentStatus(host, a, { now });
    const again = hostToAgentStatus(agentToHost({ ...a, status } as Agent), { ...a, status } as Agent, {
      now,
    });
    if (JSON.stringify(again) === JSON.stringify(status)) unchanged++;
  }
  const ms = performance.now() - t0;
  line(
    'records: Agent → host → status, twice',
    `${n} agents in ${ms.toFixed(0)} ms (${((ms * 1000) / n / 2).toFixed(0)} µs per projection), ${unchanged}/${n} idempotent`,
  );
}

console.log(
  `agent-install-operator benchmarks (node ${process.version}; ${CLUSTERS} clusters × ${HOSTS_PER_CLUSTER} hosts)`,
);
await benchQueue();
benchStore();
benchOneNamespace(line);
benchProjection();
benchRoleSuggestion(line);
benchConnectivity(line);
benchStoredReports(line);
await benchMemoGc(line, CLUSTERS, HOSTS_PER_CLUSTER, agent);
