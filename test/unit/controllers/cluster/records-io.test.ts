// The pieces between the records and the API: host diffs written to Agents, the SpecSynced verdict
// carried over, the ACI status with signed URLs, the watch indexes and the teardown decisions.

import { describe, expect, it } from 'vitest';
import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../../../../src/api/index.ts';
import { LocalAuth, MemoryKeyStore } from '../../../../src/auth/index.ts';
import { hostDiff, specSyncErrorOf } from '../../../../src/controllers/cluster/hosts-write.ts';
import { agentDisposal } from '../../../../src/controllers/cluster/teardown.ts';
import {
  aciByConfigMap,
  aciByImageSet,
  aciBySecret,
  cdByInstallRef,
  cdByPullSecret,
  isAgentInstallRef,
} from '../../../../src/controllers/cluster/watches.ts';
import { computeAciStatus, setClusterUrlAuth } from '../../../../src/records/clusters/status.ts';
import type { OperatorContext } from '../../../../src/records/context.ts';
import { agentClusterInstall, clusterDeployment } from '../../records/fixtures.ts';
import { agentHost, NOW, readySno } from './fixtures.ts';

describe('hostDiff', () => {
  it('lists the changed top-level fields, removals as undefined, never the approval flag', () => {
    const before = agentHost({ id: 'h', role: 'auto-assign', bootstrap: true });
    const after = { ...agentHost({ id: 'h', role: 'master' }), approved: false };
    delete (after as { bootstrap?: boolean }).bootstrap;
    expect(hostDiff(before, after)).toEqual({ role: 'master', bootstrap: undefined });
    expect(hostDiff(after, after)).toEqual({});
  });
});

describe('specSyncErrorOf', () => {
  const cond = (status: string, reason: string, message: string) => [
    { type: 'SpecSynced', status, reason, message, lastTransitionTime: '2025-01-01T00:00:00Z' },
  ];
  it('reads the Agent reconciler verdict back', () => {
    expect(
      specSyncErrorOf(cond('True', 'SyncOK', 'The Spec has been successfully applied') as never),
    ).toBeUndefined();
    expect(
      specSyncErrorOf(
        cond('False', 'InputError', 'The Spec could not be synced due to an input error: bad disk') as never,
      ),
    ).toEqual({ kind: 'input', message: 'bad disk' });
    expect(
      specSyncErrorOf(
        cond('False', 'BackendError', 'The Spec could not be synced due to backend error: boom') as never,
      ),
    ).toEqual({ kind: 'backend', message: 'boom' });
  });
});

describe('computeAciStatus', () => {
  async function context(now = NOW) {
    const ctx = {
      now: () => now,
      urls: { serviceBaseUrl: 'http://svc:8090', imageServiceBaseUrl: 'http://svc:8090' },
    } as unknown as OperatorContext;
    const auth = await LocalAuth.create({
      keyStore: new MemoryKeyStore(),
      resolver: { exists: async () => true, covers: async () => true },
      events: { authFailure() {} },
      now: () => now,
    });
    return { ctx, auth };
  }

  it('writes no URL until the REST API registered its authentication, then a signed one kept across runs', async () => {
    const { ctx, auth } = await context();
    const aci = agentClusterInstall({ provisionRequirements: { controlPlaneAgents: 1 } });
    const cluster = readySno();
    const plain = computeAciStatus(ctx, { cluster, aci, hold: false, unsyncedAgents: 0 });
    expect(plain.status.debugInfo?.eventsURL).toBe('');
    setClusterUrlAuth(ctx, auth);
    const first = computeAciStatus(ctx, { cluster, aci, hold: false, unsyncedAgents: 0 });
    expect(first.status.debugInfo?.eventsURL).toMatch(
      /^http:\/\/svc:8090\/api\/assisted-install\/v2\/events\?api_key=.+&cluster_id=c1$/,
    );
    expect(first.reissueInMs).toBe(5 * 24 * 3600_000);
    const again = computeAciStatus(ctx, {
      cluster,
      aci: { ...aci, status: first.status },
      hold: false,
      unsyncedAgents: 0,
    });
    expect(again.status).toEqual(first.status);
  });

  it('signs nothing while the stored URLs are still valid (they are kept anyway)', async () => {
    const { ctx, auth } = await context();
    setClusterUrlAuth(ctx, auth);
    const aci = agentClusterInstall({ provisionRequirements: { controlPlaneAgents: 1 } });
    const first = computeAciStatus(ctx, { cluster: readySno(), aci, hold: false, unsyncedAgents: 0 });
    let signed = 0;
    const issue = auth.issueUrlToken.bind(auth);
    auth.issueUrlToken = (...args) => {
      signed++;
      return issue(...args);
    };
    const again = computeAciStatus(ctx, {
      cluster: readySno(),
      aci: { ...aci, status: first.status },
      hold: false,
      unsyncedAgents: 0,
    });
    expect(again.status).toEqual(first.status);
    expect(signed).toBe(0);
  });

  it('re-issues a URL that is due', async () => {
    const { ctx, auth } = await context();
    setClusterUrlAuth(ctx, auth);
    const aci = agentClusterInstall({ provisionRequirements: { controlPlaneAgents: 1 } });
    const first = computeAciStatus(ctx, { cluster: readySno(), aci, hold: false, unsyncedAgents: 0 });
    const later = new Date(NOW.getTime() + 6 * 24 * 3600_000);
    (ctx as { now: () => Date }).now = () => later;
    const { auth: laterAuth } = await context(later);
    void laterAuth;
    const second = computeAciStatus(ctx, {
      cluster: readySno(),
      aci: { ...aci, status: first.status },
      hold: false,
      unsyncedAgents: 0,
    });
    expect(second.status.debugInfo?.eventsURL).not.toBe(first.status.debugInfo?.eventsURL);
  });

  it('writes the Unknown set without a cluster', async () => {
    const { ctx } = await context();
    const aci = agentClusterInstall();
    const out = computeAciStatus(ctx, {
      cluster: undefined,
      aci,
      hold: false,
      unsyncedAgents: 0,
      specSyncError: {
        kind: 'backend',
        message: 'ClusterImageSet x not found. Please ensure the ClusterImageSet exists',
      },
    });
    expect(out.status.conditions?.find((c) => c.type === 'Completed')).toMatchObject({
      status: 'Unknown',
      reason: 'NotAvailable',
    });
  });
});

