// URLs the InfraEnv status carries (kubeapi.md §3.11, agent-api.md §9.7). `<S>` is the service
// base URL, `<I>` the image service base URL. Signed URLs carry `api_key` (query) or, for the ISO,
// the token in the path (`/byapikey/<token>/…`), as upstream's local authentication does.
import { goEncodeQuery } from '../../auth/index.ts';
import { imageServiceUrl } from '../../images/pxe.ts';

const API_V2 = '/api/assisted-install/v2';

function join(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

/** `minimal-iso` → `minimal.iso`, anything else → `full.iso`. */
export function isoFileName(imageType: string): string {
  return imageType === 'minimal-iso' ? 'minimal.iso' : 'full.iso';
}

/** `<I>/byapikey/<token>/<version>/<arch>/<minimal|full>.iso`. */
export function isoDownloadUrl(
  imageServiceBaseUrl: string,
  p: { token: string; openshiftVersion: string; cpuArchitecture: string; imageType: string },
): string {
  const parts = [p.token, p.openshiftVersion, p.cpuArchitecture, isoFileName(p.imageType)].map(
    encodeURIComponent,
  );
  return join(imageServiceBaseUrl, `byapikey/${parts.join('/')}`);
}

/** `<I>/boot-artifacts/<kernel|rootfs>?arch=<a>&version=<v>` (never signed). */
export function bootArtifactUrl(
  imageServiceBaseUrl: string,
  artifact: 'kernel' | 'rootfs',
  p: { openshiftVersion: string; cpuArchitecture: string; insecureHttp?: boolean },
): string {
  return imageServiceUrl(
    imageServiceBaseUrl,
    `boot-artifacts/${artifact}`,
    { arch: p.cpuArchitecture, version: p.openshiftVersion },
    p.insecureHttp,
  );
}

/** `<I>/images/<id>/pxe-initrd?api_key=…&arch=<a>&version=<v>`. */
export function pxeInitrdUrl(
  imageServiceBaseUrl: string,
  p: {
    infraEnvId: string;
    token: string;
    openshiftVersion: string;
    cpuArchitecture: string;
    insecureHttp?: boolean;
  },
): string {
  return imageServiceUrl(
    imageServiceBaseUrl,
    `images/${encodeURIComponent(p.infraEnvId)}/pxe-initrd`,
    { api_key: p.token, arch: p.cpuArchitecture, version: p.openshiftVersion },
    p.insecureHttp,
  );
}

export type InfraEnvFile = 'discovery.ign' | 'ipxe-script' | 'static-network-config';

/**
 * `<S>/api/assisted-install/v2/infra-envs/<id>/downloads/files?file_name=…` (+ extra query,
 * `api_key` when a token is given), query in Go's sorted order.
 */
export function infraEnvFileUrl(
  serviceBaseUrl: string,
  p: {
    infraEnvId: string;
    fileName: InfraEnvFile;
    token?: string | undefined;
    extra?: Record<string, string>;
    insecureHttp?: boolean;
  },
): string {
  const params = new URLSearchParams({ file_name: p.fileName, ...p.extra });
  if (p.token !== undefined) params.set('api_key', p.token);
  const u = new URL(
    join(serviceBaseUrl, `${API_V2}/infra-envs/${encodeURIComponent(p.infraEnvId)}/downloads/files`),
  );
  if (p.insecureHttp) u.protocol = 'http:';
  return `${u.toString()}?${goEncodeQuery(params)}`;
}

/**
 * The URL without its credential (`api_key` query parameter or `/byapikey/<token>/` path part),
 * so two signings of the same target compare equal.
 */
export function withoutToken(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return url;
  }
  u.searchParams.delete('api_key');
  u.pathname = u.pathname.replace(/\/byapikey\/[^/]+\//, '/byapikey/-/');
  return u.toString();
}
