import { createHmac, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base64url, signJwt, verifyJwt } from '../../../src/auth/jwt.ts';
import { generateKeyPairPem, importKeyPair } from '../../../src/auth/keys.ts';

const keys = importKeyPair(generateKeyPairPem());
const other = importKeyPair(generateKeyPairPem());
const now = new Date('2026-03-01T00:00:00Z');

function parts(token: string) {
  return token.split('.') as [string, string, string];
}

describe('ES256 compact JWS', () => {
  it('writes upstream header and payload with a raw 64-byte R‖S signature', () => {
    const token = signJwt({ infra_env_id: 'abc' }, keys.privateKey);
    const [h, p, s] = parts(token);
    expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'ES256', typ: 'JWT' });
    expect(Buffer.from(p, 'base64url').toString()).toBe('{"infra_env_id":"abc"}');
    expect(Buffer.from(s, 'base64url')).toHaveLength(64);
    expect(token).not.toMatch(/[=+/]/);
  });

  it('verifies its own tokens and returns the claims', () => {
    const token = signJwt({ infra_env_id: 'abc', exp: now.getTime() / 1000 + 60 }, keys.privateKey);
    expect(verifyJwt(token, keys.publicKey, now)).toEqual({
      ok: true,
      claims: { infra_env_id: 'abc', exp: now.getTime() / 1000 + 60 },
    });
  });

  it('accepts a token signed elsewhere with the same key (interoperable JOSE form)', () => {
    const h = base64url('{"typ":"JWT","alg":"ES256"}');
    const p = base64url('{"cluster_id":"c"}');
    const sig = sign('sha256', Buffer.from(`${h}.${p}`), { key: keys.privateKey, dsaEncoding: 'ieee-p1363' });
    expect(verifyJwt(`${h}.${p}.${sig.toString('base64url')}`, keys.publicKey, now).ok).toBe(true);
  });

  it('refuses a signature of another key, a changed payload and a DER signature', () => {
    const token = signJwt({ infra_env_id: 'abc' }, other.privateKey);
    expect(verifyJwt(token, keys.publicKey, now)).toEqual({
      ok: false,
      error: 'token signature is invalid: crypto/ecdsa: verification error',
    });
    const [h, , s] = parts(signJwt({ infra_env_id: 'abc' }, keys.privateKey));
    const forged = `${h}.${base64url('{"infra_env_id":"xyz"}')}.${s}`;
    expect(verifyJwt(forged, keys.publicKey, now).ok).toBe(false);
    const p = base64url('{"infra_env_id":"abc"}');
    const der = sign('sha256', Buffer.from(`${h}.${p}`), keys.privateKey).toString('base64url');
    expect(verifyJwt(`${h}.${p}.${der}`, keys.publicKey, now).ok).toBe(false);
  });

  it('refuses alg none and HS256 with the public key as secret', () => {
    const p = base64url('{"infra_env_id":"abc"}');
    const none = `${base64url('{"alg":"none","typ":"JWT"}')}.${p}.`;
    expect(verifyJwt(none, keys.publicKey, now)).toEqual({
      ok: false,
      error: 'token is unverifiable: signing method none is invalid',
    });
    const h = base64url('{"alg":"HS256","typ":"JWT"}');
    const secret = keys.publicKey.export({ type: 'spki', format: 'pem' });
    const mac = createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url');
    expect(verifyJwt(`${h}.${p}.${mac}`, keys.publicKey, now).ok).toBe(false);
  });

  it('refuses malformed tokens with a reason', () => {
    expect(verifyJwt('abc', keys.publicKey, now)).toEqual({
      ok: false,
      error: 'token is malformed: token contains an invalid number of segments',
    });
    expect(verifyJwt('!!.e30.AA', keys.publicKey, now).ok).toBe(false);
    expect(verifyJwt(`${base64url('[1]')}.e30.AA`, keys.publicKey, now).ok).toBe(false);
    expect(verifyJwt(`${base64url('{"alg":"ES256"}')}.notjson.AA`, keys.publicKey, now).ok).toBe(false);
  });

  it('enforces exp when present, and only then', () => {
    const expired = signJwt({ infra_env_id: 'a', exp: now.getTime() / 1000 }, keys.privateKey);
    expect(verifyJwt(expired, keys.publicKey, now)).toEqual({
      ok: false,
      error: 'token has invalid claims: token is expired',
    });
    const weird = signJwt({ infra_env_id: 'a', exp: 'tomorrow' }, keys.privateKey);
    expect(verifyJwt(weird, keys.publicKey, now).ok).toBe(false);
    const forever = signJwt({ infra_env_id: 'a' }, keys.privateKey);
    expect(verifyJwt(forever, keys.publicKey, new Date('2100-01-01')).ok).toBe(true);
  });

  it('refuses keys of other curves on import', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    expect(() =>
      importKeyPair({
        privateKeyPem: privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
        publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      }),
    ).toThrow(/P-256/);
    // Node can read what it wrote (sanity check of the helpers above).
    expect(createPublicKey(createPrivateKey(keys.pem.privateKeyPem)).asymmetricKeyType).toBe('ec');
  });
});
