// Summarises a sampling heap profile (`make bench-scale ARGS='--heap-profile-hosts FILE'`, or any
// `.heapprofile` DevTools writes): bytes by the nearest frame in the project's own code (src/, else
// bench/), so what the operator keeps per host reads as the code that allocated it, and by the
// allocating frame itself (JSON.parse, a string concatenation, …).
//   node bench/heap-profile-summary.ts FILE [--top N]

import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children?: ProfileNode[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
if (positionals.length !== 1) {
  console.error('usage: node bench/heap-profile-summary.ts FILE [--top N]');
  process.exit(2);
}
const profile = JSON.parse(await readFile(positionals[0]!, 'utf8')) as { head: ProfileNode };
const top = Number(values.top);

/** `function file:line` with the path cut to what follows the repository's root. */
function label(frame: CallFrame): string {
  const m = /\/(src|bench|test|node_modules)\/(.*)$/.exec(frame.url);
  const where = m ? `${m[1]}/${m[2]}` : frame.url || '(native)';
  return `${frame.functionName || '(anonymous)'} ${where}:${frame.lineNumber + 1}`;
}

const isOwn = (frame: CallFrame) => /\/(src|bench)\//.test(frame.url) && !frame.url.includes('node_modules');

const byOwnFrame = new Map<string, number>();
const byLeaf = new Map<string, number>();
let total = 0;

function add(into: Map<string, number>, key: string, bytes: number): void {
  into.set(key, (into.get(key) ?? 0) + bytes);
}

// Depth-first with an explicit stack: profiles of deep call chains overflow recursion.
const stack: { node: ProfileNode; own: string | undefined }[] = [{ node: profile.head, own: undefined }];
while (stack.length > 0) {
  const { node, own } = stack.pop()!;
  const here = isOwn(node.callFrame) ? label(node.callFrame) : own;
  if (node.selfSize > 0) {
    total += node.selfSize;
    add(byOwnFrame, here ?? '(no project frame)', node.selfSize);
    add(byLeaf, label(node.callFrame), node.selfSize);
  }
  for (const child of node.children ?? []) stack.push({ node: child, own: here });
}

function print(title: string, sums: Map<string, number>): void {
  console.log(`\n${title}`);
  const rows = [...sums].sort((a, b) => b[1] - a[1]).slice(0, top);
  for (const [key, bytes] of rows) {
    const mib = (bytes / 2 ** 20).toFixed(1).padStart(8);
    const pct = ((100 * bytes) / total).toFixed(1).padStart(5);
    console.log(`${mib} MiB ${pct} %  ${key}`);
  }
}

console.log(`sampled in all: ${(total / 2 ** 20).toFixed(1)} MiB`);
print('by the nearest frame in src/ or bench/', byOwnFrame);
print('by the allocating frame', byLeaf);
