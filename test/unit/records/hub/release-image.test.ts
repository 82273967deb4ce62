// Hub release lookup of the ironic agent image (kubeapi.md §3.7.1 step 3) against a fake registry
// on loopback: manifest list → arch manifest → gzip'd tar layers (newest first) → image-references;
// the Bearer token dance with pull-secret credentials; the per-context cache and fall-through; step 4
// (a ClusterImageSet of the hub version): the pure selection rule and the lookup through the cache.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterImageSet,
  INFRAENV_IRONIC_AGENT_IMAGE_OVERRIDE_ANNOTATION,
  type InfraEnv,
} from '../../../../src/api/index.ts';
import { ironicAgentImageFor } from '../../../../src/core/ignition/ironic.ts';
import type { OperatorContext } from '../../../../src/records/context.ts';
import { type IronicSettings, ironicAgentOptions } from '../../../../src/records/hub/ironic.ts';
import {
  clusterImageSetsForHub,
  HubReleaseImages,
  imageArchitectures,
  releaseComponentImage,
} from '../../../../src/records/hub/release-image.ts';
import { tarArchive, tarEntry } from '../../core/release/tar-helpers.ts';

const REPO = 'ocp/release';
const IRONIC_ARM = 'quay.io/ocp/art@sha256:arm-ironic';
const IRONIC_X86 = 'quay.io/ocp/art@sha256:x86-ironic';
const imageReferences = (ironic: string) =>
  JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    spec: {
      tags: [
        { name: 'cli', from: { kind: 'DockerImage', name: 'quay.io/ocp/art@sha256:cli' } },
        { name: 'ironic-agent', from: { kind: 'DockerImage', name: ironic } },
      ],
    },
  });

const blobs: Record<string, Buffer> = {
  'sha256:cfg': Buffer.from(JSON.stringify({ architecture: 'arm64', os: 'linux' })),
  'sha256:cfgamd': Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux' })),
  'sha256:topamd': gzipSync(
    tarArchive(tarEntry('release-manifests/image-references', imageReferences(IRONIC_X86))),
  ),
  'sha256:base': gzipSync(tarArchive(tarEntry('usr/bin/thing', 'x'.repeat(3000)))),
  'sha256:top': gzipSync(
    tarArchive(
      tarEntry('release-manifests/0000_a.yaml', 'kind: Foo\n'),
      tarEntry('release-manifests/image-references', imageReferences(IRONIC_ARM)),
    ),
  ),
};
const manifests: Record<string, { type: string; body: unknown }> = {
  latest: {
    type: 'application/vnd.oci.image.index.v1+json',
    body: {
      schemaVersion: 2,
      manifests: [
        {
          mediaType: 'application/vnd.oci.image.manifest.v1+json',
          digest: 'sha256:armman',
          platform: { architecture: 'arm64', os: 'linux' },
        },
      ],
    },
  },
  // A single-arch x86_64 release, by tag (as a ClusterImageSet names it).
  '4.16.3-x86_64': {
    type: 'application/vnd.oci.image.manifest.v1+json',
    body: {
      schemaVersion: 2,
      config: { digest: 'sha256:cfgamd' },
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: 'sha256:topamd' }],
    },
  },
  'sha256:armman': {
    type: 'application/vnd.oci.image.manifest.v1+json',
    body: {
      schemaVersion: 2,
      config: { digest: 'sha256:cfg' },
      layers: [
        { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: 'sha256:base' },
        { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: 'sha256:top' },
      ],
    },
  },
};

let server: Server;
let host = '';
const requested: string[] = [];
const CREDS = Buffer.from('user:secret').toString('base64');

