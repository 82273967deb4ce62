// Agent metadata the reconciler keeps: inventory labels (sanitised), backup annotations, the
// InfraEnv label and owner, auto-approval — as one merge patch, or none when nothing differs.
import { describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../../../src/api/index.ts';
import type { Host } from '../../../../src/core/model.ts';
import { withBmacPatch } from '../../../../src/records/agents/bmh-spec.ts';
import {
  agentMetadataPatch,
  backupAnnotations,
  inventoryLabels,
  sanitizeLabelValue,
} from '../../../../src/records/agents/metadata.ts';
import { stableJson } from '../../../../src/util/stable-json.ts';
import { agent, INFRA_ENV_ID, inventory, knownUnboundHost } from '../../controllers/agent/fixtures.ts';

const ie = {
  apiVersion: 'agent-install.openshift.io/v1beta1',
  kind: 'InfraEnv',
  metadata: { name: 'pool', namespace: 'ns', uid: INFRA_ENV_ID },
  spec: {},
} as InfraEnv;

const host = knownUnboundHost;

describe('sanitizeLabelValue', () => {
  it('strips characters outside [-A-Za-z0-9_.] and skips values that stay invalid', () => {
    expect(sanitizeLabelValue('Red Hat')).toBe('RedHat');
    expect(sanitizeLabelValue('PowerEdge R640 (2019)')).toBe('PowerEdgeR6402019');
    expect(sanitizeLabelValue('-lead')).toBeUndefined();
    expect(sanitizeLabelValue('x'.repeat(64))).toBeUndefined();
    expect(sanitizeLabelValue('')).toBe('');
  });
});

describe('inventoryLabels', () => {
  it('derives the six inventory labels and the cluster namespace', () => {
    expect(inventoryLabels(host(), 'spoke')).toEqual({
      'inventory.agent-install.openshift.io/storage-hasnonrotationaldisk': 'true',
      'inventory.agent-install.openshift.io/cpu-architecture': 'x86_64',
      'inventory.agent-install.openshift.io/cpu-virtenabled': 'true',
      'inventory.agent-install.openshift.io/host-manufacturer': 'RedHat',
      'inventory.agent-install.openshift.io/host-productname': 'KVM',
      'inventory.agent-install.openshift.io/host-isvirtual': 'true',
      'agent-install.openshift.io/clusterdeployment-namespace': 'spoke',
    });
  });

  it('reports false for HDD-only hosts without virtualisation flags', () => {
    const inv = inventory({
      cpu: { architecture: 'aarch64', count: 4, flags: [] },
      disks: [{ id: 'd', drive_type: 'HDD', size_bytes: 1, installation_eligibility: { eligible: true } }],
      system_vendor: { manufacturer: 'Dell Inc.', product_name: 'R640', virtual: false },
    });
    const labels = inventoryLabels(host({ inventory: inv }), '');
    expect(labels['inventory.agent-install.openshift.io/storage-hasnonrotationaldisk']).toBe('false');
    expect(labels['inventory.agent-install.openshift.io/cpu-virtenabled']).toBe('false');
    // "Dell Inc." sanitises to "DellInc.", which ends in a dot: not a label value, skipped.
    expect(labels['inventory.agent-install.openshift.io/host-manufacturer']).toBeUndefined();
  });
});

describe('agentMetadataPatch', () => {
  const inputs = (a = agent(), h: Host | undefined = host()) => ({
    agent: a,
    host: h,
    infraEnv: ie,
    clusterDeploymentNamespace: '',
    autoApprove: false,
  });

  it('sets labels, annotations and the owner, carrying the resourceVersion', () => {
    const a = agent();
    a.metadata.ownerReferences = [];
    const patch = agentMetadataPatch(inputs(a)) as { metadata: Record<string, unknown> };
    expect(patch.metadata.resourceVersion).toBe('1');
    expect(patch.metadata.labels).toMatchObject({
      'inventory.agent-install.openshift.io/cpu-architecture': 'x86_64',
      'agent-install.openshift.io/clusterdeployment-namespace': '',
    });
    expect(patch.metadata.annotations).toMatchObject({
      'agent.agent-install.openshift.io/state': 'known-unbound',
      'agent.agent-install.openshift.io/role': 'auto-assign',
      'inventory.agent-install.openshift.io/version': '0.1',
      'agent.agent-install.openshift.io/inventory': stableJson(inventory()),
    });
    expect(patch.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'InfraEnv', name: 'pool', uid: INFRA_ENV_ID }),
    ]);
  });

  /** An Agent whose metadata already is what `h` implies. */
  const settled = (h: Host) => {
    const a = agent();
    const first = agentMetadataPatch(inputs(a, h)) as {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
    };
    a.metadata.labels = { ...a.metadata.labels, ...first.metadata.labels };
    a.metadata.annotations = { ...first.metadata.annotations };
    return a;
  };

  it('is undefined once the metadata matches', () => {
    const h = host();
    expect(agentMetadataPatch(inputs(settled(h), h))).toBeUndefined();
  });

  it('removes annotations that no longer apply and re-adds the InfraEnv label', () => {
    const a = agent();
    a.metadata.labels = {};
    a.metadata.annotations = {
      'agent.agent-install.openshift.io/current-stage': 'Rebooting',
      ...backupAnnotationsOf(host()),
    };
    const patch = agentMetadataPatch(inputs(a)) as { metadata: Record<string, Record<string, unknown>> };
    expect(patch.metadata.annotations?.['agent.agent-install.openshift.io/current-stage']).toBeNull();
    expect(patch.metadata.labels?.['infraenvs.agent-install.openshift.io']).toBe('pool');
  });

  it('approves through the spec when the InfraEnv auto-approves', () => {
    const a = agent();
    const patch = agentMetadataPatch({ ...inputs(a, undefined), autoApprove: true });
    expect(patch).toMatchObject({ spec: { approved: true } });
  });

  it("carries BMAC's spec and labels in the same patch, approval included once", () => {
    const h = host();
    const a = settled(h);
    const bmac = {
      metadata: { labels: { 'agent-install.openshift.io/bmh': 'bmh-0', team: 'blue' } },
      spec: { approved: true, hostname: 'node-0', nodeLabels: { zone: 'a', old: null } },
    };
    // Nothing else differs: BMAC's part alone makes the patch, with the resourceVersion.
    expect(agentMetadataPatch({ ...inputs(a, h), autoApprove: true, bmac })).toEqual({
      metadata: { labels: bmac.metadata.labels, resourceVersion: '1' },
      spec: bmac.spec,
    });
    expect(agentMetadataPatch({ ...inputs(a, h), bmac: undefined })).toBeUndefined();
  });
});

describe('withBmacPatch', () => {
  it('applies the patch in memory with merge-patch semantics', () => {
    const a = agent();
    a.spec = { ...a.spec, role: 'worker', nodeLabels: { old: 'x', keep: 'y' } };
    const patched = withBmacPatch(a, {
      metadata: { labels: { team: 'blue' } },
      spec: { role: 'master', approved: true, nodeLabels: { zone: 'a', old: null } },
    });
    expect(patched.spec).toMatchObject({
      role: 'master',
      approved: true,
      nodeLabels: { keep: 'y', zone: 'a' },
    });
    expect(patched.metadata.labels).toMatchObject({ ...a.metadata.labels, team: 'blue' });
    expect(a.spec.role).toBe('worker'); // the cached object is left alone
    expect(withBmacPatch(a, undefined)).toBe(a);
  });
});

function backupAnnotationsOf(h: Host): Record<string, string> {
  return Object.fromEntries(
    Object.entries(backupAnnotations(h)).filter(([, v]) => v !== undefined),
  ) as Record<string, string>;
}
