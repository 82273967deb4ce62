// The local-auth key pair (agent-api.md §7.2, §7.5): ECDSA P-256, private key as SEC1 PEM
// ("EC PRIVATE KEY"), public key as SPKI DER under upstream's "EC PUBLIC KEY" label. Kept in a
// Kubernetes Secret through an injected KeyStore so every replica and every restart signs and
// verifies with the same keys (tokens are baked into discovery ISOs that live for weeks).

import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

export interface KeyPairPem {
  /** `ec-private-key.pem` in upstream's Secret. */
  privateKeyPem: string;
  /** `ec-public-key.pem` in upstream's Secret. */
  publicKeyPem: string;
}

/**
 * Where the key pair lives. `save` must only create (never overwrite an existing pair) and may
 * reject when someone else saved first; the caller then loads again and uses theirs.
 */
export interface KeyStore {
  load(): Promise<KeyPairPem | undefined>;
  save(keys: KeyPairPem): Promise<void>;
}

export interface SigningKeys {
  privateKey: KeyObject;
  publicKey: KeyObject;
  pem: KeyPairPem;
}

const UPSTREAM_PUBLIC_LABEL = 'EC PUBLIC KEY';

/** A fresh P-256 pair in upstream's PEM layout. */
export function generateKeyPairPem(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const privateKeyPem = privateKey.export({ type: 'sec1', format: 'pem' }).toString();
  const spkiPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return { privateKeyPem, publicKeyPem: spkiPem.replaceAll('PUBLIC KEY', UPSTREAM_PUBLIC_LABEL) };
}

/** Parses and cross-checks a pair; throws with a message naming what is wrong. */
export function importKeyPair(pem: KeyPairPem): SigningKeys {
  // Upstream labels SPKI DER "EC PUBLIC KEY", which Node refuses; the content is plain SPKI.
  const publicPem = pem.publicKeyPem.replaceAll(UPSTREAM_PUBLIC_LABEL, 'PUBLIC KEY');
  let privateKey: KeyObject;
  let publicKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem.privateKeyPem);
  } catch (err) {
    throw new Error(`local auth private key is not a valid PEM key: ${(err as Error).message}`);
  }
  try {
    publicKey = createPublicKey(publicPem);
  } catch (err) {
    throw new Error(`local auth public key is not a valid PEM key: ${(err as Error).message}`);
  }
  for (const [what, key] of [
    ['private', privateKey],
    ['public', publicKey],
  ] as const) {
    if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
      throw new Error(`local auth ${what} key must be an ECDSA P-256 key`);
    }
  }
  const derived = createPublicKey(privateKey).export({ type: 'spki', format: 'der' });
  if (!derived.equals(publicKey.export({ type: 'spki', format: 'der' }))) {
    throw new Error('local auth public key does not belong to the private key');
  }
  return { privateKey, publicKey, pem };
}

/** Loads the pair, creating and saving one when the store is empty. */
export async function loadOrCreateKeys(store: KeyStore): Promise<SigningKeys> {
  const existing = await store.load();
  if (existing) return importKeyPair(existing);
  const fresh = generateKeyPairPem();
  try {
    await store.save(fresh);
  } catch (saveError) {
    // Another replica may have created the pair between our load and save: use theirs.
    const winner = await store.load();
    if (winner) return importKeyPair(winner);
    throw saveError;
  }
  // Read back so a store that kept an earlier concurrent write wins consistently.
  return importKeyPair((await store.load()) ?? fresh);
}
