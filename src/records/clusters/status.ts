// The AgentClusterInstall status as the reconciler writes it (kubeapi.md §3.1.11): the records'
// projection plus the signed events and logs URLs (§3.11). URLs are signed by the REST API's local
// authentication, which the cluster backend registers here when the API server is built; until
// then no URL is written (an unsigned one would be kept forever, see urlOnce in the records).
// Signed URLs expire: one that is due for re-issue is dropped from the previous status so the
// projection writes a fresh one, and the reconciler is woken when the next one falls due.

import type { AgentClusterInstall, AgentClusterInstallStatus } from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import type { OperatorContext } from '../context.ts';
import {
  type AgentCluster,
  clusterToAciStatus,
  eventsUrl,
  logsUrl,
  type SpecSyncError,
  type UrlOffer,
} from '../index.ts';

const authByContext = new WeakMap<OperatorContext, LocalAuth>();

/** Called by clusterBackend(): from now on status URLs are signed with this authentication. */
export function setClusterUrlAuth(ctx: OperatorContext, auth: LocalAuth): void {
  authByContext.set(ctx, auth);
}

export function clusterUrlAuth(ctx: OperatorContext): LocalAuth | undefined {
  return authByContext.get(ctx);
}

export interface AciStatusInput {
  cluster: AgentCluster | undefined;
  aci: AgentClusterInstall;
  specSyncError?: SpecSyncError;
  hold: boolean;
  unsyncedAgents: number;
}

export interface AciStatusOutput {
  status: AgentClusterInstallStatus;
  /** When a signed URL in the status needs re-issuing, in ms from now. */
  reissueInMs?: number;
}

/** The ACI with any URL that is due for re-issue removed from its status. */
function withoutStaleUrls(aci: AgentClusterInstall, auth: LocalAuth, now: Date): AgentClusterInstall {
  const debug = aci.status?.debugInfo;
  if (!debug) return aci;
  const stale = (url: string | undefined) => !!url && auth.needsReissue(auth.urlExpiry(url, now), now);
  if (!stale(debug.eventsURL) && !stale(debug.logsURL)) return aci;
  return {
    ...aci,
    status: {
      ...(aci.status as AgentClusterInstallStatus),
      debugInfo: {
        ...debug,
        eventsURL: stale(debug.eventsURL) ? '' : debug.eventsURL,
        logsURL: stale(debug.logsURL) ? '' : debug.logsURL,
      },
    },
  };
}

export function computeAciStatus(ctx: OperatorContext, input: AciStatusInput): AciStatusOutput {
  const now = ctx.now();
  const auth = authByContext.get(ctx);
  const { cluster } = input;
  let aci = input.aci;
  let urls: { eventsURL?: UrlOffer; logsURL?: UrlOffer } = {};
  if (auth && cluster) {
    aci = withoutStaleUrls(aci, auth, now);
    const base = ctx.urls.serviceBaseUrl;
    const subject = { kind: 'cluster', id: cluster.id } as const;
    const target = { clusterId: cluster.id };
    // Signed only if written (see UrlOffer): two signatures per cluster status computation were
    // ~7 % of a registration wave's CPU, almost all for URLs the stored ones won over.
    urls = {
      eventsURL: {
        target: eventsUrl(base, target),
        sign: () => eventsUrl(base, target, () => auth.issueUrlToken('events', subject, now).token),
      },
      logsURL: {
        target: logsUrl(base, target),
        sign: () => logsUrl(base, target, () => auth.issueUrlToken('cluster-logs', subject, now).token),
      },
    };
  }
  const status = clusterToAciStatus(cluster, aci, {
    now,
    hold: input.hold,
    unsyncedAgents: input.unsyncedAgents,
    ...(input.specSyncError ? { specSyncError: input.specSyncError } : {}),
    ...urls,
  });
  let reissueInMs: number | undefined;
  if (auth) {
    for (const url of [status.debugInfo?.eventsURL, status.debugInfo?.logsURL]) {
      const expiry = url ? auth.urlExpiry(url, now) : undefined;
      if (!expiry) continue;
      const due = auth.reissueAt(expiry).getTime() - now.getTime();
      reissueInMs = Math.max(1000, Math.min(reissueInMs ?? Number.POSITIVE_INFINITY, due));
    }
  }
  return reissueInMs === undefined ? { status } : { status, reissueInMs };
}
