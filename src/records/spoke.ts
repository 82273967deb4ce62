// Clients for installed ("spoke") clusters, from the admin kubeconfig Secret the ClusterDeployment
// names (`spec.clusterMetadata.adminKubeconfigSecretRef`, key `kubeconfig`; our own
// `<cd>-admin-kubeconfig` otherwise). Spoke-side work — day-2 CSR approval and node labels, Node
// cleanup on unbind, the BMAC's MCS CA and spoke BMH/Machine, node drain — goes through here.
//
// One client per (Secret, kubeconfig content): a rotated kubeconfig gets a new client, and the old
// one is closed. Keyed by content, not resourceVersion: the first read of a Secret is live (it is
// not labelled for the cache yet) and later ones come from the cache, and both must find the same
// client; a relabel changes the resourceVersion but not the kubeconfig. Spoke requests are few per
// reconcile, so a low QPS keeps a fleet of unreachable spokes from tying up the event loop, and a
// short timeout keeps reconciles from hanging on them.
//
// A spoke that did not answer at all (no HTTP status: refused, timed out, DNS) is left alone for a
// while: spokeClient() then returns `unreachable` at once instead of a client, so one blackholed
// API server does not cost every reconcile of every controller a request timeout. Any answer,
// even an error status, clears that.
import type { ClusterDeployment } from '../api/index.ts';
import {
  ApiError,
  KubeClient,
  type KubeConfigLike,
  kubeConfigFromText,
  type RequestOptions,
} from '../runtime/index.ts';
import type { OperatorContext } from './context.ts';
import { readSecret } from './referenced.ts';

export const SPOKE_KUBECONFIG_KEY = 'kubeconfig';
const SPOKE_REQUEST_TIMEOUT_MS = 20_000;
/** How long a spoke that did not answer is left alone, unless the caller says otherwise. */
export const SPOKE_UNREACHABLE_HOLD_MS = 30_000;

export type SpokeClientResult =
  | { ok: true; client: KubeClient; secret: string }
  | {
      ok: false;
      reason: 'not-installed' | 'secret-not-found' | 'invalid-kubeconfig' | 'unreachable';
      message: string;
    };

/** A spoke client that remembers when its API server last failed to answer. */
class SpokeKubeClient extends KubeClient {
  /** Set when a request got no HTTP answer; cleared by any answer. */
  unreachable: { at: number; message: string } | undefined;

  override async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    try {
      const out = await super.request<T>(method, path, opts);
      this.unreachable = undefined;
      return out;
    } catch (err) {
      if (err instanceof ApiError) this.unreachable = undefined;
      else if (!opts.signal?.aborted) this.unreachable = { at: Date.now(), message: (err as Error).message };
      throw err;
    }
  }
}

interface CachedClient {
  kubeconfig: string;
  client: SpokeKubeClient;
}

const clients = new WeakMap<OperatorContext, Map<string, CachedClient>>();

/** Name of the admin kubeconfig Secret of a ClusterDeployment. */
export function spokeKubeconfigSecretName(cd: ClusterDeployment): string {
  return cd.spec.clusterMetadata?.adminKubeconfigSecretRef?.name || `${cd.metadata.name}-admin-kubeconfig`;
}

/** Parses a kubeconfig document; throws with a readable message when it is unusable. */
export function parseSpokeKubeconfig(text: string): KubeConfigLike {
  const kc = kubeConfigFromText(text);
  const cluster = kc.getCurrentCluster();
  if (!cluster?.server) throw new Error('the kubeconfig has no current cluster with a server URL');
  return kc;
}

/**
 * A client for the spoke of an installed ClusterDeployment, or why there is none. Errors are values:
 * callers put them in a log line, event or condition and retry later.
 */
export async function spokeClient(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  opts: { unreachableHoldMs?: number } = {},
): Promise<SpokeClientResult> {
  const ns = cd.metadata.namespace ?? '';
  const name = spokeKubeconfigSecretName(cd);
  const data = await readSecret(ctx, ns, name);
  const text = data?.[SPOKE_KUBECONFIG_KEY];
  if (!text) {
    return {
      ok: false,
      reason: 'secret-not-found',
      message: data
        ? `Secret ${ns}/${name} has no ${SPOKE_KUBECONFIG_KEY} key`
        : `Secret ${ns}/${name} with the spoke kubeconfig was not found`,
    };
  }
  let perCtx = clients.get(ctx);
  if (!perCtx) {
    perCtx = new Map();
    clients.set(ctx, perCtx);
  }
  const key = `${ns}/${name}`;
  const cached = perCtx.get(key);
  if (cached?.kubeconfig === text) {
    const down = cached.client.unreachable;
    const holdMs = opts.unreachableHoldMs ?? SPOKE_UNREACHABLE_HOLD_MS;
    if (down && Date.now() - down.at < holdMs) {
      return { ok: false, reason: 'unreachable', message: `spoke of ${key} unreachable: ${down.message}` };
    }
    return { ok: true, client: cached.client, secret: key };
  }
  let kubeConfig: KubeConfigLike;
  try {
    kubeConfig = parseSpokeKubeconfig(text);
  } catch (err) {
    return {
      ok: false,
      reason: 'invalid-kubeconfig',
      message: `Secret ${key}: invalid kubeconfig: ${(err as Error).message}`,
    };
  }
  if (cached) void cached.client.close().catch(() => {});
  const client = new SpokeKubeClient({
    kubeConfig,
    qps: 5,
    burst: 10,
    requestTimeoutMs: SPOKE_REQUEST_TIMEOUT_MS,
    userAgent: 'agent-install-operator/spoke',
  });
  perCtx.set(key, { kubeconfig: text, client });
  return { ok: true, client, secret: key };
}

/** Closes every spoke client of an operator (on shutdown). */
export async function closeSpokeClients(ctx: OperatorContext): Promise<void> {
  const perCtx = clients.get(ctx);
  if (!perCtx) return;
  clients.delete(ctx);
  await Promise.all([...perCtx.values()].map((c) => c.client.close().catch(() => {})));
}
