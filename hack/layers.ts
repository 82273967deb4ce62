// Rule logic of the layer-order check (hack/check-layers.ts): which layer a source file belongs to,
// which imports run against the order, how today's violations compare with the checked-in baseline,
// and the import cycles between files. Pure functions, so they are unit-tested on tables.
//
// The order, top to bottom (an import may only point down, or sideways where noted):
//   7 cmd
//   6 operator                       (the composition root)
//   5 controllers/index.ts           (the registry of controllers the operator starts; any file
//                                    beside the controller folders ranks here)
//   4 controllers/<x>, server (the host API: REST routes, image service and their backend),
//     webhooks, cli, sim, dev, rbac
//                                    (peers: none imports another, no controller folder a sibling)
//   3 records                        (the operator context, informers and indexes, lookups, the
//                                    CR ↔ core record conversions, and what controllers and the
//                                    host API both use: host memory, the operator's LocalAuth,
//                                    events, infra-env inputs and image services, hub release)
//     auth                           (host tokens, signed download URLs, their keys: minted by
//                                    controllers, checked by the host API)
//     images                         (base-image cache, discovery ISO/initrd building, cpio,
//                                    PXE scripts: used by the InfraEnv controller, the image
//                                    routes and the simulator)
//   2 api
//   1 core, runtime                  (peers: neither imports the other)
//   0 util

export interface Unit {
  /** What an edge is reported by: `operator`, `controllers/agent`, `controllers/index.ts`, … */
  name: string;
  rank: number;
}

/** Ranks whose units must not import each other. */
const ISOLATED_PEER_RANKS = new Set([4, 1]);

const TOP_LEVEL_RANKS: Record<string, number> = {
  cmd: 7,
  operator: 6,
  server: 4,
  webhooks: 4,
  cli: 4,
  sim: 4,
  dev: 4,
  rbac: 4,
  records: 3,
  auth: 3,
  images: 3,
  api: 2,
  core: 1,
  runtime: 1,
  util: 0,
};

/** The unit of a path relative to the repository (`src/...`), or undefined outside the layered tree. */
export function unitOf(path: string): Unit | undefined {
  const parts = path.split('/');
  if (parts[0] !== 'src' || parts.length < 3) return undefined;
  const top = parts[1] ?? '';
  if (top === 'controllers') {
    // A file beside the controller folders is the registry (index.ts), never a hidden shared layer:
    // shared code goes down to records/.
    if (parts.length === 3) return { name: `controllers/${parts[2] ?? ''}`, rank: 5 };
    const folder = parts[2] ?? '';
    return { name: `controllers/${folder}`, rank: 4 };
  }
  const rank = TOP_LEVEL_RANKS[top];
  return rank === undefined ? undefined : { name: top, rank };
}

/** Why an import from one unit to another runs against the order, or undefined when it does not. */
export function violation(from: Unit, to: Unit): string | undefined {
  if (from.name === to.name) return undefined;
  if (to.rank > from.rank) return 'imports a higher layer';
  if (to.rank === from.rank && ISOLATED_PEER_RANKS.has(from.rank)) return 'imports a peer of its layer';
  return undefined;
}

export const edgeKey = (from: string, to: string): string => `${from} -> ${to}`;

/** Violating imports counted per unit-to-unit edge. */
export type EdgeCounts = Record<string, number>;

export interface BaselineVerdict {
  /** Edges absent from the baseline, or with more imports than it allows. */
  grown: { edge: string; count: number; allowed: number }[];
  /** Baseline edges now below their allowance (the baseline can be lowered). */
  shrunk: { edge: string; count: number; allowed: number }[];
}

/** Compares today's violating edges with the baseline: it may only shrink. */
export function compareWithBaseline(current: EdgeCounts, baseline: EdgeCounts): BaselineVerdict {
  const grown: BaselineVerdict['grown'] = [];
  const shrunk: BaselineVerdict['shrunk'] = [];
  for (const [edge, count] of Object.entries(current)) {
    const allowed = baseline[edge] ?? 0;
    if (count > allowed) grown.push({ edge, count, allowed });
  }
  for (const [edge, allowed] of Object.entries(baseline)) {
    const count = current[edge] ?? 0;
    if (count < allowed) shrunk.push({ edge, count, allowed });
  }
  return { grown, shrunk };
}

/** Strongly connected groups of two or more files (or a file importing itself), each sorted. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm, iterative so a deep import chain cannot overflow the stack.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  for (const start of graph.keys()) {
    if (index.has(start)) continue;
    const work: { node: string; edge: number }[] = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; edge: number };
      const targets = graph.get(frame.node) ?? [];
      if (frame.edge < targets.length) {
        const to = targets[frame.edge++] as string;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node) ?? 0, index.get(to) ?? 0));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node) ?? 0, low.get(frame.node) ?? 0));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const group: string[] = [];
      for (;;) {
        const n = stack.pop() as string;
        onStack.delete(n);
        group.push(n);
        if (n === frame.node) break;
      }
      const selfLoop = group.length === 1 && (graph.get(frame.node) ?? []).includes(frame.node);
      if (group.length > 1 || selfLoop) cycles.push(group.sort());
    }
  }
  return cycles.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

export const cycleKey = (files: readonly string[]): string => files.join(' <-> ');
