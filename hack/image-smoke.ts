// `make image-smoke`: what the container image would run, without a container engine. This machine
// has no Docker, so the Dockerfile is interpreted here, step by step, into a directory per stage:
// WORKDIR, COPY (from the context or `--from` an earlier stage), ENV and the `npm` RUN steps are
// carried out; other RUN steps (apt-get for xorriso, mkdir/chown of /data) need root and are
// listed as skipped (xorriso comes from `make system-deps` here, /data is a temp dir). Then the
// final stage's ENTRYPOINT is started against a local control plane and must become ready and
// publish a discovery ISO for an InfraEnv. This catches a build that fails, runtime imports of dev
// dependencies, and files the operator reads at runtime that the image does not contain.
import { spawn } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyObjects } from '../src/dev/apply.ts';
import { ControlPlane } from '../src/dev/controlplane.ts';
import { installCrds, projectCrdFiles } from '../src/dev/crds.ts';
import { serveFile } from '../src/dev/file-server.ts';
import { freePort } from '../src/dev/ports.ts';
import { buildTestIso } from '../src/dev/test-iso.ts';
import { waitFor } from '../src/dev/wait.ts';
import { loadKubeConfig } from '../src/operator/main.ts';
import { INFRA_ENV } from '../src/records/resources.ts';
import { KubeClient } from '../src/runtime/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const log = (line: string) => console.log(`[image-smoke] ${line}`);

interface Instruction {
  op: string;
  args: string;
}

