// The connectivity majority groups of a large cluster are O(n²) to compute, and every changed
// connectivity report woke a cluster pass that computed them again (issue 16 item 4). Passes reuse
// the last result while its inputs are the same objects, and after a costly computation wait
// PACE_FACTOR times its duration (at most upstream's 10 s cycle), asking to be woken then.
import { describe, expect, it } from 'vitest';
import {
  ConnectivityPacing,
  computedConnectivity,
  MAX_SPACING_MS,
  PACE_FACTOR,
} from '../../../../src/controllers/cluster/connectivity-pacing.ts';
import type { Host } from '../../../../src/core/model.ts';

function host(id: string, report?: object): Host {
  return {
    id,
    inventory: { interfaces: [] },
    ...(report ? { connectivity: report } : {}),
  } as unknown as Host;
}

/** A clock and a computation that takes `costMs` of it. */
function harness(costMs: number) {
  const clock = { now: 0 };
  let computed = 0;
  const pacing = new ConnectivityPacing({
    now: () => clock.now,
    compute: (hosts) => {
      computed++;
      clock.now += costMs;
      return { groups: `groups of ${hosts.length} #${computed}`, ipCollisions: undefined };
    },
  });
  return { clock, pacing, computed: () => computed };
}

describe('ConnectivityPacing', () => {
  const hosts = [host('a', { remote_hosts: [] }), host('b', { remote_hosts: [] }), host('c')];

  it('the same inputs (the same objects) reuse the last result, however soon or late', () => {
    const h = harness(20);
    const first = h.pacing.of('c1', hosts, 3);
    h.clock.now += 60_000;
    expect(h.pacing.of('c1', [...hosts], 3)).toEqual({ result: first.result });
    expect(h.computed()).toBe(1);
  });

  it('a changed report within the spacing keeps the last result and says when to look again', () => {
    const h = harness(20);
    h.pacing.of('c1', hosts, 3);
    h.clock.now += 100;
    const changed = [hosts[0]!, host('b', { remote_hosts: [{ host_id: 'a' }] }), hosts[2]!];
    const paced = h.pacing.of('c1', changed, 3);
    expect(paced.result.groups).toBe('groups of 3 #1');
    // Computed at 0, took 20 ms: the next may start at 0 + 20 × PACE_FACTOR.
    expect(paced.dueInMs).toBe(20 * PACE_FACTOR - 120);
    h.clock.now = 20 * PACE_FACTOR;
    expect(h.pacing.of('c1', changed, 3)).toEqual({
      result: { groups: 'groups of 3 #2', ipCollisions: undefined },
    });
  });

  it('the spacing is capped at upstream cycle', () => {
    const h = harness(5_000);
    h.pacing.of('c1', hosts, 3);
    const paced = h.pacing.of('c1', [host('x'), ...hosts], 3);
    expect(paced.dueInMs).toBe(MAX_SPACING_MS - 5_000);
  });

  it('a joining host, another minimum group size or another cluster is another input', () => {
    const h = harness(20);
    h.pacing.of('c1', hosts, 3);
    h.clock.now += 10 * MAX_SPACING_MS;
    h.pacing.of('c1', [...hosts, host('d')], 3);
    h.clock.now += 10 * MAX_SPACING_MS;
    h.pacing.of('c1', [...hosts, host('d')], 2);
    h.pacing.of('c2', hosts, 3);
    expect(h.computed()).toBe(4);
  });

  it('cheap computations (small clusters) are neither paced nor remembered', () => {
    const h = harness(0.01);
    h.pacing.of('c1', hosts, 3);
    expect(h.pacing.size).toBe(0);
    expect(h.pacing.of('c1', [host('x'), ...hosts], 3).dueInMs).toBeUndefined();
    expect(h.computed()).toBe(2);
  });

  it('forgets a cluster not asked about for an hour (a deleted one), keeps one still asked about', () => {
    const h = harness(20);
    h.pacing.of('gone', hosts, 3);
    h.pacing.of('kept', hosts, 3);
    h.clock.now += 3_000_000;
    h.pacing.of('kept', hosts, 3);
    h.clock.now += 700_000;
    h.pacing.of('other', hosts, 3);
    expect(h.pacing.size).toBe(2);
    // 'kept' was asked 700 s ago: still reused without computing.
    const before = h.computed();
    h.pacing.of('kept', hosts, 3);
    expect(h.computed()).toBe(before);
  });

  it('computes what the monitor stores: majority groups, and IP collisions once a host has a report', () => {
    expect(computedConnectivity([host('a'), host('b')], 3).ipCollisions).toBeUndefined();
    const withReport = computedConnectivity(hosts, 3);
    expect(JSON.parse(withReport.groups)).toHaveProperty('majority_groups');
    expect(withReport.ipCollisions).toBeDefined();
  });
});
