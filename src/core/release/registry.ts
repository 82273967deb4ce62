// Pure helpers for finding a component image (e.g. `ironic-agent`) inside an OpenShift release
// image (kubeapi.md §3.7.1 step 3): image reference parsing, architecture names, the registry's
// manifest shapes, the release's `release-manifests/image-references` ImageStream, bearer-token
// challenges and docker-config credentials. The registry I/O lives in
// src/records/hub/release-image.ts, the tar reading in src/util/tar.ts.

/** Where the component list sits inside a release image's filesystem. */
export const IMAGE_REFERENCES_PATH = 'release-manifests/image-references';

export interface ImageRef {
  /** Registry host[:port] as written (docker.io for bare names). */
  registry: string;
  repository: string;
  /** `sha256:…` when pinned by digest, else the tag (default `latest`). */
  reference: string;
}

/** Parses `registry/repo@digest`, `registry/repo:tag` (and docker.io short forms); undefined if malformed. */
export function parseImageRef(image: string): ImageRef | undefined {
  const s = image.trim();
  if (!s || /\s/.test(s)) return undefined;
  let name = s;
  let reference = 'latest';
  const at = s.indexOf('@');
  if (at >= 0) {
    name = s.slice(0, at);
    reference = s.slice(at + 1);
    if (!/^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(reference)) return undefined;
    // A tag before the digest is ignored, as registries do.
    const colon = name.lastIndexOf(':');
    if (colon > name.lastIndexOf('/')) name = name.slice(0, colon);
  } else {
    const colon = s.lastIndexOf(':');
    if (colon > s.lastIndexOf('/')) {
      name = s.slice(0, colon);
      reference = s.slice(colon + 1);
      if (!/^\w[\w.-]{0,127}$/.test(reference)) return undefined;
    }
  }
  const slash = name.indexOf('/');
  const first = slash >= 0 ? name.slice(0, slash) : '';
  const hasRegistry = slash >= 0 && (first.includes('.') || first.includes(':') || first === 'localhost');
  let registry = hasRegistry ? first : 'docker.io';
  let repository = hasRegistry ? name.slice(slash + 1) : name;
  if (registry === 'index.docker.io') registry = 'docker.io';
  if (registry === 'docker.io' && !repository.includes('/')) repository = `library/${repository}`;
  if (
    !repository ||
    !/^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:\/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$/.test(repository)
  ) {
    return undefined;
  }
  return { registry, repository, reference };
}

/** The host that serves the registry API for a registry name (docker.io's API host differs). */
export function registryApiHost(registry: string): string {
  return registry === 'docker.io' ? 'registry-1.docker.io' : registry;
}

/** The OCI platform architecture for an infra-env CPU architecture; undefined if unknown. */
export function ociArchitecture(cpuArchitecture: string | undefined): string | undefined {
  switch ((cpuArchitecture || 'x86_64').toLowerCase()) {
    case 'x86_64':
    case 'amd64':
      return 'amd64';
    case 'aarch64':
    case 'arm64':
      return 'arm64';
    case 'ppc64le':
      return 'ppc64le';
    case 's390x':
      return 's390x';
    default:
      return undefined;
  }
}

export const MANIFEST_LIST_TYPES = [
  'application/vnd.oci.image.index.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
];
export const MANIFEST_TYPES = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
];

export interface Descriptor {
  mediaType?: string;
  digest: string;
  size?: number;
  platform?: { architecture?: string; os?: string };
}

export type ParsedManifest =
  | { kind: 'list'; manifests: Descriptor[] }
  | { kind: 'image'; config?: Descriptor; layers: Descriptor[] };

/** Classifies a manifest body by its media type (header first, then the body's own field). */
export function parseManifest(body: unknown, contentType?: string): ParsedManifest | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const m = body as { mediaType?: string; manifests?: unknown; layers?: unknown; config?: unknown };
  const type = (contentType?.split(';')[0]?.trim() || m.mediaType || '').toLowerCase();
  const isList = MANIFEST_LIST_TYPES.includes(type) || (!type && Array.isArray(m.manifests));
  if (isList && Array.isArray(m.manifests)) {
    return { kind: 'list', manifests: m.manifests.filter(isDescriptor) };
  }
  if (Array.isArray(m.layers)) {
    return {
      kind: 'image',
      ...(isDescriptor(m.config) ? { config: m.config } : {}),
      layers: m.layers.filter(isDescriptor),
    };
  }
  return undefined;
}

