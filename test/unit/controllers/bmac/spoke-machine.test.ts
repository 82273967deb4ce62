// BMAC step 10 (day-2 spoke BareMetalHost and Machine), the pure part: when it runs, the objects it
// writes on the spoke, how an existing spoke object is brought to them, and that the planner
// records spoke-bmh-machine-created in the pass's one BMH write.
import { describe, expect, it } from 'vitest';
import type { Agent, BareMetalHost, InfraEnv, Machine } from '../../../../src/api/index.ts';
import {
  masterMachineImage,
  spokeBareMetalHost,
  spokeMachine,
  spokeMachineClusterSkip,
  spokeMachineRole,
  spokeMachineSkip,
  updatedSpokeObject,
} from '../../../../src/controllers/bmac/spoke.ts';
import { planBmh } from '../../../../src/records/bmac-plan.ts';
import type { KubeObject } from '../../../../src/runtime/index.ts';

const CREATED = 'bmac.agent-install.openshift.io/spoke-bmh-machine-created';
const MAC = '52:54:00:aa:bb:cc';

function hubBmh(annotations: Record<string, string> = {}): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name: 'worker-5',
      namespace: 'hub-ns',
      labels: { 'infraenvs.agent-install.openshift.io': 'ie' },
      annotations,
      finalizers: ['bmac.agent-install.openshift.io/deprovision'],
    },
    spec: {
      online: true,
      bootMACAddress: MAC,
      bmc: { address: 'redfish://10.0.0.9/x', credentialsName: 'bmc-secret' },
      image: { url: 'https://images/x.iso', diskFormat: 'live-iso' },
      automatedCleaningMode: 'disabled',
    },
  };
}

function agent(state: string, role = 'worker'): Agent {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'Agent',
    metadata: { name: 'a1', namespace: 'hub-ns' },
    spec: { approved: true, role },
    status: {
      debugInfo: { state },
      inventory: {
        hostname: 'worker-5',
        interfaces: [
          { name: 'eth0', macAddress: MAC, ipV4Addresses: ['192.168.111.25/24'], speedMbps: 10240 },
        ],
        cpu: { architecture: 'x86_64', count: 4 },
      },
    },
  } as unknown as Agent;
}

const cluster = (over: Record<string, unknown> = {}) =>
  ({
    user_managed_networking: false,
    platform: { type: 'baremetal' },
    control_plane_count: 3,
    install_config_overrides: '',
    ...over,
  }) as never;

describe('spokeMachineSkip', () => {
  it('runs for an installing day-2 host of an installed cluster', () => {
    for (const state of ['installing', 'installing-in-progress']) {
      expect(spokeMachineSkip({ bmh: hubBmh(), agent: agent(state), cdInstalled: true })).toBeUndefined();
    }
  });

  it('skips once created, before the cluster is installed, outside the installing states', () => {
    expect(
      spokeMachineSkip({ bmh: hubBmh({ [CREATED]: 'x' }), agent: agent('installing'), cdInstalled: true }),
    ).toBe('already created');
    expect(spokeMachineSkip({ bmh: hubBmh(), agent: agent('installing'), cdInstalled: false })).toMatch(
      /not installed/,
    );
    for (const state of ['known', 'added-to-existing-cluster', 'installed', '']) {
      expect(spokeMachineSkip({ bmh: hubBmh(), agent: agent(state), cdInstalled: true })).toMatch(
        /not installing/,
      );
    }
  });

  it('skips BMHs that are not BMAC hosts or are being deleted', () => {
    const unlabelled = hubBmh();
    unlabelled.metadata.labels = {};
    expect(
      spokeMachineSkip({ bmh: unlabelled, agent: agent('installing'), cdInstalled: true }),
    ).toBeDefined();
    const deleting = hubBmh();
    deleting.metadata.deletionTimestamp = '2026-01-01T00:00:00Z';
    expect(spokeMachineSkip({ bmh: deleting, agent: agent('installing'), cdInstalled: true })).toBeDefined();
  });
});

