// The openshift-install runner against scripted stand-ins for `oc` and `openshift-install` that
// produce what the real tools produce (file names and shapes), and log how they were called.

import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  bootstrapNodeIp,
  OpenshiftInstallRunner,
  splitManifest,
} from '../../../../src/controllers/cluster/openshift-install-runner.ts';
import { randomUuid } from '../../../../src/core/artifacts/index.ts';
import { agentCluster, agentHost, NOW, readySno } from './fixtures.ts';

const RELEASE = 'quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64';
const API_CA = '-----BEGIN CERTIFICATE-----\nAPI\n-----END CERTIFICATE-----\n';

/** The stand-in openshift-install (CommonJS, run by this Node binary). */
function installerScript(logFile: string): string {
  return `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
const dir = args[args.indexOf('--dir') + 1];
const what = args[1];
fs.appendFileSync(${JSON.stringify(logFile)}, JSON.stringify({ tool: 'openshift-install', args, env: {
  release: process.env.OPENSHIFT_INSTALL_RELEASE_IMAGE_OVERRIDE,
  invoker: process.env.OPENSHIFT_INSTALL_INVOKER,
  nodeIp: process.env.OPENSHIFT_INSTALL_BOOTSTRAP_NODE_IP,
} }) + '\\n');
if (process.env.STANDIN_FAIL === what) {
  console.error('level=info msg="Consuming Install Config from target directory"');
  console.error('level=fatal msg="failed to fetch Master Machines: invalid install config"');
  process.exit(3);
}
const w = (name, content) => { fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true }); fs.writeFileSync(path.join(dir, name), content); };
if (what === 'manifests') {
  if (!fs.existsSync(path.join(dir, 'install-config.yaml'))) { console.error('no install-config'); process.exit(1); }
  w('manifests/cluster-infrastructure-02-config.yml', 'apiVersion: config.openshift.io/v1\\nkind: Infrastructure\\nstatus:\\n  infrastructureTopology: SingleReplica\\n');
  w('openshift/99_openshift-cluster-api_master-user-data-secret.yaml', 'kind: Secret\\n');
  fs.unlinkSync(path.join(dir, 'install-config.yaml'));
  process.exit(0);
}
const pointer = (role) => JSON.stringify({ ignition: { version: '3.2.0', config: { merge: [{ source: 'https://api-int.demo.example.com:22623/config/' + role }] } } });
const kubeconfig = 'apiVersion: v1\\nkind: Config\\nclusters:\\n- name: demo\\n  cluster:\\n    server: https://api.demo.example.com:6443\\n    certificate-authority-data: ${Buffer.from(API_CA).toString('base64')}\\n';
w('metadata.json', JSON.stringify({ clusterName: 'demo', clusterID: '11111111-2222-4333-8444-555555555555', infraID: 'demo-abcde' }));
w('auth/kubeconfig', kubeconfig);
w('auth/kubeadmin-password', 'AAAAA-BBBBB-CCCCC-DDDDD\\n');
if (what === 'single-node-ignition-config') {
  w('bootstrap-in-place-for-live-iso.ign', JSON.stringify({ ignition: { version: '3.2.0' }, storage: { files: [{ path: '/etc/motd', append: [{ source: 'data:,hi' }] }] } }));
} else {
  w('bootstrap.ign', JSON.stringify({ ignition: { version: '3.2.0' }, storage: { files: [] } }));
  w('master.ign', pointer('master'));
  w('worker.ign', pointer('worker'));
}
`;
}

function ocScript(logFile: string, installerSource: string): string {
  return `#!${process.execPath}
const fs = require('node:fs');
const path = require('node:path');
const args = process.argv.slice(2);
fs.appendFileSync(${JSON.stringify(logFile)}, JSON.stringify({ tool: 'oc', args }) + '\\n');
const to = args.find((a) => a.startsWith('--to=')).slice(5);
fs.writeFileSync(path.join(to, 'openshift-install'), ${JSON.stringify(installerSource)}, { mode: 0o755 });
`;
}

let root: string;
let logFile: string;
let ocPath: string;

async function calls(): Promise<{ tool: string; args: string[]; env?: Record<string, string> }[]> {
  const text = await readFile(logFile, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

function multiNode() {
  const hosts = [0, 1, 2].map((i) =>
    agentHost({
      id: `m${i}`,
      role: 'master',
      bootstrap: i === 2,
      inventory: {
        hostname: `master-${i}`,
        interfaces: [{ name: 'eth0', ipv4_addresses: [`192.168.1.${20 + i}/24`] }],
      },
    }),
  );
  hosts.push(agentHost({ id: 'w0', role: 'worker', suggested_role: 'worker' }));
  return agentCluster({
    id: 'c-multi',
    status: 'preparing-for-installation',
    openshift_version: '4.18.1',
    ocp_release_image: RELEASE,
    pull_secret: '{"auths":{}}',
    network_type: 'OVNKubernetes',
    hosts,
  });
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'oi-runner-'));
  logFile = join(root, 'calls.log');
  ocPath = join(root, 'oc');
  await writeFile(ocPath, ocScript(logFile, installerScript(logFile)));
  await chmod(ocPath, 0o755);
});
afterEach(async () => {
  delete process.env.STANDIN_FAIL;
  await rm(root, { recursive: true, force: true });
});

const random = (n: number) => Buffer.alloc(n, 7);

