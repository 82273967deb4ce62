// Runtime settings from command-line flags and environment variables (flag wins), validated with
// zod. Every default names where it comes from. Durations accept Go syntax ('15s', '2m', '500ms').
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const IN_CLUSTER_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

const durationMs = z.union([
  z.number().nonnegative(),
  z
    .string()
    .regex(/^\d+(\.\d+)?(ms|s|m|h)$/, 'expected a duration such as 500ms, 15s, 2m')
    .transform((s) => {
      const [, n, unit] = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(s)!;
      const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[unit as 'ms' | 's' | 'm' | 'h'];
      return Number(n) * factor;
    }),
]);

const bool = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((s) => s === 'true' || s === '1'),
]);
const positiveInt = z.coerce.number().int().positive();
/** 'host:port', ':port' (all interfaces) or '0' (disabled). */
const bindAddress = z.string().regex(/^(0|[^:\s]*:\d{1,5})$/, "expected 'host:port', ':port' or '0'");
/** 'ns' or 'ns-a,ns-b' (spaces around commas allowed); each a namespace name (DNS-1123 label). */
const MAX_WATCH_NAMESPACES = 64;
const namespaceList = z
  .string()
  .transform((s) => [...new Set(s.split(',').map((n) => n.trim()))])
  .pipe(
    z
      .array(
        z
          .string()
          .regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, 'expected namespace names separated by commas'),
      )
      .min(1)
      .max(MAX_WATCH_NAMESPACES, `at most ${MAX_WATCH_NAMESPACES} namespaces`),
  );

export interface Setting {
  flag: string;
  env: string;
  schema: z.ZodType;
  default: unknown;
  /** Where the default comes from. */
  source: string;
  description: string;
}

