import { describe, expect, it } from 'vitest';
import { compactForCache, internStrings, StringPool } from '../../../src/runtime/index.ts';
import { LAST_APPLIED_ANNOTATION } from '../../../src/runtime/watcher.ts';

describe('StringPool', () => {
  it('pools a string once, and keeps no string longer than maxLength', () => {
    const pool = new StringPool(8, 10);
    expect(pool.intern('Ready')).toBe('Ready');
    expect(pool.intern('Ready')).toBe('Ready');
    expect(pool.size).toBe(1);
    expect(pool.intern('x'.repeat(11))).toBe('x'.repeat(11));
    expect(pool.has('x'.repeat(11))).toBe(false);
    expect(pool.size).toBe(1);
  });

  it('holds at most two generations: a string no one asks for again falls out', () => {
    const pool = new StringPool(4);
    pool.intern('once');
    for (let i = 0; i < 8; i++) pool.intern(`uid-${i}`);
    expect(pool.has('once')).toBe(false);
    expect(pool.size).toBeLessThanOrEqual(8);
  });

  it('keeps a string every object repeats across generation turnovers', () => {
    const pool = new StringPool(4);
    for (let i = 0; i < 100; i++) {
      pool.intern('ValidationsPassing');
      pool.intern(`uid-${i}`);
      expect(pool.has('ValidationsPassing')).toBe(true);
    }
    expect(pool.size).toBeLessThanOrEqual(8);
  });
});

describe('internStrings', () => {
  const agent = () => ({
    metadata: { name: 'host-1', labels: { a: 'b' }, annotations: { k: 'v' } },
    status: {
      conditions: [
        {
          type: 'SpecSynced',
          status: 'True',
          reason: 'SyncOK',
          message: 'The Spec has been successfully applied',
        },
        {
          type: 'Connected',
          status: 'True',
          reason: 'AgentIsConnected',
          message: 'The agent has not contacted',
        },
      ],
      inventory: { cpu: { count: 8, flags: ['sse', 'avx'] }, disks: [{ sizeBytes: 1e12, bootable: true }] },
      nothing: null,
    },
  });

  it('pools every string value and changes no value', () => {
    const pool = new StringPool();
    const obj = agent();
    expect(internStrings(obj, pool)).toEqual(agent());
    for (const s of ['host-1', 'b', 'v', 'SpecSynced', 'SyncOK', 'sse', 'avx', 'True']) {
      expect(pool.has(s), s).toBe(true);
    }
    // Property names are V8's to share; numbers and booleans are not strings.
    expect(pool.has('metadata')).toBe(false);
    expect(pool.size).toBe(12);
  });

  it('walks a nesting far deeper than the call stack allows', () => {
    const pool = new StringPool();
    let deep: unknown = 'leaf';
    for (let i = 0; i < 200_000; i++) deep = i % 2 ? { d: deep } : [deep];
    expect(() => internStrings(deep, pool)).not.toThrow();
    expect(pool.has('leaf')).toBe(true);
  });

  it('leaves a non-object as it is', () => {
    expect(internStrings('text')).toBe('text');
    expect(internStrings(null)).toBe(null);
    expect(internStrings(3)).toBe(3);
  });
});

describe('compactForCache', () => {
  it('strips what stripForCache strips and keeps every other value', () => {
    const obj = {
      metadata: {
        name: 'n',
        managedFields: [{ manager: 'kubectl' }],
        annotations: { [LAST_APPLIED_ANNOTATION]: '{}', keep: 'me' },
      },
      spec: { role: 'master' },
    };
    expect(compactForCache(obj)).toEqual({
      metadata: { name: 'n', annotations: { keep: 'me' } },
      spec: { role: 'master' },
    });
  });
});
