// Chaos: the operator binary is SIGKILLed at seeded random moments while 20 simulated single-node
// clusters install, and restarted each time on the same ports (hosts keep calling the same URL).
// Every install must still complete, each host must have exactly one Agent, and deleting the
// clusters, InfraEnvs and Agents afterwards (with one more kill in the middle of it) must leave
// nothing behind: a finalizer the restarted operator forgets would keep an object forever.

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Agent, AgentClusterInstall, InfraEnv } from '../../src/api/index.ts';
import { loadOperatorConfig } from '../../src/records/config.ts';
import { AGENT, AGENT_CLUSTER_INSTALL, CLUSTER_DEPLOYMENT, INFRA_ENV } from '../../src/records/resources.ts';
import { type ApiResource, isNotFound, KubeClient, type KubeObject } from '../../src/runtime/index.ts';
import { type Fleet, formatStats, startFleet } from '../../src/sim/index.ts';
import { between, seededRandom } from '../../src/sim/prng.ts';
import { adminKubeConfig, eventually, kubeconfigPath, newNamespace, uniqueName } from '../harness/env.ts';
import {
  clusterDeploymentObject,
  condition,
  createCluster,
  createImageSet,
  createPullSecret,
  snoAciObject,
} from '../integration/cluster/harness.ts';
import { AUTH_KEYS_SECRET, chaosSeed, OperatorProcess, presetAgentKeys, printFigures } from './helpers.ts';

const CLUSTERS = 20;
// A polling agent whose service is unreachable for 15 simulated minutes restarts, and a host that
// registers again mid-install is failed ("unexpectedly restarted"), as upstream does. At ×40 that
// takes 22 s of real outage, several times what a restart takes on a loaded box; faster speeds
// turn a few seconds of restart into such a failure. The installer's own pace is quickened instead.
const SPEED = 40;
const INSTALL_PACE = { stageMs: 2_000, pollMs: 2_000 };

let client: KubeClient;
let ns: string;
let op: OperatorProcess;
const fleets: Fleet[] = [];

beforeAll(async () => {
  ns = await newNamespace('chaos-kill');
  client = new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
  op = await OperatorProcess.create({ kubeconfig: kubeconfigPath(), namespace: ns });
});

afterAll(async () => {
  await Promise.all(fleets.map((f) => f.stop()));
  await op?.stop();
  await client?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One SNO cluster: CD, ACI (no machine network: taken from the host) and its InfraEnv. */
async function applySno(name: string, imageSet: string): Promise<InfraEnv> {
  const aci = snoAciObject(ns, name, imageSet);
  delete aci.spec.networking.machineNetwork;
  await createCluster(client, clusterDeploymentObject(ns, name), aci);
  return client.create<InfraEnv>(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace: ns },
    spec: { clusterRef: { name, namespace: ns }, pullSecretRef: { name: 'pull-secret' } },
  } as InfraEnv);
}

/** Approves what is waiting (as `kubectl patch --type merge` would) and counts completed installs. */
async function approveAndCount(): Promise<number> {
  const agents = await client.list<Agent>(AGENT, { namespace: ns });
  for (const a of agents.items.filter((x) => x.spec.approved !== true)) {
    await client.patch(AGENT, a.metadata.name ?? '', ns, 'merge', { spec: { approved: true } });
  }
  const acis = await client.list<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, { namespace: ns });
  return acis.items.filter((a) => condition(a, 'Completed')?.status === 'True').length;
}

/** How many clusters and Agents are in each state, e.g. `installing×3 adding-hosts×17`. */
async function progress(): Promise<string> {
  const count = (states: string[]) => {
    const n = new Map<string, number>();
    for (const s of states) n.set(s, (n.get(s) ?? 0) + 1);
    return [...n].map(([s, k]) => `${s}×${k}`).join(' ');
  };
  const acis = (await client.list<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, { namespace: ns })).items;
  const agents = (await client.list<Agent>(AGENT, { namespace: ns })).items;
  // Why hosts wait: the host validations not passing, over every Agent not installed yet.
  const failing = agents
    .filter((a) => a.status?.debugInfo?.state !== 'installed')
    .flatMap((a) => Object.values(a.status?.validationsInfo ?? {}).flat())
    .filter((v) => v.status !== 'success' && v.status !== 'disabled')
    .map((v) => `${v.id}:${v.status}`);
  return `clusters: ${count(acis.map((a) => a.status?.debugInfo?.state ?? 'none'))}; agents: ${count(
    agents.map((a) => a.status?.debugInfo?.state ?? 'none'),
  )}${failing.length > 0 ? `; host validations not passing: ${count(failing)}` : ''}`;
}

