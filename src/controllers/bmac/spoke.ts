// BMAC's work on the installed (spoke) cluster (kubeapi.md §3.6): the machine-config-server CA
// that day-2 hosts must trust (step 9), and draining a host's Node before a converged BMH
// deletion deprovisions it. Pure decisions here; the spoke calls take a client from
// src/operator/spoke.ts.
import { X509Certificate } from 'node:crypto';
import { base64DataUrl } from '../../core/ignition/index.ts';
import { CONFIG_MAP } from '../../operator/resources.ts';
import { isNotFound, type KubeClient, type KubeObject } from '../../runtime/index.ts';

/** Where the spoke keeps the CA that signs the machine-config-server certificate, in lookup order. */
export const MCS_CA_SOURCES = [
  { namespace: 'openshift-machine-config-operator', name: 'machine-config-server-ca', key: 'ca-bundle.crt' },
  { namespace: 'kube-system', name: 'root-ca', key: 'ca.crt' },
  { namespace: 'openshift-config', name: 'kube-root-ca', key: 'ca.crt' },
  { namespace: 'openshift-config', name: 'kube-root-ca.crt', key: 'ca.crt' },
] as const;

const NODES = { group: '', version: 'v1', plural: 'nodes', kind: 'Node', namespaced: false };
const PODS = { group: '', version: 'v1', plural: 'pods', kind: 'Pod', namespaced: true };

/** Whether `pem` holds at least one certificate and nothing unparseable. */
export function isValidPemBundle(pem: string): boolean {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) return false;
  try {
    for (const b of blocks) new X509Certificate(b);
    return true;
  } catch {
    return false;
  }
}

/** The first MCS CA the spoke has (lookup order above), or why there is none. */
export async function spokeMcsCa(spoke: KubeClient): Promise<{ ca: string } | { error: string }> {
  for (const src of MCS_CA_SOURCES) {
    let cm: (KubeObject & { data?: Record<string, string> }) | undefined;
    try {
      cm = await spoke.getIfExists(CONFIG_MAP, src.name, src.namespace);
    } catch (err) {
      return {
        error: `reading ConfigMap ${src.namespace}/${src.name} on the spoke: ${(err as Error).message}`,
      };
    }
    const ca = cm?.data?.[src.key];
    if (cm === undefined || ca === undefined) continue;
    if (!isValidPemBundle(ca)) {
      return {
        error: `ConfigMap ${src.namespace}/${src.name} key ${src.key} on the spoke is not a valid PEM certificate`,
      };
    }
    return { ca };
  }
  return { error: 'the spoke has none of the machine-config-server CA ConfigMaps' };
}

interface TlsIgnition {
  ignition?: { version?: string; security?: { tls?: { certificateAuthorities?: { source?: string }[] } } };
  [k: string]: unknown;
}

/**
 * The ignition-config-overrides annotation with the MCS CA added as a TLS certificate authority
 * (ignition 3.1.0 when the annotation is empty). Undefined when it already carries that CA, or
 * when the existing value is not a JSON object (then it is left to the user; the caller logs it).
 */
export function withMcsCa(overrides: string | undefined, caPem: string): string | undefined {
  const source = base64DataUrl(caPem);
  if (overrides?.includes(source)) return undefined;
  let ign: TlsIgnition;
  if (!overrides?.trim()) {
    ign = { ignition: { version: '3.1.0' } };
  } else {
    try {
      const parsed: unknown = JSON.parse(overrides);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
      ign = parsed as TlsIgnition;
    } catch {
      return undefined;
    }
  }
  ign.ignition ??= { version: '3.1.0' };
  ign.ignition.security ??= {};
  ign.ignition.security.tls ??= {};
  const cas = ign.ignition.security.tls.certificateAuthorities ?? [];
  ign.ignition.security.tls.certificateAuthorities = [...cas, { source }];
  return JSON.stringify(ign);
}

/** What the drain annotations should say next (kubeapi.md §3.6 BMH deletion). */
export interface DrainInput {
  /** drain-started-at (RFC 3339), if set. */
  startedAt: string | undefined;
  /** drain-timeout (a Go duration), if set. */
  timeout: string | undefined;
  now: Date;
  /** The outcome of this drain attempt. */
  attempt: { done: true } | { done: false; unreachable: boolean } | { error: string };
}

