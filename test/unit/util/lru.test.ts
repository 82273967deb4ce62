// The shared LRU (src/util/lru.ts): the Event recorder bounds it by entries, the static-network
// reader by entries and characters.
import { describe, expect, it } from 'vitest';
import { Lru } from '../../../src/util/lru.ts';

describe('Lru', () => {
  it('evicts the least recently used key past maxEntries; a read counts as a use', () => {
    const lru = new Lru<string, number>({ maxEntries: 2 });
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect([lru.get('a'), lru.get('c'), lru.size]).toEqual([1, 3, 2]);
  });

  it('evicts the oldest keys until the weights fit, and keeps no entry heavier than the budget', () => {
    const lru = new Lru<string, string>({ maxEntries: 10, maxWeight: 10, weightOf: (k) => k.length });
    lru.set('aaaa', 'x');
    lru.set('bbbb', 'y');
    lru.set('cccc', 'z');
    expect(lru.get('aaaa')).toBeUndefined();
    expect(lru.size).toBe(2);
    lru.set('x'.repeat(11), 'too heavy');
    expect(lru.get('x'.repeat(11))).toBeUndefined();
    expect([lru.get('bbbb'), lru.get('cccc')]).toEqual(['y', 'z']);
  });

  it('replacing or deleting a key gives its weight back', () => {
    const lru = new Lru<string, string>({
      maxEntries: 10,
      maxWeight: 8,
      weightOf: (k, v) => k.length + v.length,
    });
    lru.set('k', 'vvv');
    lru.set('k', 'vvv');
    lru.set('j', 'www');
    expect(lru.size).toBe(2);
    lru.delete('k');
    lru.set('i', 'uuu');
    expect([lru.get('j'), lru.get('i'), lru.size]).toEqual(['www', 'uuu', 2]);
  });
});