async function remaining(): Promise<string[]> {
  const kinds: [string, ApiResource][] = [
    ['ClusterDeployment', CLUSTER_DEPLOYMENT],
    ['AgentClusterInstall', AGENT_CLUSTER_INSTALL],
    ['InfraEnv', INFRA_ENV],
    ['Agent', AGENT],
  ];
  const left: string[] = [];
  for (const [kind, type] of kinds) {
    for (const o of (await client.list<KubeObject>(type, { namespace: ns })).items) {
      left.push(`${kind}/${o.metadata.name} finalizers=${JSON.stringify(o.metadata.finalizers ?? [])}`);
    }
  }
  return left;
}

/** The clusters, once the operator has reconciled every InfraEnv. */
async function applyClusters(names: string[]): Promise<InfraEnv[]> {
  await createPullSecret(client, ns);
  const imageSet = await createImageSet(client);
  const infraEnvs = await Promise.all(names.map((n) => applySno(n, imageSet)));
  // A host boots only from an image of a reconciled InfraEnv; one that calls first is refused (401)
  // and blocks until restarted, as real agents do.
  const reconciled = (ie: InfraEnv) => ie.status?.conditions?.some((c) => c.type === 'ImageCreated');
  await eventually(
    async () =>
      (await client.list<InfraEnv>(INFRA_ENV, { namespace: ns })).items.filter(reconciled).length ===
      CLUSTERS,
    { timeoutMs: 120_000, intervalMs: 500, what: 'every InfraEnv reconciled' },
  );
  return infraEnvs;
}

/** One simulated host per InfraEnv, with the token its discovery image would carry. */
async function bootHosts(infraEnvs: InfraEnv[], seed: number, sign: (id: string) => string): Promise<void> {
  const agentImage = loadOperatorConfig([], {}).operator.agentImage;
  for (const ie of infraEnvs) {
    const id = ie.metadata.uid ?? '';
    const config = {
      serviceUrl: op.baseUrl,
      infraEnvId: id,
      agentVersion: agentImage,
      insecure: true,
      trustAnchors: [],
      token: sign(id),
      proxy: {},
      agentFlags: {},
    };
    const machine = { seed: `${seed}-${ie.metadata.name}` };
    fleets.push(await startFleet({ config, hosts: 1, speed: SPEED, install: INSTALL_PACE, machine }));
  }
}

interface KillPoint {
  atMs: number;
  completed: number;
  readyAfterMs: number;
}

/** Kills and restarts the operator after each delay, until `completed()` reaches every cluster. */
async function killDuringInstalls(
  delays: number[],
  started: number,
  completed: () => number,
): Promise<KillPoint[]> {
  const points: KillPoint[] = [];
  for (const delay of delays) {
    await sleep(delay);
    if (completed() === CLUSTERS) break;
    const at = Date.now();
    await op.kill9();
    await op.start();
    points.push({ atMs: at - started, completed: completed(), readyAfterMs: Date.now() - at });
  }
  return points;
}

/** What is not done: unfinished clusters and Agents with their state, each host's counters. */
async function stuckReport(): Promise<string> {
  const acis = (await client.list<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, { namespace: ns })).items;
  const agents = (await client.list<Agent>(AGENT, { namespace: ns })).items;
  const state = (o: Agent | AgentClusterInstall) =>
    `${o.metadata.name}: ${o.status?.debugInfo?.state} ${o.status?.debugInfo?.stateInfo}`;
  return [
    await progress(),
    ...acis.filter((a) => condition(a, 'Completed')?.status !== 'True').map(state),
    ...agents.filter((a) => a.status?.debugInfo?.state !== 'installed').map(state),
    ...fleets.map((f) => formatStats(f.stats)),
  ].join('\n');
}

