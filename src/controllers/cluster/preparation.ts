// Installation preparation (core.md §2.5 steps 5–6): generate the install artifacts for a cluster
// that entered preparing-for-installation and report success (with the OpenShift cluster id) or
// the error, which the reconciler turns into HandlePreInstallSuccess / HandlePreInstallError.
//
// Generation can take minutes (openshift-install), so it runs outside the reconcile: one job per
// cluster and installation attempt (identified by install_started_at), held in memory. The
// reconcile that finds the job finished applies its outcome; after a restart a preparing cluster
// whose outcome was never recorded simply starts a new job (generation is idempotent).

import { randomBytes } from 'node:crypto';
import {
  type ArtifactGenerator,
  BuiltinArtifactGenerator,
  type ClusterManifest,
} from '../../core/artifacts/index.ts';
import type {
  InstallConfigInfraEnv,
  InstallConfigOptions,
  MirrorRegistryConfig,
} from '../../core/installconfig/index.ts';
import { isSingleNode } from '../../core/installconfig/index.ts';
import type { Cluster } from '../../core/model.ts';
import { allocateNodeIps } from '../../core/network/node-ips.ts';
import { isUserManagedLoadBalancer } from '../../core/network/topology.ts';
import { removeClusterFiles, writeClusterFiles } from '../../records/clusters/artifacts-store.ts';
import type { OperatorContext } from '../../records/context.ts';
import { OpenshiftInstallRunner } from './openshift-install-runner.ts';

export type PreparationOutcome = { ok: true; openshiftClusterId: string } | { ok: false; error: string };

export interface PreparationInput {
  cluster: Cluster;
  customManifests: ClusterManifest[];
  installConfig: InstallConfigOptions;
}

/** Where the openshift-install runner finds its commands (environment; defaults from PATH). */
export interface ArtifactBackendEnv {
  /** OC_PATH: `oc` used for `oc adm release extract`. */
  OC_PATH?: string;
  /** OPENSHIFT_INSTALL_PATH: use this openshift-install instead of extracting one. */
  OPENSHIFT_INSTALL_PATH?: string;
}

/** The generator selected by `settings.artifactBackend`. */
export function selectArtifactGenerator(
  ctx: Pick<OperatorContext, 'settings'>,
  env: ArtifactBackendEnv = process.env as ArtifactBackendEnv,
): ArtifactGenerator {
  if (ctx.settings.artifactBackend === 'openshift-install') {
    return new OpenshiftInstallRunner({
      ocPath: env.OC_PATH || 'oc',
      ...(env.OPENSHIFT_INSTALL_PATH ? { openshiftInstallPath: env.OPENSHIFT_INSTALL_PATH } : {}),
      workRoot: `${ctx.settings.dataDir}/openshift-install`,
    });
  }
  return new BuiltinArtifactGenerator();
}

/** custom_manifests.json: what the installer controller downloads to list the user manifests. */
export function customManifestsJson(manifests: readonly ClusterManifest[]): string {
  return JSON.stringify(
    manifests.map((m) => ({ folder: m.folder, file_name: m.fileName, manifest_source: 'user' })),
  );
}

/** custom_manifests.yaml: the user manifests as one multi-document YAML. */
export function customManifestsYaml(manifests: readonly ClusterManifest[]): string {
  return manifests.map((m) => m.content.replace(/\n*$/, '\n')).join('---\n');
}

/** Install-config inputs that come from outside the cluster record. */
export function installConfigOptions(
  cluster: Cluster,
  infraEnvs: InstallConfigInfraEnv[],
  clusterMirror: MirrorRegistryConfig | undefined,
): InstallConfigOptions {
  const options: InstallConfigOptions = { infraEnvs };
  if (clusterMirror) options.mirrorRegistries = { cluster: clusterMirror };
  // Node IPs are allocated for multi-node user-managed networking and user-managed load balancers.
  if ((cluster.user_managed_networking && !isSingleNode(cluster)) || isUserManagedLoadBalancer(cluster)) {
    const allocated = allocateNodeIps(cluster);
    if (allocated.value) {
      options.nodeIpAllocations = Object.fromEntries(
        Object.entries(allocated.value).map(([id, a]) => [
          id,
          { nodeIp: a.node_ip, hintIp: a.hint_ip, cidr: a.cidr },
        ]),
      );
    }
  }
  return options;
}

/** Runs the generator and stores every file in the cluster's data directory. */
export async function prepareInstallArtifacts(
  ctx: OperatorContext,
  generator: ArtifactGenerator,
  input: PreparationInput,
): Promise<PreparationOutcome> {
  try {
    const artifacts = await generator.generate({
      cluster: input.cluster,
      installConfig: input.installConfig,
      customManifests: input.customManifests,
      now: ctx.now(),
      random: (n) => randomBytes(n),
    });
    const files: Record<string, string> = { ...artifacts.files };
    for (const m of artifacts.manifests) files[`manifests/${m.folder}/${m.fileName}`] = m.content;
    files['custom_manifests.json'] = customManifestsJson(input.customManifests);
    files['custom_manifests.yaml'] = customManifestsYaml(input.customManifests);
    // A re-preparation starts from nothing: no stale host files or credentials of an earlier attempt.
    await removeClusterFiles(ctx, input.cluster.id);
    await writeClusterFiles(ctx, input.cluster.id, files);
    return { ok: true, openshiftClusterId: artifacts.clusterId };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

interface Job {
  attempt: string;
  outcome?: PreparationOutcome;
}

/** Preparation jobs by cluster id; one attempt at a time per cluster. */
export class PreparationJobs {
  private readonly jobs = new Map<string, Job>();
  /** Jobs still writing: shutdown waits for them, so no file is written after the operator stops. */
  private readonly running = new Set<Promise<void>>();

  /** 'running', the finished outcome, or undefined when no job exists for this attempt. */
  state(clusterId: string, attempt: string): 'running' | PreparationOutcome | undefined {
    const job = this.jobs.get(clusterId);
    if (!job || job.attempt !== attempt) return undefined;
    return job.outcome ?? 'running';
  }

  /** Starts `run` unless a job for this attempt exists; `done` is called when it settles. */
  start(clusterId: string, attempt: string, run: () => Promise<PreparationOutcome>, done: () => void): void {
    const existing = this.jobs.get(clusterId);
    if (existing && existing.attempt === attempt) return;
    const job: Job = { attempt };
    this.jobs.set(clusterId, job);
    const settled = run()
      .catch((err: unknown): PreparationOutcome => ({ ok: false, error: (err as Error).message }))
      .then((outcome) => {
        job.outcome = outcome;
        done();
      })
      .finally(() => this.running.delete(settled));
    this.running.add(settled);
  }

  /** Resolves once every job started so far has settled (graceful shutdown). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /** Forgets the job (its outcome was recorded, or the attempt is over). */
  forget(clusterId: string, attempt?: string): void {
    const job = this.jobs.get(clusterId);
    if (job && (attempt === undefined || job.attempt === attempt)) this.jobs.delete(clusterId);
  }
}
