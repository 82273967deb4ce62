// docs/configuration.md: every flag and environment variable of the operator, from the settings
// tables it parses its configuration with (runtimeSettings, operatorSettings).

import { operatorSettings } from '../../src/operator/config.ts';
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

export function renderConfiguration(): string {
  return [
    '# Configuration',
    '',
    GENERATED_NOTE('runtimeSettings (src/runtime/config.ts) and operatorSettings (src/operator/config.ts)'),
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
    '## Operator',
    '',
    'REST API and image service, data directory, installer behaviour.',
    '',
    table(operatorSettings as unknown as Record<string, SettingDoc>),
    '',
  ].join('\n');
}