function inClusterNamespace(): string {
  try {
    return readFileSync(IN_CLUSTER_NAMESPACE_FILE, 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}

export const runtimeSettings = {
  kubeconfig: {
    flag: 'kubeconfig',
    env: 'KUBECONFIG',
    schema: z.string().optional(),
    default: undefined,
    source: 'client-go loading rules: $KUBECONFIG, else in-cluster service account, else ~/.kube/config',
    description: 'Path to a kubeconfig file.',
  },
  metricsBindAddress: {
    flag: 'metrics-bind-address',
    env: 'METRICS_BIND_ADDRESS',
    schema: bindAddress,
    default: ':8443',
    source: 'kubebuilder go/v4 scaffold (secure metrics; assisted-service served plain :8080)',
    description: "Address for /metrics; '0' disables.",
  },
  metricsSecure: {
    flag: 'metrics-secure',
    env: 'METRICS_SECURE',
    schema: bool,
    default: true,
    source: 'kubebuilder go/v4 scaffold --metrics-secure (controller-runtime SecureServing)',
    description:
      "Serve /metrics over HTTPS to callers whose bearer token passes a TokenReview and who may `get` the non-resource URL /metrics (SubjectAccessReview); 'false' serves plain HTTP to anyone.",
  },
  metricsCertDir: {
    flag: 'metrics-cert-dir',
    env: 'METRICS_CERT_DIR',
    schema: z.string(),
    default: '',
    source: 'controller-runtime metricsserver CertDir; empty: a self-signed certificate made at start',
    description: 'Directory with tls.crt and tls.key for the secure metrics server.',
  },
  healthProbeBindAddress: {
    flag: 'health-probe-bind-address',
    env: 'HEALTH_PROBE_BIND_ADDRESS',
    schema: bindAddress,
    default: ':8081',
    source: 'kubebuilder scaffold; assisted-service CSV probes /healthz and /readyz on 8081',
    description: "Address for /healthz and /readyz; '0' disables.",
  },
  leaderElect: {
    flag: 'leader-elect',
    env: 'LEADER_ELECT',
    schema: bool,
    default: true,
    source: 'assisted-service CSV passes --leader-elect',
    description: 'Run controllers only while holding the leader Lease.',
  },
  leaderElectionId: {
    flag: 'leader-election-id',
    env: 'LEADER_ELECTION_ID',
    schema: z.string().min(1),
    default: '77190dcb.agent-install.openshift.io',
    source:
      'assisted-service cmd/operator: the same Lease, so this operator and assisted-service never both lead',
    description: 'Name of the Lease.',
  },
  leaderElectionNamespace: {
    flag: 'leader-election-namespace',
    env: 'POD_NAMESPACE',
    schema: z.string().min(1),
    default: undefined,
    source: 'controller-runtime: the in-cluster service account namespace, else "default"',
    description: 'Namespace of the Lease.',
  },
  leaseDurationMs: {
    flag: 'leader-election-lease-duration',
    env: 'LEADER_ELECTION_LEASE_DURATION',
    schema: durationMs,
    default: 15_000,
    source: 'controller-runtime pkg/manager defaultLeaseDuration',
    description: 'How long a Lease is valid without renewal.',
  },
  renewDeadlineMs: {
    flag: 'leader-election-renew-deadline',
    env: 'LEADER_ELECTION_RENEW_DEADLINE',
    schema: durationMs,
    default: 10_000,
    source: 'controller-runtime pkg/manager defaultRenewDeadline',
    description: 'The leader gives up if it could not renew for this long.',
  },
  retryPeriodMs: {
    flag: 'leader-election-retry-period',
    env: 'LEADER_ELECTION_RETRY_PERIOD',
    schema: durationMs,
    default: 2_000,
    source: 'controller-runtime pkg/manager defaultRetryPeriod',
    description: 'Interval between acquire/renew attempts.',
  },
  kubeApiQps: {
    flag: 'kube-api-qps',
    env: 'KUBE_API_QPS',
    schema: z.coerce.number(),
    default: 0,
    source:
      'controller-runtime >= v0.21 (kubernetes-sigs/controller-runtime#3119, on SIG API Machinery advice): off, the API server limits with Priority and Fairness; 20 restores the old default',
    description:
      'Client-side requests per second of each budget (reconcilers and host API, Events, Lease); <= 0 turns client-side limiting off.',
  },
  kubeApiBurst: {
    flag: 'kube-api-burst',
    env: 'KUBE_API_BURST',
    schema: positiveInt,
    default: 30,
    source: 'controller-runtime < v0.21 client default, as vendored by assisted-service',
    description: 'Client-side burst of each budget (used only when --kube-api-qps > 0).',
  },
  apiUnavailableReadyWindowMs: {
    flag: 'api-unavailable-ready-window',
    env: 'API_UNAVAILABLE_READY_WINDOW',
    schema: durationMs,
    default: 30_000,
    source: 'project choice: longer than an API server restart or a connection being replaced',
    description: '/readyz fails once every API request (no answer, or 5xx) has failed for this long.',
  },
  apiStuckLivenessWindowMs: {
    flag: 'api-stuck-liveness-window',
    env: 'API_STUCK_LIVENESS_WINDOW',
    schema: durationMs,
    default: 120_000,
    source: 'project choice: four times the readiness window, so a restart is the last resort',
    description:
      '/healthz fails once no API request has had any answer for this long while a new connection to the API server is answered.',
  },
  workers: {
    flag: 'max-concurrent-reconciles',
    env: 'MAX_CONCURRENT_RECONCILES',
    schema: positiveInt,
    default: 1,
    source: 'controller-runtime MaxConcurrentReconciles',
    description:
      "Default workers per controller. The ClusterDeployment controller runs 4 and the Agent controller at least 4 (a step reply waits for its Agent's status write).",
  },
  cacheSyncTimeoutMs: {
    flag: 'cache-sync-timeout',
    env: 'CACHE_SYNC_TIMEOUT',
    schema: durationMs,
    default: 120_000,
    source: 'controller-runtime CacheSyncTimeout',
    description: 'Start-up fails if caches have not synced by then.',
  },
  gracefulShutdownTimeoutMs: {
    flag: 'graceful-shutdown-timeout',
    env: 'GRACEFUL_SHUTDOWN_TIMEOUT',
    schema: durationMs,
    default: 30_000,
    source: 'controller-runtime defaultGracefulShutdownPeriod',
    description: 'How long in-flight reconciles may run after SIGTERM.',
  },
  minWatchTimeoutMs: {
    flag: 'min-watch-timeout',
    env: 'MIN_WATCH_TIMEOUT',
    schema: durationMs,
    default: 300_000,
    source: 'client-go reflector minWatchTimeout (watches last 1–2× this)',
    description: 'Lower bound of the randomised server-side watch timeout.',
  },
  discoveryIntervalMs: {
    flag: 'discovery-interval',
    env: 'DISCOVERY_INTERVAL',
    schema: durationMs,
    default: 30_000,
    source: 'project choice: an optional CRD installed later is picked up within 30 s',
    description: 'How often to check whether optional kinds are now served.',
  },
  watchNamespace: {
    flag: 'watch-namespace',
    env: 'WATCH_NAMESPACE',
    schema: namespaceList.optional(),
    default: undefined,
    source: 'all namespaces, as assisted-service',
    description: 'Restrict namespaced caches to one namespace, or to a comma-separated list of them.',
  },
  logLevel: {
    flag: 'log-level',
    env: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    source: 'pino default',
    description: 'Log level.',
  },
} satisfies Record<keyof RuntimeConfig, Setting>;

export interface RuntimeConfig {
  kubeconfig: string | undefined;
  metricsBindAddress: string;
  metricsSecure: boolean;
  metricsCertDir: string;
  healthProbeBindAddress: string;
  leaderElect: boolean;
  leaderElectionId: string;
  leaderElectionNamespace: string;
  leaseDurationMs: number;
  renewDeadlineMs: number;
  retryPeriodMs: number;
  kubeApiQps: number;
  kubeApiBurst: number;
  apiUnavailableReadyWindowMs: number;
  apiStuckLivenessWindowMs: number;
  workers: number;
  cacheSyncTimeoutMs: number;
  gracefulShutdownTimeoutMs: number;
  minWatchTimeoutMs: number;
  discoveryIntervalMs: number;
  watchNamespace: string[] | undefined;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** Reads `--flag=value`, `--flag value` and bare boolean `--flag`; unknown flags are left alone. */
function readFlags(argv: readonly string[], known: ReadonlySet<string>): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const m = /^--?([a-z0-9-]+)(?:=(.*))?$/.exec(argv[i]!);
    if (!m || !known.has(m[1]!)) continue;
    const [, flag, inline] = m;
    if (inline !== undefined) out.set(flag!, inline);
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) out.set(flag!, argv[++i]!);
    else out.set(flag!, 'true');
  }
  return out;
}

