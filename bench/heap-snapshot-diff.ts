// What a steady load leaves alive from one heap snapshot to the next: the objects in the later
// snapshot that the earlier one did not have (a V8 snapshot numbers an object once and keeps its
// number for the life of the process), grouped by kind, each group with its commonest retainer.
// `make bench-scale ARGS='--heap-snapshots-idle DIR'` writes the two snapshots 40 % and 90 % into
// the idle-hosts window. A sampling heap profile cannot answer this: at its stop it counts the
// young generation's garbage not yet collected as live. Objects a poll leaves for the next poll
// show up here once per host; a poll's garbage does not show up at all.
//   node bench/heap-snapshot-diff.ts EARLIER LATER [--top N]
// Snapshots are parsed whole: a few hundred MB each, which fits a heap of 1,000 hosts' operator.

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface Group {
  kind: string;
  count: number;
  bytes: number;
  /** Commonest retainers (edge name and retainer kind; `(new)` when it is new too), with counts. */
  retainers: [string, number][];
}

/** Field offsets of a snapshot's flat node and edge arrays. */
function layout(s: Snapshot) {
  const m = s.snapshot.meta;
  const node = (f: string) => m.node_fields.indexOf(f);
  const edge = (f: string) => m.edge_fields.indexOf(f);
  return {
    nodeSize: m.node_fields.length,
    edgeSize: m.edge_fields.length,
    type: node('type'),
    name: node('name'),
    id: node('id'),
    selfSize: node('self_size'),
    edgeCount: node('edge_count'),
    edgeType: edge('type'),
    edgeName: edge('name_or_index'),
    edgeTo: edge('to_node'),
    nodeTypes: m.node_types[0],
    edgeTypes: m.edge_types[0],
  };
}

function maxId(s: Snapshot): number {
  const l = layout(s);
  let max = 0;
  for (let i = l.id; i < s.nodes.length; i += l.nodeSize) max = Math.max(max, s.nodes[i] as number);
  return max;
}

/** The objects of `later` numbered above everything in `earlier`, grouped by kind. */
export function newObjects(
  earlier: Snapshot,
  later: Snapshot,
): { count: number; bytes: number; groups: Group[] } {
  const since = maxId(earlier);
  const l = layout(later);
  const { nodes, edges, strings } = later;
  const count = nodes.length / l.nodeSize;
  const isNew = (n: number) => (nodes[n * l.nodeSize + l.id] as number) > since;
  const kind = (n: number) => {
    const type = l.nodeTypes[nodes[n * l.nodeSize + l.type] as number] as string;
    // Strings are named by their text: grouped as one kind, never printed (they may be secrets).
    const name = type.includes('string') ? '' : String(strings[nodes[n * l.nodeSize + l.name] as number]);
    return `${type}:${name.slice(0, 60)}`;
  };
  // Per new object, the first retainer that is an object; a root (a stack slot, a handle) only
  // when nothing else holds it.
  const retainer = new Map<number, string>();
  const rootRetainer = new Map<number, string>();
  for (let n = 0, e = 0; n < count; n++) {
    const edgeCount = nodes[n * l.nodeSize + l.edgeCount] as number;
    const root = l.nodeTypes[nodes[n * l.nodeSize + l.type] as number] === 'synthetic';
    const held = root ? rootRetainer : retainer;
    for (let k = 0; k < edgeCount; k++, e += l.edgeSize) {
      const to = (edges[e + l.edgeTo] as number) / l.nodeSize;
      const type = l.edgeTypes[edges[e + l.edgeType] as number];
      if (type === 'weak' || !isNew(to) || held.has(to)) continue;
      const name =
        type === 'element' || type === 'hidden'
          ? `[${type}]`
          : String(strings[edges[e + l.edgeName] as number]);
      held.set(to, `${name.slice(0, 30)} <- ${kind(n)}${isNew(n) ? '(new)' : ''}`);
    }
  }
  const groups = new Map<string, { count: number; bytes: number; retainers: Map<string, number> }>();
  let total = 0;
  let bytes = 0;
  for (let n = 0; n < count; n++) {
    if (!isNew(n)) continue;
    const size = nodes[n * l.nodeSize + l.selfSize] as number;
    total++;
    bytes += size;
    const k = kind(n);
    let g = groups.get(k);
    if (!g) {
      g = { count: 0, bytes: 0, retainers: new Map() };
      groups.set(k, g);
    }
    g.count++;
    g.bytes += size;
    const r = retainer.get(n) ?? rootRetainer.get(n) ?? '(none)';
    g.retainers.set(r, (g.retainers.get(r) ?? 0) + 1);
  }
  const out = [...groups].map(([k, g]) => ({
    kind: k,
    count: g.count,
    bytes: g.bytes,
    retainers: [...g.retainers].sort((a, b) => b[1] - a[1]).slice(0, 3),
  }));
  return { count: total, bytes, groups: out.sort((a, b) => b.bytes - a.bytes) };
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  if (positionals.length !== 2) {
    console.error('usage: node bench/heap-snapshot-diff.ts EARLIER LATER [--top N]');
    process.exit(2);
  }
  const read = async (f: string) => JSON.parse(await readFile(f, 'utf8')) as Snapshot;
  const diff = newObjects(await read(positionals[0]!), await read(positionals[1]!));
  console.log(
    `new objects alive in the later snapshot: ${diff.count}, ${(diff.bytes / 1024).toFixed(0)} KiB`,
  );
  for (const g of diff.groups.slice(0, Number(values.top))) {
    const by = g.retainers.map(([r, n]) => `${n}× ${r}`).join(' | ');
    console.log(
      `${String(g.count).padStart(8)} ${(g.bytes / 1024).toFixed(1).padStart(9)} KiB  ${g.kind}\n${' '.repeat(11)}${by}`,
    );
  }
}

if (import.meta.main) await main();
