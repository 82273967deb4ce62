// Install artifacts made the way upstream makes them (core.md §8.4): extract `openshift-install`
// from the cluster's release image with `oc adm release extract`, run it on the generated
// install-config, then post-process its output with the same core functions the built-in
// generator uses. Binaries are cached per release image under `<workRoot>/bin/`; every run gets
// its own work directory, removed afterwards.

import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { access, constants, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments, parse as parseYaml } from 'yaml';
import {
  type ArtifactGenerator,
  type ArtifactGeneratorInput,
  addHostInstallIgnitions,
  type ClusterManifest,
  emptyIgnition,
  INFRASTRUCTURE_MANIFEST,
  type InstallArtifacts,
  parseIgnition,
  patchInfrastructureTopology,
  postProcessBootstrapIgnition,
  postProcessRoleIgnition,
  type RoleIgnitions,
  serializeIgnition,
} from '../../core/artifacts/index.ts';
import { countByEffectiveRole, generateInstallConfig, isSingleNode } from '../../core/installconfig/index.ts';
import type { Cluster } from '../../core/model.ts';
import { findHostAddressInCidr } from '../../core/network/host-networks.ts';

export interface OpenshiftInstallRunnerOptions {
  /** `oc` used to extract openshift-install from the release image. */
  ocPath: string;
  /** A ready openshift-install binary; when set, nothing is extracted. */
  openshiftInstallPath?: string;
  /** Extracted binaries (`bin/`) and per-run work directories (`work/`). */
  workRoot: string;
  /** Extra environment for both commands (e.g. HTTPS_PROXY). */
  env?: Readonly<Record<string, string>>;
  /** Per command; openshift-install normally needs well under a minute. Default 10 minutes. */
  timeoutMs?: number;
  /** Keep work directories for debugging. */
  keepWorkDirs?: boolean;
  /** OPENSHIFT_INSTALL_INVOKER. */
  invoker?: string;
}

export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

/** The last lines of a command's output: openshift-install ends with its `level=fatal` reason. */
function tail(text: string, lines = 8): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

function run(
  file: string,
  args: readonly string[],
  opts: { cwd?: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { cwd: opts.cwd, env: opts.env, timeout: opts.timeoutMs, maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err) {
          const detail = tail(`${stderr}\n${stdout}`) || err.message;
          reject(new CommandError(`${[file, ...args].join(' ')} failed: ${detail}`));
        } else resolve(stdout);
      },
    );
  });
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/**
 * Custom manifests as openshift-install reads them: one object per file. A multi-document file
 * is split into `<name>-<7 hex>-NN.<ext>` (upstream's naming).
 */
export function splitManifest(m: ClusterManifest): ClusterManifest[] {
  if (!/\.ya?ml$/.test(m.fileName)) return [m];
  const docs = parseAllDocuments(m.content).filter((d) => d.contents !== null);
  if (docs.length <= 1) return [m];
  const dot = m.fileName.lastIndexOf('.');
  const base = m.fileName.slice(0, dot);
  const ext = m.fileName.slice(dot);
  const token = createHash('sha256').update(m.fileName).digest('hex').slice(0, 7);
  return docs.map((d, i) => ({
    folder: m.folder,
    fileName: `${base}-${token}-${String(i).padStart(2, '0')}${ext}`,
    content: d.toString({ lineWidth: 0 }).replace(/^---[ \t]*\n/, ''),
  }));
}

/** OPENSHIFT_INSTALL_BOOTSTRAP_NODE_IP: the bootstrap host's address in the first machine network. */
export function bootstrapNodeIp(cluster: Cluster): string | undefined {
  const bootstrap = cluster.hosts.find((h) => h.bootstrap === true);
  const cidr = cluster.machine_networks[0]?.cidr;
  if (!bootstrap || !cidr) return undefined;
  return findHostAddressInCidr(bootstrap, cidr)?.ip;
}

