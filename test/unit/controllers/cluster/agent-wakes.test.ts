// Which Agent updates wake the ClusterDeployment: all but those that touch only the annotations
// and the labels other than the InfraEnv's, which nothing of the cluster reconcile reads.
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../../src/api/index.ts';
import {
  AGENT_STATE_ANNOTATION,
  INFRAENV_LABEL,
  INVENTORY_CPU_ARCHITECTURE_LABEL,
} from '../../../../src/api/index.ts';
import { agentChangeReachesCluster } from '../../../../src/controllers/cluster/watches.ts';
import { boundAgent } from '../../records/fixtures.ts';

function base(): Agent {
  const a = boundAgent('host-1', 'master');
  a.metadata = {
    ...a.metadata,
    resourceVersion: '10',
    generation: 1,
    labels: { [INFRAENV_LABEL]: 'ie', [INVENTORY_CPU_ARCHITECTURE_LABEL]: 'x86_64' },
    annotations: { [AGENT_STATE_ANNOTATION]: 'known' },
    finalizers: ['agent.agent-install.openshift.io/ai-deprovision'],
  };
  return a;
}

const rows: { name: string; change: (a: Agent) => void; wakes: boolean }[] = [
  {
    name: 'nothing but the resourceVersion',
    change: (a) => (a.metadata.resourceVersion = '11'),
    wakes: false,
  },
  {
    name: 'a backup annotation',
    change: (a) => (a.metadata.annotations = { [AGENT_STATE_ANNOTATION]: 'insufficient' }),
    wakes: false,
  },
  { name: 'a user annotation added', change: (a) => (a.metadata.annotations!.poke = '1'), wakes: false },
  {
    name: 'an inventory label',
    change: (a) => (a.metadata.labels![INVENTORY_CPU_ARCHITECTURE_LABEL] = 'arm64'),
    wakes: false,
  },
  { name: 'managedFields', change: (a) => (a.metadata.managedFields = [{ manager: 'x' }]), wakes: false },
  { name: 'the InfraEnv label', change: (a) => (a.metadata.labels![INFRAENV_LABEL] = 'other'), wakes: true },
  {
    name: 'the InfraEnv label removed',
    change: (a) => delete a.metadata.labels![INFRAENV_LABEL],
    wakes: true,
  },
  {
    name: 'spec.approved',
    change: (a) => {
      a.spec.approved = !a.spec.approved;
      a.metadata.generation = 2;
    },
    wakes: true,
  },
  { name: 'the status', change: (a) => (a.status!.role = 'worker'), wakes: true },
  {
    name: 'status and annotations together',
    change: (a) => {
      a.status!.role = 'worker';
      a.metadata.annotations = {};
    },
    wakes: true,
  },
  { name: 'a finalizer', change: (a) => (a.metadata.finalizers = []), wakes: true },
  {
    name: 'deletion',
    change: (a) => (a.metadata.deletionTimestamp = '2026-11-27T10:00:00Z'),
    wakes: true,
  },
  {
    name: 'an owner reference',
    change: (a) =>
      (a.metadata.ownerReferences = [
        { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv', name: 'ie', uid: 'u' },
      ]),
    wakes: true,
  },
];

describe('agentChangeReachesCluster', () => {
  it.each(rows)('$name: wakes $wakes', ({ change, wakes }) => {
    const before = base();
    const after = structuredClone(before);
    change(after);
    expect(agentChangeReachesCluster(before, after)).toBe(wakes);
  });

  it('an unchanged copy does not wake', () => {
    expect(agentChangeReachesCluster(base(), base())).toBe(false);
  });
});
