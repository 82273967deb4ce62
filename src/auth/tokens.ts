// Token claims. Agent tokens keep upstream's exact payload ({"infra_env_id": id} or
// {"cluster_id": id}, no expiry: they are baked into discovery images). Download URL tokens add
// the URL kind they open and an expiry, so the two can never stand in for each other. Once an
// InfraEnv's tokens have been revoked (its token-generation annotation set or changed), its tokens
// also carry a `token_generation` claim, a digest of the annotation's value; a token whose claim
// differs from the InfraEnv's current one is refused.

import { createHash, type KeyObject } from 'node:crypto';
import { type JwtClaims, signJwt, verifyJwt } from './jwt.ts';
import { type TokenSubject, URL_KINDS, type UrlKind } from './types.ts';

export const INFRA_ENV_CLAIM = 'infra_env_id';
export const CLUSTER_CLAIM = 'cluster_id';
export const URL_KIND_CLAIM = 'url_kind';
export const TOKEN_GENERATION_CLAIM = 'token_generation';

/** The claim for an InfraEnv's token-generation annotation value (none when unset or empty). */
export function tokenGenerationClaim(annotation: string | undefined): string | undefined {
  if (!annotation) return undefined;
  return createHash('sha256').update(annotation).digest('base64url').slice(0, 16);
}

export type TokenCheck =
  | { ok: true; subject: TokenSubject; urlKind?: UrlKind; expiresAt?: Date }
  | { ok: false; reason: string };

function subjectClaims(subject: TokenSubject): JwtClaims {
  const claims: JwtClaims =
    subject.kind === 'infra-env' ? { [INFRA_ENV_CLAIM]: subject.id } : { [CLUSTER_CLAIM]: subject.id };
  if (subject.generation !== undefined) claims[TOKEN_GENERATION_CLAIM] = subject.generation;
  return claims;
}

export function signAgentToken(subject: TokenSubject, key: KeyObject): string {
  return signJwt(subjectClaims(subject), key);
}

export function signUrlToken(
  subject: TokenSubject,
  kind: UrlKind,
  expiresAt: Date,
  key: KeyObject,
  issuedAt: Date,
): string {
  return signJwt(
    {
      ...subjectClaims(subject),
      [URL_KIND_CLAIM]: kind,
      iat: Math.floor(issuedAt.getTime() / 1000),
      exp: Math.floor(expiresAt.getTime() / 1000),
    },
    key,
  );
}

/** infra_env_id is preferred over cluster_id, as upstream's local authenticator does. */
export function subjectOf(claims: JwtClaims): TokenSubject | undefined {
  const generation = claims[TOKEN_GENERATION_CLAIM];
  if (generation !== undefined && (typeof generation !== 'string' || generation === '')) return undefined;
  const extra = generation !== undefined ? { generation } : {};
  const infraEnvId = claims[INFRA_ENV_CLAIM];
  if (typeof infraEnvId === 'string' && infraEnvId !== '')
    return { kind: 'infra-env', id: infraEnvId, ...extra };
  const clusterId = claims[CLUSTER_CLAIM];
  if (typeof clusterId === 'string' && clusterId !== '') return { kind: 'cluster', id: clusterId, ...extra };
  return undefined;
}

/** Signature, expiry and claim shape of a token; 401 texts as upstream (§7.3). */
export function checkToken(token: string, key: KeyObject, now: Date): TokenCheck {
  const verified = verifyJwt(token, key, now);
  if (!verified.ok) return { ok: false, reason: `Failed to parse token: ${verified.error}\n` };
  return checkClaims(verified.claims);
}

/** The claim-shape half of checkToken, for claims whose signature and expiry are known good. */
export function checkClaims(claims: JwtClaims): TokenCheck {
  const subject = subjectOf(claims);
  if (!subject) return { ok: false, reason: 'claims are incorrectly formatted' };
  const kind = claims[URL_KIND_CLAIM];
  if (kind === undefined) return { ok: true, subject };
  if (typeof kind !== 'string' || !(URL_KINDS as readonly string[]).includes(kind)) {
    return { ok: false, reason: 'claims are incorrectly formatted' };
  }
  const exp = claims.exp;
  // A URL token without exp would live forever: refuse it rather than trust it.
  if (typeof exp !== 'number') return { ok: false, reason: 'claims are incorrectly formatted' };
  return { ok: true, subject, urlKind: kind as UrlKind, expiresAt: new Date(exp * 1000) };
}

/** Reads claims without verifying (for deciding whether to re-issue a URL we signed earlier). */
export function peekClaims(token: string): JwtClaims | undefined {
  const part = token.split('.')[1];
  if (part === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as JwtClaims)
      : undefined;
  } catch {
    return undefined;
  }
}
