// The operator's logger: pino with two layers that keep credentials out of every line at every
// level (issue 13, item 5). Call sites already avoid logging secrets; these catch what slips
// through — an error message quoting a URL, a path with a /byapikey/ token, an object with a
// pull secret in it.
//   1. Known secret-bearing keys are replaced before serialisation (formatters for the line's
//      fields and a child's bindings). Not pino's `redact`: that reparses its paths on every
//      child() and line, a tenth of the operator's garbage in a 1,000-host registration wave.
//   2. A scrubbing destination: each serialised line is searched for credential shapes (JWTs,
//      api_key= values, /byapikey/ path tokens, PEM private keys, kubeconfig and docker-config
//      secret fields) and those are replaced, whatever key or message they hide in.

import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

export const REDACTED = '[REDACTED]';

/** Keys whose values are credentials: censored at the top level, one level down, and in `headers`. */
const SECRET_KEYS: ReadonlySet<string> = new Set([
  'token',
  'agentToken',
  'apiKey',
  'api_key',
  'password',
  'pullSecret',
  'pull_secret',
  'kubeconfig',
  'privateKeyPem',
  'authorization',
  'x-secret-key',
  '.dockerconfigjson',
]);

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * A copy that serialises like the original: same prototype (an Error stays an Error for pino's
 * serializer), own enumerable members, and an Error's non-enumerable message, stack and cause.
 */
function copyOf(obj: Fields): Fields {
  const copy = Object.assign(Object.create(Object.getPrototypeOf(obj) as object | null) as Fields, obj);
  if (obj instanceof Error) {
    for (const key of ['message', 'stack', 'cause'] as const) {
      if (Object.hasOwn(obj, key)) Object.defineProperty(copy, key, { value: obj[key], writable: true });
    }
  }
  return copy;
}

/**
 * `fields` with the value of every secret key censored, copied only when something is, so a line
 * without secrets allocates nothing. `depth` 2 also censors one level down (and under `headers`
 * there), 1 only the object's own members.
 */
function redacted(fields: Fields, depth: 1 | 2): Fields {
  let out: Fields | undefined;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const value = fields[key];
    let next = value;
    if (SECRET_KEYS.has(key)) next = value === undefined ? value : REDACTED;
    else if (isRecord(value) && (depth === 2 || key === 'headers')) next = redacted(value, 1);
    if (next !== value) {
      out ??= copyOf(fields);
      out[key] = next;
    }
  }
  return out ?? fields;
}

/** A line's fields (or a child's bindings) with known secret keys censored. */
export function redactFields(fields: Fields): Fields {
  return redacted(fields, 2);
}

/** Credential shapes in serialised text (JSON-escaped strings included). */
const SCRUBBERS: readonly [RegExp, string][] = [
  // Compact JWS/JWT: our agent and URL tokens, Kubernetes ServiceAccount tokens.
  [/eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+/g, REDACTED],
  // Signed URLs and image-service paths, whatever the token looks like (forged ones included).
  [/([?&]api_key=)[^&\s"'\\]+/g, `$1${REDACTED}`],
  [/(\/byapikey\/)[^/\s"'\\]+/g, `$1${REDACTED}`],
  // PEM private keys (JSON-escaped newlines stay inside one line).
  [/-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g, REDACTED],
  // kubeconfig secret fields (YAML `key: value`, quoted or not; values long enough to be one).
  [
    /((?:client-key-data|client-certificate-data|token|password)\\*"?\s*:\s*\\*"?)[^\s"\\,}]{8,}/g,
    `$1${REDACTED}`,
  ],
  // docker config auths and pull-secret style JSON fields.
  [/(\\*"(?:auth|password|identitytoken|registrytoken)\\*"\s*:\s*\\*")[^"\\]+/g, `$1${REDACTED}`],
];

/** `text` with every credential shape replaced. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SCRUBBERS) out = out.replace(pattern, replacement);
  return out;
}

/** A destination that scrubs each line before passing it on. */
export function scrubbingDestination(inner: DestinationStream): DestinationStream {
  return { write: (line: string) => inner.write(scrubSecrets(line)) };
}

export interface CreateLoggerOptions {
  level?: string;
  /** Where lines go (default: stdout, synchronously, so a fatal line survives process.exit). */
  destination?: DestinationStream;
  /** Extra pino options (base, formatters…); redaction is always ours and runs last. */
  pino?: Omit<LoggerOptions, 'redact' | 'level'>;
}

/** The logger every entry point uses: redaction and scrubbing always on. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  const formatters = options.pino?.formatters;
  return pino(
    {
      ...options.pino,
      ...(options.level !== undefined ? { level: options.level } : {}),
      formatters: {
        ...formatters,
        log: (fields) => redactFields(formatters?.log ? (formatters.log(fields) as Fields) : fields),
        bindings: (bindings) =>
          redactFields(formatters?.bindings ? (formatters.bindings(bindings) as Fields) : bindings),
      },
    },
    scrubbingDestination(destination),
  );
}
