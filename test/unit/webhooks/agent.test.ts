import { describe, expect, it } from 'vitest';
import type { Agent } from '../../../src/api/agent.ts';
import {
  AGENT_CLUSTER_DEPLOYMENT_MESSAGE,
  AGENT_DISK_MESSAGE,
  AGENT_INSTALL_STARTED_STATES,
  AGENT_INSTALLING_STATES,
  agentFrozenFieldsMessage,
  validateAgent,
} from '../../../src/webhooks/agent.ts';
import type { DeepPartial } from '../../../src/webhooks/types.ts';

type A = DeepPartial<Agent>;

function agent(spec: A['spec'] = {}, status: A['status'] = {}): A {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: { name: 'a', namespace: 'ns' },
    spec: { role: '', approved: false, clusterDeploymentName: { name: 'cd', namespace: 'ns' }, ...spec },
    status: { role: '', debugInfo: {}, ...status },
  };
}

function withState(a: A, state: string, kind?: string): A {
  return { ...a, status: { ...a.status, debugInfo: { state }, ...(kind ? { kind } : {}) } };
}

describe('validateAgent: installation disk', () => {
  it('allows one of installation_disk_id / installation_disk_path', () => {
    expect(validateAgent('CREATE', agent({ installation_disk_id: '/dev/disk/by-id/x' }))).toEqual({
      allowed: true,
    });
    expect(validateAgent('CREATE', agent({ installation_disk_path: '/dev/sda' }))).toEqual({ allowed: true });
    expect(
      validateAgent('CREATE', agent({ installation_disk_id: '', installation_disk_path: '/dev/sda' })),
    ).toEqual({
      allowed: true,
    });
  });

  it('rejects both on CREATE (upstream only checks UPDATE) and on UPDATE', () => {
    const both = agent({ installation_disk_id: 'id', installation_disk_path: '/dev/sda' });
    expect(validateAgent('CREATE', both)).toEqual({ allowed: false, code: 400, message: AGENT_DISK_MESSAGE });
    expect(validateAgent('UPDATE', both, agent({ installation_disk_id: 'id' }))).toEqual({
      allowed: false,
      code: 400,
      message: AGENT_DISK_MESSAGE,
    });
    expect(AGENT_DISK_MESSAGE).toBe(
      'Either InstallationDiskID or InstallationDiskPath can be set, not both.',
    );
  });

  it('does not judge an update that leaves the spec alone (finalizers, labels)', () => {
    const both = agent({ installation_disk_id: 'id', installation_disk_path: '/dev/sda' });
    const relabelled = { ...both, metadata: { ...both.metadata, labels: { x: 'y' } } };
    expect(validateAgent('UPDATE', relabelled, both).allowed).toBe(true);
  });
});

describe('validateAgent: clusterDeploymentName during installation', () => {
  const base = agent();

  it.each([...AGENT_INSTALLING_STATES])('rejects a change of binding in state %s', (state) => {
    const old = withState(base, state);
    for (const ref of [{ name: 'other', namespace: 'ns' }, { name: 'cd', namespace: 'other' }, undefined]) {
      const next = withState(agent({ clusterDeploymentName: ref }), state);
      if (ref === undefined) delete next.spec!.clusterDeploymentName;
      expect(validateAgent('UPDATE', next, old)).toEqual({
        allowed: false,
        code: 400,
        message: AGENT_CLUSTER_DEPLOYMENT_MESSAGE,
      });
    }
    expect(AGENT_CLUSTER_DEPLOYMENT_MESSAGE).toBe(
      'Attempted to change Spec.ClusterDeploymentName which is immutable during Agent installation.',
    );
  });

  it('allows binding changes outside the installing states', () => {
    for (const state of ['', 'known', 'known-unbound', 'insufficient', 'installed', 'error', 'binding']) {
      const next = withState(agent({ clusterDeploymentName: { name: 'other', namespace: 'ns' } }), state);
      expect(validateAgent('UPDATE', next, withState(base, state)).allowed, state).toBe(true);
    }
  });

  it('allows cancelling a day-2 host by clearing the binding', () => {
    const old = withState(base, 'installing-in-progress', 'AddToExistingClusterHost');
    const next = withState(agent(), 'installing-in-progress', 'AddToExistingClusterHost');
    delete next.spec!.clusterDeploymentName;
    expect(validateAgent('UPDATE', next, old).allowed).toBe(true);
    // ...but not re-pointing it elsewhere
    const moved = withState(
      agent({ clusterDeploymentName: { name: 'x', namespace: 'ns' } }),
      'installing-in-progress',
      'AddToExistingClusterHost',
    );
    expect(validateAgent('UPDATE', moved, old)).toMatchObject({ allowed: false });
  });

  it('uses the new object status (as upstream does)', () => {
    const old = withState(base, 'known');
    const next = withState(
      agent({ clusterDeploymentName: { name: 'other', namespace: 'ns' } }),
      'installing',
    );
    expect(validateAgent('UPDATE', next, old)).toMatchObject({ allowed: false });
  });
});

