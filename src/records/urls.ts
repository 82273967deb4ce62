// URLs written into status (kubeapi.md §3.11). Query parameters are encoded like Go's
// url.Values.Encode (keys sorted, QueryEscape); "+sig" adds `api_key=<token>` (only with local
// authentication), encoded in sorted position like every other parameter, as upstream re-encodes
// the query after adding it.

const API_BASE = '/api/assisted-install/v2';

/** Which key signs a URL: the cluster's or the infra-env's. */
export type SigningKey = { kind: 'cluster'; id: string } | { kind: 'infra-env'; id: string };

/** Returns the token for `api_key`. Absent signer: no authentication, no `api_key`. */
export type UrlSigner = (key: SigningKey) => string;

/** Go's url.QueryEscape: everything but A-Z a-z 0-9 - _ . ~ is %-escaped, a space becomes "+". */
export function goQueryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** Go's url.Values.Encode for single-valued parameters. */
export function encodeQuery(params: Record<string, string>): string {
  return Object.keys(params)
    .sort()
    .map((k) => `${goQueryEscape(k)}=${goQueryEscape(params[k] as string)}`)
    .join('&');
}

function build(
  serviceBaseUrl: string,
  path: string,
  params: Record<string, string>,
  key: SigningKey,
  signer: UrlSigner | undefined,
): string {
  const all = signer ? { ...params, api_key: signer(key) } : params;
  const query = encodeQuery(all);
  return `${serviceBaseUrl.replace(/\/+$/, '')}${API_BASE}${path}${query ? `?${query}` : ''}`;
}

/** What an events URL lists: a cluster's, a host's or an infra-env's events. */
export type EventsTarget =
  | { clusterId: string }
  | { hostId: string; infraEnvId: string }
  | { infraEnvId: string; hostId?: undefined };

/**
 * `<S>/api/assisted-install/v2/events?cluster_id=…` (signed with the cluster key),
 * `…?host_id=<agent>` (signed with the infra-env key) or `…?infra_env_id=…`.
 */
export function eventsUrl(serviceBaseUrl: string, target: EventsTarget, signer?: UrlSigner): string {
  if ('clusterId' in target) {
    return build(
      serviceBaseUrl,
      '/events',
      { cluster_id: target.clusterId },
      { kind: 'cluster', id: target.clusterId },
      signer,
    );
  }
  const key: SigningKey = { kind: 'infra-env', id: target.infraEnvId };
  if (target.hostId !== undefined) {
    return build(serviceBaseUrl, '/events', { host_id: target.hostId }, key, signer);
  }
  return build(serviceBaseUrl, '/events', { infra_env_id: target.infraEnvId }, key, signer);
}

/**
 * `<S>/api/assisted-install/v2/clusters/<id>/logs`, or for one host
 * `…/logs?host_id=<agent>&logs_type=host`; signed with the cluster key.
 */
export function logsUrl(
  serviceBaseUrl: string,
  target: { clusterId: string; hostId?: string },
  signer?: UrlSigner,
): string {
  const params: Record<string, string> =
    target.hostId !== undefined ? { host_id: target.hostId, logs_type: 'host' } : {};
  return build(
    serviceBaseUrl,
    `/clusters/${encodeURIComponent(target.clusterId)}/logs`,
    params,
    { kind: 'cluster', id: target.clusterId },
    signer,
  );
}

/**
 * Whether two status URLs open the same thing, ignoring the `api_key` token. Signatures need not
 * be deterministic, so a URL already in status is kept while it still names the same target.
 */
export function sameUrlTarget(a: string, b: string): boolean {
  return withoutApiKey(a) === withoutApiKey(b);
}

function withoutApiKey(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const kept = url
    .slice(q + 1)
    .split('&')
    .filter((p) => !p.startsWith('api_key='));
  return kept.length > 0 ? `${url.slice(0, q)}?${kept.join('&')}` : url.slice(0, q);
}

/** The URL to write: the one already in status when it names the same target, else `next`. */
export function keepSignedUrl(previous: string | undefined, next: string): string {
  return previous && sameUrlTarget(previous, next) ? previous : next;
}
