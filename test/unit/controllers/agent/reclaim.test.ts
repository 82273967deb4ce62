// Reclaim on unbind, the pure part (kubeapi.md §3.4.4): when it applies, and the spoke objects
// that make the node reboot into discovery (goldens under golden/, UPDATE_GOLDEN=1 rewrites them).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  RECLAIM_NAMESPACE,
  type ReclaimInput,
  reclaimDecision,
  reclaimHostObjectName,
  reclaimObjects,
  reclaimRunnerArgs,
  reclaimRunnerOnDelete,
} from '../../../../src/controllers/agent/reclaim.ts';
import { ServiceCaCertCache } from '../../../../src/controllers/agent/service-ca.ts';
import type { HostStatus } from '../../../../src/core/model.ts';
import { expectGolden } from '../../core/golden.ts';

const golden = (name: string) => join(import.meta.dirname, 'golden', `${name}.golden`);

const INPUT: ReclaimInput = {
  hostId: '5b3c6a2e-0d1f-4c6e-9a51-7f0e2b9d4c11',
  infraEnvId: 'a1d2c3b4-0000-4000-8000-000000000001',
  nodeName: 'worker-3.example.com',
  agentImage: 'quay.io/edge-infrastructure/assisted-installer-agent:latest',
  serviceBaseUrl: 'https://assisted.hub.example.com',
  token: 'signed-agent-token',
};

describe('reclaimDecision', () => {
  const cases: [string, { imageServiceEnabled: boolean; hasBmh: boolean; status: HostStatus }, boolean][] = [
    [
      'installed, no BMH, image service on',
      { imageServiceEnabled: true, hasBmh: false, status: 'installed' },
      true,
    ],
    [
      'day-2 host added, no BMH',
      { imageServiceEnabled: true, hasBmh: false, status: 'added-to-existing-cluster' },
      true,
    ],
    ['image service off', { imageServiceEnabled: false, hasBmh: false, status: 'installed' }, false],
    ['a BMH (the BMAC reboots it)', { imageServiceEnabled: true, hasBmh: true, status: 'installed' }, false],
    ['not installed: known', { imageServiceEnabled: true, hasBmh: false, status: 'known' }, false],
    ['not installed: error', { imageServiceEnabled: true, hasBmh: false, status: 'error' }, false],
    [
      'still installing',
      { imageServiceEnabled: true, hasBmh: false, status: 'installing-in-progress' },
      false,
    ],
  ];
  it.each(cases)('%s', (_name, input, want) => {
    const d = reclaimDecision(input);
    expect(d.reclaim).toBe(want);
    if (!d.reclaim) expect(d.why).not.toBe('');
  });
});

describe('reclaimObjects', () => {
  it('namespace, RBAC, token Secret and a DaemonSet pinned to the node (golden)', () => {
    const objects = reclaimObjects(INPUT);
    expect(objects.map((o) => `${o.kind}/${o.metadata.name}`)).toEqual([
      'Namespace/assisted-installer',
      'ServiceAccount/node-reclaim',
      'Role/node-reclaim',
      'RoleBinding/node-reclaim',
      `Secret/node-reclaim-${INPUT.hostId}`,
      `DaemonSet/node-reclaim-${INPUT.hostId}`,
    ]);
    for (const o of objects.slice(1)) expect(o.metadata.namespace).toBe(RECLAIM_NAMESPACE);
    expectGolden(golden('reclaim-objects.yaml'), stringify(objects, { aliasDuplicateObjects: false }));
  });

  it('with a service CA: ConfigMap reclaim-config, mounted, and --cacert (golden)', () => {
    const objects = reclaimObjects({
      ...INPUT,
      serviceCaCert: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    });
    expect(objects.map((o) => o.kind)).toContain('ConfigMap');
    expectGolden(golden('reclaim-objects-ca.yaml'), stringify(objects, { aliasDuplicateObjects: false }));
  });

  it('the runner polls the service as the host', () => {
    expect(reclaimRunnerArgs(INPUT)).toEqual([
      'next_step_runner',
      '--url',
      INPUT.serviceBaseUrl,
      '--infra-env-id',
      INPUT.infraEnvId,
      '--host-id',
      INPUT.hostId,
      '--agent-version',
      INPUT.agentImage,
      '--insecure=false',
    ]);
    const ds = reclaimObjects(INPUT).at(-1) as unknown as {
      spec: { template: { spec: { nodeSelector: Record<string, string>; containers: { image: string }[] } } };
    };
    expect(ds.spec.template.spec.nodeSelector).toEqual({ 'kubernetes.io/hostname': INPUT.nodeName });
    expect(ds.spec.template.spec.containers[0]?.image).toBe(INPUT.agentImage);
  });

  it('per-host names fit a DNS label', () => {
    expect(reclaimHostObjectName(INPUT.hostId)).toBe(`node-reclaim-${INPUT.hostId}`);
    expect(reclaimHostObjectName('X'.repeat(80)).length).toBeLessThanOrEqual(63);
  });
});

