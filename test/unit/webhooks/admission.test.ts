import { describe, expect, it, vi } from 'vitest';
import {
  type AdmissionRequest,
  handleAdmissionReview,
  WEBHOOKS,
  webhookByPath,
} from '../../../src/webhooks/admission.ts';

const ACI_GVK = { group: 'extensions.hive.openshift.io', version: 'v1beta1', kind: 'AgentClusterInstall' };
const AGENT_GVK = { group: 'agent-install.openshift.io', version: 'v1beta1', kind: 'Agent' };
const IE_GVK = { group: 'agent-install.openshift.io', version: 'v1beta1', kind: 'InfraEnv' };
const AC_GVK = { group: 'agent-install.openshift.io', version: 'v1beta1', kind: 'AgentClassification' };

function review(request: Partial<AdmissionRequest>) {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'u-1',
      kind: ACI_GVK,
      resource: { group: ACI_GVK.group, version: 'v1beta1', resource: 'agentclusterinstalls' },
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      ...request,
    },
  };
}

const snoAci = (networking: Record<string, unknown> = {}) => ({
  apiVersion: 'extensions.hive.openshift.io/v1beta1',
  kind: 'AgentClusterInstall',
  metadata: { name: 'c', namespace: 'ns' },
  spec: {
    clusterDeploymentRef: { name: 'c' },
    imageSetRef: { name: 'img' },
    networking,
    provisionRequirements: { controlPlaneAgents: 1 },
  },
});

function reviewOf(result: Awaited<ReturnType<typeof handleAdmissionReview>>) {
  if (result.status !== 200) throw new Error(`expected 200, got ${result.status}: ${result.error}`);
  return result.review;
}

