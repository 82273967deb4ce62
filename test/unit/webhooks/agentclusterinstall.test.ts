import { describe, expect, it } from 'vitest';
import type { AgentClusterInstall } from '../../../src/api/agentclusterinstall.ts';
import {
  ACI_IMAGE_SET_REF_MESSAGE,
  ACI_SNO_UMN_MESSAGE,
  ACI_SPEC_IMMUTABLE_PREFIX,
  defaultUserManagedNetworking,
  installStarted,
  mutateAgentClusterInstall,
  validateAgentClusterInstall,
} from '../../../src/webhooks/agentclusterinstall.ts';
import type { DeepPartial } from '../../../src/webhooks/types.ts';

type Aci = DeepPartial<AgentClusterInstall>;

function aci(spec: Aci['spec'] = {}, completedReason?: string): Aci {
  return {
    apiVersion: 'extensions.hive.openshift.io/v1beta1',
    kind: 'AgentClusterInstall',
    metadata: { name: 'c', namespace: 'ns' },
    spec: {
      clusterDeploymentRef: { name: 'c' },
      imageSetRef: { name: 'openshift-v4.18' },
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
      },
      provisionRequirements: { controlPlaneAgents: 3, workerAgents: 2 },
      ...spec,
    },
    status: completedReason
      ? {
          conditions: [
            { type: 'SpecSynced', status: 'True', reason: 'SyncOK' },
            { type: 'Completed', status: 'False', reason: completedReason },
          ],
        }
      : {},
  };
}

const sno = (networking: Record<string, unknown> = {}, extra: Aci['spec'] = {}): Aci =>
  aci({
    provisionRequirements: { controlPlaneAgents: 1 },
    networking: { clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }], ...networking },
    ...extra,
  });

const conflict = (message: string) => ({ allowed: false, code: 409, message });
const bad = (message: string) => ({ allowed: false, code: 400, message });

describe('validateAgentClusterInstall: CREATE', () => {
  it('accepts a multi-node and a single-node cluster', () => {
    expect(validateAgentClusterInstall('CREATE', aci())).toEqual({ allowed: true });
    expect(validateAgentClusterInstall('CREATE', sno({ userManagedNetworking: true }))).toEqual({
      allowed: true,
    });
    expect(validateAgentClusterInstall('CREATE', sno())).toEqual({ allowed: true });
  });

  it('rejects SNO with userManagedNetworking false (409)', () => {
    expect(validateAgentClusterInstall('CREATE', sno({ userManagedNetworking: false }))).toEqual(
      conflict(ACI_SNO_UMN_MESSAGE),
    );
    expect(ACI_SNO_UMN_MESSAGE).toBe('UserManagedNetworking must be set to true with SNO');
  });

  it('one control plane with workers is not SNO for that check', () => {
    const res = validateAgentClusterInstall(
      'CREATE',
      aci({
        provisionRequirements: { controlPlaneAgents: 1, workerAgents: 2 },
        networking: { userManagedNetworking: false },
      }),
    );
    // ...but the backend platform rules still refuse UMN off with one control plane node
    expect(res).toEqual(conflict("Can't disable user-managed-networking on single node OpenShift"));
  });

  it.each([
    [
      { platformType: 'BareMetal', networking: { userManagedNetworking: true } },
      "Can't set baremetal platform with user-managed-networking enabled",
    ],
    [
      { platformType: 'None', networking: { userManagedNetworking: false } },
      "Can't set none platform with user-managed-networking disabled",
    ],
    [
      { platformType: 'External', networking: { userManagedNetworking: false } },
      "Can't set external platform with user-managed-networking disabled",
    ],
    [
      { platformType: 'Nutanix', networking: { userManagedNetworking: true } },
      "Can't set nutanix platform with user-managed-networking enabled",
    ],
  ] as const)('rejects incompatible platform and UMN %j (409)', (spec, message) => {
    expect(validateAgentClusterInstall('CREATE', aci(spec as Aci['spec']))).toEqual(conflict(message));
  });

  it('rejects baremetal, vsphere and nutanix on single node', () => {
    expect(validateAgentClusterInstall('CREATE', sno({}, { platformType: 'BareMetal' }))).toEqual(
      conflict("Can't set baremetal platform on single node OpenShift"),
    );
    expect(
      validateAgentClusterInstall(
        'CREATE',
        sno({ userManagedNetworking: true }, { platformType: 'VSphere' }),
      ),
    ).toEqual(conflict('Single node cluster is not supported alongside vsphere platform'));
  });

  it('accepts compatible combinations', () => {
    for (const spec of [
      { platformType: 'BareMetal' },
      { platformType: 'BareMetal', networking: { userManagedNetworking: false } },
      { platformType: 'None', networking: { userManagedNetworking: true } },
      { platformType: 'VSphere', networking: { userManagedNetworking: true } },
      { platformType: 'VSphere', networking: { userManagedNetworking: false } },
      { platformType: '', networking: { userManagedNetworking: true } },
      { platformType: 'External', external: { platformName: 'oci' } },
    ] as Aci['spec'][]) {
      expect(validateAgentClusterInstall('CREATE', aci(spec)).allowed, JSON.stringify(spec)).toBe(true);
    }
    expect(validateAgentClusterInstall('CREATE', sno({}, { platformType: 'External' })).allowed).toBe(true);
    expect(validateAgentClusterInstall('CREATE', sno({}, { platformType: 'None' })).allowed).toBe(true);
  });

  it('warns about deprecated fields that are ignored', () => {
    const res = validateAgentClusterInstall(
      'CREATE',
      aci({
        apiVIP: '1.1.1.1',
        apiVIPs: ['1.1.1.1'],
        manifestsConfigMapRef: { name: 'a' },
        manifestsConfigMapRefs: [],
      }),
    );
    expect(res).toEqual({
      allowed: true,
      warnings: [
        'spec.apiVIP is deprecated and ignored because spec.apiVIPs is set',
        'spec.manifestsConfigMapRef is deprecated and ignored because spec.manifestsConfigMapRefs is set',
      ],
    });
  });
});

