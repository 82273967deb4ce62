import { describe, expect, it } from 'vitest';
import {
  generateKeyPairPem,
  importKeyPair,
  type KeyPairPem,
  type KeyStore,
  loadOrCreateKeys,
} from '../../../src/auth/keys.ts';
import { MemoryKeyStore } from '../../../src/auth/memory-key-store.ts';

describe('local auth keys', () => {
  it('generates upstream PEM labels (SEC1 private key, SPKI under "EC PUBLIC KEY")', () => {
    const pem = generateKeyPairPem();
    expect(pem.privateKeyPem).toMatch(/^-----BEGIN EC PRIVATE KEY-----\n/);
    expect(pem.publicKeyPem).toMatch(/^-----BEGIN EC PUBLIC KEY-----\n/);
    expect(pem.publicKeyPem).toMatch(/-----END EC PUBLIC KEY-----\n$/);
    expect(() => importKeyPair(pem)).not.toThrow();
  });

  it('also reads a plain "PUBLIC KEY" label and PKCS#8 private keys', () => {
    const pem = generateKeyPairPem();
    const keys = importKeyPair(pem);
    const plain: KeyPairPem = {
      privateKeyPem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicKeyPem: pem.publicKeyPem.replaceAll('EC PUBLIC KEY', 'PUBLIC KEY'),
    };
    expect(() => importKeyPair(plain)).not.toThrow();
  });

  it('refuses a public key that does not belong to the private key', () => {
    const a = generateKeyPairPem();
    const b = generateKeyPairPem();
    expect(() => importKeyPair({ privateKeyPem: a.privateKeyPem, publicKeyPem: b.publicKeyPem })).toThrow(
      'local auth public key does not belong to the private key',
    );
    expect(() => importKeyPair({ privateKeyPem: 'nope', publicKeyPem: a.publicKeyPem })).toThrow(
      /private key/,
    );
  });

  it('creates the pair once and reuses it afterwards', async () => {
    const store = new MemoryKeyStore();
    const first = await loadOrCreateKeys(store);
    const second = await loadOrCreateKeys(store);
    expect(store.saves).toBe(1);
    expect(second.pem).toEqual(first.pem);
  });

  it('uses the pair another replica saved first when its own save loses the race', async () => {
    const winner = generateKeyPairPem();
    let loads = 0;
    const racing: KeyStore = {
      load: async () => (loads++ === 0 ? undefined : winner),
      save: async () => {
        throw new Error('AlreadyExists');
      },
    };
    expect((await loadOrCreateKeys(racing)).pem).toEqual(winner);
  });

  it('reports a store that can neither save nor load', async () => {
    const broken: KeyStore = {
      load: async () => undefined,
      save: async () => {
        throw new Error('forbidden');
      },
    };
    await expect(loadOrCreateKeys(broken)).rejects.toThrow('forbidden');
  });
});
