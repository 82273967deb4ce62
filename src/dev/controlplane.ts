// A real kube-apiserver + etcd (and optionally kube-controller-manager) on loopback, the way
// controller-runtime's envtest runs them. Backs the integration tests and the operator's local mode.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { createWriteStream, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { parse, stringify } from 'yaml';
import { CertificateAuthority } from '../util/pki.ts';
import { endWithThisProcess } from './own-session.ts';
import { freePort } from './ports.ts';
import { waitFor } from './wait.ts';

const execFileP = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export interface ControlPlaneOptions {
  /** Directory for certificates, etcd data, kubeconfigs and logs; a temp dir by default. */
  dir?: string;
  /** Also start kube-controller-manager with only the garbage-collector and namespace controllers. */
  controllerManager?: boolean;
  /** Directory holding kube-apiserver, etcd, kube-controller-manager; built on demand otherwise. */
  binDir?: string;
  /** Start the processes in a session of their own (benchmarks; see own-session.ts). */
  ownSession?: boolean;
  /** Where ports come from (tests force a taken one); a free loopback port by default. */
  pickPort?: () => Promise<number>;
}

/** Start-ups tried when a process could not bind the port chosen for it. */
const PORT_ATTEMPTS = 3;

/** Whether a process of the plane in `dir` exited because its port was taken meanwhile. */
export async function lostPortRace(dir: string): Promise<boolean> {
  const logs = ['etcd.log', 'kube-apiserver.log', 'kube-controller-manager.log'];
  const texts = await Promise.all(logs.map((l) => readFile(join(dir, l), 'utf8').catch(() => '')));
  return texts.some((t) => t.includes('address already in use'));
}

export interface UserCredentials {
  kubeconfigPath: string;
  kubeconfigYaml: string;
}

/** Runs hack/build-controlplane.sh (a no-op when the binaries are cached) and returns the bin dir. */
export async function ensureBinaries(): Promise<string> {
  if (process.env.AIO_CONTROLPLANE_BIN) return process.env.AIO_CONTROLPLANE_BIN;
  const { stdout } = await execFileP('bash', [join(repoRoot, 'hack/build-controlplane.sh')], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1] ?? '';
}

class Proc {
  child: ChildProcess | undefined;
  exitReason: string | undefined;
  readonly name: string;
  readonly logPath: string;

  private readonly ownSession: boolean;

  constructor(name: string, logPath: string, ownSession = false) {
    this.name = name;
    this.logPath = logPath;
    this.ownSession = ownSession;
  }

  start(bin: string, args: string[]): void {
    const log = createWriteStream(this.logPath, { flags: 'a' });
    this.exitReason = undefined;
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: this.ownSession });
    if (this.ownSession) endWithThisProcess(child);
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    child.on('exit', (code, signal) => {
      this.exitReason = `code ${code} signal ${signal} (log: ${this.logPath})`;
    });
    this.child = child;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
    this.child = undefined;
  }
}

export class ControlPlane {
  readonly dir: string;
  readonly server: string;
  readonly kubeconfigPath: string;
  private readonly ownsDir: boolean;
  private readonly binDir: string;
  private readonly ca: CertificateAuthority;
  private readonly apiPort: number;
  private readonly etcdPort: number;
  private readonly etcdPeerPort: number;
  private readonly etcd: Proc;
  private readonly apiserver: Proc;
  private readonly kcm: Proc;
  private readonly tls: Agent;

  private constructor(init: {
    dir: string;
    ownsDir: boolean;
    binDir: string;
    ca: CertificateAuthority;
    apiPort: number;
    etcdPort: number;
    etcdPeerPort: number;
    ownSession?: boolean;
  }) {
    this.dir = init.dir;
    this.ownsDir = init.ownsDir;
    this.binDir = init.binDir;
    this.ca = init.ca;
    this.apiPort = init.apiPort;
    this.etcdPort = init.etcdPort;
    this.etcdPeerPort = init.etcdPeerPort;
    this.server = `https://127.0.0.1:${init.apiPort}`;
    this.kubeconfigPath = join(init.dir, 'admin.kubeconfig');
    const own = init.ownSession ?? false;
    this.etcd = new Proc('etcd', join(init.dir, 'etcd.log'), own);
    this.apiserver = new Proc('kube-apiserver', join(init.dir, 'kube-apiserver.log'), own);
    this.kcm = new Proc('kube-controller-manager', join(init.dir, 'kube-controller-manager.log'), own);
    this.tls = new Agent({ connect: { ca: init.ca.certPem } });
  }

