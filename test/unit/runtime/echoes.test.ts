import { describe, expect, it } from 'vitest';
import { OwnWriteEchoes } from '../../../src/runtime/echoes.ts';
import type { KubeObject } from '../../../src/runtime/types.ts';

const v = (rv: string, name = 'a'): KubeObject => ({
  metadata: { namespace: 'ns', name, resourceVersion: rv },
});

function tracker() {
  const released: string[] = [];
  const echoes = new OwnWriteEchoes((o, n) =>
    released.push(`${n.metadata.name}@${o.metadata.resourceVersion}→${n.metadata.resourceVersion}`),
  );
  return { echoes, released, update: (o: KubeObject, n: KubeObject) => echoes.predicate.update!(o, n) };
}

describe('OwnWriteEchoes', () => {
  // A write sent against version 5 that the API server stored as 6.
  const rows: {
    name: string;
    /** The update the watch delivers, and whether it arrives before the write's response. */
    event: [KubeObject, KubeObject];
    early: boolean;
    /** What the write returned; undefined: it failed (409 or any error). */
    result: KubeObject | undefined;
    passes: boolean;
    released: string[];
  }[] = [
    {
      name: 'the echo, after the response',
      event: [v('5'), v('6')],
      early: false,
      result: v('6'),
      passes: false,
      released: [],
    },
    {
      name: 'the echo, before the response',
      event: [v('5'), v('6')],
      early: true,
      result: v('6'),
      passes: false,
      released: [],
    },
    {
      name: 'another writer won the race, early',
      event: [v('5'), v('6')],
      early: true,
      result: undefined,
      passes: false,
      released: ['a@5→6'],
    },
    {
      name: 'another writer, from a version the write did not read',
      event: [v('4'), v('6')],
      early: false,
      result: v('6'),
      passes: true,
      released: [],
    },
    {
      name: 'another writer after the write',
      event: [v('5'), v('7')],
      early: false,
      result: v('6'),
      passes: true,
      released: [],
    },
    {
      name: 'another object',
      event: [v('5', 'b'), v('6', 'b')],
      early: true,
      result: v('6'),
      passes: true,
      released: [],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const { echoes, released, update } = tracker();
      const ticket = echoes.begin(v('5'));
      let passed: boolean;
      if (row.early) {
        passed = update(...row.event);
        ticket?.settle(row.result);
      } else {
        ticket?.settle(row.result);
        passed = update(...row.event);
      }
      // A held update that was not the write's own comes out through `release`, exactly once.
      expect(passed).toBe(row.passes);
      expect(released).toEqual(row.released);
    });
  }

  it('uses a record once, and any update of the object forgets it', () => {
    const { echoes, update } = tracker();
    expect(update(v('5'), v('6'))).toBe(true);
    echoes.begin(v('5'))?.settle(v('6'));
    expect(update(v('5'), v('6'))).toBe(false);
    expect(update(v('5'), v('6'))).toBe(true);
    echoes.begin(v('8'))?.settle(v('9'));
    expect(update(v('7'), v('8'))).toBe(true);
    expect(echoes.size).toBe(0);
    expect(update(v('8'), v('9'))).toBe(true);
  });

  it('holds one update while in flight; later ones pass', () => {
    const { echoes, released, update } = tracker();
    const ticket = echoes.begin(v('5'));
    expect(update(v('5'), v('6'))).toBe(false);
    expect(update(v('6'), v('7'))).toBe(true);
    ticket?.settle(v('6'));
    expect(released).toEqual([]);
    expect(echoes.size).toBe(0);
  });

  it('a delete releases what it held and forgets; creates pass', () => {
    const { echoes, released } = tracker();
    expect(echoes.predicate.create).toBeUndefined();
    const ticket = echoes.begin(v('5'));
    expect(echoes.predicate.update!(v('5'), v('6'))).toBe(false);
    expect(echoes.predicate.delete!(v('6'))).toBe(true);
    expect(released).toEqual(['a@5→6']);
    ticket?.settle(v('6'));
    expect(released).toEqual(['a@5→6']);
    expect(echoes.size).toBe(0);
  });

  it('a new write of the same object releases what the unsettled one held', () => {
    const { echoes, released, update } = tracker();
    const first = echoes.begin(v('5'));
    expect(update(v('5'), v('6'))).toBe(false);
    echoes.begin(v('6'))?.settle(v('7'));
    expect(released).toEqual(['a@5→6']);
    first?.settle(v('6'));
    expect(released).toEqual(['a@5→6']);
    expect(update(v('6'), v('7'))).toBe(false);
  });

  it('needs a version to match against', () => {
    const { echoes } = tracker();
    expect(echoes.begin({ metadata: { namespace: 'ns', name: 'a' } })).toBeUndefined();
    expect(echoes.size).toBe(0);
  });
});
