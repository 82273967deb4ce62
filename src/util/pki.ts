// A tiny throwaway certificate authority: ECDSA P-256 keys, PEM in and out. Used for the local
// control plane, webhook serving certificates and the built-in install artifact generator.
import { randomBytes, webcrypto } from 'node:crypto';
import { x509 } from './x509.ts';

const ecdsa = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface KeyPairPem {
  certPem: string;
  keyPem: string;
}

export interface IssuedCert extends KeyPairPem {
  cert: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

export interface CertRequest {
  commonName: string;
  organizations?: string[];
  dnsNames?: string[];
  ipAddresses?: string[];
  server?: boolean;
  client?: boolean;
  validDays?: number;
}

function subject(commonName: string, organizations: string[] = []): string {
  const esc = (v: string) => v.replace(/([,+"\\<>;=])/g, '\\$1');
  return [...organizations.map((o) => `O=${esc(o)}`), `CN=${esc(commonName)}`].join(', ');
}

function serial(): string {
  // Positive serial: clear the top bit.
  const b = randomBytes(16);
  b[0] = (b[0] ?? 0) & 0x7f;
  return b.toString('hex');
}

export async function exportKeyPem(key: webcrypto.CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`;
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ecdsa, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

function validity(days: number): { notBefore: Date; notAfter: Date } {
  // Back-date a little so clocks that are slightly behind still accept the certificate.
  const now = Date.now();
  return { notBefore: new Date(now - 5 * 60_000), notAfter: new Date(now + days * 86_400_000) };
}

export class CertificateAuthority {
  readonly ca: IssuedCert;
  readonly commonName: string;

  private constructor(ca: IssuedCert, commonName: string) {
    this.ca = ca;
    this.commonName = commonName;
  }

  static async create(commonName: string, validDays = 365): Promise<CertificateAuthority> {
    const keys = await generateKeys();
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: serial(),
      name: subject(commonName),
      ...validity(validDays),
      signingAlgorithm: ecdsa,
      keys,
      extensions: [
        new x509.BasicConstraintsExtension(true, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
        await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      ],
    });
    const ca: IssuedCert = {
      cert,
      keys,
      certPem: cert.toString('pem'),
      keyPem: await exportKeyPem(keys.privateKey),
    };
    return new CertificateAuthority(ca, commonName);
  }

  /** Loads an authority written earlier (its certificate and PKCS#8 private key, both PEM). */
  static async fromPem(certPem: string, keyPem: string): Promise<CertificateAuthority> {
    const cert = new x509.X509Certificate(certPem);
    const der = Buffer.from(keyPem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
    const privateKey = await webcrypto.subtle.importKey('pkcs8', der, ecdsa, true, ['sign']);
    const publicKey = await cert.publicKey.export(ecdsa, ['verify']);
    const ca: IssuedCert = { cert, keys: { privateKey, publicKey }, certPem, keyPem };
    return new CertificateAuthority(ca, cert.subject.replace(/^CN=/, ''));
  }

  get certPem(): string {
    return this.ca.certPem;
  }

  async issue(req: CertRequest): Promise<IssuedCert> {
    const keys = await generateKeys();
    const usages: string[] = [];
    if (req.server) usages.push(x509.ExtendedKeyUsage.serverAuth);
    if (req.client) usages.push(x509.ExtendedKeyUsage.clientAuth);
    const altNames = [
      ...(req.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })),
      ...(req.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value })),
    ];
    const extensions: x509.Extension[] = [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension(usages, false),
      await x509.AuthorityKeyIdentifierExtension.create(this.ca.cert, false),
    ];
    if (altNames.length > 0) extensions.push(new x509.SubjectAlternativeNameExtension(altNames, false));
    const cert = await x509.X509CertificateGenerator.create({
      serialNumber: serial(),
      subject: subject(req.commonName, req.organizations),
      issuer: this.ca.cert.subject,
      ...validity(req.validDays ?? 365),
      signingAlgorithm: ecdsa,
      publicKey: keys.publicKey,
      signingKey: this.ca.keys.privateKey,
      extensions,
    });
    return { cert, keys, certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
  }
}