  /**
   * Starts etcd and kube-apiserver (and kube-controller-manager if asked). A port is free when
   * chosen, but an outgoing connection can take it (the same ephemeral range) before the process
   * binds it: then the plane starts again on new ports, in a clean directory.
   */
  static async start(opts: ControlPlaneOptions = {}): Promise<ControlPlane> {
    const binDir = opts.binDir ?? (await ensureBinaries());
    for (let attempt = 1; ; attempt++) {
      const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'aio-controlplane-')));
      try {
        return await ControlPlane.startIn(dir, binDir, opts);
      } catch (err) {
        if (attempt >= PORT_ATTEMPTS || !(await lostPortRace(dir))) throw err;
        await rm(opts.dir ? join(dir, 'etcd') : dir, { recursive: true, force: true });
      }
    }
  }

  private static async startIn(
    dir: string,
    binDir: string,
    opts: ControlPlaneOptions,
  ): Promise<ControlPlane> {
    const pickPort = opts.pickPort ?? (() => freePort());
    await mkdir(join(dir, 'certs'), { recursive: true });
    const cp = new ControlPlane({
      dir,
      ownsDir: !opts.dir,
      binDir,
      ca: await CertificateAuthority.create('aio-test-ca', 7),
      apiPort: await pickPort(),
      etcdPort: await pickPort(),
      etcdPeerPort: await pickPort(),
      ownSession: opts.ownSession,
    });
    try {
      await cp.writeCertificates();
      await cp.startEtcd();
      await cp.startApiServer();
      if (opts.controllerManager) await cp.startControllerManager();
    } catch (err) {
      await cp.stop({ keepDir: true });
      throw err;
    }
    return cp;
  }

  /** Process ids of the running etcd and kube-apiserver (benchmarks read their CPU from /proc). */
  get pids(): { etcd?: number; apiserver?: number } {
    return { etcd: this.etcd.child?.pid, apiserver: this.apiserver.child?.pid };
  }

  private certPath(name: string): string {
    return join(this.dir, 'certs', name);
  }

  private async writeCertificates(): Promise<void> {
    const serving = await this.ca.issue({
      commonName: 'kube-apiserver',
      dnsNames: ['localhost', 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc'],
      ipAddresses: ['127.0.0.1', '10.0.0.1'],
      server: true,
      validDays: 7,
    });
    const sa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await writeFile(this.certPath('ca.crt'), this.ca.certPem);
    // The CA key too, so tests that only know the directory can mint users (mintUserFromDir).
    await writeFile(this.certPath('ca.key'), this.ca.ca.keyPem, { mode: 0o600 });
    await writeFile(this.certPath('apiserver.crt'), serving.certPem);
    await writeFile(this.certPath('apiserver.key'), serving.keyPem, { mode: 0o600 });
    await writeFile(this.certPath('sa.pub'), sa.publicKey.export({ type: 'spki', format: 'pem' }));
    await writeFile(this.certPath('sa.key'), sa.privateKey.export({ type: 'pkcs8', format: 'pem' }), {
      mode: 0o600,
    });
    const admin = await this.mintUser('admin', ['system:masters'], 'admin.kubeconfig');
    if (admin.kubeconfigPath !== this.kubeconfigPath) throw new Error('unexpected admin kubeconfig path');
  }

  /**
   * Issues a client certificate for `user` in `groups` and writes a kubeconfig for it, so tests can
   * act as the operator's ServiceAccount-equivalent user under RBAC.
   */
  async mintUser(user: string, groups: string[] = [], fileName?: string): Promise<UserCredentials> {
    return writeUserKubeconfig(this.dir, this.server, this.ca, user, groups, fileName);
  }

  private async startEtcd(): Promise<void> {
    const client = `http://127.0.0.1:${this.etcdPort}`;
    const peer = `http://127.0.0.1:${this.etcdPeerPort}`;
    this.etcd.start(join(this.binDir, 'etcd'), [
      `--data-dir=${join(this.dir, 'etcd')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=default=${peer}`,
      '--unsafe-no-fsync=true',
      '--log-level=warn',
    ]);
    await waitFor(
      'etcd',
      30_000,
      async () => (await request(`${client}/health`)).statusCode === 200,
      () => this.etcd.exitReason,
    );
  }

  /** Starts (or restarts) kube-apiserver on the same port and etcd, so watches can be broken on purpose. */
  async startApiServer(): Promise<void> {
    this.apiserver.start(join(this.binDir, 'kube-apiserver'), [
      `--etcd-servers=http://127.0.0.1:${this.etcdPort}`,
      `--cert-dir=${join(this.dir, 'certs')}`,
      `--tls-cert-file=${this.certPath('apiserver.crt')}`,
      `--tls-private-key-file=${this.certPath('apiserver.key')}`,
      `--client-ca-file=${this.certPath('ca.crt')}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${this.apiPort}`,
      '--service-cluster-ip-range=10.0.0.0/24',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount',
      '--authorization-mode=RBAC',
      `--service-account-issuer=${this.server}`,
      `--service-account-key-file=${this.certPath('sa.pub')}`,
      `--service-account-signing-key-file=${this.certPath('sa.key')}`,
      // AIO_APISERVER_V=1 logs, e.g., watchers the watch cache closes for not keeping up.
      `--v=${process.env.AIO_APISERVER_V ?? '0'}`,
    ]);
    await waitFor(
      'kube-apiserver',
      60_000,
      () => this.isReady(),
      () => this.apiserver.exitReason,
    );
  }

  async stopApiServer(): Promise<void> {
    await this.apiserver.stop();
  }

  async startControllerManager(): Promise<void> {
    // system:masters: the namespace and GC controllers delete every kind, and this plane is throwaway.
    const kcmConfig = await this.mintUser(
      'system:kube-controller-manager',
      ['system:masters'],
      'kcm.kubeconfig',
    );
    this.kcm.start(join(this.binDir, 'kube-controller-manager'), [
      `--kubeconfig=${kcmConfig.kubeconfigPath}`,
      '--controllers=garbage-collector-controller,namespace-controller',
      '--authentication-skip-lookup=true',
      '--leader-elect=false',
      '--use-service-account-credentials=false',
      '--bind-address=127.0.0.1',
      `--secure-port=${await freePort()}`,
      `--cert-dir=${join(this.dir, 'kcm-certs')}`,
    ]);
    // No cheap readiness probe from outside: give it a moment and make sure it did not exit.
    await new Promise((r) => setTimeout(r, 500));
    if (this.kcm.exitReason) throw new Error(`kube-controller-manager exited: ${this.kcm.exitReason}`);
  }

  /** Whether kube-apiserver answers /readyz with 200 (as admin). */
  async isReady(): Promise<boolean> {
    const res = await request(`${this.server}/readyz`, { dispatcher: this.adminDispatcher() });
    await res.body.dump();
    return res.statusCode === 200;
  }

  /** The API server's own Prometheus metrics (text format), read as admin. */
  async apiServerMetrics(): Promise<string> {
    const res = await request(`${this.server}/metrics`, { dispatcher: this.adminDispatcher() });
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`GET /metrics: ${res.statusCode}`);
    return text;
  }

  private adminAgent: Agent | undefined;
  private adminDispatcher(): Agent {
    // readyz needs an authenticated user under RBAC; use the admin client certificate.
    if (!this.adminAgent) {
      const kc = readAdmin(this.kubeconfigPath);
      this.adminAgent = new Agent({ connect: { ca: this.ca.certPem, cert: kc.cert, key: kc.key } });
    }
    return this.adminAgent;
  }

  async stop(opts: { keepDir?: boolean } = {}): Promise<void> {
    await this.kcm.stop();
    await this.apiserver.stop();
    await this.etcd.stop();
    await this.adminAgent?.close();
    await this.tls.close();
    if (this.ownsDir && !opts.keepDir && !process.env.AIO_KEEP_CONTROLPLANE) {
      await rm(this.dir, { recursive: true, force: true });
    }
  }
}

