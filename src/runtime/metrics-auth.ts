// Authentication and authorisation of /metrics scrapes, as controller-runtime's secure metrics
// serving (filters.WithAuthenticationAndAuthorization) does: the caller's bearer token is checked
// with a TokenReview, then a SubjectAccessReview asks whether that user may `get` the non-resource
// URL /metrics. Needs `create` on tokenreviews.authentication.k8s.io and
// subjectaccessreviews.authorization.k8s.io. Decisions are cached briefly per token (by its SHA-256,
// never the token itself) so a scrape every few seconds does not cost two API calls each time.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { CertificateAuthority } from '../util/pki.ts';
import type { KubeClient } from './client.ts';

export type MetricsAccess =
  | { ok: true; user: string }
  | { ok: false; code: 401 | 403 | 500; message: string };

export interface MetricsAuthorizerOptions {
  /** How long an allowed decision is reused. Default 60 s. */
  allowTtlMs?: number;
  /** How long a refusal is reused (a new RoleBinding takes effect this late). Default 10 s. */
  denyTtlMs?: number;
  /** Cached decisions at most (oldest dropped first). Default 1024. */
  maxEntries?: number;
  /** The non-resource path authorised. Default '/metrics'. */
  path?: string;
  now?: () => number;
}

/** Bearer tokens longer than this are refused unread (ServiceAccount tokens are ~1 KiB). */
export const MAX_BEARER_TOKEN_BYTES = 16 * 1024;

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

export class MetricsAuthorizer {
  private readonly client: KubeClient;
  private readonly allowTtlMs: number;
  private readonly denyTtlMs: number;
  private readonly maxEntries: number;
  private readonly path: string;
  private readonly now: () => number;
  private readonly cache = new Map<string, { access: MetricsAccess; expires: number }>();

  constructor(client: KubeClient, opts: MetricsAuthorizerOptions = {}) {
    this.client = client;
    this.allowTtlMs = opts.allowTtlMs ?? 60_000;
    this.denyTtlMs = opts.denyTtlMs ?? 10_000;
    this.maxEntries = opts.maxEntries ?? 1024;
    this.path = opts.path ?? '/metrics';
    this.now = opts.now ?? Date.now;
  }

  /** Decides on a request's Authorization header. */
  async check(authorization: string | undefined): Promise<MetricsAccess> {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
    const token = match?.[1];
    if (!token) return { ok: false, code: 401, message: 'Unauthorized: a bearer token is required' };
    if (Buffer.byteLength(token) > MAX_BEARER_TOKEN_BYTES) {
      return { ok: false, code: 401, message: 'Unauthorized: bearer token too long' };
    }
    const key = createHash('sha256').update(token).digest('hex');
    const hit = this.cache.get(key);
    if (hit && hit.expires > this.now()) return hit.access;
    const access = await this.review(token);
    // Failures to ask are not remembered: the next scrape asks again.
    if (access.ok || access.code !== 500) this.remember(key, access);
    return access;
  }

  private remember(key: string, access: MetricsAccess): void {
    this.cache.delete(key);
    if (this.cache.size >= this.maxEntries) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    this.cache.set(key, { access, expires: this.now() + (access.ok ? this.allowTtlMs : this.denyTtlMs) });
  }

  private async review(token: string): Promise<MetricsAccess> {
    let status: TokenReviewStatus | undefined;
    try {
      const review = await this.client.request<{ status?: TokenReviewStatus }>(
        'POST',
        '/apis/authentication.k8s.io/v1/tokenreviews',
        { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview', spec: { token } } },
      );
      status = review?.status;
    } catch (err) {
      return { ok: false, code: 500, message: `authentication failed: ${(err as Error).message}` };
    }
    const user = status?.user;
    if (!status?.authenticated || !user?.username) {
      return { ok: false, code: 401, message: 'Unauthorized: the bearer token was not accepted' };
    }
    try {
      const sar = await this.client.request<{ status?: { allowed?: boolean; denied?: boolean } }>(
        'POST',
        '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        {
          body: {
            apiVersion: 'authorization.k8s.io/v1',
            kind: 'SubjectAccessReview',
            spec: {
              user: user.username,
              ...(user.uid ? { uid: user.uid } : {}),
              groups: user.groups ?? [],
              ...(user.extra ? { extra: user.extra } : {}),
              nonResourceAttributes: { path: this.path, verb: 'get' },
            },
          },
        },
      );
      if (sar?.status?.allowed === true && sar.status.denied !== true)
        return { ok: true, user: user.username };
    } catch (err) {
      return { ok: false, code: 500, message: `authorization failed: ${(err as Error).message}` };
    }
    return {
      ok: false,
      code: 403,
      message: `Forbidden: user "${user.username}" may not get ${this.path}`,
    };
  }
}

/**
 * The secure metrics server's certificate: tls.crt and tls.key from `certDir` when it has them
 * (e.g. an OpenShift serving-cert Secret), else a self-signed one made now, as controller-runtime
 * does (scrapers then skip verification or pin it).
 */
export async function metricsCertificate(
  certDir: string | undefined,
  logger: Logger,
): Promise<{ certPem: string; keyPem: string }> {
  if (certDir) {
    try {
      const [certPem, keyPem] = await Promise.all([
        readFile(join(certDir, 'tls.crt'), 'utf8'),
        readFile(join(certDir, 'tls.key'), 'utf8'),
      ]);
      return { certPem, keyPem };
    } catch (err) {
      logger.warn(
        { err: (err as Error).message, certDir },
        'metrics: no certificate in the directory; self-signing',
      );
    }
  }
  const ca = await CertificateAuthority.create('agent-install-operator-metrics', 365);
  const cert = await ca.issue({
    commonName: hostname(),
    dnsNames: [hostname(), 'localhost'],
    ipAddresses: ['127.0.0.1'],
    server: true,
    validDays: 365,
  });
  return { certPem: `${cert.certPem.trimEnd()}\n${ca.certPem}`, keyPem: cert.keyPem };
}
