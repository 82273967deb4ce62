// additionalTrustBundle composition and validation (core.md §7.2, §7.4).

import { X509Certificate } from 'node:crypto';
import type { InstallConfigOptions } from './types.ts';

/**
 * The CA sources in upstream's order: the bundle already in the config (from overrides), the Red
 * Hat root CA, the service-wide mirror CA, the cluster's mirror-config CA, then per infra-env its
 * additional trust bundle and its mirror-config CA. Empty sources are skipped; the result is joined
 * with "\n" and trimmed.
 */
export function mergeTrustBundles(overrideBundle: string | undefined, options: InstallConfigOptions): string {
  const parts = [
    overrideBundle,
    options.rhRootCa,
    options.mirrorRegistries?.service?.caBundle,
    options.mirrorRegistries?.cluster?.caBundle,
  ];
  for (const env of options.infraEnvs ?? []) {
    parts.push(env.additional_trust_bundle, env.mirror_ca_bundle);
  }
  return parts
    .filter((p): p is string => typeof p === 'string' && p !== '')
    .join('\n')
    .trim();
}

const PEM_BLOCK = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----[ \t]*(?:\r?\n|$)/;

/**
 * Checks every PEM block of a bundle parses as an X.509 certificate. Like Go's pem.Decode loop:
 * text before a block is skipped, but anything left after the last block (even a blank line) is
 * "invalid block". Errors: "invalid block" / "parse failed: <reason>".
 */
export function validatePemCertificateBundle(bundle: string): void {
  let rest = bundle;
  for (;;) {
    const m = PEM_BLOCK.exec(rest);
    if (!m) throw new Error('invalid block');
    const body = (m[2] ?? '').replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(body)) throw new Error('invalid block');
    try {
      new X509Certificate(Buffer.from(body, 'base64'));
    } catch (err) {
      throw new Error(`parse failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    rest = rest.slice(m.index + m[0].length);
    if (rest.length === 0) return;
  }
}
