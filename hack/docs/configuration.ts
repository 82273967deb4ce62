// docs/configuration.md: every flag and environment variable of the operator, from the settings
// tables it parses its configuration with (runtimeSettings, operatorSettings).

import { operatorSettings } from '../../src/records/config.ts';
import { runtimeSettings } from '../../src/runtime/config.ts';
import { cell, GENERATED_NOTE } from './markdown.ts';

interface SettingDoc {
  flag: string;
  env: string;
  default: unknown;
  source: string;
  description: string;
}

function formatDefault(key: string, value: unknown): string {
  if (value === undefined) return '(none)';
  // Durations are stored in milliseconds (keys end in Ms) but written as Go durations.
  if (typeof value === 'number' && key.endsWith('Ms')) {
    if (value % 3_600_000 === 0 && value > 0) return `\`${value / 3_600_000}h\``;
    if (value % 60_000 === 0 && value > 0) return `\`${value / 60_000}m\``;
    if (value % 1000 === 0) return `\`${value / 1000}s\``;
    return `\`${value}ms\``;
  }
  return `\`${typeof value === 'string' ? value : JSON.stringify(value)}\``;
}

function table(settings: Record<string, SettingDoc>): string {
  const lines = [
    '| Flag | Environment | Default | Description | Default from |',
    '| --- | --- | --- | --- | --- |',
  ];
  for (const [key, s] of Object.entries(settings)) {
    lines.push(
      `| \`--${s.flag}\` | \`${s.env}\` | ${cell(formatDefault(key, s.default))} | ${cell(s.description)} | ${cell(s.source)} |`,
    );
  }
  return lines.join('\n');
}

const API_CLIENT = `### API client: request budgets, throttling, self-healing and probes

**No client-side rate limit by default.** Earlier releases (and assisted-service) held every API
request behind one client-side bucket of 20 requests/s, burst 30: the default of controller-runtime
before v0.21. controller-runtime turned its client-side limiter off by default in v0.21
(kubernetes-sigs/controller-runtime#3119), following SIG API Machinery's advice to rely on the API
server's Priority and Fairness (APF, on by default since Kubernetes 1.20, GA in 1.29) instead; this
operator does the same. The API server then protects itself: when the operator's priority level is
full it answers 429 with \`Retry-After\`, and the client waits exactly that long (at most 60 s) and
retries, up to 10 times (client-go's limit), without the caller noticing.

**Budgets.** \`--kube-api-qps\` > 0 restores a fixed limit (\`--kube-api-qps=20 --kube-api-burst=30\`
is the old default). Each kind of traffic then has its own bucket of that size, as each
controller-runtime client built from one configuration has: reconcilers and the host API share one,
Event writes have another (so an Event backlog neither waits behind reconcilers nor takes their
tokens; installer events are written up to 8 at a time, other Events one at a time, both are
spam-filtered per object, and a write that got no answer, a 5xx or a 429 is sent again after 1 s
and 4 s under the same Event name), and Lease renewals have a third on a connection of their own (so
neither reconcile traffic nor a broken main connection can delay a renewal past the renew deadline).

**Self-healing connection.** All other requests, watches included, share one HTTP/2 connection.
After any transport failure (connection refused or reset, GOAWAY, an HTTP/2 session or stream
error such as \`ENHANCE_YOUR_CALM\`, a headers or idle timeout) or a 413 answer, that connection is
retired: new requests open a new one, requests still running on the old one may finish for 60 s,
and a failed read (GET) is repeated once on the new connection. A failed write is returned to its
caller (it may have reached the server), which retries it like any other error. Every replacement
is counted in \`aio_rest_client_reconnects_total{cause}\` and logged.

**Probes.** \`/readyz\` fails while caches have not synced, once every API request has failed (no
answer, or a 5xx) for longer than \`--api-unavailable-ready-window\`, or once a cache has heard nothing
from its watch (no list page, event, bookmark or orderly watch end) for longer than a watch may stay
silent: twice \`--min-watch-timeout\` plus 5 s (10 min 5 s by default). \`/healthz\` fails only when a
restart would help: no API request has had any answer for longer than \`--api-stuck-liveness-window\`
while a new connection to the same API server gets its \`/readyz\` answered (checked at most every
10 s). An API server that is simply down fails \`/readyz\`, not \`/healthz\`: restarting would not help.`;

export function renderConfiguration(): string {
  return [
    '# Configuration',
    '',
    GENERATED_NOTE('runtimeSettings (src/runtime/config.ts) and operatorSettings (src/records/config.ts)'),
    '',
    'The operator (`node src/cmd/operator.ts`, `agent-install-operator` when built) reads each setting',
    'from a command-line flag (`--flag value` or `--flag=value`), else from its environment variable,',
    'else the default. An empty environment variable counts as unset. Durations accept `500ms`, `15s`,',
    '`2m`, `1h`; booleans `true`/`false`/`1`/`0`. Invalid values stop the operator at start-up with',
    'one line per problem. `--help` prints the same list.',
    '',
    '## Controller runtime',
    '',
    'Connection to the hub cluster, leader election, metrics and health endpoints, queues.',
    '',
    table(runtimeSettings as unknown as Record<string, SettingDoc>),
    '',
    API_CLIENT,
    '',
    '## Operator',
    '',
    'REST API and image service, data directory, installer behaviour.',
    '',
    table(operatorSettings as unknown as Record<string, SettingDoc>),
    '',
  ].join('\n');
}