/** The root CA embedded in a kubeconfig (certificate-authority-data of its first cluster). */
function caFromKubeconfig(kubeconfig: string): string {
  const doc = parseYaml(kubeconfig) as { clusters?: { cluster?: Record<string, string> }[] } | null;
  const data = doc?.clusters?.[0]?.cluster?.['certificate-authority-data'];
  return data ? Buffer.from(data, 'base64').toString('utf8') : '';
}

export class OpenshiftInstallRunner implements ArtifactGenerator {
  private readonly opts: OpenshiftInstallRunnerOptions;
  /** One extraction per release image at a time. */
  private readonly extracting = new Map<string, Promise<string>>();

  constructor(opts: OpenshiftInstallRunnerOptions) {
    this.opts = opts;
  }

  private env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    return { ...process.env, ...this.opts.env, ...extra };
  }

  private get timeoutMs(): number {
    return this.opts.timeoutMs ?? 10 * 60_000;
  }

  /** The openshift-install binary for a release image, extracting it on first use. */
  installerFor(releaseImage: string, pullSecretPath: string): Promise<string> {
    if (this.opts.openshiftInstallPath) return Promise.resolve(this.opts.openshiftInstallPath);
    const key = createHash('sha256').update(releaseImage).digest('hex').slice(0, 16);
    const dir = join(this.opts.workRoot, 'bin', key);
    const binary = join(dir, 'openshift-install');
    let pending = this.extracting.get(key);
    if (!pending) {
      pending = (async () => {
        if (await exists(binary)) return binary;
        const tmp = `${dir}.tmp-${randomBytes(4).toString('hex')}`;
        await mkdir(tmp, { recursive: true });
        try {
          await run(
            this.opts.ocPath,
            [
              'adm',
              'release',
              'extract',
              '--command=openshift-install',
              `--to=${tmp}`,
              `--registry-config=${pullSecretPath}`,
              releaseImage,
            ],
            { env: this.env(), timeoutMs: this.timeoutMs },
          );
          if (!(await exists(join(tmp, 'openshift-install')))) {
            throw new CommandError(
              `oc adm release extract did not produce openshift-install for ${releaseImage}`,
            );
          }
          await rm(dir, { recursive: true, force: true });
          await rename(tmp, dir);
          return binary;
        } finally {
          await rm(tmp, { recursive: true, force: true });
        }
      })().finally(() => this.extracting.delete(key));
      this.extracting.set(key, pending);
    }
    return pending;
  }

  async generate(input: ArtifactGeneratorInput): Promise<InstallArtifacts> {
    const { cluster } = input;
    const release = cluster.ocp_release_image;
    if (!release) throw new Error(`cluster ${cluster.id} has no release image`);
    const work = join(this.opts.workRoot, 'work', `${cluster.id}-${randomBytes(4).toString('hex')}`);
    await mkdir(work, { recursive: true });
    try {
      return await this.generateIn(work, input, release);
    } finally {
      if (!this.opts.keepWorkDirs) await rm(work, { recursive: true, force: true });
    }
  }

  private async generateIn(
    work: string,
    input: ArtifactGeneratorInput,
    release: string,
  ): Promise<InstallArtifacts> {
    const { cluster } = input;
    const pullSecretPath = join(work, 'pull-secret.json');
    await writeFile(pullSecretPath, cluster.pull_secret ?? '{}', { mode: 0o600 });
    const installer = await this.installerFor(release, pullSecretPath);

    const assets = join(work, 'assets');
    await mkdir(assets, { recursive: true });
    const installConfig = generateInstallConfig(cluster, input.installConfig ?? {});
    await writeFile(join(assets, 'install-config.yaml'), installConfig, { mode: 0o600 });

    const extra: Record<string, string> = {
      OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE: release,
      OPENSHIFT_INSTALL_INVOKER: this.opts.invoker ?? 'agent-install-operator',
    };
    const nodeIp = bootstrapNodeIp(cluster);
    if (nodeIp) extra.OPENSHIFT_INSTALL_BOOTSTRAP_NODE_IP = nodeIp;
    const env = this.env(extra);
    const installerRun = (...args: string[]) =>
      run(installer, [...args, '--dir', assets], { cwd: work, env, timeoutMs: this.timeoutMs });

    await installerRun('create', 'manifests');

    const custom = (input.customManifests ?? []).flatMap(splitManifest);
    for (const m of custom) {
      const folder = m.folder === 'manifests' ? 'manifests' : 'openshift';
      await mkdir(join(assets, folder), { recursive: true });
      await writeFile(join(assets, folder, m.fileName), m.content);
    }
    const infraPath = join(assets, 'manifests', INFRASTRUCTURE_MANIFEST);
    const infra = await readOptional(infraPath);
    if (infra !== undefined) await writeFile(infraPath, patchInfrastructureTopology(infra, cluster));

    const singleNode = isSingleNode(cluster);
    if (singleNode) {
      await installerRun('create', 'single-node-ignition-config');
      await rename(join(assets, 'bootstrap-in-place-for-live-iso.ign'), join(assets, 'bootstrap.ign'));
      const version = parseIgnition(await readFile(join(assets, 'bootstrap.ign'), 'utf8'), 'bootstrap.ign')
        .ignition.version;
      const empty = serializeIgnition(emptyIgnition(version));
      await writeFile(join(assets, 'master.ign'), empty);
      await writeFile(join(assets, 'worker.ign'), empty);
    } else {
      await installerRun('create', 'ignition-configs');
    }

    const read = (name: string) => readFile(join(assets, name), 'utf8');
    const metadataText = await read('metadata.json');
    const metadata = JSON.parse(metadataText) as { clusterID?: string; infraID?: string };
    const kubeconfig = await read(join('auth', 'kubeconfig'));
    const kubeadminPassword = (await read(join('auth', 'kubeadmin-password'))).trim();

    const roles: RoleIgnitions = {
      master: postProcessRoleIgnition('master', await read('master.ign'), cluster, input.roleOptions),
      worker: postProcessRoleIgnition('worker', await read('worker.ign'), cluster, input.roleOptions),
    };
    const arbiter = await readOptional(join(assets, 'arbiter.ign'));
    if (arbiter !== undefined && countByEffectiveRole(cluster, 'arbiter') > 0) {
      roles.arbiter = postProcessRoleIgnition('arbiter', arbiter, cluster, input.roleOptions);
    }

    const files: Record<string, string> = {
      'bootstrap.ign': postProcessBootstrapIgnition(await read('bootstrap.ign'), cluster),
      'master.ign': roles.master,
      'worker.ign': roles.worker,
      'metadata.json': metadataText,
      'kubeconfig-noingress': kubeconfig,
      'kubeadmin-password': kubeadminPassword,
      // openshift-install consumes its input; upload what it was given (§8.4 step 10).
      'install-config.yaml': installConfig,
    };
    if (roles.arbiter) files['arbiter.ign'] = roles.arbiter;

    const manifests: ClusterManifest[] = [];
    for (const folder of ['manifests', 'openshift']) {
      const names = await readdir(join(assets, folder)).catch(() => [] as string[]);
      for (const fileName of names.sort()) {
        manifests.push({ folder, fileName, content: await read(join(folder, fileName)) });
      }
    }
    const hostIgnitionFiles = addHostInstallIgnitions(files, {
      cluster,
      roleIgnitions: roles,
      manifests,
      nodeIpAllocations: input.installConfig?.nodeIpAllocations,
    });

    return {
      clusterId: metadata.clusterID ?? '',
      infraId: metadata.infraID ?? '',
      installConfig,
      manifests,
      files,
      hostIgnitionFiles,
      kubeadminPassword,
      kubeconfig,
      rootCaPem: caFromKubeconfig(kubeconfig),
    };
  }
}
