#!/usr/bin/env node
// `make demo`: the whole product on one machine. Starts the local control plane and the operator,
// applies config/samples, boots simulated hosts from each InfraEnv's served ISO, approves the
// Agents and installs the sample SNO and 3 masters + 2 workers clusters while printing the CLI's
// status view. No real base image can be downloaded here, so the AgentServiceConfig's x86_64 image
// is pointed at a small RHCOS-shaped ISO built with xorriso.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type {
  Agent,
  AgentClusterInstall,
  AgentServiceConfig,
  ClusterDeployment,
  InfraEnv,
} from '../api/index.ts';
import { type ClusterSnapshot, formatStatus } from '../cli/status.ts';
import { installComplete } from '../cli/waitfor.ts';
import { applyObjects, parseManifests } from '../dev/apply.ts';
import { ControlPlane } from '../dev/controlplane.ts';
import { installCrds, projectCrdFiles } from '../dev/crds.ts';
import { serveFile } from '../dev/file-server.ts';
import { freePort } from '../dev/ports.ts';
import { buildTestIso } from '../dev/test-iso.ts';
import { loadKubeConfig, startOperator } from '../operator/main.ts';
import { loadOperatorConfig } from '../records/config.ts';
import { AGENT, AGENT_CLUSTER_INSTALL, CLUSTER_DEPLOYMENT, INFRA_ENV } from '../records/resources.ts';
import { createLogger, type KubeClient } from '../runtime/index.ts';
import { type Fleet, startFleet } from '../sim/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const NAMESPACE = 'demo';
const RHCOS_VERSION = '418.94.202501010000-0';
/** The sample clusters, the hosts each gets and the network its simulated hosts live on. */
const CLUSTERS = [
  { name: 'demo-sno', profiles: ['sno'], machineNetwork: '192.168.112.0/24' },
  {
    name: 'demo-multinode',
    profiles: ['master', 'master', 'master', 'worker', 'worker'],
    machineNetwork: '192.168.111.0/24',
  },
] as const;

const log = (msg: string) => console.log(`[demo] ${msg}`);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 300_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The samples' OS image URLs point at the internet: keep only x86_64, served from the local ISO. */
function withLocalOsImages(asc: AgentServiceConfig, url: string): AgentServiceConfig {
  const osImages = (asc.spec.osImages ?? [])
    .filter((i) => i.cpuArchitecture === 'x86_64')
    .map((i) => ({ ...i, url, version: RHCOS_VERSION }));
  return { ...asc, spec: { ...asc.spec, osImages } };
}

