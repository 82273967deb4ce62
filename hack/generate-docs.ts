// Writes the generated reference documentation:
//   docs/reference/api.md         every kind and field, from src/api
//   docs/reference/conditions.md  every condition outcome, from src/records
//   docs/configuration.md         every flag and environment variable, from the settings tables
//
// Usage: node hack/generate-docs.ts [--check]
//   --check  render in memory and exit 1 listing the files that differ from disk; nothing is written.

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApiReference } from './docs/api.ts';
import { renderConditionsReference } from './docs/conditions.ts';
import { renderConfiguration } from './docs/configuration.ts';
import { parseCheckFlag, writeOrCheck } from './lib/generated-files.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = parseCheckFlag(process.argv.slice(2), 'node hack/generate-docs.ts [--check]');

const withNewline = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);
const files = new Map<string, string>([
  ['docs/reference/api.md', withNewline(renderApiReference())],
  ['docs/reference/conditions.md', withNewline(renderConditionsReference())],
  ['docs/configuration.md', withNewline(renderConfiguration())],
]);

// Only these files are generated; docs/ holds hand-written pages too, so nothing there is stale.
writeOrCheck({ root, files, ownedDirs: [], command: 'npm run docs', what: 'Docs' }, check);