describe('spokeMachineClusterSkip', () => {
  it('goes on for a multi-node baremetal cluster with the Machine API', () => {
    expect(spokeMachineClusterSkip(cluster())).toBeUndefined();
    expect(
      spokeMachineClusterSkip(
        cluster({
          install_config_overrides: JSON.stringify({
            capabilities: {
              baselineCapabilitySet: 'None',
              additionalEnabledCapabilities: ['baremetal', 'MachineAPI'],
            },
          }),
        }),
      ),
    ).toBeUndefined();
  });

  it('skips platform none, user-managed networking, SNO, baremetal without MachineAPI, no record', () => {
    expect(spokeMachineClusterSkip(cluster({ platform: { type: 'none' } }))).toBeDefined();
    expect(spokeMachineClusterSkip(cluster({ user_managed_networking: true }))).toBeDefined();
    expect(spokeMachineClusterSkip(cluster({ control_plane_count: 1 }))).toBeDefined();
    expect(
      spokeMachineClusterSkip(
        cluster({
          install_config_overrides: JSON.stringify({
            capabilities: { baselineCapabilitySet: 'None', additionalEnabledCapabilities: ['baremetal'] },
          }),
        }),
      ),
    ).toBeDefined();
    expect(spokeMachineClusterSkip(undefined)).toBeDefined();
  });
});

describe('spoke objects', () => {
  it('takes the image of the first master Machine by name; none without masters', () => {
    const m = (name: string, url: string): Machine => ({
      metadata: { name },
      spec: { providerSpec: { value: { image: { checksum: `${url}.sha`, url } } } },
    });
    expect(masterMachineImage([m('master-1', 'b'), m('master-0', 'a')])).toEqual({
      checksum: 'a.sha',
      url: 'a',
    });
    expect(masterMachineImage([{ metadata: { name: 'bare' } }])).toEqual({ checksum: '', url: '' });
    expect(masterMachineImage([])).toBeUndefined();
  });

  it('uses the Agent role, worker while undecided, master for the bootstrap', () => {
    expect(spokeMachineRole(agent('installing', 'master'))).toBe('master');
    expect(spokeMachineRole(agent('installing', 'auto-assign'))).toBe('worker');
    expect(spokeMachineRole(agent('installing', ''))).toBe('worker');
    const a = agent('installing', 'auto-assign');
    a.status = { ...a.status, role: 'master' } as never;
    expect(spokeMachineRole(a)).toBe('master');
  });

  it('builds the spoke BMH: hub spec without BMC, inspection off, hardware details, consumerRef', () => {
    const hub = hubBmh();
    const bmh = spokeBareMetalHost(hub, agent('installing'), 'mycluster');
    expect(bmh.metadata).toEqual({
      name: 'worker-5',
      namespace: 'openshift-machine-api',
      annotations: {
        'inspect.metal3.io': 'disabled',
        'inspect.metal3.io/hardwaredetails': expect.any(String),
      },
    });
    const details = JSON.parse(bmh.metadata.annotations?.['inspect.metal3.io/hardwaredetails'] ?? '{}');
    expect(details.nics).toEqual([
      { ip: '192.168.111.25', name: 'eth0', model: '', mac: MAC, speedGbps: 10 },
    ]);
    expect(bmh.spec).toEqual({
      ...hub.spec,
      bmc: { address: '', credentialsName: '' },
      consumerRef: {
        apiVersion: 'machine.openshift.io/v1beta1',
        kind: 'Machine',
        name: 'mycluster-worker-5',
        namespace: 'openshift-machine-api',
      },
    });
    // The hub object is not touched.
    expect(hub.spec.bmc?.address).toBe('redfish://10.0.0.9/x');
  });

  it('builds the spoke Machine', () => {
    expect(
      spokeMachine({
        cdName: 'mycluster',
        bmhName: 'worker-5',
        role: 'worker',
        image: { checksum: 'c', url: 'u' },
      }),
    ).toEqual({
      apiVersion: 'machine.openshift.io/v1beta1',
      kind: 'Machine',
      metadata: {
        name: 'mycluster-worker-5',
        namespace: 'openshift-machine-api',
        labels: {
          'machine.openshift.io/cluster-api-cluster': 'mycluster',
          'machine.openshift.io/cluster-api-machine-role': 'worker',
          'machine.openshift.io/cluster-api-machine-type': 'worker',
        },
        annotations: { 'metal3.io/BareMetalHost': 'openshift-machine-api/worker-5' },
      },
      spec: {
        providerSpec: {
          value: {
            apiVersion: 'baremetal.cluster.k8s.io/v1alpha1',
            kind: 'BareMetalMachineProviderSpec',
            image: { checksum: 'c', url: 'u' },
          },
        },
      },
    });
  });
});