export interface DrainDecision {
  status: string;
  startedAt: string;
  /** Come back (drain in progress). */
  requeueAfterMs?: number;
  /** Deletion may go on. */
  proceed: boolean;
}

/** Poll interval while draining, and how long to wait for an unreachable Node. */
export const DRAIN_REQUEUE_MS = 20_000;
export const UNREACHABLE_NODE_GRACE_MS = 5 * 60_000;

/** Parses a Go duration ("90s", "1h30m", "500ms"); undefined when invalid. */
export function parseGoDuration(text: string): number | undefined {
  const units: Record<string, number> = {
    ns: 1e-6,
    us: 1e-3,
    µs: 1e-3,
    ms: 1,
    s: 1000,
    m: 60_000,
    h: 3_600_000,
  };
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  const t = text.trim();
  if (t === '0') return 0;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(t); m; m = re.exec(t)) {
    total += Number(m[1]) * (units[m[2]!] ?? 0);
    matched = re.lastIndex;
  }
  return matched === t.length && t.length > 0 ? total : undefined;
}

export function decideDrain(input: DrainInput): DrainDecision {
  const startedAt = input.startedAt ?? input.now.toISOString();
  const elapsed = input.now.getTime() - Date.parse(startedAt);
  const { attempt } = input;
  if ('done' in attempt && attempt.done) return { status: 'drain succeeded', startedAt, proceed: true };
  const timeoutMs = input.timeout ? parseGoDuration(input.timeout) : undefined;
  // The user's limit; failing attempts and unreachable Nodes (the spoke may be gone for good)
  // stop blocking the deletion after 5 minutes anyway.
  const unreachable = 'error' in attempt || attempt.unreachable;
  if (
    (timeoutMs !== undefined && elapsed > timeoutMs) ||
    (unreachable && elapsed > UNREACHABLE_NODE_GRACE_MS)
  ) {
    return { status: 'drain timed out', startedAt, proceed: true };
  }
  const status = 'error' in attempt ? `failed to drain node: ${attempt.error}` : 'draining in progress';
  return { status, startedAt, proceed: false, requeueAfterMs: DRAIN_REQUEUE_MS };
}

interface PodLike extends KubeObject {
  spec?: { nodeName?: string };
  status?: { phase?: string };
}

interface NodeLike extends KubeObject {
  spec?: { unschedulable?: boolean };
  status?: { conditions?: { type: string; status: string }[] };
}

/**
 * One drain attempt of Node `name` on the spoke: cordon it, then evict every pod on it except
 * DaemonSet pods and mirror pods (as `kubectl drain --ignore-daemonsets --delete-emptydir-data
 * --force` does). Done when no such pod is left; a Node that is gone counts as drained.
 */
export async function drainAttempt(
  spoke: KubeClient,
  name: string,
): Promise<{ done: true } | { done: false; unreachable: boolean } | { error: string }> {
  try {
    const node = await spoke.getIfExists<NodeLike>(NODES, name);
    if (!node) return { done: true };
    if (!node.spec?.unschedulable) {
      await spoke.patch(NODES, name, undefined, 'merge', { spec: { unschedulable: true } });
    }
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
    const unreachable = ready?.status !== 'True';
    const pods = (await spoke.list<PodLike>(PODS, { fieldSelector: `spec.nodeName=${name}` })).items;
    const evictable = pods.filter(
      (p) =>
        !p.metadata.ownerReferences?.some((o) => o.kind === 'DaemonSet') &&
        !p.metadata.annotations?.['kubernetes.io/config.mirror'] &&
        p.status?.phase !== 'Succeeded' &&
        p.status?.phase !== 'Failed',
    );
    if (evictable.length === 0) return { done: true };
    for (const pod of evictable) {
      try {
        await spoke.request('POST', spoke.path(PODS, pod.metadata.namespace, pod.metadata.name, 'eviction'), {
          body: {
            apiVersion: 'policy/v1',
            kind: 'Eviction',
            metadata: { name: pod.metadata.name, namespace: pod.metadata.namespace },
          },
        });
      } catch (err) {
        // Already gone is fine; a PodDisruptionBudget refusal (429) is retried on the next attempt.
        if (!isNotFound(err) && !/\b429\b|disruption budget/i.test(String(err))) throw err;
      }
    }
    return { done: false, unreachable };
  } catch (err) {
    return { error: (err as Error).message };
  }
}