describe('watch indexes', () => {
  it('index ClusterDeployments by install ref and pull secret', () => {
    const cd = clusterDeployment();
    expect(isAgentInstallRef(cd)).toBe(true);
    expect(cdByInstallRef(cd)).toEqual(['spoke/spoke-aci']);
    expect(cdByPullSecret(cd)).toEqual(['spoke/pull-secret']);
    const other: ClusterDeployment = {
      ...cd,
      spec: {
        ...cd.spec,
        clusterInstallRef: { group: 'hive.openshift.io', version: 'v1', kind: 'Other', name: 'x' },
      },
    };
    expect(cdByInstallRef(other)).toEqual([]);
  });

  it('index ACIs by image set, ConfigMaps and Secrets they read', () => {
    const aci: AgentClusterInstall = agentClusterInstall({
      manifestsConfigMapRefs: [{ name: 'm1' }],
      mirrorRegistryRef: { name: 'mirror', namespace: 'infra' },
      ignitionEndpoint: { url: 'https://x', caCertificateReference: { name: 'ca', namespace: 'spoke' } },
    });
    expect(aciByImageSet(aci)).toEqual(['ocp-4.16']);
    expect(aciByConfigMap(aci)).toEqual(['spoke/m1', 'infra/mirror']);
    expect(aciBySecret(aci)).toEqual(['spoke/ca']);
  });
});

describe('agentDisposal', () => {
  const infraEnvs: Record<string, InfraEnv> = {
    'spoke/bound': {
      metadata: { name: 'bound', namespace: 'spoke' },
      spec: { clusterRef: { name: 'spoke', namespace: 'spoke' } },
    } as InfraEnv,
    'spoke/elsewhere': {
      metadata: { name: 'elsewhere', namespace: 'spoke' },
      spec: { clusterRef: { name: 'other', namespace: 'spoke' } },
    } as InfraEnv,
    'spoke/pool': { metadata: { name: 'pool', namespace: 'spoke' }, spec: {} } as InfraEnv,
  };
  const ctx = {
    informers: { infraEnvs: { get: (ns: string, name: string) => infraEnvs[`${ns}/${name}`] } },
  } as unknown as OperatorContext;
  const agentFrom = (ie?: string) =>
    ({
      metadata: {
        name: 'a',
        namespace: 'spoke',
        labels: ie ? { 'infraenvs.agent-install.openshift.io': ie } : {},
      },
      spec: {},
    }) as unknown as Agent;

  it('deletes Agents of an InfraEnv bound to the cluster and releases the others', () => {
    const cd = clusterDeployment();
    expect(agentDisposal(ctx, agentFrom('bound'), 'spoke/spoke', cd)).toBe('delete');
    expect(agentDisposal(ctx, agentFrom('elsewhere'), 'spoke/spoke', cd)).toBe('unbind');
    expect(agentDisposal(ctx, agentFrom('pool'), 'spoke/spoke', cd)).toBe('unbind');
    expect(agentDisposal(ctx, agentFrom('missing'), 'spoke/spoke', cd)).toBe('unbind');
    expect(agentDisposal(ctx, agentFrom(), 'spoke/spoke', cd)).toBe('unbind');
  });

  it('deletes late-bound Agents when the ClusterDeployment has preserveOnDelete', () => {
    const cd = clusterDeployment({ preserveOnDelete: true });
    expect(agentDisposal(ctx, agentFrom('pool'), 'spoke/spoke', cd)).toBe('delete');
  });
});