describe('validateAgent: edits after installation started (stricter than upstream)', () => {
  const edits: Array<[string, A['spec'], string]> = [
    ['hostname', { hostname: 'new-name' }, 'Spec.Hostname'],
    ['role', { role: 'worker' }, 'Spec.Role'],
    ['installation_disk_id', { installation_disk_id: '/dev/disk/by-id/y' }, 'Spec.InstallationDiskID'],
    ['installation_disk_path', { installation_disk_path: '/dev/sdb' }, 'Spec.InstallationDiskPath'],
    ['machineConfigPool', { machineConfigPool: 'infra' }, 'Spec.MachineConfigPool'],
    ['nodeLabels', { nodeLabels: { a: 'b' } }, 'Spec.NodeLabels'],
  ];

  it.each(edits)('rejects a %s edit with a clear message', (_f, spec, goName) => {
    const old = withState(agent({ role: 'master' }), 'installing-in-progress');
    const next = withState(agent({ role: 'master', ...spec }), 'installing-in-progress');
    expect(validateAgent('UPDATE', next, old)).toEqual({
      allowed: false,
      code: 400,
      message: `Attempted to change ${goName} which is immutable after Agent installation has started (state: installing-in-progress). The change would not be applied to the host.`,
    });
  });

  it('lists several fields in one message', () => {
    const old = withState(agent({ role: 'master' }), 'installed');
    const next = withState(agent({ role: 'worker', hostname: 'h' }), 'installed');
    expect(validateAgent('UPDATE', next, old)).toEqual({
      allowed: false,
      code: 400,
      message: agentFrozenFieldsMessage(['Spec.Hostname', 'Spec.Role'], 'installed'),
    });
    expect(agentFrozenFieldsMessage(['Spec.Hostname', 'Spec.Role'], 'installed')).toBe(
      'Attempted to change Spec.Hostname, Spec.Role which are immutable after Agent installation has started (state: installed). The change would not be applied to the host.',
    );
  });

  it('applies in every install-started state and in no other', () => {
    const all = [
      '',
      'discovering',
      'known',
      'insufficient',
      'disconnected',
      'known-unbound',
      'binding',
      'disabled',
    ];
    for (const state of [...AGENT_INSTALL_STARTED_STATES, ...all]) {
      const next = withState(agent({ hostname: 'new' }), state);
      const res = validateAgent('UPDATE', next, withState(agent(), state));
      expect(res.allowed, state).toBe(!AGENT_INSTALL_STARTED_STATES.has(state));
    }
  });

  it('treats empty and unset as equal', () => {
    const old = withState(agent({ hostname: '', nodeLabels: {} }), 'installing');
    const next = withState(agent({ approved: true }), 'installing');
    delete next.spec!.hostname;
    expect(validateAgent('UPDATE', next, old).allowed).toBe(true);
  });

  it('always allows approval, installer args and ignition overrides', () => {
    const old = withState(agent(), 'installing');
    const next = withState(
      agent({ approved: true, installerArgs: '["-n"]', ignitionConfigOverrides: '{}' }),
      'installing',
    );
    expect(validateAgent('UPDATE', next, old).allowed).toBe(true);
  });

  it('allows edits made together with a binding change (applied once re-bound)', () => {
    const old = withState(agent({ role: 'master' }), 'installed');
    const next = withState(agent({ role: 'worker' }), 'installed');
    delete next.spec!.clusterDeploymentName;
    expect(validateAgent('UPDATE', next, old).allowed).toBe(true);
  });

  it('can be relaxed (the operator writes what upstream controllers write)', () => {
    const old = withState(agent(), 'installed');
    const next = withState(agent({ nodeLabels: { a: 'b' } }), 'installed');
    expect(validateAgent('UPDATE', next, old, { strict: false }).allowed).toBe(true);
  });
});
