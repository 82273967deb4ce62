// Which Agent changes wake the other hosts of the cluster (src/controllers/agent/peers.ts): the
// three filters, row by row. What each then wakes is pinned against the API server in
// test/integration/hosts/registration-writes.test.ts.
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../../src/api/index.ts';
import { hostnameChanged, membershipChanged, roleChanged } from '../../../../src/controllers/agent/peers.ts';
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
