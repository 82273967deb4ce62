// Loading the kubeconfig without @kubernetes/client-node for the two cases the operator meets in
// practice: in a pod (service account) and a plain kubeconfig file (certificates, CA, bearer token). That
// package's entry point loads its ~2,700 generated model modules (about 80 MB of RSS for a process
// that idles at well under that) only to read a few YAML fields; anything this loader does not
// know (exec plugins, auth providers, basic auth, proxies, merged KUBECONFIG lists) still goes to it.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIPv6 } from 'node:net';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join } from 'node:path';
import { parse } from 'yaml';

/** What the project's clients need of a kubeconfig; @kubernetes/client-node's KubeConfig has it too. */
export interface KubeConfigLike {
  getCurrentCluster(): { server: string } | null;
  applyToHTTPSOptions(opts: object): Promise<void>;
}

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

interface Plain {
  server: string;
  skipTLSVerify?: boolean;
  tlsServerName?: string;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  token?: string;
  tokenFile?: string;
}

const CLUSTER_KEYS = new Set([
  'server',
  'certificate-authority',
  'certificate-authority-data',
  'insecure-skip-tls-verify',
  'tls-server-name',
]);
const USER_KEYS = new Set([
  'client-certificate',
  'client-certificate-data',
  'client-key',
  'client-key-data',
  'token',
]);

/** A kubeconfig with nothing but a server, TLS material and a bearer token (a file in a pod). */
class PlainKubeConfig implements KubeConfigLike {
  private readonly c: Plain;

  constructor(c: Plain) {
    this.c = c;
  }

  getCurrentCluster(): { server: string } {
    return { server: this.c.server };
  }

  /** Like client-node's: TLS options and an Authorization header; a token file is read each time. */
  async applyToHTTPSOptions(opts: object): Promise<void> {
    const o = opts as Record<string, unknown> & { headers?: Record<string, string> };
    const { c } = this;
    if (c.skipTLSVerify) o.rejectUnauthorized = false;
    if (c.tlsServerName) o.servername = c.tlsServerName;
    if (c.ca) o.ca = c.ca;
    if (c.cert) o.cert = c.cert;
    if (c.key) o.key = c.key;
    o.headers ??= {};
    const token = c.tokenFile ? readFileSync(c.tokenFile, 'utf8') : c.token;
    if (token) o.headers.Authorization = `Bearer ${token}`;
  }
}

function fileOrData(dir: string, file: unknown, data: unknown): Buffer | undefined {
  if (typeof data === 'string' && data) return Buffer.from(data, 'base64');
  if (typeof file === 'string' && file) return readFileSync(isAbsolute(file) ? file : join(dir, file));
  return undefined;
}

type Named = { name?: string; [k: string]: unknown };
const byName = (list: unknown, name: unknown, field: string): Record<string, unknown> | undefined =>
  (Array.isArray(list) ? (list as Named[]) : []).find((e) => e?.name === name)?.[field] as
    | Record<string, unknown>
    | undefined;

/**
 * The plain form of a kubeconfig document (relative file names from `dir`), or undefined when it
 * uses anything beyond it.
 */
export function plainKubeConfig(text: string, dir: string): KubeConfigLike | undefined {
  const doc = parse(text) as Record<string, unknown> | null;
  const context = byName(doc?.contexts, doc?.['current-context'], 'context');
  const cluster = byName(doc?.clusters, context?.cluster, 'cluster');
  const user = byName(doc?.users, context?.user, 'user') ?? {};
  if (!cluster || typeof cluster.server !== 'string') return undefined;
  if (Object.keys(cluster).some((k) => !CLUSTER_KEYS.has(k))) return undefined;
  if (Object.keys(user).some((k) => !USER_KEYS.has(k))) return undefined;
  return new PlainKubeConfig({
    server: cluster.server,
    skipTLSVerify: cluster['insecure-skip-tls-verify'] === true,
    tlsServerName: cluster['tls-server-name'] as string | undefined,
    ca: fileOrData(dir, cluster['certificate-authority'], cluster['certificate-authority-data']),
    cert: fileOrData(dir, user['client-certificate'], user['client-certificate-data']),
    key: fileOrData(dir, user['client-key'], user['client-key-data']),
    token: user.token as string | undefined,
  });
}

/** The service account's kubeconfig, as client-node's loadFromCluster builds it. */
export function inCluster(env: NodeJS.ProcessEnv, saDir = SERVICE_ACCOUNT_DIR): KubeConfigLike {
  const host = env.KUBERNETES_SERVICE_HOST ?? '';
  const port = env.KUBERNETES_SERVICE_PORT ?? '';
  const scheme = ['80', '8080', '8001'].includes(port) ? 'http' : 'https';
  return new PlainKubeConfig({
    server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`,
    ca: existsSync(join(saDir, 'ca.crt')) ? readFileSync(join(saDir, 'ca.crt')) : undefined,
    tokenFile: join(saDir, 'token'),
  });
}

type ClientNodeKubeConfig = KubeConfigLike & {
  loadFromFile(p: string): void;
  loadFromDefault(): void;
  loadFromString(text: string): void;
};

/** client-node's KubeConfig, loaded only when needed (require of its ES module graph is sync). */
function clientNodeKubeConfig(): ClientNodeKubeConfig {
  const { KubeConfig } = createRequire(import.meta.url)('@kubernetes/client-node') as {
    KubeConfig: new () => ClientNodeKubeConfig;
  };
  return new KubeConfig();
}

function clientNode(path: string | undefined): KubeConfigLike {
  const kc = clientNodeKubeConfig();
  if (path) kc.loadFromFile(path);
  else kc.loadFromDefault();
  return kc;
}

/** A kubeconfig document (e.g. from a Secret), plain when it can be. */
export function kubeConfigFromText(text: string): KubeConfigLike {
  const plain = plainKubeConfig(text, process.cwd());
  if (plain) return plain;
  const kc = clientNodeKubeConfig();
  kc.loadFromString(text);
  return kc;
}

/**
 * `path`, else client-node's default order ($KUBECONFIG, ~/.kube/config, the service account),
 * without client-node when the result is plain.
 */
export function loadKubeConfig(
  path: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
  saDir = SERVICE_ACCOUNT_DIR,
): KubeConfigLike {
  const file = path || env.KUBECONFIG || join(env.HOME || homedir(), '.kube', 'config');
  if (path || env.KUBECONFIG || existsSync(file)) {
    if (file.includes(':') || !existsSync(file)) return clientNode(path);
    return plainKubeConfig(readFileSync(file, 'utf8'), dirname(file)) ?? clientNode(path);
  }
  if (existsSync(join(saDir, 'token'))) return inCluster(env, saDir);
  return clientNode(path);
}
