// The InfraEnv status the controller writes (kubeapi.md §1.2, §2.3, §3.3 step 6), as a pure
// function of the object, what became of its image, the base URLs, a token issuer and the time.
//
// Signed URLs are re-issued all together, and only when
//   * the image changed (its digest differs from status.backend.imageDigest), or
//   * a URL now names another target (base URL, version, type…), or
//   * their tokens are due for re-issue (status.backend.tokenExpiresAt),
// so an annotation-only edit rewrites nothing and an idle fleet writes nothing. createdTime moves
// only when the image changes; that is also what the 60 s image cool-down of the BareMetalHost
// and PreprovisioningImage controllers measures from (setting BMAC_IMAGE_COOLDOWN_MS).
import type { InfraEnv, InfraEnvStatus } from '../../api/index.ts';
import { INFRAENV_LABEL } from '../../api/index.ts';
import type { TokenSubject, UrlKind } from '../../auth/index.ts';
import { withApiKey } from '../../auth/index.ts';
import type { ServiceUrls } from '../../records/context.ts';
import {
  eventsUrl,
  type ImageCreatedOutcome,
  metaTime,
  setImageCreatedCondition,
} from '../../records/index.ts';
import type { ImageProblem, ImageType } from '../../records/infraenvs/inputs.ts';
import { bootArtifactUrl, infraEnvFileUrl, isoDownloadUrl, pxeInitrdUrl, withoutToken } from './urls.ts';

/** What the controller needs from LocalAuth to sign status URLs. */
export interface TokenIssuer {
  issueUrlToken(kind: UrlKind, subject: TokenSubject, now?: Date): { token: string; expiresAt: Date };
  needsReissue(expiresAt: Date | undefined, now?: Date): boolean;
  reissueAt(expiresAt: Date): Date;
}

/** Facts about a successfully described image. */
export interface ImageFacts {
  digest: string;
  /** The OS image's OpenShift version key and architecture (as in download URLs). */
  openshiftVersion: string;
  cpuArchitecture: string;
  imageType: ImageType;
  hasStaticNetwork: boolean;
  /** spec.ipxeScriptType BootOrderControl. */
  bootOrderControl: boolean;
  /** AgentServiceConfig iPXEHTTPRoute enabled. */
  insecureHttp: boolean;
}

export type ImageOutcome =
  | { kind: 'image'; image: ImageFacts }
  | { kind: 'problem'; problem: ImageProblem }
  /** Image service disabled (AgentServiceConfig annotation): `problem` is not reported. */
  | { kind: 'disabled'; problem?: ImageProblem | undefined };

export interface StatusEnv {
  now: Date;
  urls: ServiceUrls;
  issuer: TokenIssuer;
}

export interface DesiredStatus {
  status: InfraEnvStatus;
  /** When the signed URLs are due for re-issue (ms from now), if any are written. */
  reissueInMs?: number;
}

type Field = 'iso' | 'initrd' | 'ipxeScript' | 'discoveryIgnition' | 'staticNetwork' | 'events';

const FIELD_KIND: Record<Field, UrlKind> = {
  iso: 'iso',
  initrd: 'pxe-initrd',
  ipxeScript: 'infra-env-files',
  discoveryIgnition: 'infra-env-files',
  staticNetwork: 'infra-env-files',
  events: 'events',
};

/** A signed URL to write: how to build it for a token. */
type Signable = (token: string) => string;

const PLACEHOLDER = 'token';

function previousUrls(status: InfraEnvStatus | undefined): Partial<Record<Field, string>> {
  const out: Partial<Record<Field, string>> = {};
  const set = (f: Field, v: string | undefined) => {
    if (v) out[f] = v;
  };
  set('iso', status?.isoDownloadURL);
  set('initrd', status?.bootArtifacts?.initrd);
  set('ipxeScript', status?.bootArtifacts?.ipxeScript);
  set('discoveryIgnition', status?.bootArtifacts?.discoveryIgnitionURL);
  set('staticNetwork', status?.debugInfo?.staticNetworkDownloadURL);
  set('events', status?.debugInfo?.eventsURL);
  return out;
}

