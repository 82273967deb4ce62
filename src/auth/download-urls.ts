// Signed download URLs written into status (kubeapi.md §3.11): the `api_key` query parameter is
// added or replaced and the whole query is re-encoded with sorted keys, as Go's
// url.Values.Encode does, so URLs compare equal across reconciles.

/** Go's url.QueryEscape: only A–Z a–z 0–9 - _ . ~ stay, space becomes '+'. */
export function goQueryEscape(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replaceAll('%20', '+');
}

/** Go's url.Values.Encode: keys sorted, values of one key in their original order. */
export function goEncodeQuery(params: URLSearchParams): string {
  const byKey = new Map<string, string[]>();
  for (const [k, v] of params) {
    const values = byKey.get(k);
    if (values) values.push(v);
    else byKey.set(k, [v]);
  }
  return [...byKey.keys()]
    .sort()
    .flatMap((k) => byKey.get(k)!.map((v) => `${goQueryEscape(k)}=${goQueryEscape(v)}`))
    .join('&');
}

/** `url` with `api_key` set to `token` and its query in Go's canonical order. */
export function withApiKey(url: string, token: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('api_key', token);
  parsed.search = goEncodeQuery(parsed.searchParams);
  return parsed.toString();
}

/** The `api_key` of a URL, if any. */
export function apiKeyOf(url: string): string | undefined {
  try {
    return new URL(url).searchParams.get('api_key') ?? undefined;
  } catch {
    return undefined;
  }
}

/** Default lifetime of a download URL token. */
export const DEFAULT_URL_TOKEN_TTL_SECONDS = 7 * 24 * 3600;
/** Default head start: re-issue when this little time is left. */
export const DEFAULT_REISSUE_BEFORE_SECONDS = 2 * 24 * 3600;

/**
 * Whether a URL expiring at `expiresAt` should be re-issued now. An unknown expiry (no token,
 * a token of another key, an upstream token without `exp`) always needs re-issuing.
 */
export function needsReissue(
  expiresAt: Date | undefined,
  now: Date,
  reissueBeforeSeconds: number = DEFAULT_REISSUE_BEFORE_SECONDS,
): boolean {
  if (!expiresAt) return true;
  return expiresAt.getTime() - now.getTime() <= reissueBeforeSeconds * 1000;
}

/** A request path fit for logs and events: an image-service path token becomes `<token>`. */
export function redactCredentialPath(path: string): string {
  return path.replace(/\/byapikey\/[^/]+/, '/byapikey/<token>');
}
