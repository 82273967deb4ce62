// Chaos: kube-apiserver is restarted 5 times (same port, same etcd) while a wave of InfraEnvs and
// SNO clusters is created and simulated hosts register. Afterwards every cache of the operator
// matches a live list, every InfraEnv has its ISO URL, every cluster is registered and every host
// that registered has its Agent with inventory, those created after the last restart included.
// Runs on its own control plane: the shared one must not restart under the other test files.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Agent, AgentClusterInstall, InfraEnv } from '../../src/api/index.ts';
import { ControlPlane } from '../../src/dev/controlplane.ts';
import { installCrds, projectCrdFiles } from '../../src/dev/crds.ts';
import { loadKubeConfig } from '../../src/operator/main.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  INFRA_ENV,
  NAMESPACE,
} from '../../src/records/resources.ts';
import { type ApiResource, isAlreadyExists, KubeClient, type KubeObject } from '../../src/runtime/index.ts';
import { type Fleet, startFleet } from '../../src/sim/index.ts';
import { between, seededRandom } from '../../src/sim/prng.ts';
import { eventually } from '../harness/env.ts';
import { buildTestIso } from '../harness/iso.ts';
import { startTestOperator, type TestOperator } from '../harness/operator.ts';
import {
  clusterDeploymentObject,
  createImageSet,
  createPullSecret,
  snoAciObject,
} from '../integration/cluster/harness.ts';
import { infraEnv, serveFile, setTestOsImage } from '../integration/infraenv/fixtures.ts';
import { chaosSeed, printFigures } from './helpers.ts';

const RESTARTS = 5;
/** Created while the API server comes and goes (one every 2-7 s, spread over the restarts)… */
const WAVE = { infraEnvs: 8, hostsPerInfraEnv: 3, clusters: 4, pauseMs: [2_000, 7_000] as const };
/** …and after the last restart, to prove the caches still deliver new objects. */
const AFTER = { infraEnvs: 2, hostsPerInfraEnv: 3, clusters: 1, pauseMs: [200, 1_000] as const };
const NS = 'wave';

let plane: ControlPlane;
let admin: KubeClient;
let op: TestOperator;
let isoDir: string;
let files: Awaited<ReturnType<typeof serveFile>>;
const fleets: Fleet[] = [];

beforeAll(async () => {
  plane = await ControlPlane.start();
  await installCrds(plane.kubeconfigPath, await projectCrdFiles());
  admin = new KubeClient({ kubeConfig: loadKubeConfig(plane.kubeconfigPath), qps: 0 });
  await admin.create(NAMESPACE, { metadata: { name: NS } });
  isoDir = await mkdtemp(join(tmpdir(), 'aio-chaos-iso-'));
  files = await serveFile((await buildTestIso(isoDir, {})).path);
  await setTestOsImage(admin, files.url, true);
  await createPullSecret(admin, NS);
  op = await startTestOperator({ namespace: NS, kubeconfigPath: plane.kubeconfigPath });
}, 180_000);

