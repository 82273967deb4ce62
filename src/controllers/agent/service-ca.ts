// The service CA for reclaim (SERVICE_CA_CERT_PATH, kubeapi.md §3.4.4 and §5): the PEM the
// reclaim runner trusts the service URL by, put on the spoke as ConfigMap `reclaim-config`. Read
// on the first reclaim that needs it and kept (per path); a missing or unreadable file is not
// kept, so a later reclaim tries again once it is fixed.

import { readFile } from 'node:fs/promises';

export type ServiceCaCert = { ok: true; pem: string | undefined } | { ok: false; message: string };

const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

export class ServiceCaCertCache {
  private readonly loaded = new Map<string, string>();
  private readonly read: (path: string) => Promise<string>;

  constructor(read: (path: string) => Promise<string> = (p) => readFile(p, 'utf8')) {
    this.read = read;
  }

  /** The CA at `path`; no path (unset or empty): no CA. */
  async get(path: string | undefined): Promise<ServiceCaCert> {
    if (!path) return { ok: true, pem: undefined };
    const cached = this.loaded.get(path);
    if (cached !== undefined) return { ok: true, pem: cached };
    let pem: string;
    try {
      pem = await this.read(path);
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return { ok: false, message: `reading the service CA (SERVICE_CA_CERT_PATH=${path}): ${why}` };
    }
    if (!pem.includes(PEM_CERTIFICATE)) {
      return {
        ok: false,
        message: `the service CA (SERVICE_CA_CERT_PATH=${path}) holds no PEM certificate`,
      };
    }
    this.loaded.set(path, pem);
    return { ok: true, pem };
  }
}

/** The operator's one cache. */
export const serviceCaCerts = new ServiceCaCertCache();
