// BMAC pure mappings: Agent pairing by MAC, BMH image delivery, Agent spec from BMH annotations
// (set/clear semantics), root-device hints → installation disk, hardware details.
import { describe, expect, it } from 'vitest';
import type { Agent, BareMetalHost, InfraEnv } from '../../../src/api/index.ts';
import {
  DISK_NOT_FOUND_BY_HINTS,
  diskForHints,
  hardwareDetails,
  pickAgentForMac,
  planAgent,
  planBmh,
} from '../../../src/records/bmac-plan.ts';

const MAC = '52:54:00:AA:BB:CC';

function agent(name: string, created: string, extra: Partial<Agent['spec']> = {}, labels = {}): Agent {
  return {
    metadata: { name, namespace: 'ns', creationTimestamp: created, labels },
    spec: { approved: false, ...extra },
    status: {
      inventory: {
        interfaces: [
          { macAddress: '00:00:00:00:00:01', ipV4Addresses: [], ipV6Addresses: [], flags: [] },
          {
            macAddress: MAC.toLowerCase(),
            name: 'eth0',
            vendor: 'Intel',
            speedMbps: 10240,
            ipV4Addresses: ['10.0.0.5/24'],
            ipV6Addresses: ['fe80::1/64'],
            flags: [],
          },
        ],
        disks: [
          { id: '/dev/disk/by-id/a', path: '/dev/sda', model: 'SSD-1', sizeBytes: 200e9, driveType: 'SSD' },
          { id: '/dev/disk/by-id/b', path: '/dev/sdb', model: 'HDD-2', sizeBytes: 500e9, driveType: 'HDD' },
          {
            id: '/dev/disk/by-id/m',
            path: '/dev/dm-0',
            model: 'HDD-2',
            sizeBytes: 500e9,
            driveType: 'Multipath',
          },
        ],
        memory: { physicalBytes: 16 * 1024 * 1024 * 1024 },
        cpu: { count: 4, architecture: 'x86_64', modelName: 'Xeon' },
        hostname: 'inv-host',
      },
    },
  } as unknown as Agent;
}

function bmh(
  annotations: Record<string, string> = {},
  spec: Partial<BareMetalHost['spec']> = {},
): BareMetalHost {
  return {
    metadata: {
      name: 'bmh-1',
      namespace: 'ns',
      labels: { 'infraenvs.agent-install.openshift.io': 'ie' },
      annotations,
    },
    spec: { online: false, bootMACAddress: MAC, ...spec },
    status: { provisioning: { state: 'ready' } },
  } as BareMetalHost;
}

function infraEnv(
  createdAgoMs: number,
  now: Date,
  clusterRef?: { name: string; namespace: string },
): InfraEnv {
  return {
    metadata: { name: 'ie', namespace: 'ns' },
    spec: { pullSecretRef: { name: 'ps' }, ...(clusterRef ? { clusterRef } : {}) },
    status: {
      isoDownloadURL: 'https://img/iso',
      createdTime: new Date(now.getTime() - createdAgoMs).toISOString(),
    },
  } as unknown as InfraEnv;
}

describe('pickAgentForMac', () => {
  it('matches any interface case-insensitively and prefers the newest', () => {
    const old = agent('old', '2024-01-01T00:00:00Z');
    const newer = agent('new', '2024-02-01T00:00:00Z');
    expect(pickAgentForMac([old, newer], MAC)?.metadata.name).toBe('new');
    expect(pickAgentForMac([old], 'ff:ff:ff:ff:ff:ff')).toBeUndefined();
    expect(pickAgentForMac([old], undefined)).toBeUndefined();
  });
});

