import { describe, expect, it } from 'vitest';
import { perObject, WarnOnce } from '../../../src/util/per-object.ts';

describe('perObject', () => {
  it('makes one value per owner, on first use, and lets a test replace it', () => {
    let made = 0;
    const counters = perObject((owner: { name: string }) => ({ owner: owner.name, n: ++made }));
    const a = { name: 'a' };
    const b = { name: 'b' };
    expect(counters.of(a)).toEqual({ owner: 'a', n: 1 });
    expect(counters.of(a)).toBe(counters.of(a));
    expect(counters.of(b)).toEqual({ owner: 'b', n: 2 });
    counters.set(a, { owner: 'stand-in', n: 0 });
    expect(counters.of(a).owner).toBe('stand-in');
    expect(made).toBe(2);
  });
});

describe('WarnOnce', () => {
  it('logs the first warning of each key, with the error message only', () => {
    const lines: [object, string][] = [];
    const warnings = new WarnOnce({ warn: (fields, msg) => lines.push([fields, msg]) });
    warnings.warn('read', 'cannot read', new Error('boom'));
    warnings.warn('read', 'cannot read again', new Error('boom'));
    warnings.warn('arch', 'no arch');
    expect(lines).toEqual([
      [{ err: 'boom' }, 'cannot read'],
      [{}, 'no arch'],
    ]);
  });
});
