// The ACI as the Agent reconciler reads it, and the filter of the Agent controller's ACI watch.
// The filter may drop only what the projection leaves out, and the projection may leave out only
// what the cluster record does not need for Agents: the record built from it is the full one
// less the cluster validations.
import { describe, expect, it } from 'vitest';
import type { AgentClusterInstall } from '../../../../src/api/index.ts';
import {
  aciAsAgentsRead,
  aciChangeReachesAllAgents,
  majorityGroupsChanged,
} from '../../../../src/records/clusters/agents-view.ts';

/** What the Agent controller's two ACI watches pass together: any change to what it reads. */
const aciChangeReachesAgents = (o: AgentClusterInstall, n: AgentClusterInstall) =>
  aciChangeReachesAllAgents(o, n) || majorityGroupsChanged(o, n);

import {
  type AgentCluster,
  type ClusterResources,
  clusterFromResources,
  clusterToAciStatus,
} from '../../../../src/records/index.ts';
import {
  agentClusterInstall,
  boundAgent,
  CLUSTER_ID,
  clusterDeployment,
  clusterImageSet,
  NOW,
  PULL_SECRET,
  viaJson,
} from '../fixtures.ts';

const agents = [boundAgent('h1', 'master'), boundAgent('h2', 'master'), boundAgent('h3', 'worker')];

function record(aci: AgentClusterInstall): AgentCluster {
  const r: ClusterResources = {
    cd: clusterDeployment(),
    aci,
    clusterImageSet: clusterImageSet(),
    pullSecret: PULL_SECRET,
    agents,
    now: NOW,
  };
  const built = clusterFromResources(r);
  if (!built.cluster) throw new Error(built.error.message);
  return built.cluster;
}

/** An ACI after the cluster reconciler wrote its status: validations, conditions, counts, URLs. */
function writtenAci(): AgentClusterInstall {
  const base = agentClusterInstall();
  const cluster: AgentCluster = {
    ...record(base),
    validations_info: {
      hosts_data: [
        {
          id: 'sufficient-masters-count',
          status: 'failure',
          message: 'Clusters must have exactly 3 dedicated control plane nodes.',
        },
      ],
    },
    connectivity_majority_groups: '{"192.168.111.0/24":["h1","h2"]}',
  };
  return viaJson({
    ...base,
    metadata: { ...base.metadata, resourceVersion: '7', annotations: { a: '1' } },
    status: clusterToAciStatus(cluster, base, {
      now: NOW,
      unsyncedAgents: 0,
      eventsURL: `https://svc/api/assisted-install/v2/events?api_key=t1&cluster_id=${CLUSTER_ID}`,
    }),
  });
}

describe('aciAsAgentsRead', () => {
  it('builds the same cluster record as the full ACI, less the cluster validations', () => {
    const aci = writtenAci();
    const full = record(aci);
    const { validations_info: validations, ...rest } = full;
    expect(Object.keys(validations ?? {})).toEqual(['hosts_data']);
    expect(full.status).toBe('insufficient');
    expect(record(aciAsAgentsRead(aci))).toEqual(rest);
  });

  it('keeps the Completed condition, the record is read back as installed from it', () => {
    const aci = writtenAci();
    const kept = aciAsAgentsRead(aci).status?.conditions ?? [];
    expect(kept.map((c) => c.type)).toEqual(['Completed']);
    expect(aci.status?.conditions?.length).toBeGreaterThan(1);
  });
});

type Edit = (a: AgentClusterInstall) => void;
const status = (a: AgentClusterInstall) => a.status as NonNullable<AgentClusterInstall['status']>;
const condition = (a: AgentClusterInstall, type: string) =>
  status(a).conditions?.find((c) => c.type === type) as { reason?: string; message?: string };

describe('the Agent controller’s ACI watches (what wakes every Agent, what the groups wake)', () => {
  const rows: [string, Edit, boolean][] = [
    [
      'another host counted',
      (a) => {
        status(a).controlPlaneAgentsDiscovered = 3;
      },
      false,
    ],
    [
      'ready hosts counted',
      (a) => {
        status(a).workerAgentsReady = 1;
      },
      false,
    ],
    [
      'cluster validations rewritten',
      (a) => {
        status(a).validationsInfo = {};
      },
      false,
    ],
    [
      'RequirementsMet message',
      (a) => {
        condition(a, 'RequirementsMet').message = 'x';
      },
      false,
    ],
    [
      'events URL re-issued',
      (a) => {
        status(a).debugInfo.eventsURL = 'https://svc/other';
      },
      false,
    ],
    [
      'new resourceVersion alone',
      (a) => {
        a.metadata.resourceVersion = '8';
      },
      false,
    ],
    [
      'managed fields',
      (a) => {
        a.metadata.managedFields = [{ manager: 'x' }];
      },
      false,
    ],
    [
      'cluster state',
      (a) => {
        status(a).backend = { ...status(a).backend, state: 'ready' };
      },
      true,
    ],
    [
      'debugInfo state',
      (a) => {
        status(a).debugInfo.state = 'ready';
      },
      true,
    ],
    [
      'Completed condition',
      (a) => {
        condition(a, 'Completed').reason = 'InstallationCompleted';
      },
      true,
    ],
    [
      'connectivity groups',
      (a) => {
        status(a).connectivityMajorityGroups = '{}';
      },
      true,
    ],
    [
      'total progress',
      (a) => {
        status(a).progress = { totalPercentage: 40 };
      },
      true,
    ],
    [
      'stored VIPs',
      (a) => {
        status(a).apiVIPs = ['192.168.111.9'];
      },
      true,
    ],
    [
      'a status field added later',
      (a) => {
        (status(a) as Record<string, unknown>).newField = 1;
      },
      true,
    ],
    [
      'spec',
      (a) => {
        a.spec.holdInstallation = true;
      },
      true,
    ],
    [
      'annotations',
      (a) => {
        a.metadata.annotations = { a: '2' };
      },
      true,
    ],
    [
      'deletion',
      (a) => {
        a.metadata.deletionTimestamp = NOW.toISOString();
      },
      true,
    ],
  ];
  const named = rows.map(
    ([what, edit, expected]) => [`${what}: ${expected ? 'passes' : 'filtered'}`, edit, expected] as const,
  );
  it.each(named)('%s', (_what, edit, expected) => {
    const before = writtenAci();
    const after = viaJson(before);
    edit(after);
    expect(aciChangeReachesAgents(before, after)).toBe(expected);
  });

  // What wakes every Agent of the cluster: the same, but new majority groups alone reach only the
  // hosts that joined or left a group (the Agent controller's second ACI watch).
  it.each(named)('every Agent: %s, unless only the groups changed', (what, edit, expected) => {
    const before = writtenAci();
    const after = viaJson(before);
    edit(after);
    expect(aciChangeReachesAllAgents(before, after)).toBe(
      what.startsWith('connectivity groups') ? false : expected,
    );
  });

  it('a status first written passes (the cluster record appears)', () => {
    const after = writtenAci();
    const { status: _none, ...before } = after;
    expect(aciChangeReachesAgents(before as AgentClusterInstall, after)).toBe(true);
  });
});
