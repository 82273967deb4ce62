// Layer-order check (make check-layers, run by CI): reads every import under src/, prints each one
// that runs against the layer order (hack/layers.ts has the order) grouped by unit-to-unit edge, and
// the import cycles between files. It fails when an edge is not in hack/layers-baseline.json or has
// more imports than the baseline allows, or when a cycle is not in the baseline.
//
// The baseline recorded the violations the tree had when the check was introduced (issue 15); the
// restructure emptied it. It may only shrink: never add an edge or a cycle to let an upward or
// sibling import in; move the shared piece down to the records rank instead.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import {
  compareWithBaseline,
  cycleKey,
  type EdgeCounts,
  edgeKey,
  findCycles,
  unitOf,
  violation,
} from './layers.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const baselinePath = join(root, 'hack/layers-baseline.json');

interface Baseline {
  edges: EdgeCounts;
  cycles: string[];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(path);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Relative imports of a file (type-only ones included: they tie the layers as tightly), resolved. */
function importsOf(file: string, known: ReadonlySet<string>): string[] {
  const info = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => relative(root, normalize(join(root, dirname(file), spec))))
    .map((path) => (known.has(path) ? path : known.has(`${path}/index.ts`) ? `${path}/index.ts` : path))
    .filter((path) => known.has(path));
}

function main(): void {
  const files = sourceFiles('src');
  const known = new Set(files);
  const graph = new Map(files.map((f) => [f, [...new Set(importsOf(f, known))]]));
  const edges: EdgeCounts = {};
  const examples = new Map<string, string[]>();
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = unitOf(from);
      const b = unitOf(to);
      const why = a && b ? violation(a, b) : undefined;
      if (!a || !b || !why) continue;
      const key = edgeKey(a.name, b.name);
      edges[key] = (edges[key] ?? 0) + 1;
      examples.set(key, [...(examples.get(key) ?? []), `${from} -> ${to} (${why})`]);
    }
  }
  const cycles = findCycles(graph).map(cycleKey);
  if (process.argv.includes('--write-baseline')) {
    const sorted = Object.fromEntries(Object.entries(edges).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(baselinePath, `${JSON.stringify({ edges: sorted, cycles }, null, 2)}\n`);
    console.log(`wrote ${relative(root, baselinePath)}`);
    return;
  }
  const verbose = process.argv.includes('--verbose');
  const total = Object.values(edges).reduce((n, c) => n + c, 0);
  console.log(`layer-order violations: ${total} imports on ${Object.keys(edges).length} edges`);
  for (const [edge, count] of Object.entries(edges).sort(([, x], [, y]) => y - x)) {
    console.log(`  ${String(count).padStart(4)}  ${edge}`);
    if (verbose) for (const line of examples.get(edge) ?? []) console.log(`          ${line}`);
  }
  console.log(`import cycles: ${cycles.length}`);
  for (const c of cycles) console.log(`  ${c}`);

  const baseline = JSON.parse(readFileSync(baselinePath, 'utf8')) as Baseline;
  const { grown, shrunk } = compareWithBaseline(edges, baseline.edges);
  const newCycles = cycles.filter((c) => !baseline.cycles.includes(c));
  for (const s of shrunk) {
    console.log(`baseline can shrink: ${s.edge} ${s.allowed} -> ${s.count} (run with --write-baseline)`);
  }
  for (const g of grown) {
    console.error(`NEW layer violation: ${g.edge} has ${g.count} imports, baseline allows ${g.allowed}`);
    for (const line of examples.get(g.edge) ?? []) console.error(`    ${line}`);
  }
  for (const c of newCycles) console.error(`NEW import cycle: ${c}`);
  if (grown.length > 0 || newCycles.length > 0) {
    console.error('imports must point down the layer order (hack/layers.ts); see README "Architecture"');
    process.exit(1);
  }
}

main();
