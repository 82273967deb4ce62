// A KeyStore held in process memory, for tests and local simulation only: keys vanish on restart,
// which invalidates every token already written into a discovery image.

import type { KeyPairPem, KeyStore } from './keys.ts';

export class MemoryKeyStore implements KeyStore {
  private keys: KeyPairPem | undefined;
  saves = 0;

  constructor(initial?: KeyPairPem) {
    this.keys = initial;
  }

  async load(): Promise<KeyPairPem | undefined> {
    return this.keys;
  }

  async save(keys: KeyPairPem): Promise<void> {
    if (this.keys) throw new Error('key pair already exists');
    this.saves++;
    this.keys = keys;
  }
}
