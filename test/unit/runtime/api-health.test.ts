import { describe, expect, it } from 'vitest';
import { ApiHealth } from '../../../src/runtime/api-health.ts';

type Step = ['answer', number] | ['none', string] | ['wait', number];

describe('ApiHealth', () => {
  const cases: { name: string; steps: Step[]; failing: number; unreachable: number }[] = [
    { name: 'nothing happened yet', steps: [], failing: 0, unreachable: 0 },
    {
      name: 'answers below 500 are success',
      steps: [
        ['answer', 404],
        ['wait', 5],
        ['answer', 429],
      ],
      failing: 0,
      unreachable: 0,
    },
    {
      name: 'a 5xx streak is failing but reachable',
      steps: [
        ['answer', 503],
        ['wait', 10],
        ['answer', 500],
        ['wait', 5],
      ],
      failing: 15,
      unreachable: 0,
    },
    {
      name: 'no answer is failing and unreachable',
      steps: [
        ['none', 'ECONNREFUSED'],
        ['wait', 7],
        ['none', 'ECONNREFUSED'],
        ['wait', 3],
      ],
      failing: 10,
      unreachable: 10,
    },
    {
      name: 'a 5xx answer ends unreachable, not failing',
      steps: [
        ['none', 'ECONNRESET'],
        ['wait', 4],
        ['answer', 503],
        ['wait', 6],
      ],
      failing: 10,
      unreachable: 0,
    },
    {
      name: 'a success ends both streaks',
      steps: [
        ['none', 'x'],
        ['wait', 4],
        ['answer', 200],
        ['wait', 6],
      ],
      failing: 0,
      unreachable: 0,
    },
    {
      name: 'a new streak starts at its first failure',
      steps: [
        ['none', 'x'],
        ['wait', 50],
        ['answer', 201],
        ['wait', 20],
        ['none', 'y'],
        ['wait', 2],
      ],
      failing: 2,
      unreachable: 2,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      let t = 1000;
      const h = new ApiHealth(() => t);
      for (const [kind, v] of c.steps) {
        if (kind === 'answer') h.answered(v);
        else if (kind === 'none') h.unanswered(v);
        else t += v;
      }
      expect([h.failingForMs(), h.unreachableForMs()]).toEqual([c.failing, c.unreachable]);
    });
  }

  it('remembers the last failure for probe output', () => {
    const h = new ApiHealth(() => 0);
    h.unanswered('ECONNREFUSED: connect failed');
    h.answered(503);
    expect(h.lastFailure).toBe('HTTP 503');
  });
});