export interface LoadSettingsOptions {
  /** Report only the first schema issue per setting instead of all of them joined with '; '. */
  firstIssueOnly?: boolean;
}

/**
 * Parses a settings table from flags (win) and environment variables (an empty one counts as unset),
 * falling back to each setting's default. Returns the values by key and one problem line per
 * invalid setting; the caller decides when to throw.
 */
export function loadSettings(
  settings: Record<string, Setting>,
  argv: readonly string[],
  env: Record<string, string | undefined>,
  options: LoadSettingsOptions = {},
): { values: Record<string, unknown>; problems: string[] } {
  const flags = readFlags(argv, new Set(Object.values(settings).map((s) => s.flag)));
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, s] of Object.entries(settings)) {
    const raw = flags.get(s.flag) ?? (env[s.env] === '' ? undefined : env[s.env]);
    if (raw === undefined) {
      values[key] = s.default;
      continue;
    }
    const parsed = s.schema.safeParse(raw);
    if (parsed.success) values[key] = parsed.data;
    else {
      const message = options.firstIssueOnly
        ? parsed.error.issues[0]?.message
        : parsed.error.issues.map((i) => i.message).join('; ');
      problems.push(`--${s.flag} / ${s.env}=${JSON.stringify(raw)}: ${message}`);
    }
  }
  return { values, problems };
}

/** One line per setting: flag, env, default and where the default comes from. */
export function describeSettings(settings: Record<string, Setting>): string {
  return Object.values(settings)
    .map(
      (s) =>
        `--${s.flag} ($${s.env}) default ${JSON.stringify(s.default) ?? '(none)'} [${s.source}]\n    ${s.description}`,
    )
    .join('\n');
}

export function loadRuntimeConfig(
  argv: readonly string[] = process.argv.slice(2),
  env: Record<string, string | undefined> = process.env,
): RuntimeConfig {
  const { values: out, problems } = loadSettings(runtimeSettings, argv, env);
  out.leaderElectionNamespace ??= inClusterNamespace();
  const config = out as unknown as RuntimeConfig;
  if (config.renewDeadlineMs >= config.leaseDurationMs) {
    problems.push('leader-election-renew-deadline must be shorter than leader-election-lease-duration');
  }
  if (config.retryPeriodMs >= config.renewDeadlineMs) {
    problems.push('leader-election-retry-period must be shorter than leader-election-renew-deadline');
  }
  if (problems.length) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return config;
}

/** One line per setting: flag, env, default and where the default comes from. */
export function describeRuntimeConfig(): string {
  return describeSettings(runtimeSettings);
}

/** Splits 'host:port' / ':port' for servers; undefined when disabled ('0'). */
export function parseBindAddress(addr: string): { host: string; port: number } | undefined {
  if (addr === '0') return undefined;
  const i = addr.lastIndexOf(':');
  return { host: addr.slice(0, i) || '0.0.0.0', port: Number(addr.slice(i + 1)) };
}
