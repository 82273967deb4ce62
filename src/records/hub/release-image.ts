// Hub release lookup for the ironic agent image (kubeapi.md §3.7.1 step 3). Where the hub is
// OpenShift (config.openshift.io/v1 clusterversions is served), the ClusterVersion `version`'s
// status.desired.image names the hub release; the `ironic-agent` component image is read from that
// release image over the registry HTTP API v2: manifest (list) → the manifest of the wanted
// architecture → its layers, newest first, each gunzip'd and scanned as tar for
// release-manifests/image-references (the ImageStream listing the release's components), stopping
// at the first hit. Credentials: the hub pull secret (openshift-config/pull-secret) when readable,
// used for Basic auth or the Bearer token dance of the registry's WWW-Authenticate challenge;
// anonymous otherwise.
//
// Step 4 (ClusterImageSet matching the hub version): the ClusterVersion's status.desired.version is
// kept with the release image; ClusterImageSets come from the informer cache (no LIST) and are
// matched by clusterImageSetsForHub (rule there); each candidate's `ironic-agent` is read like the
// hub release's, with the same cache and fall-through.
//
// Caching, per operator context: whether ClusterVersion is served and its release image are asked
// at most once per `recheckMs` (default 10 min); an image found for release+arch is kept (the release
// reference is normally a digest); a failure is logged once per release+arch and retried after
// `recheckMs`. Nothing here throws to the caller: no answer means "fall through to the settings".
import { createGunzip } from 'node:zlib';
import { type Dispatcher, request } from 'undici';
import type { ClusterImageSet } from '../../api/index.ts';
import {
  componentImage,
  type Descriptor,
  IMAGE_REFERENCES_PATH,
  isGzipLayer,
  layersNewestFirst,
  MANIFEST_LIST_TYPES,
  MANIFEST_TYPES,
  manifestForArch,
  ociArchitecture,
  parseBearerChallenge,
  parseImageRef,
  parseManifest,
  registryApiHost,
  registryAuth,
  tokenUrl,
} from '../../core/release/registry.ts';
import { Discovery, type KubeObject } from '../../runtime/index.ts';
import { perObject, WarnOnce } from '../../util/per-object.ts';
import { fileInTar } from '../../util/tar.ts';
import type { OperatorContext } from '../context.ts';
import { releaseFromImageTag } from '../release.ts';
import { CLUSTER_VERSION } from '../resources.ts';
import { pullSecretOf } from '../views.ts';

export interface RegistryOptions {
  dispatcher?: Dispatcher;
  /** Docker config JSON (`auths`) with credentials per registry. */
  dockerConfigJson?: string;
  /** URL scheme per registry host; https unless told otherwise (tests serve http on loopback). */
  schemeFor?: (host: string) => 'http' | 'https';
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
}

export type ComponentLookup =
  | { ok: true; image: string }
  | { ok: false; reason: 'arch-not-in-release' | 'component-not-found'; message: string };

const ACCEPT_ANY_MANIFEST = [...MANIFEST_LIST_TYPES, ...MANIFEST_TYPES].join(', ');

/** A tiny registry v2 reader for one repository, holding its auth header once learnt. */
class RepoReader {
  private authorization: string | undefined;
  private readonly base: string;
  private readonly repository: string;
  private readonly opts: RegistryOptions;
  private readonly basic: string | undefined;

  constructor(registry: string, repository: string, opts: RegistryOptions) {
    const host = registryApiHost(registry);
    this.base = `${opts.schemeFor?.(host) ?? 'https'}://${host}`;
    this.repository = repository;
    this.opts = opts;
    this.basic = registryAuth(opts.dockerConfigJson, registry);
  }

  /** GET under /v2/<repo>/…; follows redirects (blob storage) and answers one auth challenge. */
  async get(path: string, accept?: string): Promise<Dispatcher.ResponseData> {
    const url = `${this.base}/v2/${this.repository}/${path}`;
    for (let attempt = 0; ; attempt++) {
      const res = await this.fetch(url, {
        ...(accept ? { accept } : {}),
        ...(this.authorization ? { authorization: this.authorization } : {}),
      });
      if (res.statusCode === 401 && attempt === 0) {
        await res.body.dump();
        const header = res.headers['www-authenticate'];
        await this.authenticate(Array.isArray(header) ? header[0] : header);
        continue;
      }
      if (res.statusCode !== 200) {
        await res.body.dump();
        throw new Error(`registry ${url}: HTTP ${res.statusCode}`);
      }
      return res;
    }
  }

