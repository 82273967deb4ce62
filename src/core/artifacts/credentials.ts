// Cluster identities and credentials the built-in generator makes, with openshift-install's formats:
// cluster ID (UUID v4), infra ID ("<name>-<5 chars>"), kubeadmin password ("xxxxx-xxxxx-xxxxx-xxxxx"),
// the cluster root CA and an admin kubeconfig whose client certificate that CA signs.
// Randomness and time are inputs; only key generation uses the platform's generator.

import { webcrypto } from 'node:crypto';
import { stringify } from 'yaml';
import { exportKeyPem } from '../../util/pki.ts';
import { x509 } from '../../util/x509.ts';

/** Returns `n` random bytes. Injected so tests can be deterministic. */
export type RandomSource = (n: number) => Buffer;

/** Uniformly picks `count` characters of `alphabet` (rejection sampling: no modulo bias). */
export function randomString(random: RandomSource, alphabet: string, count: number): string {
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < count) {
    for (const byte of random(count * 2)) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === count) break;
    }
  }
  return out;
}

/** A uniform index in [0, n) for n <= 256. */
function randomIndex(random: RandomSource, n: number): number {
  const limit = 256 - (256 % n);
  for (;;) {
    const byte = random(1)[0] ?? 0;
    if (byte < limit) return byte % n;
  }
}

/** A random (version 4) UUID from 16 random bytes. */
export function randomUuid(random: RandomSource): string {
  const b = Buffer.from(random(16));
  b[6] = ((b[6] ?? 0) & 0x0f) | 0x40;
  b[8] = ((b[8] ?? 0) & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const INFRA_ID_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const INFRA_ID_MAX_LENGTH = 27;
const INFRA_ID_RANDOM_LENGTH = 5;

/**
 * openshift-install's infra ID: the cluster name with characters other than [A-Za-z0-9-] turned
 * into "-", dash runs collapsed, cut to fit 27 characters with the suffix, trailing dashes trimmed,
 * then "-" and 5 random characters.
 */
export function generateInfraId(clusterName: string, random: RandomSource): string {
  const maxBase = INFRA_ID_MAX_LENGTH - (INFRA_ID_RANDOM_LENGTH + 1);
  const base = clusterName
    .replace(/[^A-Za-z0-9-]/g, '-')
    .replace(/-{2,}/g, '-')
    .slice(0, maxBase)
    .replace(/-+$/, '');
  return `${base}-${randomString(random, INFRA_ID_ALPHABET, INFRA_ID_RANDOM_LENGTH)}`;
}

const PASSWORD_LOWER = 'abcdefghijkmnopqrstuvwxyz';
const PASSWORD_UPPER = 'ABCDEFGHIJKLMNPQRSTUVWXYZ';
const PASSWORD_DIGITS = '23456789';
export const KUBEADMIN_PASSWORD_PATTERN = /^[a-km-zA-NP-Z2-9]{5}(-[a-km-zA-NP-Z2-9]{5}){3}$/;

/**
 * kubeadmin password: 20 characters from lower/upper case letters and digits (no l, O, 0 or 1),
 * at least one of each class, in four dash-separated groups of five (23 characters in all).
 */
export function generateKubeadminPassword(random: RandomSource): string {
  const all = PASSWORD_LOWER + PASSWORD_UPPER + PASSWORD_DIGITS;
  const chars = [
    randomString(random, PASSWORD_LOWER, 1),
    randomString(random, PASSWORD_UPPER, 1),
    randomString(random, PASSWORD_DIGITS, 1),
    ...randomString(random, all, 17),
  ];
  // Fisher–Yates with the injected source, so the guaranteed classes land anywhere.
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomIndex(random, i + 1);
    [chars[i], chars[j]] = [chars[j] as string, chars[i] as string];
  }
  const text = chars.join('');
  return [0, 5, 10, 15].map((i) => text.slice(i, i + 5)).join('-');
}

const ECDSA = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY_MS = 86_400_000;
const TEN_YEARS_DAYS = 3650;

export interface GeneratedCertificate {
  certPem: string;
  keyPem: string;
  cert: x509.X509Certificate;
  keys: webcrypto.CryptoKeyPair;
}

function serialNumber(random: RandomSource): string {
  const b = Buffer.from(random(16));
  b[0] = (b[0] ?? 0) & 0x7f;
  return b.toString('hex');
}

async function generateKeys(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ECDSA, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

/** The cluster root CA (CN=root-ca, OU=openshift), valid ten years from `now`. */
export async function createRootCa(now: Date, random: RandomSource): Promise<GeneratedCertificate> {
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serialNumber(random),
    name: 'OU=openshift, CN=root-ca',
    notBefore: now,
    notAfter: new Date(now.getTime() + TEN_YEARS_DAYS * DAY_MS),
    signingAlgorithm: ECDSA,
    keys,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { cert, keys, certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

/** The admin client certificate (CN=system:admin, O=system:masters) signed by `ca`. */
export async function createAdminClientCert(
  ca: GeneratedCertificate,
  now: Date,
  random: RandomSource,
): Promise<GeneratedCertificate> {
  const keys = await generateKeys();
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serialNumber(random),
    subject: 'O=system:masters, CN=system:admin',
    issuer: ca.cert.subject,
    notBefore: now,
    notAfter: new Date(now.getTime() + TEN_YEARS_DAYS * DAY_MS),
    signingAlgorithm: ECDSA,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment,
        true,
      ),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth], false),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert, false),
    ],
  });
  return { cert, keys, certPem: cert.toString('pem'), keyPem: await exportKeyPem(keys.privateKey) };
}

const b64 = (s: string) => Buffer.from(s).toString('base64');

/** The admin kubeconfig, laid out as openshift-install writes auth/kubeconfig (sorted keys). */
export function renderAdminKubeconfig(params: {
  clusterName: string;
  server: string;
  caPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}): string {
  return stringify(
    {
      apiVersion: 'v1',
      clusters: [
        {
          cluster: { 'certificate-authority-data': b64(params.caPem), server: params.server },
          name: params.clusterName,
        },
      ],
      contexts: [{ context: { cluster: params.clusterName, user: 'admin' }, name: 'admin' }],
      'current-context': 'admin',
      kind: 'Config',
      preferences: {},
      users: [
        {
          name: 'admin',
          user: {
            'client-certificate-data': b64(params.clientCertPem),
            'client-key-data': b64(params.clientKeyPem),
          },
        },
      ],
    },
    { lineWidth: 0, indentSeq: false },
  );
}
