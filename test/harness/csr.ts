// Kubelet-shaped certificate signing requests for tests of day-2 CSR approval: a PKCS#10 request
// with subject CN system:node:<hostname>, O system:nodes, as a base64 PEM (the CSR spec.request).
import { subtle, type webcrypto } from 'node:crypto';
import { x509 } from '../../src/util/x509.ts';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

let keys: Promise<CryptoKeyPair> | undefined;

function keyPair(): Promise<CryptoKeyPair> {
  keys ??= subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ]) as Promise<CryptoKeyPair>;
  return keys;
}

/** spec.request of a CSR for `subject` (default: the kubelet's, CN system:node:<hostname>, O system:nodes). */
export async function csrRequest(hostname: string, subject?: string): Promise<string> {
  const req = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject ?? `CN=system:node:${hostname}, O=system:nodes`,
    keys: await keyPair(),
    signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
  });
  return Buffer.from(req.toString('pem')).toString('base64');
}
