// The largest full mesh (maximum clique of mutual reachability) among a cluster's hosts, on bit
// rows: a 1,000-host full mesh is a million reachability pairs, which as Sets of numbers cost the
// cluster monitor most of a second per group, most of it in the collector (issue 16 item 4).

import { finish, type Steps } from '../../util/steps.ts';

/** A square bit matrix: bit j of row i says host i reached host j. */
export class BitRows {
  readonly size: number;
  /** 32-bit words per row. */
  readonly words: number;
  private readonly bits: Uint32Array;

  constructor(size: number) {
    this.size = size;
    this.words = (size + 31) >>> 5;
    this.bits = new Uint32Array(size * this.words);
  }

  set(i: number, j: number): void {
    const at = i * this.words + (j >>> 5);
    this.bits[at] = (this.bits[at] as number) | (1 << (j & 31));
  }

  has(i: number, j: number): boolean {
    return (((this.bits[i * this.words + (j >>> 5)] as number) >>> (j & 31)) & 1) === 1;
  }

  /** Row i as a view (no copy). */
  row(i: number): Uint32Array {
    return this.bits.subarray(i * this.words, (i + 1) * this.words);
  }
}

function popcount32(v: number): number {
  let x = v - ((v >>> 1) & 0x55555555);
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

function popcount(set: Uint32Array): number {
  let n = 0;
  for (const w of set) if (w !== 0) n += popcount32(w);
  return n;
}

/** Calls `visit` with each member of the set, in increasing order. */
function forEachMember(set: Uint32Array, visit: (i: number) => void): void {
  for (let w = 0; w < set.length; w++) {
    let word = set[w] as number;
    while (word !== 0) {
      const low = word & -word;
      visit((w << 5) + 31 - Math.clz32(low));
      word ^= low;
    }
  }
}

/** Pairs that reached each other, without self-loops; a step per row. */
function* mutualRows(reach: BitRows): Steps<BitRows> {
  const adj = new BitRows(reach.size);
  for (let i = 0; i < reach.size; i++) {
    forEachMember(reach.row(i), (j) => {
      if (j !== i && reach.has(j, i)) adj.set(i, j);
    });
    yield;
  }
  return adj;
}

/**
 * The hosts that can belong to a full mesh of at least `minSize`: what is left after repeatedly
 * dropping every host with fewer than `minSize - 1` mutual neighbours left (a k-core), since a
 * member of such a mesh has that many within it. Until the connectivity reports arrive no host
 * reaches any other, and the search would otherwise spend O(n²) to find nothing, on every pass of
 * the cluster monitor (issue 16: 42 % of the operator's thread in the inventory wave of a 500-host
 * cluster). Returns the kept set and each kept host's degree within it.
 */
function meshCandidates(adj: BitRows, minSize: number): { kept: Uint32Array; degree: Int32Array } {
  const need = minSize - 1;
  const degree = new Int32Array(adj.size);
  const kept = new Uint32Array(adj.words);
  const stack: number[] = [];
  for (let v = 0; v < adj.size; v++) {
    degree[v] = popcount(adj.row(v));
    if (degree[v]! < need) stack.push(v);
    else kept[v >>> 5] = (kept[v >>> 5] as number) | (1 << (v & 31));
  }
  const dropNeighbour = (w: number) => {
    if ((((kept[w >>> 5] as number) >>> (w & 31)) & 1) === 0) return;
    degree[w] = (degree[w] as number) - 1;
    if (degree[w]! < need) {
      kept[w >>> 5] = (kept[w >>> 5] as number) & ~(1 << (w & 31));
      stack.push(w);
    }
  };
  for (let v = stack.pop(); v !== undefined; v = stack.pop()) forEachMember(adj.row(v), dropNeighbour);
  return { kept, degree };
}

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < Math.min(a.length, b.length); i++) {
    if (a[i] !== b[i]) return (a[i] as number) < (b[i] as number);
  }
  return a.length < b.length;
}

function intersect(set: Uint32Array, row: Uint32Array): Uint32Array {
  const out = new Uint32Array(set.length);
  for (let w = 0; w < set.length; w++) out[w] = (set[w] as number) & (row[w] as number);
  return out;
}

/**
 * The largest full-mesh group (mutual reachability between every pair), at least `minSize` hosts;
 * ties go to the group with the smallest host indexes. An exact maximum-clique search
 * (Bron–Kerbosch with pivoting on the host with most neighbours) that visits every maximal group
 * not already smaller than the best, so the tie rule holds whatever the pivots.
 */
export function largestFullMesh(reach: BitRows, minSize: number): number[] {
  return finish(largestFullMeshSteps(reach, minSize));
}

/** largestFullMesh with a step per row of the mutual reachability (the search is one step). */
export function* largestFullMeshSteps(reach: BitRows, minSize: number): Steps<number[]> {
  const adj = yield* mutualRows(reach);
  const { kept, degree } = meshCandidates(adj, minSize);
  let best: number[] = [];
  const group: number[] = [];
  const visit = (p: Uint32Array, x: Uint32Array) => {
    const open = popcount(p);
    if (open === 0 && popcount(x) === 0) {
      const found = [...group].sort((a, b) => a - b);
      if (found.length > best.length || (found.length === best.length && lexLess(found, best))) best = found;
      return;
    }
    if (group.length + open < best.length) return;
    let pivot = -1;
    const consider = (v: number) => {
      if (pivot < 0 || (degree[v] as number) > (degree[pivot] as number)) pivot = v;
    };
    forEachMember(p, consider);
    forEachMember(x, consider);
    const branches = new Uint32Array(p.length);
    const pivotRow = adj.row(pivot);
    for (let w = 0; w < p.length; w++) branches[w] = (p[w] as number) & ~(pivotRow[w] as number);
    forEachMember(branches, (v) => {
      const row = adj.row(v);
      group.push(v);
      visit(intersect(p, row), intersect(x, row));
      group.pop();
      p[v >>> 5] = (p[v >>> 5] as number) & ~(1 << (v & 31));
      x[v >>> 5] = (x[v >>> 5] as number) | (1 << (v & 31));
    });
  };
  if (popcount(kept) > 0) visit(kept, new Uint32Array(adj.words));
  return best.length >= minSize ? best : [];
}
