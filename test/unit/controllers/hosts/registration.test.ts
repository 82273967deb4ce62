// The Agent a registering host gets: InfraEnv labels and owner, finalizer, unapproved spec, the
// cluster binding, and node labels the InfraEnv propagates.
import { describe, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../../src/api/index.ts';
import { agentSkeleton, inheritedNodeLabels } from '../../../../src/server/hosts/registration.ts';

const ie = {
  apiVersion: 'agent-install.openshift.io/v1beta1',
  kind: 'InfraEnv',
  metadata: {
    name: 'pool',
    namespace: 'ns',
    uid: 'ie-uid',
    labels: { 'example.com/zone': 'a', 'example.com/rack': 'r1', other: 'x' },
    annotations: {
      'infraenv.agent-install.openshift.io/propagate-node-labels':
        'example.com/zone, example.com/rack,missing',
    },
  },
  spec: { agentLabels: { pool: 'blue' } },
} as unknown as InfraEnv;

describe('agentSkeleton', () => {
  it('builds a new Agent as upstream creates it', () => {
    const a = agentSkeleton(ie, 'host-1', { name: 'spoke', namespace: 'ns' });
    expect(a.metadata).toMatchObject({
      name: 'host-1',
      namespace: 'ns',
      labels: { pool: 'blue', 'infraenvs.agent-install.openshift.io': 'pool' },
      finalizers: ['agent.agent-install.openshift.io/ai-deprovision'],
      annotations: {
        'agent.agent-install.openshift.io/inherited-node-labels': 'example.com/rack,example.com/zone',
      },
    });
    expect(a.metadata.ownerReferences).toEqual([
      { apiVersion: 'agent-install.openshift.io/v1beta1', kind: 'InfraEnv', name: 'pool', uid: 'ie-uid' },
    ]);
    expect(a.spec).toEqual({
      approved: false,
      role: '',
      clusterDeploymentName: { name: 'spoke', namespace: 'ns' },
      nodeLabels: { 'example.com/zone': 'a', 'example.com/rack': 'r1' },
    });
  });

  it('takes an Agent over with a fresh spec and metadata, keeping its identity', () => {
    const previous = {
      metadata: {
        name: 'host-1',
        namespace: 'ns',
        uid: 'agent-uid',
        resourceVersion: '7',
        labels: { old: 'x' },
        finalizers: ['other/finalizer'],
        ownerReferences: [{ apiVersion: 'v1', kind: 'InfraEnv', name: 'old', uid: 'old' }],
      },
      spec: { approved: true, role: 'master', hostname: 'h' },
    } as unknown as Agent;
    const a = agentSkeleton(ie, 'host-1', undefined, previous);
    expect(a.metadata.uid).toBe('agent-uid');
    expect(a.metadata.resourceVersion).toBe('7');
    expect(a.metadata.labels).toEqual({ pool: 'blue', 'infraenvs.agent-install.openshift.io': 'pool' });
    expect(a.metadata.finalizers).toEqual([
      'other/finalizer',
      'agent.agent-install.openshift.io/ai-deprovision',
    ]);
    expect(a.spec).toEqual({
      approved: false,
      role: '',
      nodeLabels: { 'example.com/zone': 'a', 'example.com/rack': 'r1' },
    });
  });

  it('inherits only labels the InfraEnv has', () => {
    expect(inheritedNodeLabels(ie)).toEqual({ 'example.com/zone': 'a', 'example.com/rack': 'r1' });
    expect(inheritedNodeLabels({ ...ie, metadata: { ...ie.metadata, annotations: {} } })).toEqual({});
  });
});