describe('handleAdmissionReview', () => {
  it('allows a valid object and echoes the uid and apiVersion', async () => {
    const res = reviewOf(
      await handleAdmissionReview(review({ object: snoAci() }), 'validate-agentclusterinstall'),
    );
    expect(res).toEqual({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      response: { uid: 'u-1', allowed: true },
    });
  });

  it('denies with a Status carrying the code, reason and message', async () => {
    const res = reviewOf(
      await handleAdmissionReview(
        review({ object: snoAci({ userManagedNetworking: false }) }),
        'validate-agentclusterinstall',
      ),
    );
    expect(res.response).toEqual({
      uid: 'u-1',
      allowed: false,
      status: {
        status: 'Failure',
        code: 409,
        reason: 'Conflict',
        message: 'UserManagedNetworking must be set to true with SNO',
      },
    });
    const old = snoAci();
    const changed = { ...snoAci(), spec: { ...snoAci().spec, imageSetRef: { name: 'other' } } };
    const res2 = reviewOf(
      await handleAdmissionReview(
        review({ operation: 'UPDATE', object: changed, oldObject: old }),
        'validate-agentclusterinstall',
      ),
    );
    expect(res2.response?.status).toEqual({
      status: 'Failure',
      code: 400,
      reason: 'BadRequest',
      message: 'Attempted to change AgentClusterInstall.ImageSetRef which is immutable',
    });
  });

  it('returns a base64 JSONPatch from the mutating webhook', async () => {
    const res = reviewOf(
      await handleAdmissionReview(review({ object: snoAci() }), 'mutate-agentclusterinstall'),
    );
    expect(res.response).toMatchObject({ uid: 'u-1', allowed: true, patchType: 'JSONPatch' });
    const patch = JSON.parse(Buffer.from(res.response!.patch!, 'base64').toString('utf8'));
    expect(patch).toEqual([{ op: 'add', path: '/spec/networking/userManagedNetworking', value: true }]);
    const none = reviewOf(
      await handleAdmissionReview(
        review({ object: snoAci({ userManagedNetworking: true }) }),
        'mutate-agentclusterinstall',
      ),
    );
    expect(none.response).toEqual({ uid: 'u-1', allowed: true });
  });

  it('passes warnings through', async () => {
    const obj = snoAci();
    Object.assign(obj.spec, { apiVIP: '1.1.1.1', apiVIPs: ['1.1.1.1'] });
    const res = reviewOf(
      await handleAdmissionReview(review({ object: obj }), 'validate-agentclusterinstall'),
    );
    expect(res.response?.warnings).toEqual([
      'spec.apiVIP is deprecated and ignored because spec.apiVIPs is set',
    ]);
  });

  it('allows DELETE, CONNECT and subresource requests untouched', async () => {
    for (const req of [
      { operation: 'DELETE' },
      { operation: 'CONNECT' },
      { operation: 'UPDATE', subResource: 'status', object: {}, oldObject: {} },
    ]) {
      const res = reviewOf(await handleAdmissionReview(review(req), 'validate-agentclusterinstall'));
      expect(res.response).toEqual({ uid: 'u-1', allowed: true });
    }
  });

  it('denies a kind the webhook does not handle', async () => {
    const res = reviewOf(
      await handleAdmissionReview(review({ kind: AGENT_GVK, object: {} }), 'validate-agentclusterinstall'),
    );
    expect(res.response).toMatchObject({ allowed: false, status: { code: 400 } });
    expect(res.response?.status?.message).toContain(
      'handles AgentClusterInstall.extensions.hive.openshift.io, not Agent',
    );
  });

  it.each([
    [null, 'request body must be a JSON object'],
    [[], 'request body must be a JSON object'],
    [{ apiVersion: 'admission.k8s.io/v1', kind: 'Pod' }, 'kind must be AdmissionReview'],
    [
      { apiVersion: 'v1', kind: 'AdmissionReview' },
      'unsupported apiVersion "v1"; expected admission.k8s.io/v1',
    ],
    [{ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, 'request is missing'],
    [review({ uid: '' }), 'request.uid is missing'],
    [review({ operation: undefined as never }), 'request.operation is missing'],
    [review({ kind: undefined as never }), 'request.kind is missing'],
    [review({ object: 'x' }), 'request.object is required for CREATE'],
    [review({ operation: 'UPDATE', object: {} }), 'request.oldObject is required for UPDATE'],
  ])('rejects malformed review %j with 400', async (body, error) => {
    expect(await handleAdmissionReview(body, 'validate-agentclusterinstall')).toEqual({ status: 400, error });
  });

  it('survives objects of the wrong shape', async () => {
    const weird = {
      metadata: 5,
      spec: { provisionRequirements: 'x', networking: [], imageSetRef: 'y' },
      status: { conditions: 'z' },
    };
    for (const w of WEBHOOKS) {
      const gvk = { group: w.group, version: w.version, kind: w.kind };
      const c = await handleAdmissionReview(review({ kind: gvk, object: weird }), w.name);
      const u = await handleAdmissionReview(
        review({ kind: gvk, operation: 'UPDATE', object: weird, oldObject: {} }),
        w.name,
      );
      expect(reviewOf(c).response?.status?.code, w.name).not.toBe(500);
      expect(reviewOf(u).response?.status?.code, w.name).not.toBe(500);
    }
  });

  it('skips the stricter Agent rule for relaxed users', async () => {
    const agent = (hostname: string) => ({
      metadata: { name: 'a', namespace: 'ns' },
      spec: {
        role: 'master',
        approved: true,
        hostname,
        clusterDeploymentName: { name: 'cd', namespace: 'ns' },
      },
      status: { debugInfo: { state: 'installed' } },
    });
    const req = { kind: AGENT_GVK, operation: 'UPDATE', object: agent('b'), oldObject: agent('a') };
    const strict = reviewOf(await handleAdmissionReview(review(req), 'validate-agent'));
    expect(strict.response?.allowed).toBe(false);
    const relaxed = reviewOf(
      await handleAdmissionReview(
        review({ ...req, userInfo: { username: 'system:serviceaccount:op:op' } }),
        'validate-agent',
        {
          relaxedUsers: ['system:serviceaccount:op:op'],
        },
      ),
    );
    expect(relaxed.response?.allowed).toBe(true);
  });

  it('validates AgentClassifications', async () => {
    const obj = { metadata: { name: 'x' }, spec: { labelKey: 'k', labelValue: 'QUERYERROR', query: '.' } };
    const res = reviewOf(
      await handleAdmissionReview(review({ kind: AC_GVK, object: obj }), 'validate-agentclassification'),
    );
    expect(res.response?.status?.message).toBe('label must not start with QUERYERROR as this is reserved');
  });

  describe('InfraEnv osImageVersion rule', () => {
    const ie = (osImageVersion?: string) => ({
      metadata: { name: 'ie', namespace: 'ns' },
      spec: {
        pullSecretRef: { name: 'ps' },
        clusterRef: { name: 'cd', namespace: 'cdns' },
        ...(osImageVersion ? { osImageVersion } : {}),
      },
    });
    const req = review({ kind: IE_GVK, operation: 'UPDATE', object: ie('4.18'), oldObject: ie() });
    const message =
      "spec.OSImageVersion is not valid. It can't be added alongside with a clusterRef when the cluster is not installed yet.";

    it('reads the ClusterDeployment named by clusterRef', async () => {
      const get = vi.fn(async () => ({ spec: { installed: true } }));
      const res = reviewOf(
        await handleAdmissionReview(req, 'validate-infraenv', { getClusterDeployment: get }),
      );
      expect(res.response?.allowed).toBe(true);
      expect(get).toHaveBeenCalledWith('cdns', 'cd', expect.any(AbortSignal));
    });

    it('rejects when not installed, missing, failing, slow, or no reader is configured', async () => {
      const onError = vi.fn();
      const cases = [
        async () => ({ spec: { installed: false } }),
        async () => undefined,
        async () => {
          throw new Error('boom');
        },
        (_ns: string, _n: string, signal: AbortSignal) =>
          new Promise<undefined>((_, reject) =>
            signal.addEventListener('abort', () => reject(new Error('aborted'))),
          ),
      ];
      for (const getClusterDeployment of cases) {
        const res = reviewOf(
          await handleAdmissionReview(req, 'validate-infraenv', {
            getClusterDeployment,
            clusterDeploymentTimeoutMs: 50,
            onError,
          }),
        );
        expect(res.response?.status?.message).toBe(message);
      }
      expect(onError).toHaveBeenCalledTimes(2);
      expect(reviewOf(await handleAdmissionReview(req, 'validate-infraenv')).response?.status?.message).toBe(
        message,
      );
    });
  });

  it('maps every webhook path', () => {
    expect(WEBHOOKS.map((w) => w.path)).toEqual([
      '/validate-agent',
      '/validate-agentclusterinstall',
      '/validate-infraenv',
      '/validate-agentclassification',
      '/mutate-agentclusterinstall',
    ]);
    expect(webhookByPath('/validate-infraenv')?.kind).toBe('InfraEnv');
    expect(webhookByPath('/nope')).toBeUndefined();
  });
});
