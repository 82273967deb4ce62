// Hub release lookup of the ironic agent image (kubeapi.md §3.7.1 step 3) against a fake registry
// on loopback: manifest list → arch manifest → gzip'd tar layers (newest first) → image-references;
// the Bearer token dance with pull-secret credentials; the per-context cache and fall-through.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INFRAENV_IRONIC_AGENT_IMAGE_OVERRIDE_ANNOTATION, type InfraEnv } from '../../../../src/api/index.ts';
import { type IronicSettings, ironicAgentOptions } from '../../../../src/controllers/ppi/ironic.ts';
import {
  HubReleaseImages,
  imageArchitectures,
  releaseComponentImage,
} from '../../../../src/controllers/ppi/release-image.ts';
import { ironicAgentImageFor } from '../../../../src/core/ignition/ironic.ts';
import type { OperatorContext } from '../../../../src/operator/context.ts';
import { tarArchive, tarEntry } from '../../core/release/tar-helpers.ts';

const REPO = 'ocp/release';
const IRONIC_ARM = 'quay.io/ocp/art@sha256:arm-ironic';
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

function fakeCtx(served: boolean, desired: string | undefined) {
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
        return { metadata: { name: 'version' }, status: { desired: { image: desired } } };
      },
    },
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
