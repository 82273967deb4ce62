import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OpenshiftInstallRunner } from '../../../../src/controllers/cluster/openshift-install-runner.ts';
import {
  customManifestsJson,
  customManifestsYaml,
  PreparationJobs,
  prepareInstallArtifacts,
  selectArtifactGenerator,
} from '../../../../src/controllers/cluster/preparation.ts';
import { BuiltinArtifactGenerator } from '../../../../src/core/artifacts/index.ts';
import {
  clusterDir,
  clusterFileExists,
  controllerLogsFile,
  hostLogsFile,
  listClusterFiles,
  readClusterFile,
  removeClusterFiles,
  writeClusterFiles,
} from '../../../../src/records/clusters/artifacts-store.ts';
import type { OperatorContext } from '../../../../src/records/context.ts';
import { mergeIngressCa } from '../../../../src/server/clusters/kubeconfig.ts';
import { NOW, readySno } from './fixtures.ts';

let dataDir: string;
let ctx: OperatorContext;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'cluster-store-'));
  ctx = { settings: { dataDir, artifactBackend: 'builtin' }, now: () => NOW } as unknown as OperatorContext;
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

describe('artifacts store', () => {
  it('writes, reads, lists and removes files below the cluster directory', async () => {
    await writeClusterFiles(ctx, 'c1', { 'bootstrap.ign': '{}', 'manifests/openshift/a.yaml': 'a: 1\n' });
    expect(clusterDir(ctx, 'c1')).toBe(join(dataDir, 'clusters', 'c1'));
    expect((await readClusterFile(ctx, 'c1', 'bootstrap.ign'))?.toString()).toBe('{}');
    expect(await readClusterFile(ctx, 'c1', 'missing.ign')).toBeUndefined();
    expect(await clusterFileExists(ctx, 'c1', 'manifests/openshift/a.yaml')).toBe(true);
    expect(await listClusterFiles(ctx, 'c1')).toEqual(['bootstrap.ign', 'manifests/openshift/a.yaml']);
    await removeClusterFiles(ctx, 'c1');
    expect(await listClusterFiles(ctx, 'c1')).toEqual([]);
  });

  it('refuses names and ids that leave the data directory', async () => {
    await expect(writeClusterFiles(ctx, 'c1', { '../escape': 'x' })).rejects.toThrow('invalid file name');
    await expect(readClusterFile(ctx, 'c1', '/etc/passwd')).rejects.toThrow('invalid file name');
    expect(() => clusterDir(ctx, '../other')).toThrow('invalid cluster id');
    expect(() => hostLogsFile(ctx, 'c1', 'a/b')).toThrow('invalid host id');
  });

  it('keeps logs where upstream names them', () => {
    expect(hostLogsFile(ctx, 'c1', 'h1')).toBe(join(dataDir, 'logs', 'c1', 'h1', 'logs.tar.gz'));
    expect(controllerLogsFile(ctx, 'c1')).toBe(
      join(dataDir, 'logs', 'c1', 'cluster', 'controller_logs.tar.gz'),
    );
  });
});

