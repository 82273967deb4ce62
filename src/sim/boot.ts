// "Boots" a simulated host from discovery media: fetch the discovery ignition (from the ISO's
// embed area or a discovery.ign URL), then read what the real host's systemd would run
// (agent-api.md §8): the agent.service ExecStart flags (--url, --infra-env-id, --agent-version,
// --insecure, --cacert, --interval), its Environment (PULL_SECRET_TOKEN = X-Secret-Key, proxy
// variables), and the files the agent depends on (the CA named by --cacert, the additional trust
// bundle, the pull secret).

import { rootCertificates } from 'node:tls';
import { gunzipSync } from 'node:zlib';
import { Agent, type Dispatcher, request } from 'undici';
import { httpRangeSource, readEmbeddedIgnition, redact } from './iso-read.ts';

export const AGENT_UNIT = 'agent.service';
export const PULL_SECRET_PATH = '/root/.docker/config.json';
/** Trust anchors the discovery ignition may add; the agent container mounts /etc/pki. */
const TRUST_ANCHOR_DIR = '/etc/pki/ca-trust/source/anchors/';
/** Go flag names of the agent that are booleans (`--insecure` alone means true). */
const BOOL_FLAGS = new Set([
  'insecure',
  'with-journal-logging',
  'with-text-logging',
  'with-stdout-logging',
  'dry-run',
  'help',
]);

export interface DiscoveryConfig {
  /** `--url`: the service base URL the agent calls (without /api/assisted-install). */
  serviceUrl: string;
  infraEnvId: string;
  /** `--agent-version`: the agent image reference, sent as discovery_agent_version. */
  agentVersion: string;
  insecure: boolean;
  /** `--interval` in seconds (registration retry), when set. */
  intervalSeconds?: number;
  /** `--cacert` path on the host, and its PEM content from the ignition. */
  caCertPath?: string;
  caCert?: string;
  /** PEMs added to the host's trust store by the ignition (additional trust bundle, RH root CA…). */
  trustAnchors: string[];
  /** PULL_SECRET_TOKEN: the agent token sent as X-Secret-Key ("" when the unit sets none). */
  token: string;
  /** Contents of /root/.docker/config.json. */
  pullSecret?: string;
  /** Proxy environment of the unit. */
  proxy: { httpProxy?: string; httpsProxy?: string; noProxy?: string };
  /** All `--flag value` pairs of ExecStart, for anything else a test wants to check. */
  agentFlags: Record<string, string>;
}

export interface BootResult {
  config: DiscoveryConfig;
  /** The discovery ignition as parsed JSON. */
  ignition: IgnitionLike;
  /** Where it came from: an ISO (and how its embed area was found) or an ignition URL. */
  source: { kind: 'iso'; url: string; areaOffset: number; via: string } | { kind: 'ignition'; url: string };
}

interface IgnitionFileLike {
  path?: string;
  contents?: { source?: string; compression?: string };
}

export interface IgnitionLike {
  ignition?: { version?: string };
  storage?: { files?: IgnitionFileLike[] };
  systemd?: { units?: { name?: string; contents?: string; enabled?: boolean }[] };
}

/** Decodes an ignition `data:` URL (RFC 2397: percent-encoded or ;base64). */
export function decodeDataUrl(source: string): Buffer {
  if (!source.startsWith('data:')) throw new Error(`not a data URL: ${source.slice(0, 40)}`);
  const comma = source.indexOf(',');
  if (comma < 0) throw new Error('data URL without a comma');
  const meta = source.slice(5, comma);
  const data = source.slice(comma + 1);
  if (meta.split(';').includes('base64')) return Buffer.from(decodeURIComponent(data), 'base64');
  return Buffer.from(decodeURIComponent(data), 'utf8');
}

/** The content of a file the ignition writes, or undefined (remote sources are not fetched). */
export function ignitionFile(ign: IgnitionLike, path: string): string | undefined {
  const file = ign.storage?.files?.find((f) => f.path === path);
  const source = file?.contents?.source;
  if (source === undefined || !source.startsWith('data:')) return undefined;
  const raw = decodeDataUrl(source);
  return (file?.contents?.compression === 'gzip' ? gunzipSync(raw) : raw).toString('utf8');
}

/** Splits a systemd command line / Environment= value into words (quotes and backslashes honoured). */
export function splitSystemdWords(line: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) cur += line[++i];
      else cur += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      cur += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += c;
      inWord = true;
    }
  }
  if (inWord) words.push(cur);
  return words;
}

/** systemd specifier escaping: "%%" stands for a literal "%". */
const unescapeSpecifiers = (s: string) => s.replaceAll('%%', '%');

/** Parses Go-style flags (`--a b`, `--a=b`, `-a b`, bare booleans) into a map. */
export function parseGoFlags(args: string[]): Record<string, string> {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('-')) continue;
    const body = arg.replace(/^--?/, '');
    const eq = body.indexOf('=');
    if (eq >= 0) flags[body.slice(0, eq)] = body.slice(eq + 1);
    else if (BOOL_FLAGS.has(body)) flags[body] = 'true';
    else flags[body] = args[++i] ?? '';
  }
  return flags;
}