describe('reclaimRunnerOnDelete', () => {
  const info = { cluster_name: 'spoke', cluster_namespace: 'spokes', node_name: 'worker-3' };
  it('while reclaiming: the old spoke, reclaiming', () => {
    for (const state of ['reclaiming', 'reclaiming-rebooting']) {
      expect(reclaimRunnerOnDelete({ state, deprovisionInfo: info })).toEqual({
        clusterNamespace: 'spokes',
        clusterName: 'spoke',
        reclaiming: true,
      });
    }
  });
  it('after the reclaim, before the unbind cleanup ran (or a reclaim timeout): the old spoke too', () => {
    for (const state of ['discovering-unbound', 'unbinding-pending-user-action']) {
      expect(reclaimRunnerOnDelete({ state, deprovisionInfo: info })).toEqual({
        clusterNamespace: 'spokes',
        clusterName: 'spoke',
        reclaiming: false,
      });
    }
  });
  it('no deprovision_info (never unbound, or cleaned up): nothing on a spoke', () => {
    expect(reclaimRunnerOnDelete({ state: 'reclaiming', deprovisionInfo: undefined })).toBeUndefined();
    expect(reclaimRunnerOnDelete({ state: 'installed', deprovisionInfo: undefined })).toBeUndefined();
    expect(
      reclaimRunnerOnDelete({ state: 'reclaiming', deprovisionInfo: { node_name: 'worker-3' } }),
    ).toBeUndefined();
  });
});

describe('ServiceCaCertCache', () => {
  const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
  it('no path: no CA, nothing read', async () => {
    const cache = new ServiceCaCertCache(() => Promise.reject(new Error('read')));
    expect(await cache.get(undefined)).toEqual({ ok: true, pem: undefined });
    expect(await cache.get('')).toEqual({ ok: true, pem: undefined });
  });
  it('reads the file once and keeps it', async () => {
    let reads = 0;
    const cache = new ServiceCaCertCache(async () => {
      reads++;
      return PEM;
    });
    expect(await cache.get('/ca.crt')).toEqual({ ok: true, pem: PEM });
    expect(await cache.get('/ca.crt')).toEqual({ ok: true, pem: PEM });
    expect(reads).toBe(1);
  });
  it('a missing file is an error naming the setting, tried again next time', async () => {
    let present = false;
    const cache = new ServiceCaCertCache(async () => {
      if (!present) throw new Error("ENOENT: no such file or directory, open '/ca.crt'");
      return PEM;
    });
    const missing = await cache.get('/ca.crt');
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.message).toContain('SERVICE_CA_CERT_PATH=/ca.crt');
    expect(!missing.ok && missing.message).toContain('ENOENT');
    present = true;
    expect(await cache.get('/ca.crt')).toEqual({ ok: true, pem: PEM });
  });
  it('a file with no PEM certificate is an error', async () => {
    const cache = new ServiceCaCertCache(async () => 'not a certificate');
    const got = await cache.get('/ca.crt');
    expect(!got.ok && got.message).toContain('holds no PEM certificate');
  });
});