afterAll(async () => {
  await Promise.all(fleets.map((f) => f.stop()));
  await op?.stop();
  await admin?.close();
  await files?.close();
  await plane?.stop();
  if (isoDir) await rm(isoDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates `obj`, retrying while the API server is away; an answer lost in a restart is fine. */
async function createThroughRestarts<T extends KubeObject>(res: ApiResource, obj: T): Promise<T> {
  for (;;) {
    try {
      return await admin.create<T>(res, obj);
    } catch (err) {
      if (isAlreadyExists(err)) return admin.get<T>(res, obj.metadata.name ?? '', obj.metadata.namespace);
      // A refusal (invalid object, forbidden) is a bug of the test; only unavailability is retried.
      const status = (err as { statusCode?: number }).statusCode ?? 0;
      if (status >= 400 && status < 500 && status !== 429) throw err;
      await sleep(250);
    }
  }
}

interface Created {
  infraEnvs: string[];
  clusters: string[];
}

/** Hosts boot once the InfraEnv has its ISO URL, as real ones do: the image exists only then. */
async function createInfraEnvWithHosts(name: string, hosts: number, seed: number): Promise<void> {
  const ie = await createThroughRestarts<InfraEnv>(INFRA_ENV, infraEnv(NS, name));
  const id = ie.metadata.uid ?? '';
  await eventually(async () => (await admin.get<InfraEnv>(INFRA_ENV, name, NS)).status?.isoDownloadURL, {
    timeoutMs: 120_000,
    intervalMs: 500,
    what: `InfraEnv ${name} ISO URL`,
  });
  const config = {
    serviceUrl: op.baseUrl,
    infraEnvId: id,
    agentVersion: op.ctx.settings.agentImage,
    insecure: true,
    trustAnchors: [],
    token: op.server.auth.issueAgentToken({ kind: 'infra-env', id }),
    proxy: {},
    agentFlags: {},
  };
  fleets.push(
    await startFleet({
      config,
      hosts,
      profiles: ['worker'],
      speed: 100,
      machine: { seed: `${seed}-${name}` },
    }),
  );
}

async function createCluster(name: string, imageSet: string): Promise<void> {
  await createThroughRestarts(CLUSTER_DEPLOYMENT, clusterDeploymentObject(NS, name));
  await createThroughRestarts(AGENT_CLUSTER_INSTALL, snoAciObject(NS, name, imageSet));
}

/** Creates a batch, one object every so often (seeded), into `created`. */
async function createBatch(
  prefix: string,
  batch: {
    infraEnvs: number;
    hostsPerInfraEnv: number;
    clusters: number;
    pauseMs: readonly [number, number];
  },
  random: () => number,
  seed: number,
  imageSet: string,
  created: Created,
): Promise<void> {
  const work: Promise<void>[] = [];
  for (let i = 0; i < Math.max(batch.infraEnvs, batch.clusters); i++) {
    if (i < batch.infraEnvs) {
      const name = `${prefix}-ie-${i}`;
      created.infraEnvs.push(name);
      work.push(createInfraEnvWithHosts(name, batch.hostsPerInfraEnv, seed));
    }
    if (i < batch.clusters) {
      const name = `${prefix}-cl-${i}`;
      created.clusters.push(name);
      work.push(createCluster(name, imageSet));
    }
    await sleep(Math.round(between(random, ...batch.pauseMs)));
  }
  await Promise.all(work);
}

/** Kinds whose caches must match a live list once the dust settles. */
const CACHED: ApiResource[] = [INFRA_ENV, AGENT, CLUSTER_DEPLOYMENT, AGENT_CLUSTER_INSTALL];

/** Names in the live list the cache lacks, or holds at an older resourceVersion. */
async function cacheLag(res: ApiResource): Promise<string[]> {
  const live = (await admin.list<KubeObject>(res, { namespace: NS })).items;
  const store = op.ctx.mgr.informer(res).store;
  const cached = new Map(store.list().map((o) => [o.metadata.name, Number(o.metadata.resourceVersion)]));
  const lag = live
    .filter((o) => (cached.get(o.metadata.name) ?? -1) < Number(o.metadata.resourceVersion))
    .map((o) => `${res.plural}/${o.metadata.name}`);
  const liveNames = new Set(live.map((o) => o.metadata.name));
  for (const name of cached.keys()) if (!liveNames.has(name)) lag.push(`${res.plural}/${name} (deleted)`);
  return lag;
}

/** What was created but not reconciled: ISO URLs, cluster registrations, Agents with inventory. */
async function missing(created: Created): Promise<string[]> {
  const ies = (await admin.list<InfraEnv>(INFRA_ENV, { namespace: NS })).items;
  const acis = (await admin.list<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, { namespace: NS })).items;
  const agents = (await admin.list<Agent>(AGENT, { namespace: NS })).items;
  const withInventory = new Set(
    agents.filter((a) => a.status?.inventory?.hostname).map((a) => a.metadata.name),
  );
  return [
    ...created.infraEnvs
      .filter((n) => !ies.find((ie) => ie.metadata.name === n)?.status?.isoDownloadURL)
      .map((n) => `InfraEnv ${n} without ISO URL`),
    ...created.clusters
      .filter((n) => !acis.find((a) => a.metadata.name === n)?.status?.backend?.clusterID)
      .map((n) => `cluster ${n} not registered`),
    ...fleets
      .flatMap((f) => f.hosts)
      .filter((h) => !withInventory.has(h.hostId))
      .map((h) => `host ${h.hostId} (${h.phase} ${h.gaveUpReason ?? ''}) without Agent inventory`),
  ];
}

/** Stops and starts kube-apiserver after each pause (seeded), while the wave goes on. */
async function restartApiServer(upMs: number[], downMs: number[], started: number) {
  const restarts: { atMs: number; downMs: number; readyAfterMs: number }[] = [];
  for (let i = 0; i < upMs.length; i++) {
    await sleep(upMs[i]!);
    const at = Date.now();
    await plane.stopApiServer();
    await sleep(downMs[i]!);
    await plane.startApiServer();
    restarts.push({ atMs: at - started, downMs: downMs[i]!, readyAfterMs: Date.now() - at });
  }
  return restarts;
}

it(`every cache recovers and nothing is missed through ${RESTARTS} API server restarts during a registration wave`, async () => {
  const seed = chaosSeed();
  const random = seededRandom(seed);
  const downMs = Array.from({ length: RESTARTS }, () => Math.round(between(random, 300, 3_000)));
  const upMs = Array.from({ length: RESTARTS }, () => Math.round(between(random, 1_000, 5_000)));
  printFigures('apiserver-restart plan', { seed, restarts: RESTARTS, downMs, upMs });
  const started = Date.now();
  const imageSet = await createImageSet(admin);
  const created: Created = { infraEnvs: [], clusters: [] };

  const wave = createBatch('wave', WAVE, random, seed, imageSet, created);
  const restarts = await restartApiServer(upMs, downMs, started);
  await wave;
  const waveMs = Date.now() - started;
  await createBatch('after', AFTER, random, seed, imageSet, created);
  const hosts = fleets.flatMap((f) => f.hosts.map((h) => h.hostId));

  await eventually(
    async () => {
      const lag = (await Promise.all(CACHED.map(cacheLag))).flat();
      return lag.length === 0 || undefined;
    },
    { timeoutMs: 120_000, intervalMs: 1_000, what: 'every cache to match a live list' },
  );
  await eventually(async () => (await missing(created)).length === 0, {
    timeoutMs: 120_000,
    intervalMs: 1_000,
    what: 'every InfraEnv, cluster and host reconciled',
  }).catch(async (err: Error) => {
    throw new Error(`${err.message}\n${(await missing(created)).join('\n')}`);
  });
  const agents = (await admin.list<Agent>(AGENT, { namespace: NS })).items;
  expect(agents.map((a) => a.metadata.name).sort()).toEqual([...hosts].sort());
  // The probes agree: ready again, and never asking for a restart that would not help.
  await eventually(async () => op.ctx.mgr.readiness().ok, { what: 'readiness back' });
  expect(await op.ctx.mgr.liveness()).toEqual({ ok: true });

  printFigures('apiserver-restart', {
    seed,
    restarts: restarts.length,
    restartPoints: restarts,
    waveMs,
    infraEnvs: created.infraEnvs.length,
    clusters: created.clusters.length,
    hostsRegistered: hosts.length,
    agents: agents.length,
    ms: Date.now() - started,
  });
}, 300_000);
