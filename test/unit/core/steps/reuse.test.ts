import { describe, expect, it } from 'vitest';
import type { HostStatus } from '../../../../src/core/model.ts';
import { nextStepsDetailed, stepsAreReusable, withFreshStepIds } from '../../../../src/core/steps/index.ts';
import { ctx, day1, makeHost, OPTIONS, pool, seededRandom } from './fixtures.ts';

/** A cluster of `size` hosts, host 1 in `status`. */
function clusterOf(size: number, status: HostStatus) {
  const f = day1(status);
  for (let i = f.cluster.hosts.length + 1; i <= size; i++) f.cluster.hosts.push(makeHost(i, 'known'));
  return f;
}

describe('stepsAreReusable', () => {
  const admit = { ...OPTIONS, admitConnectivityCheck: () => true };
  it.each([
    ['a small cluster, admission set', 3, 'known', admit, true],
    ['151 hosts, no admission', 151, 'known', OPTIONS, true],
    ['151 hosts, admission set, row with connectivity-check', 151, 'known', admit, false],
    ['151 hosts, admission set, row without connectivity-check', 151, 'discovering', admit, true],
    ['150 hosts, admission set', 150, 'known', admit, true],
  ] as const)('%s → %s', (_name, size, status, options, reusable) => {
    const f = clusterOf(size, status);
    expect(f.cluster.hosts).toHaveLength(size);
    expect(stepsAreReusable(f.host, f.cluster, options)).toBe(reusable);
  });

  it('an unbound host (no cluster)', () => {
    const f = pool('known-unbound');
    expect(stepsAreReusable(f.host, undefined, { ...OPTIONS, admitConnectivityCheck: () => false })).toBe(
      true,
    );
  });
});

describe('withFreshStepIds', () => {
  it('answers what a fresh build answers with the same random draws', () => {
    const f = day1('known');
    const kept = nextStepsDetailed(f.host, f.cluster, f.infraEnv, ctx({}, 1));
    const fresh = nextStepsDetailed(f.host, f.cluster, f.infraEnv, ctx({}, 7));
    expect(kept.steps.instructions.length).toBeGreaterThan(3);
    const again = withFreshStepIds(kept, seededRandom(7));
    expect(again).toEqual(fresh);
    expect(again.steps.instructions.map((s) => s.step_id)).not.toEqual(
      kept.steps.instructions.map((s) => s.step_id),
    );
  });

  it('leaves the kept answer as it was', () => {
    const f = day1('known');
    const kept = nextStepsDetailed(f.host, f.cluster, f.infraEnv, ctx({}, 1));
    const ids = kept.steps.instructions.map((s) => s.step_id);
    withFreshStepIds(kept, seededRandom(9));
    expect(kept.steps.instructions.map((s) => s.step_id)).toEqual(ids);
  });
});
