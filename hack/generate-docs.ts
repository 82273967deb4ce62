// Writes the generated reference documentation:
//   docs/reference/api.md         every kind and field, from src/api
//   docs/reference/conditions.md  every condition outcome, from src/controllers/records
//   docs/configuration.md         every flag and environment variable, from the settings tables
//
// Usage: node hack/generate-docs.ts [--check]
//   --check  render in memory and exit 1 listing the files that differ from disk; nothing is written.

import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderApiReference } from './docs/api.ts';
import { renderConditionsReference } from './docs/conditions.ts';
import { renderConfiguration } from './docs/configuration.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const unknown = process.argv.slice(2).filter((a) => a !== '--check');
if (unknown.length > 0) {
  console.error(`unknown arguments: ${unknown.join(' ')}\nusage: node hack/generate-docs.ts [--check]`);
  process.exit(2);
}

const withNewline = (s: string) => (s.endsWith('\n') ? s : `${s}\n`);
const files = new Map<string, string>([
  ['docs/reference/api.md', withNewline(renderApiReference())],
  ['docs/reference/conditions.md', withNewline(renderConditionsReference())],
  ['docs/configuration.md', withNewline(renderConfiguration())],
]);

if (check) {
  const problems: string[] = [];
  for (const [rel, content] of files) {
    const abs = join(root, rel);
    if (!existsSync(abs)) problems.push(`missing: ${rel}`);
    else if (readFileSync(abs, 'utf8') !== content) problems.push(`differs: ${rel}`);
  }
  if (problems.length > 0) {
    console.error('Generated docs are out of date; run `npm run docs`:');
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log(`Docs up to date (${files.size} files).`);
} else {
  for (const [rel, content] of files) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    if (!existsSync(abs) || readFileSync(abs, 'utf8') !== content) {
      writeFileSync(abs, content);
      console.log(`wrote ${rel}`);
    }
  }
}
