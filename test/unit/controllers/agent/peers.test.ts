// Which Agent changes wake the other hosts of the cluster (src/controllers/agent/peers.ts): the
// three filters, row by row. What each then wakes is pinned against the API server in
// test/integration/hosts/registration-writes.test.ts.
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../../src/api/index.ts';
import {
  agentByClusterHostname,
  hostnameChanged,
  membershipChanged,
  reportingPeers,
  roleChanged,
} from '../../../../src/controllers/agent/peers.ts';
import { agent, CLUSTER_ID, viaJson } from '../../records/fixtures.ts';

const bound = (
  over: { role?: string; hostname?: string; requested?: string; cluster?: string } = {},
): Agent => {
  const a = agent({ metadata: { name: 'h1', namespace: 'ns' }, spec: { hostname: over.requested ?? '' } });
  return viaJson({
    ...a,
    status: {
      ...a.status,
      role: over.role ?? 'worker',
      backend: { clusterID: over.cluster ?? CLUSTER_ID },
      ...(over.hostname ? { inventory: { hostname: over.hostname } } : {}),
    },
  } as Agent);
};
const unregistered = (): Agent => viaJson({ ...bound(), status: undefined } as Agent);

type Row = [string, Agent, Agent, { role: boolean; membership: boolean; hostname: boolean }];
const rows: Row[] = [
  [
    'registration (first status)',
    unregistered(),
    bound({ role: 'master' }),
    { role: false, membership: true, hostname: true },
  ],
  [
    'role change',
    bound({ role: 'worker' }),
    bound({ role: 'master' }),
    { role: true, membership: false, hostname: false },
  ],
  ['first inventory', bound(), bound({ hostname: 'a' }), { role: false, membership: false, hostname: true }],
  [
    'hostname change',
    bound({ hostname: 'a' }),
    bound({ hostname: 'b' }),
    { role: false, membership: false, hostname: true },
  ],
  [
    'requested hostname',
    bound({ hostname: 'a' }),
    bound({ hostname: 'a', requested: 'x' }),
    { role: false, membership: false, hostname: true },
  ],
  [
    'rebinding',
    bound({ cluster: 'c1' }),
    bound({ cluster: 'c2' }),
    { role: false, membership: true, hostname: true },
  ],
  [
    'nothing peers read',
    bound({ hostname: 'a' }),
    bound({ hostname: 'a' }),
    { role: false, membership: false, hostname: false },
  ],
];

describe('peer filters on an Agent update', () => {
  it.each(rows)('%s', (_what, before, after, expected) => {
    expect({
      role: roleChanged.update?.(before, after),
      membership: membershipChanged.update?.(before, after),
      hostname: hostnameChanged.update?.(before, after),
    }).toEqual(expected);
  });

  it('a bound Agent going is a membership and a hostname change; one listed (a start) wakes no peer', () => {
    expect(membershipChanged.delete?.(bound())).toBe(true);
    expect(hostnameChanged.delete?.(bound({ hostname: 'a' }))).toBe(true);
    expect(membershipChanged.delete?.(unregistered())).toBe(false);
    for (const p of [roleChanged, membershipChanged, hostnameChanged])
      expect(p.create?.(bound({ hostname: 'a' }))).toBe(false);
  });
});

describe('the index of hosts by cluster and hostname', () => {
  // A registered host with an inventory (its backend status carries the inventory's extra fields).
  const inCluster = (
    over: Parameters<typeof bound>[0],
    cd: { name: string; namespace?: string } | undefined,
  ) => {
    const a = bound(over);
    const backend = { ...a.status?.backend, ...(over?.hostname ? { inventoryExtra: {} } : {}) };
    return viaJson({
      ...a,
      spec: { ...a.spec, clusterDeploymentName: cd },
      status: { ...a.status, backend },
    } as Agent);
  };
  it.each([
    ['the inventory hostname', { hostname: 'a' }, { name: 'c' }, ['ns/c\na']],
    ['the requested hostname first', { hostname: 'a', requested: 'x' }, { name: 'c' }, ['ns/c\nx']],
    [
      'the ClusterDeployment of another namespace',
      { hostname: 'a' },
      { name: 'c', namespace: 'o' },
      ['o/c\na'],
    ],
    ['no hostname yet', {}, { name: 'c' }, []],
    ['no ClusterDeployment', { hostname: 'a' }, undefined, []],
  ] as const)('%s', (_what, over, cd, keys) => {
    expect(agentByClusterHostname(inCluster(over, cd))).toEqual(keys);
  });
});

describe('the peers that may read a host through their connectivity report', () => {
  const named = (name: string, cd: string) =>
    agent({
      metadata: { name, namespace: 'ns' },
      spec: { clusterDeploymentName: { name: cd, namespace: 'ns' } },
    });
  const cluster = ['x', 'y', 'z'].map((n) => named(n, 'c'));
  const elsewhere = [named('p', 'd'), named('q', 'd')];
  const everyone = [...cluster, ...elsewhere];
  const lookups = (reporters: string[]) => ({
    reporters: new Set(reporters),
    clusterAgents: () => cluster,
    agentsNamed: (id: string) => everyone.filter((a) => a.metadata.name === id),
  });
  // Fewer reporters than hosts in the cluster: looked up by name; more: the cluster's list filtered.
  it.each([
    ['nobody has a report', [], []],
    ['a peer of the cluster', ['y'], ['y']],
    ['the host itself is not its own reader', ['x', 'y'], ['y']],
    ['hosts of another cluster are not', ['p', 'y'], ['y']],
    ['more reporters than hosts in the cluster', ['p', 'q', 'x', 'z'], ['z']],
    ['a reporter with no Agent', ['gone', 'z'], ['z']],
  ] as const)('%s', (_what, reporters, expected) => {
    expect(reportingPeers(lookups([...reporters]), 'ns/c', 'x').map((a) => a.metadata.name)).toEqual(
      expected,
    );
  });
});