  private async authenticate(challenge: string | undefined): Promise<void> {
    const bearer = parseBearerChallenge(challenge);
    if (!bearer) {
      if (!this.basic) throw new Error(`registry ${this.base} wants credentials and none are configured`);
      this.authorization = `Basic ${this.basic}`;
      return;
    }
    const res = await this.fetch(tokenUrl(bearer, this.repository), {
      ...(this.basic ? { authorization: `Basic ${this.basic}` } : {}),
    });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`registry token ${bearer.realm}: HTTP ${res.statusCode}`);
    }
    const body = (await res.body.json()) as { token?: string; access_token?: string };
    const token = body.token || body.access_token;
    if (!token) throw new Error(`registry token ${bearer.realm}: no token in the reply`);
    this.authorization = `Bearer ${token}`;
  }

  /** One GET, following up to 5 redirects (without the auth header once off the registry). */
  private async fetch(url: string, headers: Record<string, string>): Promise<Dispatcher.ResponseData> {
    const timeout = this.opts.timeoutMs ?? 30_000;
    let current = url;
    for (let hops = 0; hops <= 5; hops++) {
      const res = await request(current, {
        method: 'GET',
        headers,
        headersTimeout: timeout,
        bodyTimeout: timeout,
        ...(this.opts.dispatcher ? { dispatcher: this.opts.dispatcher } : {}),
      });
      const location = res.headers.location;
      if (res.statusCode >= 300 && res.statusCode < 400 && location) {
        await res.body.dump();
        const next = new URL(Array.isArray(location) ? location[0]! : location, current);
        if (next.origin !== new URL(url).origin) {
          const { authorization: _dropped, ...rest } = headers;
          headers = rest;
        }
        current = next.toString();
        continue;
      }
      return res;
    }
    throw new Error(`registry ${url}: too many redirects`);
  }

  async manifest(reference: string) {
    const res = await this.get(`manifests/${reference}`, ACCEPT_ANY_MANIFEST);
    const ct = res.headers['content-type'];
    const parsed = parseManifest(await res.body.json(), Array.isArray(ct) ? ct[0] : ct);
    if (!parsed) throw new Error(`registry: manifest ${reference} of ${this.repository} is not understood`);
    return parsed;
  }

  async configArchitecture(config: Descriptor): Promise<string | undefined> {
    const res = await this.get(`blobs/${config.digest}`);
    const body = (await res.body.json()) as { architecture?: string };
    return body.architecture;
  }

  /** Streams one gzip'd tar layer until `path` is found; the file's text, or undefined. */
  async fileInLayer(layer: Descriptor, path: string): Promise<string | undefined> {
    const res = await this.get(`blobs/${layer.digest}`);
    const gunzip = createGunzip();
    res.body.pipe(gunzip);
    try {
      return (await fileInTar(gunzip, path))?.toString('utf8');
    } finally {
      res.body.unpipe(gunzip);
      gunzip.destroy();
      res.body.destroy();
    }
  }
}

/**
 * The image of `component` in the release image `release` for OCI architecture `arch` (amd64,
 * arm64, …). Throws on registry/transport errors; a release without that architecture or without
 * the component is a non-throwing "no".
 */
export async function releaseComponentImage(
  release: string,
  arch: string,
  component: string,
  opts: RegistryOptions = {},
): Promise<ComponentLookup> {
  const ref = parseImageRef(release);
  if (!ref) throw new Error(`release image ${JSON.stringify(release)} is not an image reference`);
  const reader = new RepoReader(ref.registry, ref.repository, opts);
  let manifest = await reader.manifest(ref.reference);
  if (manifest.kind === 'list') {
    const entry = manifestForArch(manifest.manifests, arch);
    if (!entry) {
      return { ok: false, reason: 'arch-not-in-release', message: `release ${release} has no ${arch} image` };
    }
    manifest = await reader.manifest(entry.digest);
    if (manifest.kind !== 'image') throw new Error(`registry: nested manifest list in ${release}`);
  } else if (manifest.config) {
    const imageArch = await reader.configArchitecture(manifest.config);
    if (imageArch && imageArch !== arch) {
      return {
        ok: false,
        reason: 'arch-not-in-release',
        message: `release ${release} is ${imageArch}, not ${arch}`,
      };
    }
  }
  for (const layer of layersNewestFirst(manifest.layers)) {
    if (!isGzipLayer(layer)) continue;
    const text = await reader.fileInLayer(layer, IMAGE_REFERENCES_PATH);
    if (text === undefined) continue;
    const image = componentImage(text, component);
    if (image) return { ok: true, image };
    return {
      ok: false,
      reason: 'component-not-found',
      message: `release ${release} lists no ${component} image`,
    };
  }
  return {
    ok: false,
    reason: 'component-not-found',
    message: `release ${release} has no ${IMAGE_REFERENCES_PATH}`,
  };
}

