import { describe, expect, it, vi } from 'vitest';
import { type AdmissionRequest, handleAdmissionReview } from '../../../src/webhooks/admission.ts';
import { crossNamespaceTarget, referenceAttributes } from '../../../src/webhooks/references.ts';

type Ref = { name?: string; namespace?: string } | undefined;
const ie = (clusterRef: Ref) => ({ metadata: { name: 'ie', namespace: 'a' }, spec: { clusterRef } });
const agent = (clusterDeploymentName: Ref) => ({
  metadata: { name: 'h', namespace: 'a' },
  spec: { role: 'auto-assign', approved: false, clusterDeploymentName },
});

describe('crossNamespaceTarget', () => {
  const other = { name: 'cd', namespace: 'c' };
  it.each([
    ['InfraEnv', 'CREATE', ie(other), undefined, { field: 'Spec.ClusterRef', namespace: 'c', name: 'cd' }],
    ['InfraEnv', 'CREATE', ie({ name: 'cd', namespace: 'a' }), undefined, undefined],
    ['InfraEnv', 'CREATE', ie({ name: 'cd' }), undefined, undefined],
    ['InfraEnv', 'CREATE', ie(undefined), undefined, undefined],
    ['InfraEnv', 'UPDATE', ie(other), ie(other), undefined],
    [
      'InfraEnv',
      'UPDATE',
      ie(other),
      ie({ name: 'x', namespace: 'c' }),
      { field: 'Spec.ClusterRef', namespace: 'c', name: 'cd' },
    ],
    [
      'Agent',
      'CREATE',
      agent(other),
      undefined,
      { field: 'Spec.ClusterDeploymentName', namespace: 'c', name: 'cd' },
    ],
    [
      'Agent',
      'UPDATE',
      agent(other),
      agent(undefined),
      { field: 'Spec.ClusterDeploymentName', namespace: 'c', name: 'cd' },
    ],
    [
      'Agent',
      'UPDATE',
      agent(other),
      agent({ name: 'cd', namespace: 'b' }),
      { field: 'Spec.ClusterDeploymentName', namespace: 'c', name: 'cd' },
    ],
    ['Agent', 'UPDATE', agent(other), agent(other), undefined],
    ['Agent', 'UPDATE', agent(undefined), agent(other), undefined],
    ['Agent', 'UPDATE', agent({ name: '', namespace: 'c' }), agent(other), undefined],
    ['Agent', 'UPDATE', agent({ name: 'cd', namespace: 'a' }), agent(other), undefined],
  ] as const)('%s %s %j (old %j) → %j', (kind, op, obj, old, want) => {
    expect(crossNamespaceTarget(kind, op, 'a', obj, old)).toEqual(want);
  });

  it('asks for update on the named ClusterDeployment', () => {
    expect(referenceAttributes({ field: 'Spec.ClusterRef', namespace: 'c', name: 'cd' })).toEqual({
      namespace: 'c',
      verb: 'update',
      group: 'hive.openshift.io',
      resource: 'clusterdeployments',
      name: 'cd',
    });
  });
});

const IE_GVK = { group: 'agent-install.openshift.io', version: 'v1beta1', kind: 'InfraEnv' };
const AGENT_GVK = { group: 'agent-install.openshift.io', version: 'v1beta1', kind: 'Agent' };

function review(request: Partial<AdmissionRequest>) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u-1',
      kind: IE_GVK,
      resource: { group: IE_GVK.group, version: 'v1beta1', resource: 'infraenvs' },
      namespace: 'a',
      operation: 'CREATE',
      userInfo: { username: 'alice', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['x'] } },
      ...request,
    },
  };
}

async function responseOf(body: unknown, hook: 'validate-infraenv' | 'validate-agent', deps = {}) {
  const result = await handleAdmissionReview(body, hook, deps);
  if (result.status !== 200) throw new Error(result.error);
  return result.review.response;
}