describe('preparation', () => {
  it('stores every generated file, the manifests and the custom manifest lists', async () => {
    const cluster = readySno({ ocp_release_image: 'quay.io/x:4.18.1-x86_64', openshift_version: '4.18.1' });
    const manifests = [{ folder: 'openshift', fileName: 'a.yaml', content: 'kind: A' }];
    const outcome = await prepareInstallArtifacts(ctx, new BuiltinArtifactGenerator(), {
      cluster,
      customManifests: manifests,
      installConfig: {},
    });
    expect(outcome.ok).toBe(true);
    const files = await listClusterFiles(ctx, cluster.id);
    for (const f of [
      'bootstrap.ign',
      'master.ign',
      'worker.ign',
      'kubeconfig-noingress',
      'kubeadmin-password',
      'master-h1.ign',
    ]) {
      expect(files, f).toContain(f);
    }
    expect(files).toContain('manifests/openshift/a.yaml');
    const list = JSON.parse((await readClusterFile(ctx, cluster.id, 'custom_manifests.json'))!.toString());
    expect(list).toEqual([{ folder: 'openshift', file_name: 'a.yaml', manifest_source: 'user' }]);
    const metadata = JSON.parse((await readClusterFile(ctx, cluster.id, 'metadata.json'))!.toString());
    expect(outcome.ok && outcome.openshiftClusterId).toBe(metadata.clusterID);
  });

  it('reports a generator failure as the preparation error', async () => {
    const outcome = await prepareInstallArtifacts(
      ctx,
      { generate: async () => Promise.reject(new Error('no release')) },
      { cluster: readySno(), customManifests: [], installConfig: {} },
    );
    expect(outcome).toEqual({ ok: false, error: 'no release' });
  });

  it('renders the custom manifest lists', () => {
    const m = [
      { folder: 'openshift', fileName: 'a.yaml', content: 'a: 1' },
      { folder: 'openshift', fileName: 'b.yaml', content: 'b: 2\n\n' },
    ];
    expect(customManifestsYaml(m)).toBe('a: 1\n---\nb: 2\n');
    expect(customManifestsJson([])).toBe('[]');
  });

  it('selects the generator from the settings', () => {
    expect(selectArtifactGenerator(ctx)).toBeInstanceOf(BuiltinArtifactGenerator);
    const other = {
      settings: { dataDir, artifactBackend: 'openshift-install' },
    } as unknown as OperatorContext;
    expect(selectArtifactGenerator(other, { OC_PATH: '/usr/bin/oc' })).toBeInstanceOf(OpenshiftInstallRunner);
  });
});

describe('PreparationJobs', () => {
  it('runs one job per attempt and keeps its outcome until forgotten', async () => {
    const jobs = new PreparationJobs();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let woke = 0;
    let runs = 0;
    const run = async () => {
      runs++;
      await gate;
      return { ok: true as const, openshiftClusterId: 'x' };
    };
    jobs.start('c1', 'a1', run, () => woke++);
    jobs.start('c1', 'a1', run, () => woke++);
    expect(jobs.state('c1', 'a1')).toBe('running');
    expect(jobs.state('c1', 'a0')).toBeUndefined();
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(runs).toBe(1);
    expect(woke).toBe(1);
    expect(jobs.state('c1', 'a1')).toEqual({ ok: true, openshiftClusterId: 'x' });
    jobs.forget('c1', 'other');
    expect(jobs.state('c1', 'a1')).not.toBeUndefined();
    jobs.forget('c1', 'a1');
    expect(jobs.state('c1', 'a1')).toBeUndefined();
  });

  it('drain() resolves only after every running job has settled', async () => {
    const jobs = new PreparationJobs();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let finished = false;
    jobs.start(
      'c1',
      'a',
      async () => {
        await gate;
        finished = true;
        return { ok: true as const, openshiftClusterId: 'x' };
      },
      () => undefined,
    );
    let drained = false;
    const draining = jobs.drain().then(() => {
      drained = true;
    });
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(false);
    release();
    await draining;
    expect(finished).toBe(true);
    await jobs.drain();
  });

  it('turns a rejected job into a failed outcome', async () => {
    const jobs = new PreparationJobs();
    await new Promise<void>((resolve) =>
      jobs.start('c1', 'a', () => Promise.reject(new Error('boom')), resolve),
    );
    expect(jobs.state('c1', 'a')).toEqual({ ok: false, error: 'boom' });
  });
});

describe('mergeIngressCa', () => {
  const kubeconfig = (ca: string) =>
    `apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: https://api:6443\n    certificate-authority-data: ${Buffer.from(ca).toString('base64')}\n`;

  it('appends the ingress CA to each cluster and is idempotent', () => {
    const merged = mergeIngressCa(kubeconfig('API-CA\n'), 'INGRESS-CA\n');
    const data = /certificate-authority-data: (\S+)/.exec(merged)?.[1] ?? '';
    expect(Buffer.from(data, 'base64').toString()).toBe('API-CA\nINGRESS-CA\n');
    expect(mergeIngressCa(merged, 'INGRESS-CA')).toBe(merged);
  });

  it('refuses a kubeconfig without clusters', () => {
    expect(() => mergeIngressCa('apiVersion: v1\nkind: Config\n', 'X')).toThrow('no clusters');
  });
});