/**
 * The OCI architectures an image is published for: the linux entries of its manifest list, or the
 * config's architecture of a single-arch image (empty when it names none). Throws on
 * registry/transport errors.
 */
export async function imageArchitectures(image: string, opts: RegistryOptions = {}): Promise<string[]> {
  const ref = parseImageRef(image);
  if (!ref) throw new Error(`${JSON.stringify(image)} is not an image reference`);
  const reader = new RepoReader(ref.registry, ref.repository, opts);
  const manifest = await reader.manifest(ref.reference);
  if (manifest.kind === 'list') {
    const archs = manifest.manifests
      .filter((d) => (d.platform?.os ?? 'linux') === 'linux' && d.platform?.architecture)
      .map((d) => d.platform?.architecture ?? '');
    return [...new Set(archs)];
  }
  const arch = manifest.config ? await reader.configArchitecture(manifest.config) : undefined;
  return arch ? [arch] : [];
}

interface ClusterVersion extends KubeObject {
  status?: { desired?: { image?: string; version?: string } };
}

/** The hub release: ClusterVersion `version` status.desired image and version. */
export interface HubRelease {
  image?: string;
  version?: string;
}

/**
 * ClusterImageSets whose release is the hub version for a spoke architecture, best first
 * (kubeapi.md §3.7.1 step 4; the spec does not say how they match, so this is our rule):
 *  - version and architecture come from the release image tag (`<version>[-<arch>]`, no suffix =
 *    x86_64; releaseFromImageTag, as for ACIs); a digest-only releaseImage is skipped (we do not pull
 *    the image to learn its version);
 *  - the version must equal the hub version exactly (`4.16.3` ≠ `4.16.3-rc.1`, ≠ `4.16`);
 *  - the architecture must be the spoke's (x86_64 = amd64, aarch64 = arm64), or `multi` (a
 *    multi-arch release; whether it really has the spoke's arch is learnt from its manifest list);
 *    single-arch matches come before multi, then by name;
 *  - sets being deleted and those naming `exclude` (the hub release, already tried) are skipped.
 */
export function clusterImageSetsForHub(
  imageSets: readonly ClusterImageSet[],
  hubVersion: string | undefined,
  cpuArchitecture: string | undefined,
  exclude?: string,
): ClusterImageSet[] {
  const arch = ociArchitecture(cpuArchitecture);
  if (!hubVersion || !arch) return [];
  const ranked: { rank: number; set: ClusterImageSet }[] = [];
  for (const set of imageSets) {
    const image = set.spec?.releaseImage;
    if (!image || image === exclude || set.metadata.deletionTimestamp) continue;
    const release = releaseFromImageTag(image);
    if (!release || release.version !== hubVersion) continue;
    if (ociArchitecture(release.cpuArchitecture) === arch) ranked.push({ rank: 0, set });
    else if (release.cpuArchitecture === 'multi') ranked.push({ rank: 1, set });
  }
  return ranked
    .sort((a, b) => a.rank - b.rank || (a.set.metadata.name ?? '').localeCompare(b.set.metadata.name ?? ''))
    .map((r) => r.set);
}

export interface HubReleaseOptions extends RegistryOptions {
  /** How long a ClusterVersion answer or a failed lookup is kept. Default 10 min. */
  recheckMs?: number;
  /** Looks the component up; default releaseComponentImage (tests swap it). */
  lookup?: typeof releaseComponentImage;
}

/** Per operator context: the hub release and the ironic agent images found in it. */
export class HubReleaseImages {
  private readonly ctx: OperatorContext;
  private readonly opts: HubReleaseOptions;
  private release: { at: number; value: Promise<HubRelease> } | undefined;
  private readonly found = new Map<string, { at: number; value: Promise<string | undefined> }>();
  private readonly warnings: WarnOnce;