function readAdmin(path: string): { cert: string; key: string } {
  const kc = parse(readFileSync(path, 'utf8')) as {
    users: { user: { 'client-certificate-data': string; 'client-key-data': string } }[];
  };
  const u = kc.users[0]?.user;
  if (!u) throw new Error(`no user in ${path}`);
  return {
    cert: Buffer.from(u['client-certificate-data'], 'base64').toString(),
    key: Buffer.from(u['client-key-data'], 'base64').toString(),
  };
}

async function writeUserKubeconfig(
  dir: string,
  server: string,
  ca: CertificateAuthority,
  user: string,
  groups: string[],
  fileName: string | undefined,
): Promise<UserCredentials> {
  const cert = await ca.issue({ commonName: user, organizations: groups, client: true, validDays: 7 });
  const kubeconfigYaml = stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: 'local',
        cluster: { server, 'certificate-authority-data': Buffer.from(ca.certPem).toString('base64') },
      },
    ],
    users: [
      {
        name: user,
        user: {
          'client-certificate-data': Buffer.from(cert.certPem).toString('base64'),
          'client-key-data': Buffer.from(cert.keyPem).toString('base64'),
        },
      },
    ],
    contexts: [{ name: user, context: { cluster: 'local', user } }],
    'current-context': user,
  });
  const kubeconfigPath = join(dir, fileName ?? `${user.replace(/[^a-zA-Z0-9_.-]/g, '_')}.kubeconfig`);
  await writeFile(kubeconfigPath, kubeconfigYaml, { mode: 0o600 });
  return { kubeconfigPath, kubeconfigYaml };
}

/**
 * mintUser for callers that only know a running control plane's directory (test files get it from
 * the harness, not the ControlPlane object): loads certs/ca.{crt,key} and the server from
 * admin.kubeconfig.
 */
export async function mintUserFromDir(
  dir: string,
  user: string,
  groups: string[] = [],
  fileName?: string,
): Promise<UserCredentials> {
  const ca = await CertificateAuthority.fromPem(
    readFileSync(join(dir, 'certs', 'ca.crt'), 'utf8'),
    readFileSync(join(dir, 'certs', 'ca.key'), 'utf8'),
  );
  const admin = parse(readFileSync(join(dir, 'admin.kubeconfig'), 'utf8')) as {
    clusters: { cluster: { server: string } }[];
  };
  const server = admin.clusters[0]?.cluster.server;
  if (!server) throw new Error(`no server in ${join(dir, 'admin.kubeconfig')}`);
  return writeUserKubeconfig(dir, server, ca, user, groups, fileName);
}
