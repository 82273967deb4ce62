import { describe, expect, it } from 'vitest';
import { compareWithBaseline, type EdgeCounts, findCycles, unitOf, violation } from '../../../hack/layers.ts';

describe('unitOf', () => {
  it.each([
    ['src/cmd/operator.ts', 'cmd', 7],
    ['src/operator/main.ts', 'operator', 6],
    ['src/controllers/index.ts', 'controllers/index.ts', 5],
    ['src/controllers/agent/reconcile.ts', 'controllers/agent', 4],
    ['src/server/host-server.ts', 'server', 4],
    ['src/server/hosts/backend.ts', 'server', 4],
    ['src/webhooks/jq.ts', 'webhooks', 4],
    ['src/cli/main.ts', 'cli', 4],
    ['src/sim/metal3.ts', 'sim', 4],
    ['src/dev/deploy.ts', 'dev', 4],
    ['src/records/agent.ts', 'records', 3],
    ['src/records/context.ts', 'records', 3],
    ['src/controllers/shared.ts', 'controllers/shared.ts', 5],
    ['src/auth/index.ts', 'auth', 3],
    ['src/images/cpio.ts', 'images', 3],
    ['src/api/agent.ts', 'api', 2],
    ['src/core/model.ts', 'core', 1],
    ['src/runtime/client.ts', 'runtime', 1],
    ['src/util/pki.ts', 'util', 0],
  ])('%s is in %s (rank %i)', (path, name, rank) => {
    expect(unitOf(path)).toEqual({ name, rank });
  });

  it.each(['test/unit/x.test.ts', 'hack/layers.ts', 'src/index.ts', 'src/unknown/x.ts'])(
    '%s is outside the layered tree',
    (path) => {
      expect(unitOf(path)).toBeUndefined();
    },
  );
});

describe('violation', () => {
  const u = (path: string) => {
    const unit = unitOf(path);
    if (!unit) throw new Error(path);
    return unit;
  };
  it.each([
    // Downward imports are the order.
    ['src/cmd/operator.ts', 'src/operator/main.ts', undefined],
    ['src/operator/main.ts', 'src/controllers/index.ts', undefined],
    ['src/operator/main.ts', 'src/records/agent.ts', undefined],
    ['src/operator/main.ts', 'src/server/host-server.ts', undefined],
    ['src/controllers/infraenv/controller.ts', 'src/images/base-images.ts', undefined],
    ['src/server/hosts/backend.ts', 'src/records/hosts/memory.ts', undefined],
    ['src/controllers/index.ts', 'src/controllers/agent/index.ts', undefined],
    ['src/controllers/agent/reconcile.ts', 'src/records/agent.ts', undefined],
    ['src/controllers/agent/reconcile.ts', 'src/core/model.ts', undefined],
    ['src/controllers/agent/reconcile.ts', 'src/records/context.ts', undefined],
    ['src/cli/kube.ts', 'src/records/resources.ts', undefined],
    ['src/cli/main.ts', 'src/records/agent.ts', undefined],
    ['src/api/agent.ts', 'src/core/labels.ts', undefined],
    ['src/core/model.ts', 'src/util/pki.ts', undefined],
    // Inside one unit anything goes (cycles are checked separately).
    ['src/controllers/agent/a.ts', 'src/controllers/agent/b.ts', undefined],
    ['src/core/a/x.ts', 'src/core/b/y.ts', undefined],
    // Upward.
    ['src/controllers/agent/reconcile.ts', 'src/operator/main.ts', 'imports a higher layer'],
    ['src/records/context.ts', 'src/operator/main.ts', 'imports a higher layer'],
    ['src/records/agent.ts', 'src/controllers/agent/index.ts', 'imports a higher layer'],
    ['src/records/events.ts', 'src/server/api/backend.ts', 'imports a higher layer'],
    ['src/images/cpio.ts', 'src/sim/iso-read.ts', 'imports a higher layer'],
    ['src/records/hosts/auth.ts', 'src/controllers/index.ts', 'imports a higher layer'],
    ['src/sim/metal3.ts', 'src/operator/main.ts', 'imports a higher layer'],
    ['src/core/model.ts', 'src/api/agent.ts', 'imports a higher layer'],
    ['src/util/pki.ts', 'src/runtime/client.ts', 'imports a higher layer'],
    ['src/operator/main.ts', 'src/cmd/operator.ts', 'imports a higher layer'],
    // Sideways between isolated peers.
    ['src/controllers/agent/index.ts', 'src/controllers/ppi/index.ts', 'imports a peer of its layer'],
    ['src/controllers/ppi/index.ts', 'src/server/host-server.ts', 'imports a peer of its layer'],
    ['src/webhooks/labels.ts', 'src/controllers/agent/metadata.ts', 'imports a peer of its layer'],
    ['src/core/model.ts', 'src/runtime/client.ts', 'imports a peer of its layer'],
    // Sideways among the shared modules of the records rank is allowed.
    ['src/records/events.ts', 'src/auth/types.ts', undefined],
    ['src/records/infraenvs/services.ts', 'src/images/base-images.ts', undefined],
  ])('%s -> %s: %s', (from, to, expected) => {
    expect(violation(u(from), u(to))).toBe(expected);
  });
});

describe('compareWithBaseline', () => {
  it.each([
    { name: 'equal passes', current: { 'a -> b': 2 }, baseline: { 'a -> b': 2 }, grown: [], shrunk: [] },
    {
      name: 'a count that grows fails',
      current: { 'a -> b': 3 },
      baseline: { 'a -> b': 2 },
      grown: [{ edge: 'a -> b', count: 3, allowed: 2 }],
      shrunk: [],
    },
    {
      name: 'a new edge fails',
      current: { 'a -> b': 2, 'c -> d': 1 },
      baseline: { 'a -> b': 2 },
      grown: [{ edge: 'c -> d', count: 1, allowed: 0 }],
      shrunk: [],
    },
    {
      name: 'a shrinking or gone edge passes and is reported',
      current: { 'a -> b': 1 },
      baseline: { 'a -> b': 2, 'c -> d': 4 },
      grown: [],
      shrunk: [
        { edge: 'a -> b', count: 1, allowed: 2 },
        { edge: 'c -> d', count: 0, allowed: 4 },
      ],
    },
  ])('$name', ({ current, baseline, grown, shrunk }) => {
    expect(compareWithBaseline(current as EdgeCounts, baseline as EdgeCounts)).toEqual({ grown, shrunk });
  });
});

describe('findCycles', () => {
  const g = (edges: Record<string, string[]>) => new Map(Object.entries(edges));
  it.each([
    { name: 'no cycle in a chain', graph: g({ a: ['b'], b: ['c'], c: [] }), cycles: [] },
    { name: 'a two-file cycle', graph: g({ a: ['b'], b: ['a'] }), cycles: [['a', 'b']] },
    { name: 'a self import', graph: g({ a: ['a'] }), cycles: [['a']] },
    {
      name: 'a longer cycle with a tail and a second cycle',
      graph: g({ x: ['a'], a: ['b'], b: ['c'], c: ['a'], d: ['e'], e: ['d', 'x'] }),
      cycles: [
        ['a', 'b', 'c'],
        ['d', 'e'],
      ],
    },
    { name: 'a diamond is not a cycle', graph: g({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }), cycles: [] },
  ])('$name', ({ graph, cycles }) => {
    expect(findCycles(graph)).toEqual(cycles);
  });
});