/** Approves Agents and waits for every install, printing progress every 15 s. */
async function waitForInstalls(started: number, onCount: (n: number) => void): Promise<void> {
  const ticker = setInterval(
    () =>
      void progress().then((p) =>
        console.log(`[chaos] ${Math.round((Date.now() - started) / 1000)} s: ${p}`),
      ),
    15_000,
  );
  try {
    await eventually(
      async () => {
        const n = await approveAndCount();
        onCount(n);
        return n === CLUSTERS;
      },
      { timeoutMs: 210_000, intervalMs: 1_000, what: `${CLUSTERS} installs completed` },
    );
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${await stuckReport()}\noperator: ${op.tail()}`);
  } finally {
    clearInterval(ticker);
  }
}

/** Deletes every cluster, InfraEnv and Agent with one more kill while finalizers run. */
async function deleteAllWithAKill(names: string[], agents: Agent[], random: () => number): Promise<void> {
  await Promise.all(fleets.map((f) => f.stop()));
  for (const name of names) {
    await client.delete(CLUSTER_DEPLOYMENT, name, ns);
    await client.delete(INFRA_ENV, name, ns);
  }
  // Agents whose InfraEnv goes first are released, not deleted: the garbage collector removes them
  // (the InfraEnv owns them), and the test control plane runs none, so the test does its part.
  for (const agent of agents) {
    await client.delete(AGENT, agent.metadata.name ?? '', ns).catch((err: unknown) => {
      if (!isNotFound(err)) throw err;
    });
  }
  await sleep(Math.round(between(random, 0, 1_500)));
  await op.kill9();
  await op.start();
  await eventually(async () => (await remaining()).length === 0, {
    timeoutMs: 120_000,
    intervalMs: 1_000,
    what: 'every CD, ACI, InfraEnv and Agent gone',
  }).catch(async (err: Error) => {
    throw new Error(`${err.message}\nleft: ${(await remaining()).join('\n')}\n${op.tail()}`);
  });
}

it(`${CLUSTERS} simulated SNO installs complete through operator kill -9s, with no duplicate Agent and no stuck finalizer`, async () => {
  const seed = chaosSeed();
  const random = seededRandom(seed);
  const drawn = 3 + Math.floor(random() * 3);
  // CHAOS_KILLS overrides the count (0: the same installs without chaos, for comparison).
  const kills = process.env.CHAOS_KILLS ? Number(process.env.CHAOS_KILLS) : drawn;
  // Each kill comes a random while after the previous restart was ready: early ones hit
  // registration and approval, later ones the installs.
  const delays = Array.from({ length: kills }, () => Math.round(between(random, 1_000, 6_000)));
  printFigures('operator-kill plan', { seed, kills, delaysMs: delays });
  const started = Date.now();

  const signToken = await presetAgentKeys(client, ns, AUTH_KEYS_SECRET);
  await op.start();
  const names = Array.from({ length: CLUSTERS }, (_, i) => `${uniqueName('sno')}-${i}`);
  await bootHosts(await applyClusters(names), seed, signToken);
  let completed = 0;
  const chaos = killDuringInstalls(delays, started, () => completed);
  await waitForInstalls(started, (n) => {
    completed = n;
  });
  const killPoints = await chaos;
  const installMs = Date.now() - started;

  // Exactly one Agent per simulated host, bound to that host's cluster.
  const agents = (await client.list<Agent>(AGENT, { namespace: ns })).items;
  const hostIds = fleets.map((f) => f.hosts[0]!.hostId).sort();
  expect(agents.map((a) => a.metadata.name).sort()).toEqual(hostIds);
  for (const [i, fleet] of fleets.entries()) {
    const agent = agents.find((a) => a.metadata.name === fleet.hosts[0]!.hostId);
    expect(agent?.spec.clusterDeploymentName?.name).toBe(names[i]);
  }
  if (kills > 0) expect(killPoints.length).toBeGreaterThanOrEqual(1);

  const teardownStarted = Date.now();
  await deleteAllWithAKill(names, agents, random);

  printFigures('operator-kill', {
    seed,
    clusters: CLUSTERS,
    installsCompleted: completed,
    agents: agents.length,
    kills: killPoints.length + 1,
    killPoints,
    restarts: op.starts - 1,
    installMs,
    teardownMs: Date.now() - teardownStarted,
  });
}, 330_000);
