// Local authentication (agent-api.md §7.2, §7.3) with the operator's tightening: tokens are
// checked against what they open (spec README). Agent tokens (X-Secret-Key) are bound to their
// infra-env and the clusters its hosts are being installed in (AccessResolver.covers; which cluster
// files they may fetch: host-downloads.ts); download tokens (`api_key`) are bound to one record and
// one URL kind, and expire.

import {
  apiKeyOf,
  DEFAULT_REISSUE_BEFORE_SECONDS,
  DEFAULT_URL_TOKEN_TTL_SECONDS,
  needsReissue,
  withApiKey,
} from './download-urls.ts';
import { type KeyStore, loadOrCreateKeys, type SigningKeys } from './keys.ts';
import {
  checkClaims,
  checkToken,
  peekClaims,
  signAgentToken,
  signUrlToken,
  type TokenCheck,
  tokenGenerationClaim,
} from './tokens.ts';
import type {
  AccessResolver,
  AccessTarget,
  Authenticator,
  AuthFailureStatus,
  AuthRequest,
  AuthResult,
  AuthScheme,
  EventSink,
  Principal,
  TokenSubject,
  UrlKind,
} from './types.ts';

export interface LocalAuthOptions {
  keyStore: KeyStore;
  resolver: AccessResolver;
  events: EventSink;
  /** Lifetime of download URL tokens (default 7 days). */
  urlTokenTtlSeconds?: number;
  /** Re-issue download URLs when this little time is left (default 2 days). */
  reissueBeforeSeconds?: number;
  now?: () => Date;
}

/** Good tokens whose signature check is remembered (about three per host; cleared whole when full). */
const VERIFIED_TOKENS_MAX = 50_000;

export const UNAUTHENTICATED = 'unauthenticated for invalid credentials';
export const OBJECT_NOT_FOUND = 'Object Not Found';

/** A signed download URL and when it stops working. */
export interface IssuedUrl {
  url: string;
  expiresAt: Date;
}

interface Denial {
  status: AuthFailureStatus;
  /** Body message. */
  reason: string;
  /** Event text when it should say more than the body does. */
  detail?: string;
  scheme: AuthScheme | 'none';
  subject?: TokenSubject;
}

const sameId = (a: string, b: string) => a === b || a.toLowerCase() === b.toLowerCase();

function describe(target: AccessTarget): string {
  const parts: string[] = [];
  if (target.infraEnvId) parts.push(`infraEnv ${target.infraEnvId}`);
  if (target.clusterId) parts.push(`cluster ${target.clusterId}`);
  if (target.hostId) parts.push(`host ${target.hostId}`);
  return parts.join(', ') || 'this resource';
}

function subjectName(subject: TokenSubject): string {
  return subject.kind === 'infra-env' ? `infraEnv ${subject.id}` : `cluster ${subject.id}`;
}

export class LocalAuth implements Authenticator {
  private readonly keys: SigningKeys;
  private readonly verifiedTokens = new Map<string, { result: TokenCheck; expMs?: number }>();
  private readonly resolver: AccessResolver;
  private readonly events: EventSink;
  private readonly ttlSeconds: number;
  private readonly reissueBeforeSeconds: number;
  private readonly clock: () => Date;

  private constructor(keys: SigningKeys, options: LocalAuthOptions) {
    this.keys = keys;
    this.resolver = options.resolver;
    this.events = options.events;
    this.ttlSeconds = options.urlTokenTtlSeconds ?? DEFAULT_URL_TOKEN_TTL_SECONDS;
    this.reissueBeforeSeconds = options.reissueBeforeSeconds ?? DEFAULT_REISSUE_BEFORE_SECONDS;
    this.clock = options.now ?? (() => new Date());
    if (this.reissueBeforeSeconds >= this.ttlSeconds) {
      throw new Error('reissueBeforeSeconds must be shorter than urlTokenTtlSeconds');
    }
  }

  /** Loads the key pair from the store (creating it on first start). */
  static async create(options: LocalAuthOptions): Promise<LocalAuth> {
    return new LocalAuth(await loadOrCreateKeys(options.keyStore), options);
  }

  /** The PEM pair in use (e.g. to mount as EC_PUBLIC_KEY_PEM elsewhere). */
  get keyPairPem(): { privateKeyPem: string; publicKeyPem: string } {
    return { ...this.keys.pem };
  }

  /** The X-Secret-Key token written into an infra-env's discovery ignition (expires only when revoked). */
  issueAgentToken(subject: TokenSubject): string {
    return this.knownGood(signAgentToken(this.stamped(subject), this.keys.privateKey));
  }

  /** The subject with the record's current token generation (what a fresh token must carry). */
  private stamped(subject: TokenSubject): TokenSubject {
    const { generation: _ignored, ...plain } = subject;
    const generation = this.currentGeneration(plain);
    return generation === undefined ? plain : { ...plain, generation };
  }

  private currentGeneration(subject: TokenSubject): string | undefined {
    return tokenGenerationClaim(this.resolver.generation?.(subject));
  }

