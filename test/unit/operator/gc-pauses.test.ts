// The operator turns V8's memory-footprint collections into ordinary ones at start
// (src/operator/gc-pauses.ts) unless the node command line chose for itself.
import { describe, expect, it } from 'vitest';
import { preferShortGcPauses } from '../../../src/operator/gc-pauses.ts';

describe('preferShortGcPauses', () => {
  it.each<[string, string[], boolean]>([
    ['no node flags', [], true],
    ['other node flags', ['--expose-gc', '--max-old-space-size=1536'], true],
    ['the flag on the command line', ['--memory-reducer-favors-memory'], false],
    ['the flag turned off on the command line', ['--no-memory-reducer-favors-memory'], false],
    ['the flag spelt with underscores', ['--memory_reducer_favors_memory'], false],
    ['a different memory-reducer flag', ['--no-memory-reducer'], true],
  ])('%s', (_name, execArgv, applied) => {
    const set: string[] = [];
    expect(preferShortGcPauses(execArgv, (f) => set.push(f))).toBe(applied);
    expect(set).toEqual(applied ? ['--no-memory-reducer-favors-memory'] : []);
  });
});
