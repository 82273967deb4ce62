// Writes the CustomResourceDefinitions generated from src/api:
//   config/crd/bases/<group>_<plural>.yaml     owned kinds
//   config/crd/external/<group>_<plural>.yaml  stand-ins for Hive and metal3 kinds
// plus a kustomization.yaml in each directory.
//
// Usage: node hack/generate-crds.ts [--check]
//   --check  regenerate in memory, list files that differ from disk (or are stale) and exit 1
//            if there are any; nothing is written.

import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXTERNAL_CRD_DIR, generateCrdFiles, OWNED_CRD_DIR } from '../src/api/crd.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');
const unknown = process.argv.slice(2).filter((a) => a !== '--check');
if (unknown.length > 0) {
  console.error(`unknown arguments: ${unknown.join(' ')}\nusage: node hack/generate-crds.ts [--check]`);
  process.exit(2);
}

const files = generateCrdFiles();

/** YAML files on disk in the output directories that the generator no longer produces. */
function staleFiles(): string[] {
  const stale: string[] = [];
  for (const dir of [OWNED_CRD_DIR, EXTERNAL_CRD_DIR]) {
    const abs = join(root, dir);
    if (!existsSync(abs)) continue;
    for (const name of readdirSync(abs).sort()) {
      const rel = `${dir}/${name}`;
      if (name.endsWith('.yaml') && !files.has(rel)) stale.push(rel);
    }
  }
  return stale;
}

if (check) {
  const problems: string[] = [];
  for (const [rel, content] of files) {
    const abs = join(root, rel);
    if (!existsSync(abs)) problems.push(`missing: ${rel}`);
    else if (readFileSync(abs, 'utf8') !== content) problems.push(`differs: ${rel}`);
  }
  for (const rel of staleFiles()) problems.push(`stale:   ${rel}`);
  if (problems.length > 0) {
    console.error('Generated CRDs are out of date; run `node hack/generate-crds.ts`:');
    for (const p of problems) console.error(`  ${p}`);
    process.exit(1);
  }
  console.log(`CRDs up to date (${files.size} files).`);
} else {
  for (const [rel, content] of files) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    if (!existsSync(abs) || readFileSync(abs, 'utf8') !== content) {
      writeFileSync(abs, content);
      console.log(`wrote ${relative(root, abs)}`);
    }
  }
  for (const rel of staleFiles()) {
    rmSync(join(root, rel));
    console.log(`removed ${rel}`);
  }
}