  /** A download token for one record and one URL kind (for path-embedded tokens such as /byapikey/). */
  issueUrlToken(
    kind: UrlKind,
    subject: TokenSubject,
    now: Date = this.clock(),
  ): { token: string; expiresAt: Date } {
    const expiresAt = new Date(Math.floor(now.getTime() / 1000) * 1000 + this.ttlSeconds * 1000);
    return {
      token: this.knownGood(signUrlToken(this.stamped(subject), kind, expiresAt, this.keys.privateKey, now)),
      expiresAt,
    };
  }

  /** `url` with a fresh `api_key` for `kind` and `subject`, query re-encoded in sorted order. */
  issueDownloadUrl(url: string, kind: UrlKind, subject: TokenSubject, now: Date = this.clock()): IssuedUrl {
    const { token, expiresAt } = this.issueUrlToken(kind, subject, now);
    return { url: withApiKey(url, token), expiresAt };
  }

  /**
   * When a URL we signed stops working; undefined when it carries no token of ours (missing,
   * forged, another key's, or an upstream token without expiry) — such URLs need re-issuing.
   */
  urlExpiry(url: string, now: Date = this.clock()): Date | undefined {
    const token = apiKeyOf(url);
    return token === undefined ? undefined : this.tokenExpiry(token, now);
  }

  /** Expiry of a path-embedded download token (see urlExpiry). */
  tokenExpiry(token: string, now: Date = this.clock()): Date | undefined {
    const checked = this.checkedUrlToken(token, now);
    if (!checked) return undefined;
    // A revoked token has no useful expiry: the URL needs re-issuing now.
    let current: string | undefined;
    try {
      current = this.currentGeneration(checked.subject);
    } catch {
      return checked.expiresAt;
    }
    return checked.subject.generation === current ? checked.expiresAt : undefined;
  }

  /**
   * A URL token's verified subject and expiry (undefined: not one of ours, or expired).
   */
  private checkedUrlToken(token: string, now: Date): { subject: TokenSubject; expiresAt?: Date } | undefined {
    const checked = this.check(token, now);
    return checked.ok ? checked : undefined;
  }

  /**
   * checkToken with the signature checks of good tokens memoised by token: every poll of every
   * host and every status projection of a stored URL checked an ECDSA signature again (issue 16:
   * the largest CPU cost of a registration wave). Expiry is still compared with `now`, and an
   * expired or bad token is checked afresh, so the answer and its reason are checkToken's.
   */
  private check(token: string, now: Date): TokenCheck {
    const known = this.verifiedTokens.get(token);
    if (known && (known.expMs === undefined || known.expMs > now.getTime())) return known.result;
    const result = checkToken(token, this.keys.publicKey, now);
    if (result.ok) this.remember(token, result, peekClaims(token)?.exp);
    return result;
  }

  /**
   * A token this process has just signed needs no signature check: remembered as checkToken would
   * answer for it, the status projection that reads back the expiry of a URL it has just signed
   * (every new host's events URL) verifies no ECDSA signature.
   */
  private knownGood(token: string): string {
    const claims = peekClaims(token);
    const result = claims && checkClaims(claims);
    if (result?.ok) this.remember(token, result, claims?.exp);
    return token;
  }

  /** `exp`: the JWT's own claim (any token kind), which checkToken compares with `now`. */
  private remember(token: string, result: TokenCheck, exp: unknown): void {
    if (this.verifiedTokens.size >= VERIFIED_TOKENS_MAX) this.verifiedTokens.clear();
    this.verifiedTokens.set(token, { result, ...(typeof exp === 'number' ? { expMs: exp * 1000 } : {}) });
  }

  /** Whether a URL expiring at `expiresAt` should be re-issued now (or never had a known expiry). */
  needsReissue(expiresAt: Date | undefined, now: Date = this.clock()): boolean {
    return needsReissue(expiresAt, now, this.reissueBeforeSeconds);
  }

  /** When to look again: the moment a URL expiring at `expiresAt` becomes due for re-issue. */
  reissueAt(expiresAt: Date): Date {
    return new Date(expiresAt.getTime() - this.reissueBeforeSeconds * 1000);
  }

  async authenticate(request: AuthRequest): Promise<AuthResult> {
    const agentToken = request.agentToken || undefined;
    const urlToken = request.urlToken || undefined;
    const urlKinds = request.accepts.url ?? [];
    let scheme: AuthScheme;
    let token: string;
    if (agentToken !== undefined && request.accepts.agent) {
      scheme = 'agent';
      token = agentToken;
    } else if (urlToken !== undefined && urlKinds.length > 0) {
      scheme = 'url';
      token = urlToken;
    } else {
      return this.deny(request, { status: 401, reason: UNAUTHENTICATED, scheme: 'none' });
    }
    const identified = await this.identify(token, scheme, urlKinds, request);
    if (!identified.ok) return identified;
    return this.authorize(identified.principal, request.target, request);
  }