  constructor(ctx: OperatorContext, opts: HubReleaseOptions = {}) {
    this.ctx = ctx;
    this.opts = opts;
    this.warnings = new WarnOnce(ctx.logger);
  }

  private get recheckMs(): number {
    return this.opts.recheckMs ?? 10 * 60_000;
  }

  private fresh(at: number): boolean {
    return this.ctx.now().getTime() - at < this.recheckMs;
  }

  /** The hub release (ClusterVersion `version` status.desired); empty if not OpenShift. */
  hubRelease(): Promise<HubRelease> {
    if (this.release && this.fresh(this.release.at)) return this.release.value;
    const value = (async (): Promise<HubRelease> => {
      try {
        if (!(await new Discovery(this.ctx.client).allServed([CLUSTER_VERSION]))) return {};
        const cv = await this.ctx.client.getIfExists<ClusterVersion>(CLUSTER_VERSION, 'version');
        const desired = cv?.status?.desired;
        return {
          ...(desired?.image ? { image: desired.image } : {}),
          ...(desired?.version ? { version: desired.version } : {}),
        };
      } catch (err) {
        this.warnings.warn(
          'clusterversion',
          'cannot read the hub ClusterVersion; using the ironic agent image settings',
          err,
        );
        return {};
      }
    })();
    this.release = { at: this.ctx.now().getTime(), value };
    return value;
  }

  /** The hub release image (ClusterVersion `version` status.desired.image); undefined if not OpenShift. */
  async releaseImage(): Promise<string | undefined> {
    return (await this.hubRelease()).image;
  }

  /** The ironic-agent image of the hub release for an infra-env CPU architecture, or undefined. */
  async ironicAgentImage(cpuArchitecture: string | undefined): Promise<string | undefined> {
    const release = await this.releaseImage();
    const arch = ociArchitecture(cpuArchitecture);
    if (!release || !arch) return undefined;
    return this.imageIn(release, arch, 'the hub release');
  }

  /**
   * Step 4: the ironic-agent image of a cached ClusterImageSet whose release is the hub version for
   * the infra-env's architecture (clusterImageSetsForHub, tried best first), or undefined.
   */
  async clusterImageSetIronicAgentImage(cpuArchitecture: string | undefined): Promise<string | undefined> {
    const hub = await this.hubRelease();
    const arch = ociArchitecture(cpuArchitecture);
    if (!hub.version || !arch) return undefined;
    const sets = clusterImageSetsForHub(
      this.ctx.informers.clusterImageSets.store.list(),
      hub.version,
      cpuArchitecture,
      hub.image,
    );
    for (const set of sets) {
      const image = await this.imageIn(set.spec.releaseImage, arch, `ClusterImageSet ${set.metadata.name}`);
      if (image) return image;
    }
    return undefined;
  }

  /** The cached ironic-agent image of `release` for an OCI arch (looked up on a miss). */
  private async imageIn(release: string, arch: string, source: string): Promise<string | undefined> {
    const key = `${release}|${arch}`;
    const cached = this.found.get(key);
    if (cached) {
      const image = await cached.value;
      if (image || this.fresh(cached.at)) return image;
    }
    const value = this.lookup(release, arch, key, source);
    this.found.set(key, { at: this.ctx.now().getTime(), value });
    return value;
  }

  private async lookup(
    release: string,
    arch: string,
    key: string,
    source: string,
  ): Promise<string | undefined> {
    try {
      const dockerConfigJson = await pullSecretOf(this.ctx, 'openshift-config', 'pull-secret').catch(
        () => undefined,
      );
      const res = await (this.opts.lookup ?? releaseComponentImage)(release, arch, 'ironic-agent', {
        ...this.opts,
        ...(dockerConfigJson ? { dockerConfigJson } : {}),
      });
      if (res.ok) {
        this.ctx.logger.info({ release, arch, image: res.image }, `ironic agent image from ${source}`);
        return res.image;
      }
      this.warnings.warn(key, `${res.message}; using the ironic agent image settings`);
      return undefined;
    } catch (err) {
      this.warnings.warn(
        key,
        `cannot read the release image of ${source}; using the ironic agent image settings`,
        err,
      );
      return undefined;
    }
  }
}

const perContext = perObject((ctx: OperatorContext) => new HubReleaseImages(ctx));

/** The context's HubReleaseImages (created on first use). */
export function hubReleaseImagesOf(ctx: OperatorContext): HubReleaseImages {
  return perContext.of(ctx);
}
