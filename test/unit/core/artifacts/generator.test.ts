// The built-in artifact generator and the credentials it makes.

import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  type ArtifactGenerator,
  BuiltinArtifactGenerator,
  decodeDataUrl,
  generateInfraId,
  generateKubeadminPassword,
  type IgnitionConfig,
  KUBEADMIN_PASSWORD_PATTERN,
  randomString,
  randomUuid,
} from '../../../../src/core/artifacts/index.ts';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import { x509 } from '../../../../src/util/x509.ts';
import { makeCluster, multiNodeHosts, singleNodeHost } from '../installconfig/fixtures.ts';
import { seededRandom } from '../random.ts';

const NOW = new Date('2026-03-01T12:00:00Z');
const generator: ArtifactGenerator = new BuiltinArtifactGenerator();

interface Kubeconfig {
  apiVersion: string;
  kind: string;
  'current-context': string;
  clusters: { name: string; cluster: { server: string; 'certificate-authority-data': string } }[];
  contexts: { name: string; context: { cluster: string; user: string } }[];
  users: { name: string; user: { 'client-certificate-data': string; 'client-key-data': string } }[];
}

const b64decode = (s: string) => Buffer.from(s, 'base64').toString('utf8');

describe('BuiltinArtifactGenerator (multi-node)', async () => {
  const cluster = makeCluster({ hosts: multiNodeHosts() });
  const out = await generator.generate({
    cluster,
    now: NOW,
    random: seededRandom('multi'),
    customManifests: [{ folder: 'openshift', fileName: 'extra.yaml', content: 'kind: ConfigMap\n' }],
  });

  it('produces the upload set of §8.4 step 11 plus one file per host', () => {
    expect(Object.keys(out.files).sort()).toEqual(
      [
        'bootstrap.ign',
        'install-config.yaml',
        'kubeadmin-password',
        'kubeconfig-noingress',
        'master.ign',
        'metadata.json',
        'worker.ign',
        ...cluster.hosts.map((h) => `${h.role}-${h.id}.ign`),
      ].sort(),
    );
    expect(out.hostIgnitionFiles['00000004-0000-0000-0000-000000000000']).toBe(
      'worker-00000004-0000-0000-0000-000000000000.ign',
    );
  });

  it('kubeconfig parses, points at the API and its client cert chains to the root CA', async () => {
    const kc = parse(out.kubeconfig) as Kubeconfig;
    expect(out.files['kubeconfig-noingress']).toBe(out.kubeconfig);
    expect([kc.apiVersion, kc.kind, kc['current-context']]).toEqual(['v1', 'Config', 'admin']);
    expect(kc.clusters[0]?.cluster.server).toBe('https://api.ostest.example.com:6443');
    expect(kc.contexts[0]).toEqual({ name: 'admin', context: { cluster: 'ostest', user: 'admin' } });
    const caPem = b64decode(kc.clusters[0]?.cluster['certificate-authority-data'] ?? '');
    expect(caPem).toBe(out.rootCaPem);
    const ca = new x509.X509Certificate(caPem);
    const client = new x509.X509Certificate(b64decode(kc.users[0]?.user['client-certificate-data'] ?? ''));
    expect(client.subject).toBe('O=system:masters, CN=system:admin');
    expect(client.issuer).toBe(ca.subject);
    expect(ca.subject).toBe('OU=openshift, CN=root-ca');
    const later = new Date(NOW.getTime() + 60_000);
    expect(await client.verify({ publicKey: ca.publicKey, date: later })).toBe(true);
    expect(await ca.verify({ date: later })).toBe(true);
    expect(await client.verify({ publicKey: ca.publicKey, date: new Date('2040-01-01T00:00:00Z') })).toBe(
      false,
    );
    expect(client.notBefore.toISOString()).toBe(NOW.toISOString());
    expect(b64decode(kc.users[0]?.user['client-key-data'] ?? '')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
  });

  it('kubeadmin password has the openshift-install format', () => {
    expect(out.kubeadminPassword).toMatch(KUBEADMIN_PASSWORD_PATTERN);
    expect(out.kubeadminPassword).toHaveLength(23);
    expect(out.files['kubeadmin-password']).toBe(out.kubeadminPassword);
  });

  it('metadata.json carries the cluster name, ID and infra ID', () => {
    expect(JSON.parse(out.files['metadata.json'] ?? '')).toEqual({
      clusterName: 'ostest',
      clusterID: out.clusterId,
      infraID: out.infraId,
      baremetal: {},
    });
    expect(out.clusterId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(out.infraId).toMatch(/^ostest-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('role ignitions point at the machine config server and trust the root CA', () => {
    const master = JSON.parse(out.files['master.ign'] ?? '') as IgnitionConfig;
    expect(master.ignition.config?.merge).toEqual([
      { source: 'https://api-int.ostest.example.com:22623/config/master' },
    ]);
    const caSource = master.ignition.security?.tls?.certificateAuthorities?.[0]?.source ?? '';
    expect(decodeDataUrl(caSource)?.toString()).toBe(out.rootCaPem);
    expect(JSON.parse(out.files['worker.ign'] ?? '').ignition.config.merge[0].source).toBe(
      'https://api-int.ostest.example.com:22623/config/worker',
    );
  });

  it('bootstrap.ign has the core user, the root CA and the multi-node markers', () => {
    const bootstrap = JSON.parse(out.files['bootstrap.ign'] ?? '') as IgnitionConfig;
    expect(bootstrap.passwd?.users).toEqual([{ name: 'core', sshAuthorizedKeys: [cluster.ssh_public_key] }]);
    expect(bootstrap.storage?.files?.map((f) => f.path)).toEqual([
      '/opt/openshift/tls/root-ca.crt',
      '/opt/openshift/assisted-install-bootstrap',
      '/etc/NetworkManager/conf.d/99-kni.conf',
    ]);
  });

  it('manifests: cluster config, DNS, infrastructure, network, then the custom ones', () => {
    expect(out.manifests.map((m) => `${m.folder}/${m.fileName}`)).toEqual([
      'manifests/cluster-config.yaml',
      'manifests/cluster-dns-02-config.yml',
      'manifests/cluster-infrastructure-02-config.yml',
      'manifests/cluster-network-02-config.yml',
      'openshift/extra.yaml',
    ]);
    const cm = parse(out.manifests[0]?.content ?? '');
    const ic = parse(cm.data['install-config']);
    expect(ic.pullSecret).toBeUndefined();
    expect(ic.metadata).toEqual({ name: 'ostest' });
    const infra = parse(out.manifests[2]?.content ?? '');
    expect(infra.status).toMatchObject({
      infrastructureName: out.infraId,
      controlPlaneTopology: 'HighlyAvailable',
      infrastructureTopology: 'HighlyAvailable',
      platform: 'BareMetal',
      apiServerURL: 'https://api.ostest.example.com:6443',
    });
    expect(parse(out.manifests[3]?.content ?? '').spec).toEqual({
      clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
      networkType: 'OVNKubernetes',
      serviceNetwork: ['172.30.0.0/16'],
    });
  });

  it('install-config.yaml is the generated one', () => {
    expect(out.files['install-config.yaml']).toBe(out.installConfig);
    expect(parse(out.installConfig).platform.baremetal.hosts).toHaveLength(5);
  });

  it('is deterministic for a given random source, apart from key material', async () => {
    const again = await generator.generate({ cluster, now: NOW, random: seededRandom('multi') });
    expect([again.clusterId, again.infraId, again.kubeadminPassword]).toEqual([
      out.clusterId,
      out.infraId,
      out.kubeadminPassword,
    ]);
    const other = await generator.generate({ cluster, now: NOW, random: seededRandom('other') });
    expect(other.kubeadminPassword).not.toBe(out.kubeadminPassword);
  });
});

describe('BuiltinArtifactGenerator (special topologies)', () => {
  it('SNO: empty master/worker ignitions, node-IP hint, no markers', async () => {
    const cluster = makeCluster({
      control_plane_count: 1,
      platform: { type: 'none' },
      user_managed_networking: true,
      api_vips: [],
      ingress_vips: [],
      machine_networks: [],
      hosts: [
        singleNodeHost({
          inventory: {
            hostname: 'sno',
            interfaces: [{ mac_address: 'aa', ipv4_addresses: ['192.168.122.10/24'] }],
          },
        }),
      ],
      ssh_public_key: '',
    });
    const out = await generator.generate({ cluster, now: NOW, random: seededRandom('sno') });
    expect(out.files['master.ign']).toBe('{"ignition":{"version":"3.2.0"}}');
    expect(out.files['worker.ign']).toBe('{"ignition":{"version":"3.2.0"}}');
    const bootstrap = JSON.parse(out.files['bootstrap.ign'] ?? '') as IgnitionConfig;
    expect(bootstrap.passwd).toBeUndefined();
    expect(bootstrap.storage?.files?.map((f) => f.path)).toEqual(['/opt/openshift/tls/root-ca.crt']);
    const host = JSON.parse(
      out.files['master-11111111-1111-1111-1111-111111111111.ign'] ?? '',
    ) as IgnitionConfig;
    const hint = host.storage?.files?.find((f) => f.path === '/etc/default/nodeip-configuration');
    expect(decodeDataUrl(hint?.contents?.source ?? '')?.toString()).toBe('KUBELET_NODEIP_HINT=192.168.122.0');
    expect(JSON.parse(out.files['metadata.json'] ?? '').none).toEqual({});
    expect(parse(out.manifests[2]?.content ?? '').status.controlPlaneTopology).toBe('SingleReplica');
  });

  it('arbiter cluster: arbiter.ign and an arbiter per-host file', async () => {
    const hosts = multiNodeHosts().filter((h) => h.role === 'master');
    (hosts[0] as Host).role = 'arbiter';
    const cluster: Cluster = makeCluster({ control_plane_count: 2, openshift_version: '4.20.0', hosts });
    const out = await generator.generate({
      cluster,
      now: NOW,
      random: seededRandom('arb'),
      roleOptions: { serviceCaCert: 'CA' },
    });
    expect(JSON.parse(out.files['arbiter.ign'] ?? '').ignition.config.merge[0].source).toBe(
      'https://api-int.ostest.example.com:22623/config/arbiter',
    );
    expect(out.files[`arbiter-${hosts[0]?.id}.ign`]).toBeDefined();
    expect(parse(out.manifests[2]?.content ?? '').status).toMatchObject({
      controlPlaneTopology: 'HighlyAvailableArbiter',
      infrastructureTopology: 'HighlyAvailable',
    });
  });

  it('two-node with fencing reports DualReplica; one worker is patched to HighlyAvailable', async () => {
    const [m1, m2, w] = multiNodeHosts().filter(
      (h) => h.id.startsWith('0000000') && h.id !== '00000005-0000-0000-0000-000000000000',
    ) as Host[];
    const cred = JSON.stringify({ address: 'a', username: 'u', password: 'p' });
    const hosts = [
      { ...(m1 as Host), role: 'master' as const, fencing_credentials: cred },
      { ...(m2 as Host), role: 'master' as const, fencing_credentials: cred },
      { ...(w as Host), role: 'worker' as const },
    ];
    const out = await generator.generate({
      cluster: makeCluster({ control_plane_count: 2, hosts }),
      now: NOW,
      random: seededRandom('tnf'),
    });
    expect(parse(out.manifests[2]?.content ?? '').status).toMatchObject({
      controlPlaneTopology: 'DualReplica',
      infrastructureTopology: 'HighlyAvailable',
    });
  });
});

describe('credential formats', () => {
  it('passwords: 200 samples all match, every class appears', () => {
    const random = seededRandom('pw');
    for (let i = 0; i < 200; i++) {
      const pw = generateKubeadminPassword(random);
      expect(pw).toMatch(KUBEADMIN_PASSWORD_PATTERN);
      expect(pw).toMatch(/[a-z]/);
      expect(pw).toMatch(/[A-Z]/);
      expect(pw).toMatch(/[2-9]/);
    }
  });

  const infraTable: [string, RegExp][] = [
    ['ostest', /^ostest-[a-z0-9]{5}$/],
    ['my.cluster_name', /^my-cluster-name-[a-z0-9]{5}$/],
    ['a--b', /^a-b-[a-z0-9]{5}$/],
    ['a-very-long-cluster-name-indeed', /^a-very-long-cluster-n-[a-z0-9]{5}$/],
    ['abcdefghijklmnopqrst-xyz', /^abcdefghijklmnopqrst-[a-z0-9]{5}$/],
  ];
  for (const [name, pattern] of infraTable) {
    it(`infra ID for ${name}`, () => {
      const id = generateInfraId(name, seededRandom(name));
      expect(id).toMatch(pattern);
      expect(id.length).toBeLessThanOrEqual(27);
    });
  }

  it('UUIDs are version 4', () => {
    expect(randomUuid(() => Buffer.alloc(16, 0xff))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(randomUuid(() => Buffer.alloc(16, 0))).toBe('00000000-0000-4000-8000-000000000000');
  });

  it('randomString rejects biased bytes', () => {
    // 256 % 3 = 1: byte 255 would bias the first symbol and must be skipped.
    const bytes = [255, 0, 1, 2, 255, 5];
    let i = 0;
    const random = (n: number) =>
      Buffer.from(Array.from({ length: n }, () => bytes[i++ % bytes.length] ?? 0));
    expect(randomString(random, 'abc', 4)).toBe('abcc');
  });
});

describe('manifests for other platforms', () => {
  it('names the platform in Infrastructure and metadata.json', async () => {
    const cluster = makeCluster({
      platform: {
        type: 'external',
        external: { platform_name: 'oci', cloud_controller_manager: 'External' },
      },
      user_managed_networking: true,
      api_vips: [],
      ingress_vips: [],
      hosts: multiNodeHosts(),
    });
    const out = await generator.generate({ cluster, now: NOW, random: seededRandom('ext') });
    expect(parse(out.manifests[2]?.content ?? '').status.platform).toBe('External');
    expect(JSON.parse(out.files['metadata.json'] ?? '').external).toEqual({});
  });
});
