// The operator's logger: pino with two layers that keep credentials out of every line at every
// level (issue 13, item 5). Call sites already avoid logging secrets; these catch what slips
// through — an error message quoting a URL, a path with a /byapikey/ token, an object with a
// pull secret in it.
//   1. `redact`: known secret-bearing keys are replaced before serialisation.
//   2. A scrubbing destination: each serialised line is searched for credential shapes (JWTs,
//      api_key= values, /byapikey/ path tokens, PEM private keys, kubeconfig and docker-config
//      secret fields) and those are replaced, whatever key or message they hide in.

import { type DestinationStream, type Logger, type LoggerOptions, pino } from 'pino';

export const REDACTED = '[REDACTED]';

/** Keys whose values are credentials, at the top level and one level down. */
const SECRET_KEYS = [
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
  '["x-secret-key"]',
  '[".dockerconfigjson"]',
];

const REDACT_PATHS = SECRET_KEYS.flatMap((key) => {
  const under = (parent: string) => (key.startsWith('[') ? `${parent}${key}` : `${parent}.${key}`);
  return [key.startsWith('[') ? key.slice(2, -2) : key, under('*'), under('headers'), under('*.headers')];
});

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
  /** Extra pino options (base, formatters…); `redact` is always ours. */
  pino?: Omit<LoggerOptions, 'redact' | 'level'>;
}

/** The logger every entry point uses: redaction and scrubbing always on. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  const destination = options.destination ?? pino.destination({ dest: 1, sync: true });
  return pino(
    {
      ...options.pino,
      ...(options.level !== undefined ? { level: options.level } : {}),
      redact: { paths: REDACT_PATHS, censor: REDACTED },
    },
    scrubbingDestination(destination),
  );
}