describe('planBmh (non-converged)', () => {
  const now = new Date('2025-01-01T00:10:00Z');
  const base = {
    agent: undefined,
    converged: false,
    ppiReady: false,
    pauseProvisionedBmhs: true,
    now,
    coolDownMs: 60_000,
  };

  it('sets the image, online, cleaning, inspection and backup label once cooled down', () => {
    const plan = planBmh({ ...base, bmh: bmh(), infraEnv: infraEnv(120_000, now) });
    expect(plan.requeueAfterMs).toBeUndefined();
    expect(plan.patch).toEqual({
      metadata: {
        labels: { 'cluster.open-cluster-management.io/backup': 'true' },
        annotations: { 'inspect.metal3.io': 'disabled' },
        finalizers: ['bmac.agent-install.openshift.io/deprovision'],
      },
      spec: {
        automatedCleaningMode: 'disabled',
        image: { url: 'https://img/iso', diskFormat: 'live-iso' },
        online: true,
      },
    });
  });

  it('waits for the remaining cool-down', () => {
    const plan = planBmh({ ...base, bmh: bmh(), infraEnv: infraEnv(20_000, now) });
    expect(plan.requeueAfterMs).toBe(40_000);
    expect(plan.patch?.spec?.image).toBeUndefined();
  });

  it('writes nothing when in sync', () => {
    const synced = bmh(
      { 'inspect.metal3.io': 'disabled' },
      {
        automatedCleaningMode: 'disabled',
        image: { url: 'https://img/iso', diskFormat: 'live-iso' },
        online: true,
      },
    );
    synced.metadata.labels = {
      ...synced.metadata.labels,
      'cluster.open-cluster-management.io/backup': 'true',
    };
    synced.metadata.finalizers = ['bmac.agent-install.openshift.io/deprovision'];
    expect(planBmh({ ...base, bmh: synced, infraEnv: infraEnv(120_000, now) }).patch).toBeUndefined();
  });

  it('clears a stale image on a host that is not idle', () => {
    const busy = bmh({}, { image: { url: 'https://old' } });
    busy.status = { provisioning: { state: 'provisioning' } };
    expect(planBmh({ ...base, bmh: busy, infraEnv: infraEnv(120_000, now) }).patch?.spec?.image).toBeNull();
  });

  it('detaches once the agent is done', () => {
    const a = agent('a', '2024-01-01T00:00:00Z');
    a.status = { ...a.status, progress: { currentStage: 'Done' } } as Agent['status'];
    const plan = planBmh({ ...base, agent: a, bmh: bmh(), infraEnv: infraEnv(120_000, now) });
    expect(plan.patch?.metadata?.annotations?.['baremetalhost.metal3.io/detached']).toBe(
      'assisted-service-controller',
    );
  });

  it('converged: customDeploy only when the PPI is ready, no image URL', () => {
    const input = { ...base, converged: true, bmh: bmh(), infraEnv: infraEnv(120_000, now) };
    expect(planBmh(input).patch?.spec).toBeUndefined();
    expect(planBmh({ ...input, ppiReady: true }).patch?.spec).toEqual({
      customDeploy: { method: 'start_assisted_install' },
    });
  });
});

