// Host record → Agent status, with the signed URLs. Shared by the Agent reconciler and the REST
// backend (registration and install progress write the status directly), so both produce exactly
// the same status for the same host and an idle reconcile writes nothing.

import type { Agent, AgentStatus } from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import {
  AGENT_CONDITION,
  type AgentHost,
  eventsUrl,
  hostToAgentStatus,
  logsUrl,
  type SpecSyncError,
  sameUrlTarget,
} from '../index.ts';

const SPEC_SYNC_PREFIX = {
  input: 'The Spec could not be synced due to an input error: ',
  backend: 'The Spec could not be synced due to backend error: ',
} as const;

/**
 * The spec-sync error the Agent currently shows. Writers other than the reconciler keep it, so
 * SpecSynced does not flap between their write and the next reconcile.
 */
export function currentSpecSyncError(agent: Agent): SpecSyncError | undefined {
  const c = agent.status?.conditions?.find((x) => x.type === AGENT_CONDITION.specSynced);
  if (c?.status !== 'False') return undefined;
  const kind = c.reason === 'InputError' ? 'input' : 'backend';
  const prefix = SPEC_SYNC_PREFIX[kind];
  const message = c.message ?? '';
  return { kind, message: message.startsWith(prefix) ? message.slice(prefix.length) : message };
}

/** When a signed URL must be looked at again (its token is due for re-issue). */
export function urlReissueAt(auth: LocalAuth | undefined, url: string | undefined): Date | undefined {
  if (!auth || !url) return undefined;
  const expiry = auth.urlExpiry(url);
  return expiry ? auth.reissueAt(expiry) : undefined;
}

/** The stored URL while it names `target` and its token is not due; else a freshly signed one. */
function signedUrl(
  auth: LocalAuth,
  previous: string | undefined,
  target: string,
  sign: () => string,
  now: Date,
): { url: string; fresh: boolean } {
  if (previous && sameUrlTarget(previous, target) && !auth.needsReissue(auth.urlExpiry(previous, now), now)) {
    return { url: previous, fresh: false };
  }
  return { url: sign(), fresh: true };
}

export interface ProjectionContext {
  now: Date;
  serviceBaseUrl: string;
  /** Signs the URLs; without it stored URLs are kept as they are and none are added. */
  auth: LocalAuth | undefined;
  specSyncError: SpecSyncError | undefined;
}

/** The Agent status for `host` (undefined host: the "Unknown set"). */
export function projectAgentStatus(
  agent: Agent,
  host: AgentHost | undefined,
  p: ProjectionContext,
): AgentStatus {
  let base = agent;
  let eventsURL: string | undefined;
  let logsURL: string | undefined;
  const debug = agent.status?.debugInfo;
  if (host?.cluster_id) {
    if (p.auth) {
      const auth = p.auth;
      const target = { hostId: host.id, infraEnvId: host.infra_env_id };
      const events = signedUrl(
        auth,
        debug?.eventsURL,
        eventsUrl(p.serviceBaseUrl, target),
        () =>
          eventsUrl(
            p.serviceBaseUrl,
            target,
            (k) => auth.issueUrlToken('events', { kind: k.kind, id: k.id }, p.now).token,
          ),
        p.now,
      );
      const logsTarget = { clusterId: host.cluster_id, hostId: host.id };
      // hostToAgentStatus writes a logs URL only once logs were collected: signing one before
      // (ECDSA, synchronous) was thrown away on every projection of every new host.
      const logs = !host.logs_collected_at
        ? { url: undefined, fresh: false }
        : signedUrl(
            auth,
            debug?.logsURL,
            logsUrl(p.serviceBaseUrl, logsTarget),
            () =>
              logsUrl(
                p.serviceBaseUrl,
                logsTarget,
                (k) => auth.issueUrlToken('cluster-logs', { kind: k.kind, id: k.id }, p.now).token,
              ),
            p.now,
          );
      eventsURL = events.url;
      logsURL = logs.url;
      // hostToAgentStatus keeps a stored URL naming the same target; drop the ones being re-issued.
      if (events.fresh || logs.fresh) {
        const { eventsURL: e, logsURL: l, ...rest } = debug ?? {};
        base = {
          ...agent,
          status: {
            ...agent.status,
            role: agent.status?.role ?? '',
            debugInfo: {
              ...rest,
              ...(events.fresh ? {} : { eventsURL: e }),
              ...(logs.fresh ? {} : { logsURL: l }),
            },
          },
        } as Agent;
      }
    } else {
      eventsURL = debug?.eventsURL;
      logsURL = debug?.logsURL;
    }
  }
  return hostToAgentStatus(host, base, {
    now: p.now,
    ...(eventsURL ? { eventsURL } : {}),
    ...(logsURL ? { logsURL } : {}),
    ...(p.specSyncError ? { specSyncError: p.specSyncError } : {}),
  });
}