describe('cross-namespace references in admission', () => {
  const cross = { name: 'cd', namespace: 'c' };

  it('asks the reviewer about the requesting user and admits what it allows', async () => {
    const reviewAccess = vi.fn(async () => ({ allowed: true }));
    const res = await responseOf(review({ object: ie(cross) }), 'validate-infraenv', { reviewAccess });
    expect(res?.allowed).toBe(true);
    expect(reviewAccess).toHaveBeenCalledWith(
      { username: 'alice', groups: ['team-a', 'system:authenticated'], extra: { scopes: ['x'] } },
      {
        namespace: 'c',
        verb: 'update',
        group: 'hive.openshift.io',
        resource: 'clusterdeployments',
        name: 'cd',
      },
      expect.any(AbortSignal),
    );
  });

  it('denies with 403 Forbidden and says who may not do what', async () => {
    const reviewAccess = async () => ({ allowed: false, reason: 'no RBAC policy matched' });
    const res = await responseOf(
      review({ kind: AGENT_GVK, operation: 'UPDATE', object: agent(cross), oldObject: agent(undefined) }),
      'validate-agent',
      { reviewAccess },
    );
    expect(res?.allowed).toBe(false);
    expect(res?.status).toEqual({
      status: 'Failure',
      code: 403,
      reason: 'Forbidden',
      message:
        'Spec.ClusterDeploymentName names ClusterDeployment c/cd in another namespace: user "alice" may not update clusterdeployments.hive.openshift.io "cd" in namespace "c" (no RBAC policy matched)',
    });
  });

  it('fails closed without a reviewer, on a reviewer error and on a slow reviewer', async () => {
    const onError = vi.fn();
    const reviewers = [
      undefined,
      async () => {
        throw new Error('boom');
      },
      (_u: unknown, _a: unknown, signal: AbortSignal) =>
        new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')))),
    ];
    for (const reviewAccess of reviewers) {
      const res = await responseOf(review({ object: ie(cross) }), 'validate-infraenv', {
        reviewAccess,
        reviewAccessTimeoutMs: 50,
        onError,
      });
      expect(res?.allowed).toBe(false);
      expect(res?.status?.code).toBe(403);
      expect(res?.status?.message).toContain('could not be checked');
    }
    expect(onError).toHaveBeenCalledTimes(2);
  });

  it('does not review same-namespace, unchanged or the operator’s own references', async () => {
    const reviewAccess = vi.fn(async () => ({ allowed: false }));
    const deps = { reviewAccess, relaxedUsers: ['system:serviceaccount:op:op'] };
    const own = await responseOf(
      review({ object: ie({ name: 'cd', namespace: 'a' }) }),
      'validate-infraenv',
      deps,
    );
    const unchanged = await responseOf(
      review({
        kind: AGENT_GVK,
        operation: 'UPDATE',
        object: { ...agent(cross), metadata: { name: 'h', namespace: 'a', labels: { x: 'y' } } },
        oldObject: agent(cross),
      }),
      'validate-agent',
      deps,
    );
    const operator = await responseOf(
      review({
        kind: AGENT_GVK,
        object: agent(cross),
        userInfo: { username: 'system:serviceaccount:op:op' },
      }),
      'validate-agent',
      deps,
    );
    expect([own?.allowed, unchanged?.allowed, operator?.allowed]).toEqual([true, true, true]);
    expect(reviewAccess).not.toHaveBeenCalled();
  });

  it('reports the ordinary rule first (no review for a request that is invalid anyway)', async () => {
    const reviewAccess = vi.fn(async () => ({ allowed: true }));
    const res = await responseOf(
      review({ object: { ...ie(cross), spec: { clusterRef: cross, osImageVersion: '4.18' } } }),
      'validate-infraenv',
      { reviewAccess },
    );
    expect(res?.status?.message).toBe(
      'Either Spec.ClusterRef or Spec.OSImageVersion should be specified (not both).',
    );
    expect(reviewAccess).not.toHaveBeenCalled();
  });
});
