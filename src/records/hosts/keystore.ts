// The local-auth key pair in a Secret of the operator namespace, so every replica and every restart
// signs and verifies with the same keys (tokens are baked into discovery images that live for
// weeks). Keys as upstream's operator stores them: `ec-private-key.pem`, `ec-public-key.pem`.
// `save` only ever creates: when two replicas race, the loser's create fails with AlreadyExists and
// loadOrCreateKeys reads the winner's pair.

import type { KeyPairPem, KeyStore } from '../../auth/index.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../runtime/index.ts';
import { SECRET } from '../resources.ts';

export const PRIVATE_KEY_FIELD = 'ec-private-key.pem';
export const PUBLIC_KEY_FIELD = 'ec-public-key.pem';

interface SecretObject extends KubeObject {
  data?: Record<string, string>;
  type?: string;
}

export class SecretKeyStore implements KeyStore {
  private readonly client: KubeClient;
  private readonly namespace: string;
  private readonly name: string;

  constructor(client: KubeClient, namespace: string, name: string) {
    this.client = client;
    this.namespace = namespace;
    this.name = name;
  }

  async load(): Promise<KeyPairPem | undefined> {
    // A live read: the Secret cache only holds watch-labelled Secrets.
    let secret: SecretObject;
    try {
      secret = await this.client.get<SecretObject>(SECRET, this.name, this.namespace);
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
    const priv = secret.data?.[PRIVATE_KEY_FIELD];
    const pub = secret.data?.[PUBLIC_KEY_FIELD];
    if (!priv || !pub) {
      throw new Error(
        `Secret ${this.namespace}/${this.name} exists but lacks ${PRIVATE_KEY_FIELD} or ${PUBLIC_KEY_FIELD}; ` +
          'fix or delete it (deleting invalidates every issued token)',
      );
    }
    return {
      privateKeyPem: Buffer.from(priv, 'base64').toString('utf8'),
      publicKeyPem: Buffer.from(pub, 'base64').toString('utf8'),
    };
  }

  async save(keys: KeyPairPem): Promise<void> {
    await this.client.create<SecretObject>(SECRET, {
      metadata: {
        name: this.name,
        namespace: this.namespace,
        labels: { 'app.kubernetes.io/name': 'agent-install-operator' },
      },
      type: 'Opaque',
      data: {
        [PRIVATE_KEY_FIELD]: Buffer.from(keys.privateKeyPem).toString('base64'),
        [PUBLIC_KEY_FIELD]: Buffer.from(keys.publicKeyPem).toString('base64'),
      },
    });
  }
}
