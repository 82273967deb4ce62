// Writes a set of generated files, or with --check compares them with disk and exits 1 on drift.
// Shared by the CRD, RBAC, bundle and docs generators.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface GeneratedSet {
  /** Repository root. */
  root: string;
  /** Repo-relative path → content. */
  files: Map<string, string>;
  /** Directories owned by the generator: files in them it no longer produces are stale. */
  ownedDirs: string[];
  /** Which file names in ownedDirs count as generated (default: all of them). */
  ownedFile?: (name: string) => boolean;
  /** What to tell the user to run when --check fails. */
  command: string;
  what: string;
}

function staleFiles(set: GeneratedSet): string[] {
  const stale: string[] = [];
  for (const dir of set.ownedDirs) {
    const abs = join(set.root, dir);
    if (!existsSync(abs)) continue;
    for (const name of readdirSync(abs).sort()) {
      const rel = `${dir}/${name}`;
      if ((set.ownedFile?.(name) ?? true) && !set.files.has(rel)) stale.push(rel);
    }
  }
  return stale;
}

/** Rejects unknown arguments; returns whether --check was given. */
export function parseCheckFlag(argv: string[], usage: string): boolean {
  const unknown = argv.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    console.error(`unknown arguments: ${unknown.join(' ')}\nusage: ${usage}`);
    process.exit(2);
  }
  return argv.includes('--check');
}

/** The drift between the generated set and disk, as `missing:`/`differs:`/`stale:` lines. */
export function drift(set: GeneratedSet): string[] {
  const problems: string[] = [];
  for (const [rel, content] of set.files) {
    const abs = join(set.root, rel);
    if (!existsSync(abs)) problems.push(`missing: ${rel}`);
    else if (readFileSync(abs, 'utf8') !== content) problems.push(`differs: ${rel}`);
  }
  for (const rel of staleFiles(set)) problems.push(`stale:   ${rel}`);
  return problems;
}

export function writeOrCheck(set: GeneratedSet, check: boolean): void {
  if (check) {
    const problems = drift(set);
    if (problems.length > 0) {
      console.error(`${set.what} out of date; run \`${set.command}\`:`);
      for (const p of problems) console.error(`  ${p}`);
      process.exit(1);
    }
    console.log(`${set.what} up to date (${set.files.size} files).`);
    return;
  }
  for (const [rel, content] of set.files) {
    const abs = join(set.root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    if (!existsSync(abs) || readFileSync(abs, 'utf8') !== content) {
      writeFileSync(abs, content);
      console.log(`wrote ${rel}`);
    }
  }
  for (const rel of staleFiles(set)) {
    rmSync(join(set.root, rel));
    console.log(`removed ${rel}`);
  }
}