function isDescriptor(d: unknown): d is Descriptor {
  return !!d && typeof d === 'object' && typeof (d as Descriptor).digest === 'string';
}

/** The linux manifest of `arch` in a manifest list, or undefined when the release lacks that arch. */
export function manifestForArch(manifests: readonly Descriptor[], arch: string): Descriptor | undefined {
  return manifests.find((d) => d.platform?.architecture === arch && (d.platform.os ?? 'linux') === 'linux');
}

/** Layers in the order to search them: the newest (last applied) first. */
export function layersNewestFirst(layers: readonly Descriptor[]): Descriptor[] {
  return [...layers].reverse();
}

/** Whether a layer is gzip'd tar, the only compression read here. */
export function isGzipLayer(d: Descriptor): boolean {
  const t = d.mediaType ?? '';
  return t === '' || t.endsWith('.tar.gzip') || t.endsWith('tar+gzip') || t.endsWith('.tar.gz');
}

/** The image of the tag `name` in an image-references ImageStream JSON; undefined if absent or malformed. */
export function componentImage(imageReferences: string, name: string): string | undefined {
  let doc: unknown;
  try {
    doc = JSON.parse(imageReferences);
  } catch {
    return undefined;
  }
  const tags = (doc as { spec?: { tags?: unknown } } | null)?.spec?.tags;
  if (!Array.isArray(tags)) return undefined;
  for (const t of tags) {
    const tag = t as { name?: unknown; from?: { name?: unknown } } | null;
    if (tag?.name === name && typeof tag.from?.name === 'string' && tag.from.name) return tag.from.name;
  }
  return undefined;
}

export interface BearerChallenge {
  realm: string;
  service?: string;
  scope?: string;
}

/** The Bearer challenge of a WWW-Authenticate header; undefined for Basic or anything else. */
export function parseBearerChallenge(header: string | undefined): BearerChallenge | undefined {
  if (!header || !/^bearer\s/i.test(header.trim())) return undefined;
  const params: Record<string, string> = {};
  for (const m of header
    .trim()
    .slice(6)
    .matchAll(/([a-zA-Z_]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g)) {
    params[m[1]!.toLowerCase()] = (m[2] ?? m[3] ?? '').replace(/\\(.)/g, '$1');
  }
  if (!params.realm) return undefined;
  return {
    realm: params.realm,
    ...(params.service ? { service: params.service } : {}),
    ...(params.scope ? { scope: params.scope } : {}),
  };
}

/** The token request URL for a challenge, asking for pull on `repository` when the challenge names no scope. */
export function tokenUrl(ch: BearerChallenge, repository: string): string {
  const url = new URL(ch.realm);
  if (ch.service) url.searchParams.set('service', ch.service);
  url.searchParams.set('scope', ch.scope ?? `repository:${repository}:pull`);
  return url.toString();
}

/** The base64 `user:password` for a registry from a docker config JSON (`auths`), if any. */
export function registryAuth(dockerConfigJson: string | undefined, registry: string): string | undefined {
  if (!dockerConfigJson) return undefined;
  let auths: Record<string, { auth?: unknown; username?: unknown; password?: unknown }> | undefined;
  try {
    auths = (JSON.parse(dockerConfigJson) as { auths?: typeof auths }).auths;
  } catch {
    return undefined;
  }
  if (!auths || typeof auths !== 'object') return undefined;
  const candidates =
    registry === 'docker.io'
      ? ['docker.io', 'index.docker.io', 'https://index.docker.io/v1/', 'registry-1.docker.io']
      : [registry, `https://${registry}`];
  for (const key of candidates) {
    const e = auths[key];
    if (!e) continue;
    if (typeof e.auth === 'string' && e.auth) return e.auth;
    if (typeof e.username === 'string' && typeof e.password === 'string') {
      return Buffer.from(`${e.username}:${e.password}`).toString('base64');
    }
  }
  return undefined;
}
