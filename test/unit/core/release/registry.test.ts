// Pure parts of the hub release lookup (kubeapi.md §3.7.1 step 3): image references, architecture
// names, manifests, image-references JSON, auth challenges and credentials.
import { describe, expect, it } from 'vitest';
import {
  componentImage,
  layersNewestFirst,
  manifestForArch,
  ociArchitecture,
  parseBearerChallenge,
  parseImageRef,
  parseManifest,
  registryAuth,
  tokenUrl,
} from '../../../../src/core/release/registry.ts';

const DIGEST = `sha256:${'a'.repeat(64)}`;

describe('parseImageRef', () => {
  it('reads registry, repository and digest or tag', () => {
    expect(parseImageRef(`quay.io/openshift-release-dev/ocp-release@${DIGEST}`)).toEqual({
      registry: 'quay.io',
      repository: 'openshift-release-dev/ocp-release',
      reference: DIGEST,
    });
    expect(parseImageRef('quay.io/openshift-release-dev/ocp-release:4.16.0-x86_64')).toEqual({
      registry: 'quay.io',
      repository: 'openshift-release-dev/ocp-release',
      reference: '4.16.0-x86_64',
    });
    expect(parseImageRef('127.0.0.1:5000/ocp/release')).toEqual({
      registry: '127.0.0.1:5000',
      repository: 'ocp/release',
      reference: 'latest',
    });
    expect(parseImageRef(`localhost/r:t@${DIGEST}`)?.reference).toBe(DIGEST);
  });
  it('expands docker.io short names', () => {
    expect(parseImageRef('busybox')).toEqual({
      registry: 'docker.io',
      repository: 'library/busybox',
      reference: 'latest',
    });
    expect(parseImageRef('me/app:1')).toEqual({
      registry: 'docker.io',
      repository: 'me/app',
      reference: '1',
    });
  });
  it('rejects malformed references', () => {
    for (const bad of [
      '',
      'a b',
      'quay.io/Upper/case',
      'quay.io/x@nodigest',
      'quay.io/x:bad tag',
      'quay.io/',
    ]) {
      expect(parseImageRef(bad), bad).toBeUndefined();
    }
  });
});

describe('ociArchitecture', () => {
  it('maps infra-env architectures to OCI platform names', () => {
    expect(ociArchitecture('x86_64')).toBe('amd64');
    expect(ociArchitecture(undefined)).toBe('amd64');
    expect(ociArchitecture('aarch64')).toBe('arm64');
    expect(ociArchitecture('arm64')).toBe('arm64');
    expect(ociArchitecture('ppc64le')).toBe('ppc64le');
    expect(ociArchitecture('multi')).toBeUndefined();
  });
});

describe('manifests', () => {
  const list = {
    mediaType: 'application/vnd.docker.distribution.manifest.list.v2+json',
    manifests: [
      { digest: 'sha256:1', platform: { architecture: 'amd64', os: 'linux' } },
      { digest: 'sha256:2', platform: { architecture: 'arm64', os: 'linux' } },
    ],
  };
  it('tells lists from image manifests and picks the arch', () => {
    const parsed = parseManifest(list);
    expect(parsed?.kind).toBe('list');
    if (parsed?.kind !== 'list') return;
    expect(manifestForArch(parsed.manifests, 'arm64')?.digest).toBe('sha256:2');
    expect(manifestForArch(parsed.manifests, 's390x')).toBeUndefined();
    const image = parseManifest(
      { config: { digest: 'sha256:c' }, layers: [{ digest: 'sha256:l1' }, { digest: 'sha256:l2' }] },
      'application/vnd.oci.image.manifest.v1+json',
    );
    expect(image).toEqual({
      kind: 'image',
      config: { digest: 'sha256:c' },
      layers: [{ digest: 'sha256:l1' }, { digest: 'sha256:l2' }],
    });
    if (image?.kind === 'image')
      expect(layersNewestFirst(image.layers).map((l) => l.digest)).toEqual(['sha256:l2', 'sha256:l1']);
    expect(parseManifest('nope')).toBeUndefined();
  });
});

describe('componentImage', () => {
  const refs = JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    spec: {
      tags: [
        { name: 'machine-os-content', from: { kind: 'DockerImage', name: 'quay.io/x@sha256:0' } },
        { name: 'ironic-agent', from: { kind: 'DockerImage', name: 'quay.io/x@sha256:1' } },
      ],
    },
  });
  it('finds the named tag', () => {
    expect(componentImage(refs, 'ironic-agent')).toBe('quay.io/x@sha256:1');
    expect(componentImage(refs, 'missing')).toBeUndefined();
    expect(componentImage('{not json', 'ironic-agent')).toBeUndefined();
    expect(componentImage('{"spec":{"tags":[{"name":"ironic-agent"}]}}', 'ironic-agent')).toBeUndefined();
  });
});

describe('auth', () => {
  it('parses Bearer challenges and builds the token URL', () => {
    const ch = parseBearerChallenge(
      'Bearer realm="https://auth.example/token",service="reg.example",scope="repository:a/b:pull"',
    );
    expect(ch).toEqual({
      realm: 'https://auth.example/token',
      service: 'reg.example',
      scope: 'repository:a/b:pull',
    });
    expect(tokenUrl({ realm: 'https://auth.example/token' }, 'a/b')).toBe(
      'https://auth.example/token?scope=repository%3Aa%2Fb%3Apull',
    );
    expect(parseBearerChallenge('Basic realm="x"')).toBeUndefined();
    expect(parseBearerChallenge(undefined)).toBeUndefined();
  });
  it('finds credentials in a docker config', () => {
    const cfg = JSON.stringify({
      auths: { 'quay.io': { auth: 'cXVheTpwdw==' }, 'reg.example:5000': { username: 'u', password: 'p' } },
    });
    expect(registryAuth(cfg, 'quay.io')).toBe('cXVheTpwdw==');
    expect(registryAuth(cfg, 'reg.example:5000')).toBe(Buffer.from('u:p').toString('base64'));
    expect(registryAuth(cfg, 'other.io')).toBeUndefined();
    expect(registryAuth('garbage', 'quay.io')).toBeUndefined();
  });
});