describe('OpenshiftInstallRunner', () => {
  it('extracts openshift-install once per release, runs it and post-processes its output', async () => {
    const runner = new OpenshiftInstallRunner({ ocPath, workRoot: join(root, 'work') });
    const cluster = multiNode();
    const custom = [{ folder: 'openshift', fileName: 'extra.yaml', content: 'kind: A\n---\nkind: B\n' }];
    const artifacts = await runner.generate({ cluster, customManifests: custom, now: NOW, random });

    expect(artifacts.clusterId).toBe('11111111-2222-4333-8444-555555555555');
    expect(artifacts.infraId).toBe('demo-abcde');
    expect(artifacts.kubeadminPassword).toBe('AAAAA-BBBBB-CCCCC-DDDDD');
    expect(artifacts.rootCaPem).toBe(API_CA);
    expect(artifacts.files['kubeconfig-noingress']).toContain('server: https://api.demo.example.com:6443');
    expect(artifacts.files['install-config.yaml']).toContain('baseDomain: example.com');
    // Multi-node bootstrap post-processing: the assisted bootstrap marker.
    expect(artifacts.files['bootstrap.ign']).toContain('/opt/openshift/assisted-install-bootstrap');
    // Per-host files with the hostname.
    expect(Object.keys(artifacts.hostIgnitionFiles).sort()).toEqual(['m0', 'm1', 'm2', 'w0']);
    expect(artifacts.files['master-m0.ign']).toContain('/etc/hostname');
    expect(artifacts.files['worker-w0.ign']).toContain('config/worker');
    // One worker: the infrastructure topology is patched to HighlyAvailable; custom manifests are split.
    const names = artifacts.manifests.map((m) => `${m.folder}/${m.fileName}`);
    expect(names.filter((n) => n.startsWith('openshift/extra-'))).toHaveLength(2);
    const infra = artifacts.manifests.find((m) => m.fileName === 'cluster-infrastructure-02-config.yml');
    expect(infra?.content).toContain('infrastructureTopology: HighlyAvailable');

    const log = await calls();
    expect(log[0]).toMatchObject({ tool: 'oc' });
    expect(log[0]?.args.slice(0, 4)).toEqual(['adm', 'release', 'extract', '--command=openshift-install']);
    expect(log[0]?.args.at(-1)).toBe(RELEASE);
    expect(log.slice(1).map((c) => c.args.slice(0, 2).join(' '))).toEqual([
      'create manifests',
      'create ignition-configs',
    ]);
    expect(log[1]?.env).toEqual({
      release: RELEASE,
      invoker: 'agent-install-operator',
      nodeIp: '192.168.1.22',
    });

    // A second run reuses the extracted binary.
    await runner.generate({ cluster: { ...cluster, id: 'c-other' }, now: NOW, random });
    expect((await calls()).filter((c) => c.tool === 'oc')).toHaveLength(1);
  });

  it('uses the single-node flow for SNO', async () => {
    const runner = new OpenshiftInstallRunner({ ocPath, workRoot: join(root, 'work') });
    const cluster = readySno({ ocp_release_image: RELEASE, openshift_version: '4.18.1' });
    const artifacts = await runner.generate({ cluster, now: NOW, random });
    expect((await calls()).at(-1)?.args.slice(0, 2)).toEqual(['create', 'single-node-ignition-config']);
    expect(JSON.parse(artifacts.files['master.ign']!)).toEqual({ ignition: { version: '3.2.0' } });
    // /etc/motd append turned into contents.
    expect(artifacts.files['bootstrap.ign']).not.toContain('"append"');
    expect(artifacts.hostIgnitionFiles.h1).toBe('master-h1.ign');
  });

  it("reports openshift-install's fatal line and leaves no work directory behind", async () => {
    process.env.STANDIN_FAIL = 'ignition-configs';
    const runner = new OpenshiftInstallRunner({ ocPath, workRoot: join(root, 'work') });
    await expect(runner.generate({ cluster: multiNode(), now: NOW, random })).rejects.toThrow(
      /create ignition-configs .* failed: .*level=fatal msg="failed to fetch Master Machines: invalid install config"/s,
    );
    const work = await import('node:fs/promises').then((fs) => fs.readdir(join(root, 'work', 'work')));
    expect(work).toEqual([]);
  });

  it('uses a configured openshift-install without extracting', async () => {
    const installer = join(root, 'openshift-install');
    await mkdir(root, { recursive: true });
    await writeFile(installer, installerScript(logFile));
    await chmod(installer, 0o755);
    const runner = new OpenshiftInstallRunner({
      ocPath: '/nonexistent/oc',
      openshiftInstallPath: installer,
      workRoot: join(root, 'work'),
    });
    await runner.generate({ cluster: multiNode(), now: NOW, random });
    expect((await calls()).some((c) => c.tool === 'oc')).toBe(false);
  });

  it('fails clearly when oc cannot extract', async () => {
    const runner = new OpenshiftInstallRunner({
      ocPath: join(root, 'missing-oc'),
      workRoot: join(root, 'work'),
    });
    await expect(runner.generate({ cluster: multiNode(), now: NOW, random })).rejects.toThrow(
      /adm release extract/,
    );
  });
});

describe('helpers', () => {
  it('splits multi-document manifests with upstream naming', () => {
    const parts = splitManifest({ folder: 'openshift', fileName: 'x.yaml', content: 'a: 1\n---\nb: 2\n' });
    expect(parts).toHaveLength(2);
    expect(parts[0]?.fileName).toMatch(/^x-[0-9a-f]{7}-00\.yaml$/);
    expect(parts[1]?.content).toBe('b: 2\n');
    const single = { folder: 'openshift', fileName: 'y.json', content: '{}' };
    expect(splitManifest(single)).toEqual([single]);
  });

  it('finds the bootstrap address in the first machine network', () => {
    expect(bootstrapNodeIp(multiNode())).toBe('192.168.1.22');
    expect(bootstrapNodeIp(agentCluster())).toBeUndefined();
    expect(randomUuid(random)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
