// bench/heap-snapshot-diff.ts finds what a load left alive between two snapshots: checked on two
// real V8 snapshots of this process, around objects kept on purpose.
import { getHeapSnapshot } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { newObjects } from '../../../bench/heap-snapshot-diff.ts';

async function snapshot() {
  const chunks: Buffer[] = [];
  for await (const c of getHeapSnapshot()) chunks.push(c as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

class LeftForTheNextPoll {
  readonly at: string;
  constructor(at: string) {
    this.at = at;
  }
}

describe('heap snapshot diff', () => {
  it('lists the objects kept since the earlier snapshot, by kind, with their retainer; strings unnamed', async () => {
    const kept: { byHost: Map<string, LeftForTheNextPoll> } = { byHost: new Map() };
    (globalThis as { keptForTest?: unknown }).keptForTest = kept;
    // Kept before the earlier snapshot: not new.
    for (let i = 0; i < 100; i++) kept.byHost.set(`old${i}`, new LeftForTheNextPoll('before'));
    const earlier = await snapshot();
    for (let i = 0; i < 500; i++)
      kept.byHost.set(`h${i}`, new LeftForTheNextPoll(`secret-${i}-${'x'.repeat(i % 3)}`));
    // Garbage made in between is not alive in the later snapshot.
    for (let i = 0; i < 500; i++) new LeftForTheNextPoll(`gone-${i}`);
    const later = await snapshot();
    const diff = newObjects(earlier, later);
    const group = diff.groups.find((g) => g.kind === 'object:LeftForTheNextPoll');
    expect(group?.count).toBe(500);
    expect(group?.retainers[0]?.[0]).toMatch(/<- array:/);
    const strings = diff.groups.filter((g) => g.kind.includes('string'));
    expect(strings.reduce((n, g) => n + g.count, 0)).toBeGreaterThanOrEqual(500);
    expect(JSON.stringify(diff)).not.toContain('secret-');
    delete (globalThis as { keptForTest?: unknown }).keptForTest;
  }, 60_000);
});
