import { describe, expect, it } from 'vitest';
import type { InfraEnv } from '../../../src/api/infraenv.ts';
import {
  INFRAENV_CLUSTER_REF_AND_OS_IMAGE_MESSAGE,
  INFRAENV_CLUSTER_REF_MESSAGE,
  INFRAENV_CPU_ARCHITECTURE_MESSAGE,
  INFRAENV_OS_IMAGE_VERSION_MESSAGE,
  infraEnvClusterDeploymentToCheck,
  validateInfraEnv,
} from '../../../src/webhooks/infraenv.ts';
import type { DeepPartial } from '../../../src/webhooks/types.ts';

type Ie = DeepPartial<InfraEnv>;

function ie(spec: Ie['spec'] = {}): Ie {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name: 'ie', namespace: 'ns' },
    spec: {
      pullSecretRef: { name: 'ps' },
      cpuArchitecture: 'x86_64',
      ipxeScriptType: 'DiscoveryImageAlways',
      ...spec,
    },
  };
}

const ref = { name: 'cd', namespace: 'cdns' };
const bad = (message: string) => ({ allowed: false, code: 400, message });

describe('validateInfraEnv: CREATE', () => {
  it('accepts clusterRef or osImageVersion alone', () => {
    expect(validateInfraEnv('CREATE', ie())).toEqual({ allowed: true });
    expect(validateInfraEnv('CREATE', ie({ clusterRef: ref }))).toEqual({ allowed: true });
    expect(validateInfraEnv('CREATE', ie({ osImageVersion: '4.18' }))).toEqual({ allowed: true });
    expect(validateInfraEnv('CREATE', ie({ clusterRef: ref, osImageVersion: '' }))).toEqual({
      allowed: true,
    });
  });

  it('rejects clusterRef together with osImageVersion', () => {
    expect(validateInfraEnv('CREATE', ie({ clusterRef: ref, osImageVersion: '4.18' }))).toEqual(
      bad('Either Spec.ClusterRef or Spec.OSImageVersion should be specified (not both).'),
    );
    expect(INFRAENV_CLUSTER_REF_AND_OS_IMAGE_MESSAGE).toBe(
      'Either Spec.ClusterRef or Spec.OSImageVersion should be specified (not both).',
    );
  });
});

describe('validateInfraEnv: UPDATE', () => {
  it('rejects adding, removing or changing clusterRef', () => {
    expect(INFRAENV_CLUSTER_REF_MESSAGE).toBe(
      'Attempted to change Spec.ClusterRef which is immutable after InfraEnv creation.',
    );
    const withRef = ie({ clusterRef: ref });
    expect(validateInfraEnv('UPDATE', withRef, ie())).toEqual(bad(INFRAENV_CLUSTER_REF_MESSAGE));
    expect(validateInfraEnv('UPDATE', ie(), withRef)).toEqual(bad(INFRAENV_CLUSTER_REF_MESSAGE));
    expect(validateInfraEnv('UPDATE', ie({ clusterRef: { ...ref, name: 'x' } }), withRef)).toEqual(
      bad(INFRAENV_CLUSTER_REF_MESSAGE),
    );
    expect(validateInfraEnv('UPDATE', ie({ clusterRef: { ...ref, namespace: 'x' } }), withRef)).toEqual(
      bad(INFRAENV_CLUSTER_REF_MESSAGE),
    );
    expect(validateInfraEnv('UPDATE', ie({ clusterRef: ref, sshAuthorizedKey: 'k' }), withRef)).toEqual({
      allowed: true,
    });
  });

  it('rejects cpuArchitecture changes, with "" meaning x86_64', () => {
    expect(INFRAENV_CPU_ARCHITECTURE_MESSAGE).toBe(
      'Attempted to change Spec.CpuArchitecture which is immutable after InfraEnv creation.',
    );
    expect(validateInfraEnv('UPDATE', ie({ cpuArchitecture: 'aarch64' }), ie())).toEqual(
      bad(INFRAENV_CPU_ARCHITECTURE_MESSAGE),
    );
    expect(validateInfraEnv('UPDATE', ie({ cpuArchitecture: '' }), ie({ cpuArchitecture: 'arm64' }))).toEqual(
      bad(INFRAENV_CPU_ARCHITECTURE_MESSAGE),
    );
    expect(validateInfraEnv('UPDATE', ie({ cpuArchitecture: '', sshAuthorizedKey: 'k' }), ie())).toEqual({
      allowed: true,
    });
    const unset = ie({ sshAuthorizedKey: 'k' });
    delete unset.spec!.cpuArchitecture;
    expect(validateInfraEnv('UPDATE', unset, ie()).allowed).toBe(true);
  });

  it('allows osImageVersion added next to a clusterRef only when the cluster is installed', () => {
    const old = ie({ clusterRef: ref });
    const next = ie({ clusterRef: ref, osImageVersion: '4.18' });
    expect(infraEnvClusterDeploymentToCheck('UPDATE', next, old)).toEqual(ref);
    expect(validateInfraEnv('UPDATE', next, old)).toEqual(bad(INFRAENV_OS_IMAGE_VERSION_MESSAGE));
    expect(validateInfraEnv('UPDATE', next, old, { clusterInstalled: false })).toEqual(
      bad(INFRAENV_OS_IMAGE_VERSION_MESSAGE),
    );
    expect(validateInfraEnv('UPDATE', next, old, { clusterInstalled: true })).toEqual({ allowed: true });
    expect(INFRAENV_OS_IMAGE_VERSION_MESSAGE).toBe(
      "spec.OSImageVersion is not valid. It can't be added alongside with a clusterRef when the cluster is not installed yet.",
    );
  });

  it('does not apply the osImageVersion rule when it is not newly added or there is no clusterRef', () => {
    const a = ie({ clusterRef: ref, osImageVersion: '4.17' });
    expect(
      infraEnvClusterDeploymentToCheck('UPDATE', ie({ clusterRef: ref, osImageVersion: '4.18' }), a),
    ).toBeUndefined();
    expect(validateInfraEnv('UPDATE', ie({ clusterRef: ref, osImageVersion: '4.18' }), a).allowed).toBe(true);
    expect(infraEnvClusterDeploymentToCheck('UPDATE', ie({ osImageVersion: '4.18' }), ie())).toBeUndefined();
    expect(validateInfraEnv('UPDATE', ie({ osImageVersion: '4.18' }), ie()).allowed).toBe(true);
    expect(infraEnvClusterDeploymentToCheck('CREATE', ie({ clusterRef: ref }))).toBeUndefined();
  });

  it('does not judge metadata-only updates', () => {
    const old = ie({ clusterRef: ref, osImageVersion: '4.18' });
    expect(
      validateInfraEnv('UPDATE', { ...old, metadata: { name: 'ie', finalizers: ['f'] } }, old).allowed,
    ).toBe(true);
  });
});
