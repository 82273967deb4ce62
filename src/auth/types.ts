// Shapes shared by local authentication and the router: who a credential speaks for, what a
// request opens, what the authenticator answers, and the hooks it needs from the rest of the
// operator (record lookups, failure events).

/** The record a token was issued for. */
export interface TokenSubject {
  readonly kind: 'infra-env' | 'cluster';
  readonly id: string;
  /**
   * The token-generation claim (tokens.ts tokenGenerationClaim). When issuing, LocalAuth stamps the
   * record's current one; when verifying, it is what the token carries.
   */
  readonly generation?: string;
}

/**
 * Which download URL a signed `api_key` opens. A token of one kind opens nothing else, so a URL
 * copied out of a status field cannot be replayed elsewhere.
 */
export const URL_KINDS = [
  /** Image service ISO (`/byapikey/<token>/…`). */
  'iso',
  /** Image service PXE initrd (`/images/<id>/pxe-initrd?api_key=…`). */
  'pxe-initrd',
  /** `…/infra-envs/<id>/downloads/files` (discovery.ign, ipxe-script, static-network-config). */
  'infra-env-files',
  /** `…/v2/events?…` (debugInfo.eventsURL). */
  'events',
  /** `…/v2/clusters/<id>/logs` (debugInfo.logsURL). */
  'cluster-logs',
] as const;
export type UrlKind = (typeof URL_KINDS)[number];

export type AuthScheme = 'agent' | 'url';

/** An authenticated caller. */
export interface Principal {
  /** `agent` = X-Secret-Key header, `url` = `api_key` query parameter. */
  readonly scheme: AuthScheme;
  readonly subject: TokenSubject;
  /** For `url` credentials: the URL kind the token was signed for. */
  readonly urlKind?: UrlKind;
  /** For `url` credentials: when the token stops working. */
  readonly expiresAt?: Date;
}

/** The records a request reads or changes, taken from its path, query or body. */
export interface AccessTarget {
  readonly infraEnvId?: string;
  readonly clusterId?: string;
  readonly hostId?: string;
}

/**
 * Record lookups authentication needs (implemented on the Kubernetes caches). Both may reject
 * when the answer cannot be known yet (e.g. caches not synced): the request then gets 503, which
 * agents retry, instead of a 401 that would stop them for good.
 */
export interface AccessResolver {
  /** Whether the infra-env or cluster a token names exists. */
  exists(subject: TokenSubject): Promise<boolean>;
  /**
   * Whether every record named in `target` belongs to `subject`. Asked only when the target is not
   * trivially the subject itself. Meaning: for an infra-env subject, a cluster is covered while one
   * of the infra-env's hosts is bound to it and still needs it (a day-1 cluster not yet installed,
   * a day-2 host not yet joined) — a clusterRef alone opens nothing — and a host (of any infra-env)
   * is covered when it is in the subject infra-env or in such a cluster: the bootstrap's installer
   * and the in-cluster controller use one infra-env's token to report progress of every host of
   * the cluster. For a cluster subject, a host or infra-env is covered when it belongs to that
   * cluster.
   */
  covers(subject: TokenSubject, target: AccessTarget): Promise<boolean>;
  /**
   * The record's token-generation annotation value (undefined: never revoked, or unknown). Tokens
   * are issued with its digest and refused (401) once it changes. Optional: without it no token is
   * ever revoked.
   */
  generation?(subject: TokenSubject): string | undefined;
}

export interface AuthFailureEvent {
  readonly time: Date;
  readonly status: AuthFailureStatus;
  readonly reason: string;
  /** The scheme that was tried, or `none` when the request carried no credential. */
  readonly scheme: AuthScheme | 'none';
  readonly method: string;
  /** Request path without the query (credentials never appear in events). */
  readonly path: string;
  readonly remoteAddress?: string;
  /** Set when the token itself was valid but did not open the target. */
  readonly subject?: TokenSubject;
  readonly target: AccessTarget;
}

/** Receives one event per refused request (for Kubernetes Events, metrics, audit logs). */
export interface EventSink {
  authFailure(event: AuthFailureEvent): void;
}

/** 401/403 as upstream; 404 for an `api_key` of another resource (§7.3); 503 when records cannot be checked. */
export type AuthFailureStatus = 401 | 403 | 404 | 503;

export type AuthResult =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly status: AuthFailureStatus; readonly reason: string };

/** What the router knows about a request when it authenticates it. */
export interface AuthRequest {
  readonly method: string;
  /** Path without the query. */
  readonly path: string;
  readonly remoteAddress?: string;
  /** `X-Secret-Key` header value; empty counts as absent (the agent sends "" when it has no token). */
  readonly agentToken?: string;
  /** `api_key` query parameter. */
  readonly urlToken?: string;
  /** Schemes the route accepts: agent tokens and/or download tokens of the listed kinds. */
  readonly accepts: { readonly agent?: boolean; readonly url?: readonly UrlKind[] };
  readonly target: AccessTarget;
}

/** The router's view of authentication (local mode implements it; a test or "none" mode may too). */
export interface Authenticator {
  authenticate(request: AuthRequest): Promise<AuthResult>;
  /** Scope check for targets only known after the body is read (e.g. POST /v2/events). */
  authorize(principal: Principal, target: AccessTarget, request: AuthRequest): Promise<AuthResult>;
}