describe('validateAgentClusterInstall: UPDATE', () => {
  it('rejects imageSetRef changes, additions and removals, even before install (400)', () => {
    expect(ACI_IMAGE_SET_REF_MESSAGE).toBe(
      'Attempted to change AgentClusterInstall.ImageSetRef which is immutable',
    );
    const old = aci();
    expect(validateAgentClusterInstall('UPDATE', aci({ imageSetRef: { name: 'other' } }), old)).toEqual(
      bad(ACI_IMAGE_SET_REF_MESSAGE),
    );
    const removed = aci();
    delete removed.spec!.imageSetRef;
    expect(validateAgentClusterInstall('UPDATE', removed, old)).toEqual(bad(ACI_IMAGE_SET_REF_MESSAGE));
    expect(validateAgentClusterInstall('UPDATE', old, removed)).toEqual(bad(ACI_IMAGE_SET_REF_MESSAGE));
    expect(validateAgentClusterInstall('UPDATE', aci({ sshPublicKey: 'k' }), old)).toEqual({ allowed: true });
  });

  it('rejects SNO with UMN false on update (409)', () => {
    expect(validateAgentClusterInstall('UPDATE', sno({ userManagedNetworking: false }), sno())).toEqual(
      conflict(ACI_SNO_UMN_MESSAGE),
    );
  });

  it('checks platform and UMN falling back to the old values', () => {
    const old = aci({ platformType: 'None', networking: { userManagedNetworking: true } });
    // new platform BareMetal, UMN unset → old UMN true is used
    expect(validateAgentClusterInstall('UPDATE', aci({ platformType: 'BareMetal' }), old)).toEqual(
      conflict("Can't set baremetal platform with user-managed-networking enabled"),
    );
    // new UMN false, platform unset → old platform None is used
    expect(
      validateAgentClusterInstall('UPDATE', aci({ networking: { userManagedNetworking: false } }), old),
    ).toEqual(conflict("Can't set none platform with user-managed-networking disabled"));
    expect(
      validateAgentClusterInstall(
        'UPDATE',
        aci({ platformType: 'BareMetal', networking: { userManagedNetworking: false } }),
        old,
      ),
    ).toEqual({ allowed: true });
  });

  it('recognises install start from the Completed condition reason', () => {
    expect(installStarted(aci({}, 'InstallationInProgress'))).toBe(true);
    expect(installStarted(aci({}, 'InstallationCompleted'))).toBe(true);
    expect(installStarted(aci({}, 'InstallationFailed'))).toBe(true);
    expect(installStarted(aci({}, 'InstallationNotStarted'))).toBe(false);
    expect(installStarted(aci({}, 'InstallationOnHold'))).toBe(false);
    expect(installStarted(aci({}, 'UnknownStatus'))).toBe(false);
    expect(installStarted(aci())).toBe(false);
  });

  it('rejects spec changes after install started, listing each path', () => {
    const old = aci({ sshPublicKey: 'a' }, 'InstallationInProgress');
    const next = aci(
      {
        sshPublicKey: 'b',
        holdInstallation: true,
        networking: {
          clusterNetwork: [{ cidr: '10.132.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
        },
      },
      'InstallationInProgress',
    );
    const res = validateAgentClusterInstall('UPDATE', next, old);
    expect(res).toEqual(
      bad(
        'Attempted to change AgentClusterInstall.Spec which is immutable after install started, except for ClusterMetadata,IgnitionEndpoint fields. Unsupported change: \n' +
          '\tholdInstallation: (<nil> => true)\n' +
          '\tnetworking.clusterNetwork[0].cidr: (10.128.0.0/14 => 10.132.0.0/14)\n' +
          '\tsshPublicKey: (a => b)',
      ),
    );
    expect(ACI_SPEC_IMMUTABLE_PREFIX.endsWith('Unsupported change: \n')).toBe(true);
  });

  it('allows clusterMetadata and ignitionEndpoint changes after install started', () => {
    const old = aci({}, 'InstallationInProgress');
    const next = aci(
      {
        clusterMetadata: { clusterID: 'id', infraID: 'infra', adminKubeconfigSecretRef: { name: 'kc' } },
        ignitionEndpoint: { url: 'https://ign.example.com' },
      },
      'InstallationInProgress',
    );
    expect(validateAgentClusterInstall('UPDATE', next, old)).toEqual({ allowed: true });
  });

  it('allows provisionRequirements changes only once the install completed or failed', () => {
    const change = { provisionRequirements: { controlPlaneAgents: 3, workerAgents: 5 } };
    expect(
      validateAgentClusterInstall(
        'UPDATE',
        aci(change, 'InstallationInProgress'),
        aci({}, 'InstallationInProgress'),
      ),
    ).toEqual(bad(`${ACI_SPEC_IMMUTABLE_PREFIX}\tprovisionRequirements.workerAgents: (2 => 5)`));
    for (const reason of ['InstallationCompleted', 'InstallationFailed']) {
      expect(validateAgentClusterInstall('UPDATE', aci(change, reason), aci({}, reason)).allowed).toBe(true);
    }
  });

  it('treats empty and unset as equal, but not userManagedNetworking false vs unset', () => {
    const old = aci({ ntpSources: [], sshPublicKey: '', holdInstallation: false }, 'InstallationCompleted');
    const next = aci({ proxy: {} }, 'InstallationCompleted');
    expect(validateAgentClusterInstall('UPDATE', next, old).allowed).toBe(true);
    const umnOff = aci(
      { networking: { ...aci().spec!.networking, userManagedNetworking: false } },
      'InstallationCompleted',
    );
    expect(validateAgentClusterInstall('UPDATE', umnOff, aci({}, 'InstallationCompleted'))).toEqual(
      bad(`${ACI_SPEC_IMMUTABLE_PREFIX}\tnetworking.userManagedNetworking: (<nil> => false)`),
    );
  });

  it('does not judge metadata-only updates', () => {
    const old = sno({ userManagedNetworking: false });
    const next = { ...old, metadata: { ...old.metadata, finalizers: ['x'] } };
    expect(validateAgentClusterInstall('UPDATE', next, old).allowed).toBe(true);
  });
});

describe('mutateAgentClusterInstall', () => {
  const add = (value: boolean) => [{ op: 'add', path: '/spec/networking/userManagedNetworking', value }];

  it('defaults UMN to true for SNO without a platform or with None', () => {
    expect(mutateAgentClusterInstall('CREATE', sno())).toEqual(add(true));
    expect(mutateAgentClusterInstall('CREATE', sno({}, { platformType: 'None' }))).toEqual(add(true));
  });

  it('defaults UMN to true for platform None at any size', () => {
    expect(mutateAgentClusterInstall('CREATE', aci({ platformType: 'None' }))).toEqual(add(true));
  });

  it('uses the backend choice for BareMetal (false) and External (true)', () => {
    expect(mutateAgentClusterInstall('CREATE', aci({ platformType: 'BareMetal' }))).toEqual(add(false));
    expect(mutateAgentClusterInstall('UPDATE', aci({ platformType: 'External' }))).toEqual(add(true));
    expect(mutateAgentClusterInstall('CREATE', sno({}, { platformType: 'External' }))).toEqual(add(true));
  });

  it('leaves unresolvable platforms and multi-node without platform alone', () => {
    expect(mutateAgentClusterInstall('CREATE', aci())).toEqual([]);
    expect(mutateAgentClusterInstall('CREATE', aci({ platformType: '' }))).toEqual([]);
    expect(mutateAgentClusterInstall('CREATE', aci({ platformType: 'VSphere' }))).toEqual([]);
    expect(mutateAgentClusterInstall('CREATE', aci({ platformType: 'Nutanix' }))).toEqual([]);
    expect(mutateAgentClusterInstall('CREATE', sno({}, { platformType: 'BareMetal' }))).toEqual([]);
  });

  it('never overrides an explicit value', () => {
    expect(mutateAgentClusterInstall('CREATE', sno({ userManagedNetworking: false }))).toEqual([]);
    expect(
      mutateAgentClusterInstall(
        'CREATE',
        aci({ platformType: 'None', networking: { userManagedNetworking: true } }),
      ),
    ).toEqual([]);
  });

  it('does nothing once install started or while deleting', () => {
    expect(
      mutateAgentClusterInstall('UPDATE', { ...sno(), status: aci({}, 'InstallationInProgress').status }),
    ).toEqual([]);
    const deleting = sno();
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' };
    expect(mutateAgentClusterInstall('UPDATE', deleting)).toEqual([]);
    expect(defaultUserManagedNetworking(deleting)).toBeUndefined();
  });

  it('creates spec.networking when it is missing', () => {
    const noNet = sno();
    delete noNet.spec!.networking;
    expect(mutateAgentClusterInstall('CREATE', noNet)).toEqual([
      { op: 'add', path: '/spec/networking', value: { userManagedNetworking: true } },
    ]);
    expect(mutateAgentClusterInstall('CREATE', { metadata: {} })).toEqual([]);
  });
});