function handle(req: IncomingMessage, res: ServerResponse) {
  const url = new URL(req.url ?? '/', `http://${host}`);
  requested.push(url.pathname);
  if (url.pathname === '/token') {
    if (
      req.headers.authorization !== `Basic ${CREDS}` ||
      url.searchParams.get('scope') !== `repository:${REPO}:pull`
    ) {
      res.writeHead(401).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ token: 'tok' }));
    return;
  }
  if (req.headers.authorization !== 'Bearer tok') {
    res.writeHead(401, { 'www-authenticate': `Bearer realm="http://${host}/token",service="fake"` }).end();
    return;
  }
  const m = /^\/v2\/(.+)\/(manifests|blobs)\/(.+)$/.exec(url.pathname);
  if (m?.[1] === REPO && m[2] === 'manifests' && manifests[m[3]!]) {
    const man = manifests[m[3]!]!;
    res.writeHead(200, { 'content-type': man.type }).end(JSON.stringify(man.body));
    return;
  }
  if (m?.[1] === REPO && m[2] === 'blobs' && blobs[m[3]!]) {
    res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(blobs[m[3]!]);
    return;
  }
  res.writeHead(404).end();
}

beforeAll(async () => {
  server = createServer(handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const opts = () => ({
  schemeFor: () => 'http' as const,
  dockerConfigJson: JSON.stringify({ auths: { [host]: { auth: CREDS } } }),
});

describe('releaseComponentImage', () => {
  it('finds ironic-agent in the newest layer of the arch manifest, with a token', async () => {
    requested.length = 0;
    const res = await releaseComponentImage(`${host}/${REPO}`, 'arm64', 'ironic-agent', opts());
    expect(res).toEqual({ ok: true, image: IRONIC_ARM });
    expect(requested).toContain('/token');
    expect(requested).toContain('/v2/ocp/release/blobs/sha256:top');
    expect(requested).not.toContain('/v2/ocp/release/blobs/sha256:base');
  });
  it('says no for an architecture the release lacks', async () => {
    const res = await releaseComponentImage(`${host}/${REPO}`, 'amd64', 'ironic-agent', opts());
    expect(res).toMatchObject({ ok: false, reason: 'arch-not-in-release' });
  });
  it('says no for a component the release does not list', async () => {
    const res = await releaseComponentImage(`${host}/${REPO}`, 'arm64', 'nope', opts());
    expect(res).toMatchObject({ ok: false, reason: 'component-not-found' });
  });
  it('throws without credentials (the token endpoint refuses)', async () => {
    await expect(
      releaseComponentImage(`${host}/${REPO}`, 'arm64', 'ironic-agent', { schemeFor: () => 'http' }),
    ).rejects.toThrow(/token/);
  });
});

describe('imageArchitectures', () => {
  it('lists the linux architectures of a manifest list', async () => {
    expect(await imageArchitectures(`${host}/${REPO}:latest`, opts())).toEqual(['arm64']);
  });
  it('reads the config of a single-arch image', async () => {
    expect(await imageArchitectures(`${host}/${REPO}@sha256:armman`, opts())).toEqual(['arm64']);
  });
  it('throws on a missing image', async () => {
    await expect(imageArchitectures(`${host}/${REPO}:nope`, opts())).rejects.toThrow(/HTTP 404/);
  });
});

function fakeCtx(
  served: boolean,
  desired: string | undefined,
  version?: string,
  imageSets: ClusterImageSet[] = [],
) {
  const calls = { discovery: 0, get: 0 };
  const warnings: string[] = [];
  let now = 0;
  const ctx = {
    now: () => new Date(now),
    logger: { info: () => {}, warn: (_o: unknown, msg: string) => warnings.push(msg) },
    client: {
      request: async (_m: string, path: string) => {
        calls.discovery++;
        expect(path).toBe('/apis/config.openshift.io/v1');
        if (!served) throw Object.assign(new Error('not found'), { statusCode: 404, code: 404 });
        return { resources: [{ name: 'clusterversions' }] };
      },
      getIfExists: async () => {
        calls.get++;
        return { metadata: { name: 'version' }, status: { desired: { image: desired, version } } };
      },
    },
    informers: { clusterImageSets: { store: { list: () => imageSets } } },
  } as unknown as OperatorContext;
  return { ctx, calls, warnings, advance: (ms: number) => (now += ms) };
}

describe('HubReleaseImages', () => {
  it('looks the release up once per recheck interval and caches the image per release+arch', async () => {
    const f = fakeCtx(true, `${host}/${REPO}`);
    let lookups = 0;
    const hub = new HubReleaseImages(f.ctx, {
      ...opts(),
      recheckMs: 1000,
      lookup: (...args) => {
        lookups++;
        return releaseComponentImage(...args);
      },
    });
    expect(await hub.ironicAgentImage('aarch64')).toBe(IRONIC_ARM);
    expect(await hub.ironicAgentImage('arm64')).toBe(IRONIC_ARM);
    expect(f.calls).toEqual({ discovery: 1, get: 1 });
    expect(lookups).toBe(1);
    // The release lacks x86_64: no image, logged once, retried only after the interval.
    expect(await hub.ironicAgentImage('x86_64')).toBeUndefined();
    expect(await hub.ironicAgentImage('x86_64')).toBeUndefined();
    expect(lookups).toBe(2);
    expect(f.warnings).toHaveLength(1);
    f.advance(1500);
    expect(await hub.ironicAgentImage('x86_64')).toBeUndefined();
    expect(f.calls).toEqual({ discovery: 2, get: 2 });
    expect(lookups).toBe(3);
    expect(f.warnings).toHaveLength(1);
  });
  it('does nothing where ClusterVersion is not served', async () => {
    const f = fakeCtx(false, undefined);
    const hub = new HubReleaseImages(f.ctx, { lookup: () => Promise.reject(new Error('not called')) });
    expect(await hub.ironicAgentImage('x86_64')).toBeUndefined();
    expect(await hub.ironicAgentImage('x86_64')).toBeUndefined();
    expect(f.calls).toEqual({ discovery: 1, get: 0 });
  });
  it('falls through on registry errors without throwing', async () => {
    const f = fakeCtx(true, '127.0.0.1:1/ocp/release@sha256:' + 'b'.repeat(64));
    const hub = new HubReleaseImages(f.ctx, { schemeFor: () => 'http', timeoutMs: 2000 });
    expect(await hub.ironicAgentImage('x86_64')).toBeUndefined();
    expect(f.warnings).toHaveLength(1);
  });
});

const cis = (name: string, releaseImage: string, deleting = false): ClusterImageSet => ({
  metadata: { name, ...(deleting ? { deletionTimestamp: '2024-01-01T00:00:00Z' } : {}) },
  spec: { releaseImage },
});

describe('clusterImageSetsForHub', () => {
  const names = (sets: ClusterImageSet[]) => sets.map((s) => s.metadata.name);
  const sets = [
    cis('multi', 'quay.io/ocp/release:4.16.3-multi'),
    cis('x86', 'quay.io/ocp/release:4.16.3-x86_64'),
    cis('x86-b', 'mirror.example/ocp/release:4.16.3-x86_64'),
    cis('untagged-arch', 'quay.io/ocp/release:4.16.3'),
    cis('arm', 'quay.io/ocp/release:4.16.3-aarch64'),
    cis('arm64', 'quay.io/ocp/release:4.16.3-arm64'),
    cis('s390x', 'quay.io/ocp/release:4.16.3-s390x'),
    cis('older', 'quay.io/ocp/release:4.16.2-x86_64'),
    cis('rc', 'quay.io/ocp/release:4.16.3-rc.1-x86_64'),
    cis('digest', `quay.io/ocp/release@sha256:${'a'.repeat(64)}`),
    cis('gone', 'quay.io/ocp/release:4.16.3-x86_64', true),
  ];
  it.each([
    [
      'x86_64 (arch first, then multi; no suffix = x86_64)',
      '4.16.3',
      'x86_64',
      ['untagged-arch', 'x86', 'x86-b', 'multi'],
    ],
    ['amd64 = x86_64', '4.16.3', 'amd64', ['untagged-arch', 'x86', 'x86-b', 'multi']],
    ['aarch64 matches -aarch64 and -arm64', '4.16.3', 'aarch64', ['arm', 'arm64', 'multi']],
    ['ppc64le: only multi', '4.16.3', 'ppc64le', ['multi']],
    ['exact version: a pre-release is its own version', '4.16.3-rc.1', 'x86_64', ['rc']],
    ['no x.y prefix match', '4.16', 'x86_64', []],
    ['no hub version', undefined, 'x86_64', []],
    ['unknown arch', '4.16.3', 'riscv64', []],
  ])('%s', (_title, version, arch, want) => {
    expect(names(clusterImageSetsForHub(sets, version, arch))).toEqual(want);
  });
  it('skips the excluded (hub) release image', () => {
    expect(
      names(clusterImageSetsForHub(sets, '4.16.3', 's390x', 'quay.io/ocp/release:4.16.3-s390x')),
    ).toEqual(['multi']);
  });
});

describe('HubReleaseImages: ClusterImageSet of the hub version (step 4)', () => {
  it('resolves ironic-agent of the matching set when the hub release lacks the arch, trying sets in order', async () => {
    const hubRelease = `${host}/${REPO}@sha256:armman`; // arm64 only
    const f = fakeCtx(true, hubRelease, '4.16.3', [
      cis('a-broken', '127.0.0.1:1/ocp/release:4.16.3-x86_64'),
      cis('b-match', `${host}/${REPO}:4.16.3-x86_64`),
      cis('c-older', `${host}/${REPO}:4.16.2-x86_64`),
      cis('d-hub', hubRelease),
    ]);
    const looked: string[] = [];
    const hub = new HubReleaseImages(f.ctx, {
      ...opts(),
      timeoutMs: 2000,
      lookup: (release, ...rest) => {
        looked.push(release);
        return releaseComponentImage(release, ...rest);
      },
    });
    // Step 3 says no for x86_64; step 4 falls through the broken set to the matching one.
    expect(await hub.ironicAgentImage('x86_64')).toBeUndefined();
    expect(await hub.clusterImageSetIronicAgentImage('x86_64')).toBe(IRONIC_X86);
    expect(looked).toEqual([
      hubRelease,
      '127.0.0.1:1/ocp/release:4.16.3-x86_64',
      `${host}/${REPO}:4.16.3-x86_64`,
    ]);
    // Cached: no further lookups or ClusterVersion reads; one warning each for the two failures.
    expect(await hub.clusterImageSetIronicAgentImage('x86_64')).toBe(IRONIC_X86);
    expect(looked).toHaveLength(3);
    expect(f.calls).toEqual({ discovery: 1, get: 1 });
    expect(f.warnings).toHaveLength(2);
    // No set of the hub version for arm64 other than the hub release itself.
    expect(await hub.clusterImageSetIronicAgentImage('aarch64')).toBeUndefined();
    expect(looked).toHaveLength(3);
  });
  it('does nothing without a hub version or where ClusterVersion is not served', async () => {
    const sets = [cis('m', `${host}/${REPO}:4.16.3-x86_64`)];
    const lookup = () => Promise.reject(new Error('not called'));
    const noVersion = new HubReleaseImages(
      fakeCtx(true, `${host}/${REPO}@sha256:armman`, undefined, sets).ctx,
      {
        lookup,
      },
    );
    expect(await noVersion.clusterImageSetIronicAgentImage('x86_64')).toBeUndefined();
    const notServed = new HubReleaseImages(fakeCtx(false, undefined, '4.16.3', sets).ctx, { lookup });
    expect(await notServed.clusterImageSetIronicAgentImage('x86_64')).toBeUndefined();
  });
});

describe('ironic agent image priority', () => {
  const settings: IronicSettings = {
    ironicBaseUrl: 'https://ironic.example',
    ironicInspectorBaseUrl: '',
    defaultImage: 'settings/x86',
    defaultImageArm: 'settings/arm',
  };
  const ie = (annotations: Record<string, string> = {}): InfraEnv =>
    ({ metadata: { name: 'ie', namespace: 'ns', annotations }, spec: {} }) as unknown as InfraEnv;
  const image = (i: InfraEnv, hub: string | undefined, arch = 'x86_64') => {
    const o = ironicAgentOptions(settings, i, undefined, hub);
    if (!o.ok) throw new Error(o.error);
    return ironicAgentImageFor({ cpu_architecture: arch } as never, o.options);
  };
  it('override annotation → hub release → settings', () => {
    const annotated = ie({ [INFRAENV_IRONIC_AGENT_IMAGE_OVERRIDE_ANNOTATION]: 'override/img' });
    expect(image(annotated, 'hub/img')).toBe('override/img');
    expect(image(ie(), 'hub/img')).toBe('hub/img');
    expect(image(ie(), undefined)).toBe('settings/x86');
    expect(image(ie(), undefined, 'aarch64')).toBe('settings/arm');
  });
});