/** Dockerfile lines → instructions (continuations joined, comments dropped). */
export function parseDockerfile(text: string): Instruction[] {
  const joined = text.replace(/\\\r?\n/g, ' ');
  return joined
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\S+)\s+(.*)$/.exec(l);
      return { op: (m?.[1] ?? l).toUpperCase(), args: m?.[2] ?? '' };
    });
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolvePromise() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`)),
    );
  });
}

interface Stage {
  name: string;
  dir: string;
  workdir: string;
  env: Record<string, string>;
  entrypoint?: string[];
}

/** Builds every stage of the Dockerfile into `work`; returns the last one. */
async function buildStages(work: string): Promise<Stage> {
  const instructions = parseDockerfile(await readFile(join(root, 'Dockerfile'), 'utf8'));
  const stages = new Map<string, Stage>();
  let stage: Stage | undefined;
  for (const { op, args } of instructions) {
    if (op === 'FROM') {
      const name = /\bAS\s+(\S+)/i.exec(args)?.[1] ?? `stage${stages.size}`;
      stage = { name, dir: join(work, name), workdir: '/', env: {} };
      stages.set(name, stage);
      await mkdir(stage.dir, { recursive: true });
      log(`stage ${name} (${args.split(/\s+/)[0]})`);
      continue;
    }
    if (!stage) throw new Error(`${op} before FROM`);
    const here = join(stage.dir, stage.workdir);
    if (op === 'WORKDIR') {
      stage.workdir = args;
      await mkdir(join(stage.dir, args), { recursive: true });
    } else if (op === 'ENV') {
      for (const m of args.matchAll(/(\w+)=(\S+)/g)) stage.env[m[1]!] = m[2]!;
    } else if (op === 'COPY') {
      const parts = args.split(/\s+/);
      const from = parts[0]?.startsWith('--from=') ? parts.shift()?.slice('--from='.length) : undefined;
      const dest = parts.pop() ?? '.';
      const base = from ? stages.get(from) : undefined;
      if (from && !base) throw new Error(`COPY --from=${from}: no such stage`);
      for (const src of parts) {
        const source = base
          ? join(base.dir, src.startsWith('/') ? src : join(base.workdir, src))
          : join(root, src);
        const target =
          dest.endsWith('/') || parts.length > 1
            ? join(here, dest, src.split('/').pop() ?? src)
            : join(here, dest);
        await mkdir(dirname(target), { recursive: true });
        await cp(source, target, { recursive: true });
      }
    } else if (op === 'RUN') {
      if (args.startsWith('npm ')) {
        log(`RUN ${args}`);
        await run('npm', args.split(/\s+/).slice(1), here, { ...process.env, ...stage.env });
      } else {
        log(`skipped (needs root; provided by the host here): RUN ${args.slice(0, 70)}`);
      }
    } else if (op === 'ENTRYPOINT') {
      stage.entrypoint = JSON.parse(args) as string[];
    } else if (!['USER', 'VOLUME', 'EXPOSE', 'LABEL', 'ARG'].includes(op)) {
      throw new Error(`unsupported Dockerfile instruction ${op}`);
    }
  }
  if (!stage?.entrypoint) throw new Error('the final stage has no ENTRYPOINT');
  return stage;
}

async function main(): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'aio-image-'));
  const plane = await ControlPlane.start();
  let child: ReturnType<typeof spawn> | undefined;
  let files: Awaited<ReturnType<typeof serveFile>> | undefined;
  try {
    const image = await buildStages(join(work, 'stages'));
    await installCrds(plane.kubeconfigPath, await projectCrdFiles());
    const iso = await buildTestIso(work, { rhcosVersion: '418.94.202501010000-0' });
    files = await serveFile(iso.path);
    const apiPort = await freePort();
    const healthPort = await freePort();
    const [cmd, ...cmdArgs] = image.entrypoint ?? [];
    const appDir = join(image.dir, image.workdir);
    log(`starting the image's entrypoint: ${image.entrypoint?.join(' ')} (in ${appDir})`);
    child = spawn(cmd === 'node' ? process.execPath : (cmd ?? ''), cmdArgs, {
      cwd: appDir,
      env: {
        PATH: process.env.PATH ?? '',
        ...image.env,
        DATA_DIR: join(work, 'data'),
        KUBECONFIG: plane.kubeconfigPath,
        POD_NAMESPACE: 'default',
        LEADER_ELECT: 'false',
        METRICS_BIND_ADDRESS: '0',
        HEALTH_PROBE_BIND_ADDRESS: `127.0.0.1:${healthPort}`,
        API_BIND_HOST: '127.0.0.1',
        API_PORT: String(apiPort),
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    let exitReason: string | undefined;
    child.on('exit', (code, signal) => {
      exitReason = `code ${code} signal ${signal}`;
    });
    const exited = () => exitReason;
    await waitFor(
      'the operator',
      60_000,
      async () => (await fetch(`http://127.0.0.1:${healthPort}/readyz`)).ok,
      exited,
    );
    log('operator ready');
    const kubeConfig = loadKubeConfig(plane.kubeconfigPath);
    const client = new KubeClient({ kubeConfig });
    await applyObjects(kubeConfig, [
      {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'AgentServiceConfig',
        metadata: { name: 'agent' },
        spec: {
          databaseStorage: { resources: { requests: { storage: '1Gi' } } },
          filesystemStorage: { resources: { requests: { storage: '1Gi' } } },
          osImages: [
            {
              cpuArchitecture: 'x86_64',
              openshiftVersion: '4.18',
              version: '418.94.202501010000-0',
              url: files.url,
            },
          ],
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'pull-secret', namespace: 'default' },
        type: 'kubernetes.io/dockerconfigjson',
        stringData: { '.dockerconfigjson': '{"auths":{"quay.io":{"auth":"ZGVtbzpkZW1v"}}}' },
      },
      {
        apiVersion: 'agent-install.openshift.io/v1beta1',
        kind: 'InfraEnv',
        metadata: { name: 'smoke', namespace: 'default' },
        spec: { pullSecretRef: { name: 'pull-secret' }, osImageVersion: '4.18', cpuArchitecture: 'x86_64' },
      },
    ] as never);
    const isoUrl = await waitFor(
      'the InfraEnv ISO URL',
      60_000,
      async () => {
        const ie = await client.get<{ metadata: object; status?: { isoDownloadURL?: string } }>(
          INFRA_ENV,
          'smoke',
          'default',
        );
        return ie.status?.isoDownloadURL || undefined;
      },
      exited,
    );
    const head = await fetch(isoUrl, { method: 'HEAD' });
    if (!head.ok) throw new Error(`HEAD ${isoUrl}: ${head.status}`);
    log(`discovery ISO served by the image: ${head.headers.get('content-length')} bytes`);
    await writeFile(join(work, 'ok'), '');
    await client.close();
    log('passed');
  } finally {
    child?.kill('SIGTERM');
    await files?.close();
    await plane.stop();
    await rm(work, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  main().catch((err) => {
    console.error(`[image-smoke] FAILED: ${(err as Error).stack ?? err}`);
    process.exit(1);
  });
}
