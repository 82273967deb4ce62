// API-level rules around host registration (spec §1.3 "V2RegisterHost"): which registrations are
// accepted and what a brand-new host record looks like before RegisterHost runs.

import type { Cluster, Host, InfraEnv } from '../model.ts';
import { isSingleNodeCluster } from './hostutil.ts';
import type { SmError } from './result.ts';

const ACCEPTING_CLUSTER_STATUSES = ['insufficient', 'ready', 'pending-for-input', 'adding-hosts'] as const;

export interface RegistrationCheckInput {
  readonly infraEnv?: Pick<InfraEnv, 'type'> | null;
  readonly cluster?: Pick<Cluster, 'status'> | null;
  /** The host has no record yet. */
  readonly isNew: boolean;
  /** SaaS deployments add a hint about the "Add hosts" tab. */
  readonly saas?: boolean;
}

/** Why a registration must be refused, or undefined when it may go ahead. */
export function checkHostRegistration(input: RegistrationCheckInput): SmError | undefined {
  if ((input.infraEnv?.type as string | undefined) === 'disconnected-iso') {
    return { code: 400, message: 'Cannot register a host to an InfraEnv with disconnected-iso type' };
  }
  if (!input.isNew || !input.cluster) return undefined;
  const status = input.cluster.status;
  if ((ACCEPTING_CLUSTER_STATUSES as readonly string[]).includes(status)) return undefined;
  if (status === 'installed') {
    let message = 'Cannot add hosts to an existing cluster using the original Discovery ISO.';
    if (input.saas) {
      message +=
        ' Try to add new hosts by using the Discovery ISO that can be found in console.redhat.com under your cluster “Add hosts“ tab.';
    }
    return { code: 409, message };
  }
  return {
    code: 409,
    message: `Host can register only in one of the following states: [${ACCEPTING_CLUSTER_STATUSES.join(' ')}]`,
  };
}

export interface NewHostParams {
  readonly id: string;
  readonly infraEnvId: string;
  readonly cluster?: Cluster | null;
  readonly now: Date;
  readonly discoveryAgentVersion?: string;
}

/**
 * The record of a host registering for the first time. Day-2 clusters get workers; an SNO host is
 * master and bootstrap from the start so the stricter requirements apply immediately.
 */
export function newHostRecord(params: NewHostParams): Host {
  const now = params.now.toISOString();
  const cluster = params.cluster ?? null;
  const day2 = cluster?.kind === 'AddHostsCluster';
  const sno = !day2 && isSingleNodeCluster(cluster);
  const role = day2 ? 'worker' : sno ? 'master' : 'auto-assign';
  return {
    id: params.id,
    infra_env_id: params.infraEnvId,
    cluster_id: cluster?.id ?? null,
    kind: day2 ? 'AddToExistingClusterHost' : 'Host',
    status: 'discovering',
    status_info: '',
    role,
    suggested_role: role,
    ...(sno ? { bootstrap: true } : {}),
    ...(day2 ? { machine_config_pool_name: 'worker' } : {}),
    ...(params.discoveryAgentVersion ? { discovery_agent_version: params.discoveryAgentVersion } : {}),
    checked_in_at: now,
    registered_at: now,
  };
}