describe('planAgent', () => {
  const now = new Date();
  it('copies annotations, approves and labels', () => {
    const b = bmh({
      'bmac.agent-install.openshift.io/role': 'master',
      'bmac.agent-install.openshift.io/hostname': 'h1',
      'bmac.agent-install.openshift.io/machine-config-pool': 'pool',
      'bmac.agent-install.openshift.io/installer-args': '["--append-karg","x"]',
      'bmac.agent-install.openshift.io/ignition-config-overrides': '{"ignition":{"version":"3.1.0"}}',
      'bmac.agent-install.openshift.io/cluster-reference': 'ns2/cd',
      'bmac.agent-install.openshift.io.node-label.zone': 'a',
      'bmac.agent-install.openshift.io.agent-label.team': 'blue',
    });
    const a = agent('a', '2024-01-01T00:00:00Z', { nodeLabels: { old: 'x' } }, { keep: 'me' });
    const plan = planAgent(b, a, infraEnv(0, now));
    expect(plan.error).toBeUndefined();
    expect(plan.patch).toEqual({
      metadata: { labels: { 'agent-install.openshift.io/bmh': 'bmh-1', team: 'blue' } },
      spec: {
        role: 'master',
        hostname: 'h1',
        machineConfigPool: 'pool',
        installerArgs: '["--append-karg","x"]',
        ignitionConfigOverrides: '{"ignition":{"version":"3.1.0"}}',
        approved: true,
        clusterDeploymentName: { name: 'cd', namespace: 'ns2' },
        nodeLabels: { zone: 'a', old: null },
      },
    });
  });

  it('empties the node labels when the BMH has no node-label annotation left', () => {
    const b = bmh({ 'bmac.agent-install.openshift.io/role': 'worker' });
    const a = agent(
      'a',
      '2024-01-01T00:00:00Z',
      { approved: true, role: 'worker', nodeLabels: { zone: 'a' } },
      { 'agent-install.openshift.io/bmh': 'bmh-1' },
    );
    expect(planAgent(b, a, infraEnv(0, now)).patch).toEqual({ spec: { nodeLabels: { zone: null } } });
  });

  it('is a no-op when in sync; never removes agent labels', () => {
    const b = bmh({ 'bmac.agent-install.openshift.io/role': 'worker' });
    const a = agent(
      'a',
      '2024-01-01T00:00:00Z',
      { approved: true, role: 'worker' },
      {
        'agent-install.openshift.io/bmh': 'bmh-1',
        other: 'x',
      },
    );
    expect(planAgent(b, a, infraEnv(0, now)).patch).toBeUndefined();
  });

  it('cluster-reference "" clears; refused when the InfraEnv has a clusterRef; bad value errors', () => {
    const a = agent(
      'a',
      '2024-01-01T00:00:00Z',
      { approved: true, clusterDeploymentName: { name: 'cd', namespace: 'ns' } },
      { 'agent-install.openshift.io/bmh': 'bmh-1' },
    );
    const clear = bmh({ 'bmac.agent-install.openshift.io/cluster-reference': '' });
    expect(planAgent(clear, a, infraEnv(0, now)).patch?.spec).toEqual({ clusterDeploymentName: null });
    const refused = planAgent(clear, a, infraEnv(0, now, { name: 'x', namespace: 'y' }));
    expect(refused.error).toBe(
      'failed to reconcile cluster reference.  InfraEnv already has cluster reference y/x',
    );
    expect(refused.patch).toBeUndefined();
    expect(
      planAgent(bmh({ 'bmac.agent-install.openshift.io/cluster-reference': 'nope' }), a, infraEnv(0, now))
        .error,
    ).toMatch(/invalid value/);
  });

  it('vets the cluster-reference target: a refused one is reported and not copied, the rest still is', () => {
    const a = agent(
      'a',
      '2024-01-01T00:00:00Z',
      { approved: true },
      { 'agent-install.openshift.io/bmh': 'bmh-1' },
    );
    const b = bmh({
      'bmac.agent-install.openshift.io/cluster-reference': 'other/cd',
      'bmac.agent-install.openshift.io/role': 'worker',
    });
    const asked: unknown[] = [];
    const plan = planAgent(b, a, infraEnv(0, now), undefined, (target) => {
      asked.push(target);
      return 'refused for a reason';
    });
    expect(asked).toEqual([{ namespace: 'other', name: 'cd' }]);
    expect(plan.error).toBe('failed to reconcile cluster reference: refused for a reason');
    expect(plan.patch?.spec).toEqual({ role: 'worker' });
    const allowed = planAgent(b, a, infraEnv(0, now), undefined, () => undefined);
    expect(allowed.patch?.spec?.clusterDeploymentName).toEqual({ name: 'cd', namespace: 'other' });
  });
});

describe('diskForHints', () => {
  const a = agent('a', '2024-01-01T00:00:00Z');
  it('picks the matching disk, preferring multipath', () => {
    expect(diskForHints(a, { deviceName: '/dev/sda' })).toBe('/dev/disk/by-id/a');
    expect(diskForHints(a, { model: 'HDD' })).toBe('/dev/disk/by-id/m');
    expect(diskForHints(a, { minSizeGigabytes: 1000 })).toBe(DISK_NOT_FOUND_BY_HINTS);
  });
  it('sets installation_disk_id from the BMH hints', () => {
    const plan = planAgent(bmh({}, { rootDeviceHints: { deviceName: '/dev/sdb' } }), a, undefined);
    expect(plan.patch?.spec?.installation_disk_id).toBe('/dev/disk/by-id/b');
  });
});

describe('hardwareDetails', () => {
  it('maps the inventory to metal3 HardwareDetails', () => {
    const d = hardwareDetails(agent('a', '2024-01-01T00:00:00Z')) as Record<string, unknown>;
    expect(d.nics).toEqual([
      { ip: 'fe80::1', name: 'eth0', model: 'Intel', mac: MAC.toLowerCase(), speedGbps: 10 },
      { ip: '10.0.0.5', name: 'eth0', model: 'Intel', mac: MAC.toLowerCase(), speedGbps: 10 },
    ]);
    expect(d.ramMebibytes).toBe(16384);
    expect(d.hostname).toBe('inv-host');
    expect((d.storage as { rotational: boolean }[]).map((s) => s.rotational)).toEqual([false, true, false]);
  });
});
