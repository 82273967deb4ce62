// What an agent token or a download token opens, answered from the caches: an infra-env's token
// covers its own hosts, the clusters one of its hosts is bound to while that host still needs it
// (not yet installed; day 2: not yet joined), and those clusters' hosts.
import { describe, expect, it } from 'vitest';
import type { Agent, ClusterDeployment, InfraEnv } from '../../../../src/api/index.ts';
import type { OperatorContext } from '../../../../src/records/context.ts';
import { CacheAccessResolver } from '../../../../src/records/hosts/access.ts';

const IE_A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const IE_B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const CD = 'cccccccc-0000-4000-8000-00000000000c';
const OTHER_CD = 'dddddddd-0000-4000-8000-00000000000d';
const H1 = '11111111-0000-4000-8000-000000000001';
const H2 = '22222222-0000-4000-8000-000000000002';
const H3 = '33333333-0000-4000-8000-000000000003';

function infraEnv(name: string, uid: string, cluster?: string): InfraEnv {
  return {
    metadata: { name, namespace: 'ns', uid },
    spec: cluster ? { clusterRef: { name: cluster, namespace: 'ns' } } : {},
  } as InfraEnv;
}

const CD_NAMES: Record<string, string> = { [CD]: 'spoke', [OTHER_CD]: 'other' };

function agent(
  name: string,
  infraEnvName: string,
  infraEnvId: string,
  clusterId?: string,
  opts: { specCluster?: string | null; state?: string } = {},
): Agent {
  const specCluster = opts.specCluster === undefined ? clusterId && CD_NAMES[clusterId] : opts.specCluster;
  return {
    metadata: { name, namespace: 'ns', labels: { 'infraenvs.agent-install.openshift.io': infraEnvName } },
    spec: {
      approved: false,
      role: '',
      ...(specCluster ? { clusterDeploymentName: { name: specCluster, namespace: 'ns' } } : {}),
    },
    status: {
      role: '',
      debugInfo: { state: opts.state ?? 'known' },
      backend: { infraEnvID: infraEnvId, ...(clusterId ? { clusterID: clusterId } : {}) },
    },
  } as unknown as Agent;
}

interface World {
  agents?: Agent[];
  /** Backend state and kind of the spoke cluster's AgentClusterInstall. */
  spoke?: { state: string; kind?: string; installCompletedAt?: string };
}