async function snapshot(client: KubeClient, name: string): Promise<ClusterSnapshot> {
  const [cd, aci, agents] = await Promise.all([
    client.getIfExists<ClusterDeployment>(CLUSTER_DEPLOYMENT, name, NAMESPACE),
    client.getIfExists<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, name, NAMESPACE),
    client.list<Agent>(AGENT, { namespace: NAMESPACE, labelSelector: `cluster-name=${name}` }),
  ]);
  return { clusterDeployment: cd, agentClusterInstall: aci, agents: agents.items };
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'aio-demo-'));
  log('starting the local control plane (the first run builds it from Go modules)');
  const plane = await ControlPlane.start();
  const fleets: Fleet[] = [];
  let stopOperator: (() => Promise<void>) | undefined;
  let files: Awaited<ReturnType<typeof serveFile>> | undefined;
  try {
    await installCrds(plane.kubeconfigPath, await projectCrdFiles());
    log(`control plane at ${plane.server}; kubeconfig ${plane.kubeconfigPath}`);
    const iso = await buildTestIso(work, { rhcosVersion: RHCOS_VERSION });
    files = await serveFile(iso.path);
    const isoUrl = files.url;

    const config = loadOperatorConfig([], {
      KUBECONFIG: plane.kubeconfigPath,
      POD_NAMESPACE: 'default',
      LEADER_ELECT: 'false',
      METRICS_BIND_ADDRESS: '0',
      HEALTH_PROBE_BIND_ADDRESS: '0',
      API_BIND_HOST: '127.0.0.1',
      API_PORT: String(await freePort()),
      DATA_DIR: join(work, 'data'),
    });
    const kubeConfig = loadKubeConfig(plane.kubeconfigPath);
    const op = await startOperator(config, {
      kubeConfig,
      // Quiet by default: optimistic-concurrency retries are expected and only clutter the demo.
      logger: createLogger({ level: process.env.LOG_LEVEL ?? 'silent' }),
    });
    stopOperator = op.stop;
    const client = op.ctx.client;
    log(`operator running; host API and image service at ${op.ctx.urls.serviceBaseUrl}`);

    const samples = (await readdir(join(root, 'config/samples')))
      .filter((f) => /^\d\d-.*\.yaml$/.test(f))
      .sort();
    for (const f of samples) {
      const objects = parseManifests(await readFile(join(root, 'config/samples', f), 'utf8')).map((o) =>
        o.kind === 'AgentServiceConfig'
          ? (withLocalOsImages(o as unknown as AgentServiceConfig, isoUrl) as unknown as typeof o)
          : o,
      );
      await applyObjects(kubeConfig, objects);
    }
    log(`applied config/samples (${samples.join(', ')}); OS images served from ${isoUrl}`);

    for (const c of CLUSTERS) {
      const imageUrl = await until(`${c.name} ISO URL`, async () => {
        const ie = await client.get<InfraEnv>(INFRA_ENV, c.name, NAMESPACE);
        return ie.status?.isoDownloadURL || undefined;
      });
      log(
        `${c.name}: booting ${c.profiles.length} simulated host(s) from ${imageUrl.replace(/byapikey\/[^/]+/, 'byapikey/…')}`,
      );
      fleets.push(
        await startFleet({
          media: { isoUrl: imageUrl },
          hosts: c.profiles.length,
          profiles: [...c.profiles],
          speed: 100,
          machine: { seed: c.name, machineNetworks: [c.machineNetwork], hostnamePrefix: c.name },
        }),
      );
    }

    for (const c of CLUSTERS) {
      const agents = await until(`${c.name} Agents`, async () => {
        const { agents } = await snapshot(client, c.name);
        return agents.length === c.profiles.length &&
          agents.every((a) => a.status?.inventory?.hostname?.startsWith(c.name))
          ? agents
          : undefined;
      });
      for (const a of agents) {
        // What `kubectl patch agent <name> --type merge -p '{"spec":{"approved":true,"role":…}}'`
        // sends. Multi-node hosts get the role their simulated hardware was built for; left to
        // auto-assign, the service would make the smallest qualifying hosts masters.
        const role =
          c.profiles.length > 1
            ? /-(master|worker)-\d+$/.exec(a.status?.inventory?.hostname ?? '')?.[1]
            : undefined;
        await client.patch(AGENT, a.metadata.name ?? '', NAMESPACE, 'merge', {
          spec: { approved: true, ...(role ? { role } : {}) },
        });
      }
      log(
        `${c.name}: approved ${agents.length} Agent(s)${c.profiles.length > 1 ? ' and set their roles' : ''}`,
      );
    }

    const pending = new Set<string>(CLUSTERS.map((c) => c.name));
    let last = 0;
    while (pending.size > 0) {
      for (const name of [...pending]) {
        const snap = await snapshot(client, name);
        if (installComplete(snap)) {
          pending.delete(name);
          console.log(`\n${formatStatus(name, NAMESPACE, snap)}`);
          log(`${name}: installed`);
        } else if (Date.now() - last > 5_000) {
          console.log(`\n${formatStatus(name, NAMESPACE, snap)}`);
        }
      }
      if (Date.now() - last > 5_000) last = Date.now();
      await new Promise((r) => setTimeout(r, 1_000));
    }
    log(
      `both clusters installed; kubeconfigs are in the Secrets demo-sno-admin-kubeconfig and demo-multinode-admin-kubeconfig`,
    );
  } finally {
    await Promise.allSettled(fleets.map((f) => f.stop()));
    await stopOperator?.();
    await files?.close();
    await plane.stop();
    await rm(work, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`[demo] failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  },
);
