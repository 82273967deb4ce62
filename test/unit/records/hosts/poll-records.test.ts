// Host polls reuse their cluster's record (issue 16 item 4): in a cluster of n hosts each poll
// built the record from all n, O(n²) for the cluster's polls. The record is reused while the cached
// objects it came from are the same ones and it is younger than the window; anything else rebuilds.
import { describe, expect, it } from 'vitest';
import { PollRecords } from '../../../../src/records/hosts/poll-records.ts';

function harness(opts: { maxAgeMs?: number; maxEntries?: number } = {}) {
  const clock = { now: 0 };
  const records = new PollRecords<string>({ ...opts, now: () => clock.now });
  let builds = 0;
  const build = (tag: string) => async () => {
    builds++;
    return `${tag}#${builds}`;
  };
  return { clock, records, build, builds: () => builds };
}

describe('PollRecords', () => {
  const cd = { name: 'cd' };
  const aci = { name: 'aci' };
  const a1 = { name: 'a1' };
  const a2 = { name: 'a2' };

  it('1,000 polls within the window with the same objects build once', async () => {
    const h = harness({ maxAgeMs: 1000 });
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      h.clock.now = i * 0.9;
      seen.add(await h.records.record('c1', [cd, aci, a1, a2], h.build('c1')));
    }
    expect(h.builds()).toBe(1);
    expect([...seen]).toEqual(['c1#1']);
  });

  it.each([
    ['an Agent changed (a new object)', [cd, aci, { name: 'a1' }, a2]],
    ['an Agent joined', [cd, aci, a1, a2, { name: 'a3' }]],
    ['an Agent left', [cd, aci, a1]],
    ['the Agents in another order', [cd, aci, a2, a1]],
    ['the ACI changed', [cd, { name: 'aci' }, a1, a2]],
    ['the ACI went away', [cd, undefined, a1, a2]],
  ])('rebuilds when %s', async (_what, parts) => {
    const h = harness();
    expect(await h.records.record('c1', [cd, aci, a1, a2], h.build('c1'))).toBe('c1#1');
    expect(await h.records.record('c1', parts, h.build('c1'))).toBe('c1#2');
    expect(h.builds()).toBe(2);
  });

  it('a one-host cluster polled every 10 s (or 60 s) keeps its record while nothing changed', async () => {
    const agents = [a1];
    const pullSecret = { name: 'pull-secret' };
    for (const every of [10_000, 60_000]) {
      const h = harness();
      for (let i = 0; i < 10; i++) {
        h.clock.now = i * every;
        expect(await h.records.record('sno', [cd, aci, agents, pullSecret], h.build('sno'))).toBe('sno#1');
      }
      expect(h.builds()).toBe(1);
    }
  });

  it('rebuilds when a referenced Secret or ConfigMap changed, appeared or went away', async () => {
    const secret = { name: 'pull-secret' };
    const manifests = { name: 'manifests' };
    const h = harness();
    const reads = [
      [cd, aci, a1, secret, manifests],
      [cd, aci, a1, { name: 'pull-secret' }, manifests],
      [cd, aci, a1, undefined, manifests],
      [cd, aci, a1, undefined],
      [cd, aci, a1, undefined, { name: 'manifests' }],
    ];
    for (const [i, parts] of reads.entries()) {
      h.clock.now = i * 10_000;
      expect(await h.records.record('c1', parts, h.build('c1'))).toBe(`c1#${i + 1}`);
    }
  });

  it('rebuilds once the record has not been used for the window, with nothing changed', async () => {
    const h = harness({ maxAgeMs: 1000 });
    await h.records.record('c1', [cd], h.build('c1'));
    h.clock.now = 999;
    expect(await h.records.record('c1', [cd], h.build('c1'))).toBe('c1#1');
    // Used at 999: kept until 1999.
    h.clock.now = 1998;
    expect(await h.records.record('c1', [cd], h.build('c1'))).toBe('c1#1');
    h.clock.now = 2998;
    expect(await h.records.record('c1', [cd], h.build('c1'))).toBe('c1#2');
  });

  it('keeps clusters apart', async () => {
    const h = harness();
    expect(await h.records.record('c1', [cd], h.build('c1'))).toBe('c1#1');
    expect(await h.records.record('c2', [cd], h.build('c2'))).toBe('c2#2');
    expect(await h.records.record('c1', [cd], h.build('c1'))).toBe('c1#1');
  });

  it('polls during a build share it; a failed build is not kept', async () => {
    const h = harness();
    let release: (v: string) => void = () => {};
    const slow = () => new Promise<string>((r) => (release = r));
    const first = h.records.record('c1', [cd], slow);
    const second = h.records.record('c1', [cd], h.build('c1'));
    release('slow');
    expect(await first).toBe('slow');
    expect(await second).toBe('slow');
    expect(h.builds()).toBe(0);

    const failing = h.records.record('c2', [cd], async () => {
      throw new Error('no record');
    });
    await expect(failing).rejects.toThrow('no record');
    expect(await h.records.record('c2', [cd], h.build('c2'))).toBe('c2#1');
  });

  it('holds only the clusters polled within the window, and at most maxEntries', async () => {
    const h = harness({ maxAgeMs: 1000, maxEntries: 50 });
    for (let i = 0; i < 200; i++) {
      h.clock.now = i;
      await h.records.record(`c${i}`, [cd], h.build('c'));
    }
    expect(h.records.size).toBeLessThanOrEqual(50);
    h.clock.now = 5000;
    await h.records.record('last', [cd], h.build('c'));
    expect(h.records.size).toBe(1);
  });

  it('a full map rebuilds nothing on a hit: room is made for an insert only', async () => {
    const h = harness({ maxAgeMs: 1000, maxEntries: 3 });
    for (const c of ['c1', 'c2', 'c3']) await h.records.record(c, [cd], h.build(c));
    for (let t = 1; t <= 30; t++) {
      h.clock.now = t;
      const c = `c${(t % 3) + 1}`;
      expect(await h.records.record(c, [cd], h.build(c))).toMatch(/#[123]$/);
    }
    expect(h.builds()).toBe(3);
  });

  it('at capacity an insert drops the record not used since it came before one that was used', async () => {
    const h = harness({ maxAgeMs: 1000, maxEntries: 3 });
    await h.records.record('c1', [cd], h.build('c1'));
    h.clock.now = 1;
    await h.records.record('c2', [cd], h.build('c2'));
    h.clock.now = 2;
    expect(await h.records.record('c1', [cd], h.build('c1'))).toBe('c1#1');
    h.clock.now = 3;
    await h.records.record('c3', [cd], h.build('c3'));
    h.clock.now = 4;
    await h.records.record('c4', [cd], h.build('c4'));
    expect(h.records.size).toBe(3);
    h.clock.now = 5;
    expect(await h.records.record('c1', [cd], h.build('c1'))).toBe('c1#1');
    expect(await h.records.record('c3', [cd], h.build('c3'))).toBe('c3#3');
    expect(await h.records.record('c4', [cd], h.build('c4'))).toBe('c4#4');
    // c2, older than c1 and not used since it came, went.
    expect(await h.records.record('c2', [cd], h.build('c2'))).toBe('c2#5');
  });

  it('a record used every poll outlives many windows while one not used is dropped', async () => {
    const h = harness({ maxAgeMs: 1000 });
    await h.records.record('busy', [cd], h.build('busy'));
    await h.records.record('idle', [cd], h.build('idle'));
    for (let t = 100; t <= 10_000; t += 100) {
      h.clock.now = t;
      expect(await h.records.record('busy', [cd], h.build('busy'))).toBe('busy#1');
    }
    expect(h.records.size).toBe(1);
    expect(await h.records.record('idle', [cd], h.build('idle'))).toBe('idle#3');
  });
});
