// The router CA the in-cluster controller uploads (v2UploadClusterIngressCert): a real, parseable
// self-signed certificate, since the service merges it into the kubeconfig it hands out.
// @peculiar/x509 is loaded lazily: only controller hosts need it.

import { webcrypto } from 'node:crypto';

export async function selfSignedIngressCa(commonName: string): Promise<string> {
  await import('reflect-metadata');
  const x509 = await import('@peculiar/x509');
  x509.cryptoProvider.set(webcrypto as unknown as Parameters<typeof x509.cryptoProvider.set>[0]);
  const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
  const keys = (await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: now.toString(16),
    name: `CN=${commonName}`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + 2 * 365 * 24 * 3600_000),
    signingAlgorithm: alg,
    keys,
    extensions: [new x509.BasicConstraintsExtension(true, undefined, true)],
  });
  return `${cert.toString('pem')}\n`;
}
