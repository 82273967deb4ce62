// Compact JWS with ES256 (agent-api.md §7.2): header {"alg":"ES256","typ":"JWT"}, base64url parts,
// signature = raw 64-byte R‖S (JOSE form), never DER. Only ES256 is accepted when verifying, so a
// token cannot pick a weaker algorithm ("none", HS256 with the public key as secret).

import { type KeyObject, sign, verify } from 'node:crypto';

const HEADER = { alg: 'ES256', typ: 'JWT' } as const;
const ENCODED_HEADER = base64url(JSON.stringify(HEADER));

export type JwtClaims = Record<string, unknown>;

export type JwtVerification = { ok: true; claims: JwtClaims } | { ok: false; error: string };

export function base64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

/** Signs `claims` (serialised in the order given) with a P-256 private key. */
export function signJwt(claims: JwtClaims, privateKey: KeyObject): string {
  const signingInput = `${ENCODED_HEADER}.${base64url(JSON.stringify(claims))}`;
  const signature = sign('sha256', Buffer.from(signingInput), { key: privateKey, dsaEncoding: 'ieee-p1363' });
  return `${signingInput}.${signature.toString('base64url')}`;
}

const BASE64URL = /^[A-Za-z0-9_-]*$/;

function decodeJsonPart(part: string, what: string): { value: Record<string, unknown> } | { error: string } {
  if (!BASE64URL.test(part)) return { error: `token is malformed: ${what} is not base64url` };
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { error: `token is malformed: ${what} is not a JSON object` };
    }
    return { value: value as Record<string, unknown> };
  } catch {
    return { error: `token is malformed: could not JSON decode ${what}` };
  }
}

/**
 * Checks structure, algorithm, signature and `exp` (seconds since the epoch; absent = never
 * expires, as upstream's local agent tokens). Errors read like the Go jwt library's, because
 * upstream puts them into its 401 message.
 */
export function verifyJwt(token: string, publicKey: KeyObject, now: Date): JwtVerification {
  const parts = token.split('.');
  if (parts.length !== 3)
    return { ok: false, error: 'token is malformed: token contains an invalid number of segments' };
  const [encodedHeader, encodedClaims, encodedSignature] = parts as [string, string, string];
  const header = decodeJsonPart(encodedHeader, 'header');
  if ('error' in header) return { ok: false, error: header.error };
  if (header.value.alg !== 'ES256') {
    return {
      ok: false,
      error: `token is unverifiable: signing method ${String(header.value.alg)} is invalid`,
    };
  }
  const claims = decodeJsonPart(encodedClaims, 'claims');
  if ('error' in claims) return { ok: false, error: claims.error };
  if (!BASE64URL.test(encodedSignature))
    return { ok: false, error: 'token signature is invalid: not base64url' };
  const signature = Buffer.from(encodedSignature, 'base64url');
  let valid = false;
  if (signature.length === 64) {
    valid = verify(
      'sha256',
      Buffer.from(`${encodedHeader}.${encodedClaims}`),
      { key: publicKey, dsaEncoding: 'ieee-p1363' },
      signature,
    );
  }
  if (!valid) return { ok: false, error: 'token signature is invalid: crypto/ecdsa: verification error' };
  const exp = claims.value.exp;
  if (exp !== undefined) {
    if (typeof exp !== 'number' || !Number.isFinite(exp)) {
      return { ok: false, error: 'token has invalid claims: exp is not a number' };
    }
    if (now.getTime() >= exp * 1000)
      return { ok: false, error: 'token has invalid claims: token is expired' };
  }
  return { ok: true, claims: claims.value };
}