type Obj = KubeObject & { spec?: Record<string, unknown>; status?: Record<string, unknown> };

describe('updatedSpokeObject', () => {
  const wanted: Obj = {
    metadata: { name: 'm', namespace: 'openshift-machine-api', labels: { a: '1' }, annotations: { b: '2' } },
    spec: { providerSpec: { value: { image: { url: 'u' } } } },
  };

  it('leaves an object that already matches alone, whatever else it has', () => {
    const existing: Obj = {
      metadata: { ...wanted.metadata, resourceVersion: '7', labels: { a: '1', other: 'x' } },
      spec: { ...wanted.spec, providerID: 'baremetalhost:///x' },
      status: { phase: 'Provisioned' },
    };
    expect(updatedSpokeObject(existing, wanted)).toBeUndefined();
  });

  it('sets what differs and keeps the rest (resourceVersion, other keys, status)', () => {
    const existing: Obj = {
      metadata: {
        name: 'm',
        namespace: 'openshift-machine-api',
        resourceVersion: '7',
        labels: { other: 'x' },
      },
      spec: { providerID: 'p', providerSpec: { value: { image: { url: 'old' } } } },
      status: { phase: 'Provisioned' },
    };
    expect(updatedSpokeObject(existing, wanted)).toEqual({
      metadata: {
        name: 'm',
        namespace: 'openshift-machine-api',
        resourceVersion: '7',
        labels: { other: 'x', a: '1' },
        annotations: { b: '2' },
      },
      spec: { providerID: 'p', providerSpec: { value: { image: { url: 'u' } } } },
      status: { phase: 'Provisioned' },
    });
  });
});

describe('planBmh and spoke-bmh-machine-created', () => {
  const infraEnv = {
    metadata: { name: 'ie', namespace: 'hub-ns' },
    spec: {},
    status: { isoDownloadURL: 'https://images/x.iso' },
  } as unknown as InfraEnv;
  const base = {
    infraEnv,
    agent: agent('installing'),
    converged: false,
    ppiReady: false,
    pauseProvisionedBmhs: false,
    now: new Date('2026-01-01T00:00:00Z'),
    coolDownMs: 0,
  };

  it('sets the annotation in the one BMH patch', () => {
    const bmh = hubBmh({
      'inspect.metal3.io': 'disabled',
      'inspect.metal3.io/hardwaredetails': '{}',
      'baremetalhost.metal3.io/detached': 'assisted-service-controller',
    });
    bmh.metadata.labels = { ...bmh.metadata.labels, 'cluster.open-cluster-management.io/backup': 'true' };
    const plan = planBmh({ ...base, bmh, spokeBmhMachineCreated: '2026-01-01T00:00:00.000Z' });
    expect(plan.patch).toEqual({ metadata: { annotations: { [CREATED]: '2026-01-01T00:00:00.000Z' } } });
    expect(planBmh({ ...base, bmh }).patch).toBeUndefined();
  });

  it('records it even when image delivery stops the pass', () => {
    const bmh = hubBmh();
    bmh.spec.image = undefined;
    const plan = planBmh({ ...base, bmh, spokeBmhMachineCreated: 't' });
    expect(plan.patch?.metadata?.annotations?.[CREATED]).toBe('t');
  });
});
