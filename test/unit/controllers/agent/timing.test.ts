// The next time-based change of a host: disconnection, stage and status timeouts, warm-up end.
import { describe, expect, it } from 'vitest';
import { nextTimedChangeMs } from '../../../../src/controllers/agent/timing.ts';
import type { Host } from '../../../../src/core/model.ts';
import { resolveOptions } from '../../../../src/core/statemachine/index.ts';
import { NOW } from './fixtures.ts';

const options = resolveOptions({});
const at = (msAgo: number) => new Date(NOW.getTime() - msAgo).toISOString();
const host = (overrides: Partial<Host>): Host =>
  ({
    id: 'h',
    infra_env_id: 'i',
    kind: 'Host',
    status: 'known',
    status_info: '',
    role: 'auto-assign',
    ...overrides,
  }) as Host;

describe('nextTimedChangeMs', () => {
  it('waits for the end of the disconnection window (plus a second)', () => {
    expect(nextTimedChangeMs({ host: host({ checked_in_at: at(60_000) }), now: NOW, options })).toBe(121_000);
  });

  it('has nothing to wait for once disconnected or installed', () => {
    expect(
      nextTimedChangeMs({ host: host({ status: 'disconnected', checked_in_at: at(0) }), now: NOW, options }),
    ).toBeUndefined();
    expect(nextTimedChangeMs({ host: host({ status: 'installed' }), now: NOW, options })).toBeUndefined();
  });

  it('uses the stage timeout while installing', () => {
    const h = host({
      status: 'installing-in-progress',
      checked_in_at: at(0),
      progress: { current_stage: 'Writing image to disk', stage_updated_at: at(10 * 60_000) },
    });
    // Disconnection (3 min) comes before the 30 min stage timeout.
    expect(nextTimedChangeMs({ host: h, now: NOW, options })).toBe(181_000);
    expect(nextTimedChangeMs({ host: { ...h, checked_in_at: undefined }, now: NOW, options })).toBe(
      20 * 60_000 + 1000,
    );
  });

  it('includes the warm-up end and extra moments', () => {
    const h = host({ status: 'installed' });
    expect(nextTimedChangeMs({ host: h, now: NOW, options, warmUpEndsAt: NOW.getTime() + 5000 })).toBe(6000);
    expect(
      nextTimedChangeMs({ host: h, now: NOW, options, extra: [new Date(NOW.getTime() + 2000), undefined] }),
    ).toBe(3000);
  });
});