/** Reads the agent's configuration out of a discovery ignition. */
export function parseDiscoveryIgnition(input: string | IgnitionLike): {
  config: DiscoveryConfig;
  ignition: IgnitionLike;
} {
  const ignition: IgnitionLike = typeof input === 'string' ? JSON.parse(input) : input;
  const unit = ignition.systemd?.units?.find((u) => u.name === AGENT_UNIT);
  if (!unit?.contents) throw new Error(`the ignition has no ${AGENT_UNIT} unit`);
  const lines = unit.contents.split('\n').map((l) => l.trim());
  const exec = lines.find((l) => l.startsWith('ExecStart='));
  if (!exec) throw new Error(`${AGENT_UNIT} has no ExecStart`);
  const words = splitSystemdWords(unescapeSpecifiers(exec.slice('ExecStart='.length)));
  const flags = parseGoFlags(words.slice(1));
  const env: Record<string, string> = {};
  for (const line of lines.filter((l) => l.startsWith('Environment='))) {
    for (const word of splitSystemdWords(unescapeSpecifiers(line.slice('Environment='.length)))) {
      const eq = word.indexOf('=');
      if (eq > 0) env[word.slice(0, eq)] = word.slice(eq + 1);
    }
  }
  const serviceUrl = flags.url;
  const infraEnvId = flags['infra-env-id'];
  if (!serviceUrl || !infraEnvId)
    throw new Error(`${AGENT_UNIT} ExecStart lacks --url or --infra-env-id: ${exec}`);
  const caCertPath = flags.cacert || undefined;
  const caCert = caCertPath ? ignitionFile(ignition, caCertPath) : undefined;
  if (caCertPath && caCert === undefined)
    throw new Error(`--cacert ${caCertPath} is not written by the ignition`);
  const trustAnchors = (ignition.storage?.files ?? [])
    .filter((f) => f.path?.startsWith(TRUST_ANCHOR_DIR))
    .map((f) => ignitionFile(ignition, f.path!))
    .filter((pem): pem is string => pem?.includes('BEGIN CERTIFICATE') === true);
  const interval = flags.interval ? Number(flags.interval) : undefined;
  const config: DiscoveryConfig = {
    serviceUrl,
    infraEnvId,
    agentVersion: flags['agent-version'] ?? '',
    insecure: flags.insecure === 'true',
    ...(interval !== undefined && Number.isFinite(interval) ? { intervalSeconds: interval } : {}),
    ...(caCertPath ? { caCertPath, caCert } : {}),
    trustAnchors,
    token: env.PULL_SECRET_TOKEN ?? '',
    pullSecret: ignitionFile(ignition, PULL_SECRET_PATH),
    proxy: {
      httpProxy: env.HTTP_PROXY ?? env.http_proxy,
      httpsProxy: env.HTTPS_PROXY ?? env.https_proxy,
      noProxy: env.NO_PROXY ?? env.no_proxy,
    },
    agentFlags: flags,
  };
  return { config, ignition };
}

/**
 * The TLS trust the agent would have for the service: with --cacert, that CA (Go's
 * tls.Config.RootCAs then holds only it); otherwise the system store plus the ignition's anchors.
 */
export function serviceTrust(config: DiscoveryConfig): { ca?: string[]; rejectUnauthorized: boolean } {
  if (config.insecure) return { rejectUnauthorized: false };
  if (config.caCert) return { ca: [config.caCert], rejectUnauthorized: true };
  if (config.trustAnchors.length > 0)
    return { ca: [...rootCertificates, ...config.trustAnchors], rejectUnauthorized: true };
  return { rejectUnauthorized: true };
}

export interface BootOptions {
  /** For fetching the media (not the agent API). Default: a private undici Agent. */
  dispatcher?: Dispatcher;
  /** Skip TLS verification of the media URL (the image service often has a private CA). */
  insecure?: boolean;
  /** Extra CA PEM for the media URL. */
  ca?: string;
  signal?: AbortSignal;
  onRequest?: (info: { offset: number; length: number; status: number }) => void;
}

function mediaDispatcher(opts: BootOptions): { dispatcher: Dispatcher; owned?: Agent } {
  if (opts.dispatcher) return { dispatcher: opts.dispatcher };
  const connect = {
    rejectUnauthorized: !opts.insecure,
    ...(opts.ca ? { ca: [...rootCertificates, opts.ca] } : {}),
  };
  const owned = new Agent({ connect });
  return { dispatcher: owned, owned };
}

/** Boots from an ISO URL: only the needed pieces are fetched with Range requests. */
export async function bootFromIso(url: string, opts: BootOptions = {}): Promise<BootResult> {
  const { dispatcher, owned } = mediaDispatcher(opts);
  try {
    const src = httpRangeSource(url, { dispatcher, signal: opts.signal, onRequest: opts.onRequest });
    const { ignition, area } = await readEmbeddedIgnition(src);
    const parsed = parseDiscoveryIgnition(ignition.toString('utf8'));
    return { ...parsed, source: { kind: 'iso', url, areaOffset: area.offset, via: area.via } };
  } finally {
    await owned?.close();
  }
}

/** Boots from a discovery.ign URL (…/downloads/files?file_name=discovery.ign&api_key=…). */
export async function bootFromIgnitionUrl(url: string, opts: BootOptions = {}): Promise<BootResult> {
  const { dispatcher, owned } = mediaDispatcher(opts);
  try {
    const res = await request(url, { method: 'GET', dispatcher, signal: opts.signal });
    const text = await res.body.text();
    if (res.statusCode !== 200)
      throw new Error(`GET ${redact(url)}: HTTP ${res.statusCode} ${text.slice(0, 200)}`);
    return { ...parseDiscoveryIgnition(text), source: { kind: 'ignition', url } };
  } finally {
    await owned?.close();
  }
}

export async function boot(
  media: { isoUrl: string } | { ignitionUrl: string },
  opts: BootOptions = {},
): Promise<BootResult> {
  return 'isoUrl' in media ? bootFromIso(media.isoUrl, opts) : bootFromIgnitionUrl(media.ignitionUrl, opts);
}