const NOW = new Date('2026-03-01T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();

function fakeContext(synced = true, world: World = {}): OperatorContext {
  const ies = [infraEnv('a', IE_A), infraEnv('b', IE_B, 'spoke')];
  const cds = [
    { metadata: { name: 'spoke', namespace: 'ns', uid: CD } },
    { metadata: { name: 'other', namespace: 'ns', uid: OTHER_CD } },
  ] as ClusterDeployment[];
  // H1 in A (bound to the cluster), H2 in B (the cluster's infra-env), H3 in A, unbound.
  const agents = world.agents ?? [agent(H1, 'a', IE_A, CD), agent(H2, 'b', IE_B, CD), agent(H3, 'a', IE_A)];
  const spoke = world.spoke ?? { state: 'installing' };
  const acis: Record<string, unknown> = {
    'ns/spoke': {
      status: {
        backend: {
          state: spoke.state,
          kind: spoke.kind ?? 'Cluster',
          ...(spoke.installCompletedAt ? { installCompletedAt: spoke.installCompletedAt } : {}),
        },
      },
    },
  };
  const informer = <T extends { metadata: { name?: string; namespace?: string } }>(items: T[]) => ({
    hasSynced: () => synced,
    get: (ns: string | undefined, name: string) =>
      items.find((o) => o.metadata.namespace === ns && o.metadata.name === name),
    store: { list: () => items },
  });
  return {
    informers: { infraEnvs: informer(ies), agents: informer(agents), clusterDeployments: informer(cds) },
    infraEnvById: (id: string) => ies.find((i) => i.metadata.uid === id),
    clusterDeploymentById: (id: string) => cds.find((c) => c.metadata.uid === id),
    aciOfCluster: (key: string) => acis[key],
    now: () => NOW,
    agentsOfInfraEnv: (key: string) =>
      agents.filter((a) => `ns/${a.metadata.labels?.['infraenvs.agent-install.openshift.io']}` === key),
  } as unknown as OperatorContext;
}

const ieToken = (id: string) => ({ kind: 'infra-env' as const, id });

describe('CacheAccessResolver', () => {
  const r = new CacheAccessResolver(fakeContext());

  it('knows which records exist', async () => {
    expect(await r.exists(ieToken(IE_A))).toBe(true);
    expect(await r.exists({ kind: 'cluster', id: CD })).toBe(true);
    expect(await r.exists(ieToken('99999999-0000-4000-8000-000000000009'))).toBe(false);
  });

  it('an infra-env token opens its own hosts and the clusters they are in', async () => {
    expect(await r.covers(ieToken(IE_A), { infraEnvId: IE_A, hostId: H3 })).toBe(true);
    expect(await r.covers(ieToken(IE_A), { clusterId: CD })).toBe(true);
    expect(await r.covers(ieToken(IE_A), { clusterId: OTHER_CD })).toBe(false);
  });

  it('and the hosts of those clusters in other infra-envs (installer progress of peers)', async () => {
    expect(await r.covers(ieToken(IE_A), { infraEnvId: IE_B, hostId: H2 })).toBe(true);
    // ...but not a host of another infra-env outside its clusters, nor a host under the wrong path.
    expect(await r.covers(ieToken(IE_B), { infraEnvId: IE_A, hostId: H3 })).toBe(false);
    expect(await r.covers(ieToken(IE_A), { infraEnvId: IE_B, hostId: H1 })).toBe(false);
  });

  it('a cluster token opens the cluster’s hosts and bound infra-envs', async () => {
    const c = { kind: 'cluster' as const, id: CD };
    expect(await r.covers(c, { clusterId: CD, hostId: H2 })).toBe(true);
    expect(await r.covers(c, { hostId: H3 })).toBe(false);
    expect(await r.covers(c, { infraEnvId: IE_B })).toBe(true);
    expect(await r.covers(c, { infraEnvId: IE_A })).toBe(true); // A has a host in the cluster
  });

  // One row per way a cluster stops (or never starts) being open to an infra-env's token.
  const cases: { name: string; world: World; token: string; covered: boolean }[] = [
    { name: 'bound host, cluster installing', world: {}, token: IE_A, covered: true },
    {
      name: 'clusterRef alone (no host of the infra-env bound)',
      world: { agents: [agent(H3, 'b', IE_B)] },
      token: IE_B,
      covered: false,
    },
    {
      name: 'host whose spec no longer names the cluster (unbinding)',
      world: { agents: [agent(H1, 'a', IE_A, CD, { specCluster: null })] },
      token: IE_A,
      covered: false,
    },
    {
      name: 'host whose spec names another cluster than its status',
      world: { agents: [agent(H1, 'a', IE_A, CD, { specCluster: 'other' })] },
      token: IE_A,
      covered: false,
    },
    {
      name: 'day-1 cluster installed long ago',
      world: { spoke: { state: 'installed', installCompletedAt: minutesAgo(31) } },
      token: IE_A,
      covered: false,
    },
    {
      name: 'day-1 cluster just installed (controller still reporting)',
      world: { spoke: { state: 'installed', installCompletedAt: minutesAgo(5) } },
      token: IE_A,
      covered: true,
    },
    {
      name: 'day-1 cluster turned day 2 long ago, its hosts installed',
      world: {
        spoke: { state: 'adding-hosts', kind: 'AddHostsCluster', installCompletedAt: minutesAgo(60) },
        agents: [agent(H1, 'a', IE_A, CD, { state: 'installed' })],
      },
      token: IE_A,
      covered: false,
    },
    {
      name: 'day-2 cluster, host still installing',
      world: {
        spoke: { state: 'adding-hosts', kind: 'AddHostsCluster' },
        agents: [agent(H1, 'a', IE_A, CD, { state: 'installing-in-progress' })],
      },
      token: IE_A,
      covered: true,
    },
    {
      name: 'day-2 cluster, host joined',
      world: {
        spoke: { state: 'adding-hosts', kind: 'AddHostsCluster' },
        agents: [agent(H1, 'a', IE_A, CD, { state: 'added-to-existing-cluster' })],
      },
      token: IE_A,
      covered: false,
    },
  ];
  it.each(cases)('infra-env token and its cluster: $name', async ({ world, token, covered }) => {
    const resolver = new CacheAccessResolver(fakeContext(true, world));
    expect(await resolver.covers(ieToken(token), { clusterId: CD })).toBe(covered);
  });

  it('rejects (503 upstream of here) while the caches have not synced', async () => {
    const cold = new CacheAccessResolver(fakeContext(false));
    await expect(cold.exists(ieToken(IE_A))).rejects.toThrow(/not synced/);
  });
});