  /**
   * For tokens carried in the path (image service `/byapikey/<token>/…`): the token opens its own
   * subject only, so no target is compared.
   */
  async authenticatePathToken(
    token: string,
    kinds: readonly UrlKind[],
    request: Pick<AuthRequest, 'method' | 'path' | 'remoteAddress'>,
  ): Promise<AuthResult> {
    return this.identify(token, 'url', kinds, { ...request, accepts: { url: kinds }, target: {} });
  }

  async authorize(principal: Principal, target: AccessTarget, request: AuthRequest): Promise<AuthResult> {
    const { subject, scheme } = principal;
    const refuse = (detail: string): AuthResult =>
      this.deny(
        { ...request, target },
        scheme === 'agent'
          ? { status: 403, reason: detail, scheme, subject }
          : { status: 404, reason: OBJECT_NOT_FOUND, detail, scheme, subject },
      );
    const own = subject.kind === 'infra-env' ? target.infraEnvId : target.clusterId;
    const other = subject.kind === 'infra-env' ? target.clusterId : target.infraEnvId;
    // Made only for a refusal: every host poll passes here.
    const notCovered = () => `token of ${subjectName(subject)} is not authorized for ${describe(target)}`;

    if (own === undefined && other === undefined && target.hostId === undefined) {
      // Nothing named: agent routes without a record (none today); a download token must name one.
      return scheme === 'agent' ? { ok: true, principal } : refuse(`${notCovered()}: no record named`);
    }
    if (own !== undefined && sameId(own, subject.id) && other === undefined) return { ok: true, principal };
    // Another record of the subject's own kind, not reached through a host: never covered.
    if (own !== undefined && !sameId(own, subject.id) && target.hostId === undefined && other === undefined) {
      return refuse(notCovered());
    }
    let covered: boolean;
    try {
      covered = await this.resolver.covers(subject, target);
    } catch (err) {
      return this.unavailable(request, scheme, err, subject);
    }
    return covered ? { ok: true, principal } : refuse(notCovered());
  }

  private async identify(
    token: string,
    scheme: AuthScheme,
    urlKinds: readonly UrlKind[],
    request: AuthRequest,
  ): Promise<AuthResult> {
    const checked = this.check(token, this.clock());
    if (!checked.ok) return this.deny(request, { status: 401, reason: checked.reason, scheme });
    const { subject, urlKind } = checked;
    if (scheme === 'agent' && urlKind !== undefined) {
      return this.deny(request, {
        status: 401,
        reason: 'a download URL token is not an agent token',
        scheme,
        subject,
      });
    }
    if (scheme === 'url') {
      if (urlKind === undefined) {
        return this.deny(request, {
          status: 401,
          reason: 'api_key is not a download URL token',
          scheme,
          subject,
        });
      }
      if (!urlKinds.includes(urlKind)) {
        return this.deny(request, {
          status: 404,
          reason: OBJECT_NOT_FOUND,
          detail: `api_key for ${urlKind} URLs does not open this URL`,
          scheme,
          subject,
        });
      }
    }
    let exists: boolean;
    try {
      exists = await this.resolver.exists(subject);
    } catch (err) {
      return this.unavailable(request, scheme, err, subject);
    }
    if (!exists) {
      const reason =
        subject.kind === 'infra-env'
          ? `infraEnv ${subject.id} does not exist`
          : `Cluster ${subject.id} does not exist`;
      return this.deny(request, { status: 401, reason, scheme, subject });
    }
    let current: string | undefined;
    try {
      current = this.currentGeneration(subject);
    } catch (err) {
      return this.unavailable(request, scheme, err, subject);
    }
    if (subject.generation !== current) {
      return this.deny(request, {
        status: 401,
        reason: `token of ${subjectName(subject)} has been revoked`,
        scheme,
        subject,
      });
    }
    const principal: Principal = {
      scheme,
      subject,
      ...(urlKind !== undefined ? { urlKind } : {}),
      ...(checked.expiresAt ? { expiresAt: checked.expiresAt } : {}),
    };
    return { ok: true, principal };
  }

  private unavailable(
    request: AuthRequest,
    scheme: AuthScheme,
    err: unknown,
    subject: TokenSubject,
  ): AuthResult {
    return this.deny(request, {
      status: 503,
      reason: 'credentials cannot be checked right now, try again later',
      detail: `credential lookup failed: ${err instanceof Error ? err.message : String(err)}`,
      scheme,
      subject,
    });
  }

  private deny(request: AuthRequest, denial: Denial): AuthResult {
    try {
      this.events.authFailure({
        time: this.clock(),
        status: denial.status,
        reason: denial.detail ?? denial.reason,
        scheme: denial.scheme,
        method: request.method,
        path: request.path,
        ...(request.remoteAddress !== undefined ? { remoteAddress: request.remoteAddress } : {}),
        ...(denial.subject ? { subject: denial.subject } : {}),
        target: request.target,
      });
    } catch {
      // A failing sink must not turn a refusal into a crash (or an acceptance).
    }
    return { ok: false, status: denial.status, reason: denial.reason };
  }
}