/** A URL already in status, re-signed with another token (path or query form). */
function resign(url: string): Signable {
  if (/\/byapikey\/[^/]+\//.test(url)) {
    return (token) => url.replace(/\/byapikey\/[^/]+\//, `/byapikey/${encodeURIComponent(token)}/`);
  }
  return (token) => withApiKey(url, token);
}

function imageFields(id: string, image: ImageFacts, urls: ServiceUrls): Partial<Record<Field, Signable>> {
  const { openshiftVersion, cpuArchitecture, insecureHttp } = image;
  const fields: Partial<Record<Field, Signable>> = {
    iso: (token) =>
      isoDownloadUrl(urls.imageServiceBaseUrl, {
        token,
        openshiftVersion,
        cpuArchitecture,
        imageType: image.imageType,
      }),
    initrd: (token) =>
      pxeInitrdUrl(urls.imageServiceBaseUrl, {
        infraEnvId: id,
        token,
        openshiftVersion,
        cpuArchitecture,
        insecureHttp,
      }),
    ipxeScript: (token) =>
      infraEnvFileUrl(urls.serviceBaseUrl, {
        infraEnvId: id,
        fileName: 'ipxe-script',
        token,
        insecureHttp,
        ...(image.bootOrderControl ? { extra: { ipxe_script_type: 'boot-order-control' } } : {}),
      }),
    discoveryIgnition: (token) =>
      infraEnvFileUrl(urls.serviceBaseUrl, { infraEnvId: id, fileName: 'discovery.ign', token }),
  };
  if (image.hasStaticNetwork) {
    fields.staticNetwork = (token) =>
      infraEnvFileUrl(urls.serviceBaseUrl, { infraEnvId: id, fileName: 'static-network-config', token });
  }
  return fields;
}

function imageCreatedOutcome(problem: ImageProblem): ImageCreatedOutcome {
  return problem.kind === 'missing-cluster-deployment'
    ? { kind: 'missing-cluster-deployment', message: problem.message }
    : { kind: 'error', clientError: problem.clientError, message: problem.message };
}

const EMPTY_BOOT_ARTIFACTS = { initrd: '', rootfs: '', kernel: '', ipxeScript: '', discoveryIgnitionURL: '' };

export function desiredInfraEnvStatus(ie: InfraEnv, outcome: ImageOutcome, env: StatusEnv): DesiredStatus {
  const { now, urls, issuer } = env;
  const id = ie.metadata.uid ?? '';
  const prev = ie.status;
  const previous = previousUrls(prev);
  const prevBackend = prev?.backend ?? {};
  const subject: TokenSubject = { kind: 'infra-env', id };

  const status: InfraEnvStatus = {
    ...prev,
    agentLabelSelector: { matchLabels: { [INFRAENV_LABEL]: ie.metadata.name ?? '' } },
    debugInfo: { ...prev?.debugInfo, eventsURL: prev?.debugInfo?.eventsURL ?? '' },
    bootArtifacts: { ...EMPTY_BOOT_ARTIFACTS, ...prev?.bootArtifacts },
  };
  const backend = { ...prevBackend };

  // Which signed URLs to write, and whether the image itself changed.
  let wanted: Partial<Record<Field, Signable>>;
  let imageChanged = false;
  const events: Signable = (token) => eventsUrl(urls.serviceBaseUrl, { infraEnvId: id }, () => token);
  switch (outcome.kind) {
    case 'image': {
      const { image } = outcome;
      imageChanged = prevBackend.imageDigest !== image.digest || !prev?.createdTime;
      wanted = { ...imageFields(id, image, urls), events };
      backend.imageDigest = image.digest;
      if (imageChanged) status.createdTime = metaTime(now);
      const artifact = {
        openshiftVersion: image.openshiftVersion,
        cpuArchitecture: image.cpuArchitecture,
        insecureHttp: image.insecureHttp,
      };
      status.bootArtifacts = {
        ...status.bootArtifacts!,
        kernel: bootArtifactUrl(urls.imageServiceBaseUrl, 'kernel', artifact),
        rootfs: bootArtifactUrl(urls.imageServiceBaseUrl, 'rootfs', artifact),
      };
      status.conditions = setImageCreatedCondition(
        prev?.conditions,
        { kind: 'available', imageServiceEnabled: true },
        now,
      );
      break;
    }
    case 'problem': {
      const { problem } = outcome;
      status.conditions = setImageCreatedCondition(prev?.conditions, imageCreatedOutcome(problem), now);
      if (problem.kind === 'missing-cluster-deployment') {
        // Upstream only sets the condition here: the last image's URLs stay (kept signed).
        wanted = Object.fromEntries(Object.entries(previous).map(([f, url]) => [f, resign(url)])) as Partial<
          Record<Field, Signable>
        >;
        wanted.events = events;
      } else {
        // No image: its URLs and createdTime go (upstream clears isoDownloadURL and createdTime;
        // the boot artifacts of an image that no longer exists go with them).
        wanted = { events };
        delete status.isoDownloadURL;
        delete status.createdTime;
        delete backend.imageDigest;
        status.bootArtifacts = { ...EMPTY_BOOT_ARTIFACTS };
      }
      break;
    }
    case 'disabled': {
      wanted = { events };
      delete status.isoDownloadURL;
      delete status.createdTime;
      delete backend.imageDigest;
      status.bootArtifacts = { ...EMPTY_BOOT_ARTIFACTS };
      if (!outcome.problem) {
        status.conditions = setImageCreatedCondition(
          prev?.conditions,
          { kind: 'available', imageServiceEnabled: false },
          now,
        );
      }
      break;
    }
  }

  const fields = Object.keys(wanted) as Field[];
  const prevExpiry = prevBackend.tokenExpiresAt ? new Date(prevBackend.tokenExpiresAt) : undefined;
  const retargeted = fields.some((f) => {
    const before = previous[f];
    return !before || withoutToken(before) !== withoutToken(wanted[f]!(PLACEHOLDER));
  });
  const reissue =
    imageChanged ||
    retargeted ||
    (prevExpiry !== undefined && Number.isNaN(prevExpiry.getTime())) ||
    issuer.needsReissue(prevExpiry, now);

  const written: Partial<Record<Field, string>> = {};
  let expiresAt = prevExpiry;
  if (reissue) {
    const tokens = new Map<UrlKind, string>();
    for (const f of fields) {
      const kind = FIELD_KIND[f];
      let token = tokens.get(kind);
      if (token === undefined) {
        const issued = issuer.issueUrlToken(kind, subject, now);
        token = issued.token;
        expiresAt = issued.expiresAt;
        tokens.set(kind, token);
      }
      written[f] = wanted[f]!(token);
    }
    backend.tokenExpiresAt = expiresAt?.toISOString();
  } else {
    for (const f of fields) written[f] = previous[f]!;
  }

  if (written.iso !== undefined) status.isoDownloadURL = written.iso;
  status.bootArtifacts = {
    ...status.bootArtifacts!,
    initrd: written.initrd ?? '',
    ipxeScript: written.ipxeScript ?? '',
    discoveryIgnitionURL: written.discoveryIgnition ?? '',
  };
  const debugInfo = { ...status.debugInfo!, eventsURL: written.events ?? '' };
  if (written.staticNetwork !== undefined) debugInfo.staticNetworkDownloadURL = written.staticNetwork;
  else delete debugInfo.staticNetworkDownloadURL;
  status.debugInfo = debugInfo;
  if (Object.keys(backend).length > 0) status.backend = backend;
  else delete status.backend;

  const result: DesiredStatus = { status };
  if (expiresAt && fields.length > 0) {
    result.reissueInMs = Math.max(1000, issuer.reissueAt(expiresAt).getTime() - now.getTime());
  }
  return result;
}
