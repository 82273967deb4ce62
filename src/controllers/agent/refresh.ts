// One Agent reconcile as a pure function (kubeapi.md §3.4, core.md §1, §3): the host record the
// Agent holds, with its spec applied, the pending step results merged in, late binding decided,
// then the upstream host monitor — role suggestion, host validations, the RefreshHost transition.
// The reconciler gathers the inputs from the caches and writes what comes out.

import type { Agent, AgentDeprovisionInfo } from '../../api/index.ts';
import { applyInventoryUpdate } from '../../core/hardware/index.ts';
import type { Host, HostStatus, InfraEnv as InfraEnvRecord, ValidationsInfo } from '../../core/model.ts';
import {
  applyHostValidations,
  bindHost,
  effectiveHostname,
  HOST_INSTALLING_STATUSES,
  HOST_STATUSES_BEFORE_INSTALLATION,
  hostInstallationFailed,
  mediaDisconnected,
  type RoleFitness,
  rebootingForReclaim,
  reclaimHost,
  reclaimHostFailed,
  refreshHost,
  refreshSuggestedRoles,
  type SmEvent,
  type StateMachineOptions,
  unbindHost,
} from '../../core/statemachine/index.ts';
import {
  type HostValidationConfig,
  HostValidationContextError,
  isPassingStatus,
  shareHostnameIds,
  validateHost,
} from '../../core/validations/index.ts';
import type { PendingHostUpdate } from '../../records/hosts/memory.ts';
import {
  type AgentCluster,
  type AgentHost,
  ALLOWED_INSTALLER_FLAGS,
  agentSpecError,
  agentToHost,
  type HostRuntimeFacts,
  nodeLabelsError,
  type SpecSyncError,
  installerArgsError as specInstallerArgsError,
} from '../../records/index.ts';
import { RECLAIMABLE_STATES } from './reclaim.ts';

/** Where spec.clusterDeploymentName points. */
export type DesiredCluster =
  | { kind: 'none' }
  | { kind: 'cluster'; clusterId: string; cluster: AgentCluster }
  /** The reference is set but the ClusterDeployment or its cluster cannot be read (BackendError). */
  | { kind: 'unavailable'; error: SpecSyncError };

export interface CurrentCluster {
  /** The cluster the host is bound to (record), when it can be built. */
  cluster?: AgentCluster;
  /** Its ClusterDeployment, for deprovision_info on unbind. */
  cdName?: string;
  cdNamespace?: string;
}

export interface RefreshInput {
  agent: Agent;
  facts: HostRuntimeFacts;
  pending?: PendingHostUpdate;
  desired: DesiredCluster;
  current: CurrentCluster;
  infraEnv?: InfraEnvRecord;
  now: Date;
  /** Past the warm-up: facts from memory are complete. */
  warm: boolean;
  options: StateMachineOptions;
  validationConfig: HostValidationConfig;
  /** Role fitness for suggestions (built by the caller around the cluster record). */
  fitness?: (cluster: AgentCluster) => RoleFitness;
  /** A Secret the spec references could not be read (BackendError). */
  referenceError?: SpecSyncError;
  /** The reclaim objects are on the spoke: an unbind of an installed host is a ReclaimHost. */
  reclaim?: boolean;
}

export interface RefreshOutput {
  host: AgentHost;
  events: SmEvent[];
  specSyncError?: SpecSyncError;
  /** Set on unbind; 'clear' once the old cluster no longer matters. */
  deprovisionInfo?: AgentDeprovisionInfo | 'clear';
  resetCsrStatus?: boolean;
  /** Set when this refresh unbound the host: the state it left, and its Node's name. */
  unbound?: { from: HostStatus; nodeName: string };
  /** Why validations and the state machine did not run this time (logged). */
  skipped?: string;
}

/** States after which the old cluster's Node no longer waits for the host (deprovision_info). */
const UNBINDING_STATES: readonly HostStatus[] = [
  'unbinding',
  'unbinding-pending-user-action',
  'reclaiming',
  'reclaiming-rebooting',
];

/**
 * Validations computed from in-memory facts. During the warm-up after a restart they keep their
 * stored result, so a restart does not flap status (docs/design/records.md).
 */
export const MEMORY_FACT_VALIDATIONS: readonly string[] = [
  'connected',
  'time-synced-between-host-and-service',
  'belongs-to-majority-group',
  'mtu-valid',
  'sufficient-network-latency-requirement-for-role',
  'sufficient-packet-loss-requirement-for-role',
  'api-domain-name-resolved-correctly',
  'api-int-domain-name-resolved-correctly',
  'apps-domain-name-resolved-correctly',
  'dns-wildcard-not-configured',
  'container-images-available',
  'sufficient-installation-disk-speed',
  'ignition-downloadable',
  'disk-encryption-requirements-satisfied',
  'no-ip-collisions-in-network',
];

/** Upstream's installer-args checks for an Agent's spec (see records/agent-spec.ts). */
export function installerArgsError(agent: Agent, infraEnvId: string): string | undefined {
  return specInstallerArgsError(agent.spec.installerArgs ?? '', agent.metadata.name ?? '', infraEnvId);
}

export { ALLOWED_INSTALLER_FLAGS, nodeLabelsError };

/** Replaces the computed results of `ids` with the stored ones (when stored). */
export function keepStoredValidations(
  computed: { validationsInfo: ValidationsInfo; conditions: Record<string, boolean> },
  stored: ValidationsInfo | undefined,
  ids: readonly string[],
): { validationsInfo: ValidationsInfo; conditions: Record<string, boolean> } {
  if (!stored) return computed;
  const storedById = new Map<string, { status: string; message: string }>();
  for (const list of Object.values(stored)) for (const r of list) storedById.set(r.id, r);
  const conditions = { ...computed.conditions };
  const validationsInfo: ValidationsInfo = {};
  for (const [category, list] of Object.entries(computed.validationsInfo)) {
    validationsInfo[category] = list.map((r) => {
      const old = storedById.get(r.id);
      if (!old || !ids.includes(r.id)) return r;
      conditions[r.id] = isPassingStatus(old.status as never);
      return { ...r, status: old.status as typeof r.status, message: old.message };
    });
  }
  return { validationsInfo, conditions };
}

function applyPending(
  host: AgentHost,
  pending: PendingHostUpdate | undefined,
  cluster: AgentCluster | undefined,
  infraEnv: InfraEnvRecord | undefined,
  now: Date,
  events: SmEvent[],
): AgentHost {
  if (!pending) return host;
  let h: AgentHost = host;
  const transition = (r: ReturnType<typeof mediaDisconnected>) => {
    if (r.ok) {
      h = { ...(r.host as AgentHost), approved: h.approved };
      events.push(...r.events);
    }
  };
  if (pending.discoveryAgentVersion !== undefined)
    h = { ...h, discovery_agent_version: pending.discoveryAgentVersion };
  if (pending.installerVersion !== undefined) h = { ...h, installer_version: pending.installerVersion };
  if (pending.mediaConnected && h.media_status === 'disconnected') h = { ...h, media_status: 'connected' };
  if (pending.inventory) {
    const updated = applyInventoryUpdate({
      host: h,
      inventory: pending.inventory,
      ...(cluster && h.cluster_id === cluster.id ? { cluster } : {}),
      ...(infraEnv ? { infraEnv } : {}),
    });
    h = {
      ...h,
      inventory: updated.inventory,
      installation_disk_id: updated.installation_disk_id,
      installation_disk_path: updated.installation_disk_path,
      disks_to_be_formatted: updated.disks_to_be_formatted,
    };
  }
  if (pending.ntpSources) h = { ...h, ntp_sources: pending.ntpSources };
  const ctx = { now };
  if (pending.mediaDisconnected) transition(mediaDisconnected(h, {}, ctx));
  if (pending.installFailed !== undefined) {
    transition(hostInstallationFailed(h, { reason: pending.installFailed }, ctx));
  }
  if (pending.reclaim) {
    transition(
      'rebooting' in pending.reclaim ? rebootingForReclaim(h, {}, ctx) : reclaimHostFailed(h, {}, ctx),
    );
  }
  return h;
}

/**
 * The cluster with `host` as its record of that host. Every Agent reconcile does this, so it is a
 * copy of the list, and the copy shares the list's hostname index (which n reconciles of a
 * 1,000-host cluster would otherwise each rebuild).
 */
function withHost(cluster: AgentCluster, host: AgentHost): AgentCluster {
  const at = cluster.hosts.findIndex((h) => h.id === host.id);
  const hosts = [...cluster.hosts];
  if (at >= 0) hosts[at] = host;
  else hosts.push(host);
  shareHostnameIds(cluster.hosts, hosts, host.id);
  return { ...cluster, hosts };
}

export function refreshAgent(input: RefreshInput): RefreshOutput {
  const { agent, now, desired, current } = input;
  const events: SmEvent[] = [];
  let host = agentToHost(agent, input.facts);
  const approved = host.approved;
  const keep = (h: Host): AgentHost => ({ ...h, approved });

  // Spec problems (kubeapi.md §3.4.5): reported as InputError; the record keeps the old values.
  let specSyncError: SpecSyncError | undefined;
  const input_ = (message: string) => {
    specSyncError ??= { kind: 'input', message };
  };
  if (input.referenceError) specSyncError = input.referenceError;
  // Installer args, ignition override, requested disk and node labels, in upstream's order. The
  // record (agentToHost) already holds the last applied values where the spec is invalid.
  const argsError = installerArgsError(agent, host.infra_env_id);
  if (argsError) input_(argsError);
  const specError = agentSpecError(agent, host);
  if (specError) input_(specError);
  const labelsError = nodeLabelsError(agent.spec.nodeLabels);
  if (labelsError) input_(labelsError);

  const clusterFor = (h: Host): AgentCluster | undefined => {
    if (!h.cluster_id) return undefined;
    if (desired.kind === 'cluster' && desired.clusterId === h.cluster_id) return desired.cluster;
    return current.cluster?.id === h.cluster_id ? current.cluster : undefined;
  };

  host = applyPending(host, input.pending, clusterFor(host), input.infraEnv, now, events);

  // Late binding (kubeapi.md §3.4.4).
  let deprovisionInfo: RefreshOutput['deprovisionInfo'];
  let resetCsrStatus = false;
  let unbound: RefreshOutput['unbound'];
  const unbind = () => {
    const from = host.status;
    const r =
      input.reclaim && RECLAIMABLE_STATES.includes(from)
        ? reclaimHost(host, {}, { now })
        : unbindHost(host, {}, { now });
    if (!r.ok) return; // e.g. `binding`: nothing to unbind from until the host re-registers
    unbound = { from, nodeName: effectiveHostname(host) };
    deprovisionInfo = {
      cluster_name: current.cdName ?? '',
      cluster_namespace: current.cdNamespace ?? '',
      node_name: effectiveHostname(host) || host.id,
      message: 'Waiting for host to unbind to do spoke cleanup',
    };
    resetCsrStatus = true;
    events.push(...r.events);
    host = keep(r.host);
  };
  if (desired.kind === 'unavailable') {
    specSyncError = desired.error;
  } else if (desired.kind === 'none') {
    if (host.cluster_id) {
      if (HOST_INSTALLING_STATUSES.includes(host.status) && host.kind !== 'AddToExistingClusterHost') {
        input_(`cancelling non-day-2 host [${host.id}] in the middle of installation is not allowed`);
      } else {
        unbind();
      }
    }
  } else if (!host.cluster_id) {
    // Only a known-unbound host can bind; until then the Bound condition shows it is unbound.
    if (host.status === 'known-unbound') {
      const r = bindHost(host, { clusterId: desired.clusterId }, { now });
      if (r.ok) {
        events.push(...r.events);
        host = keep(r.host);
      }
    }
  } else if (host.cluster_id !== desired.clusterId) {
    unbind();
  }
  if (agent.status?.deprovision_info && !deprovisionInfo && !UNBINDING_STATES.includes(host.status)) {
    deprovisionInfo = 'clear';
  }

  const out = (skipped?: string): RefreshOutput => ({
    host,
    events,
    ...(specSyncError ? { specSyncError } : {}),
    ...(deprovisionInfo ? { deprovisionInfo } : {}),
    ...(resetCsrStatus ? { resetCsrStatus } : {}),
    ...(unbound ? { unbound } : {}),
    ...(skipped ? { skipped } : {}),
  });

  // The host monitor: role suggestion, validations, RefreshHost.
  const cluster = clusterFor(host);
  if (host.cluster_id && !cluster) return out(`the record of cluster ${host.cluster_id} is not available`);
  let clusterWithHost = cluster ? withHost(cluster, host) : undefined;

  if (
    clusterWithHost &&
    input.fitness &&
    host.role === 'auto-assign' &&
    HOST_STATUSES_BEFORE_INSTALLATION.includes(host.status)
  ) {
    const roles = refreshSuggestedRoles(clusterWithHost, input.fitness(clusterWithHost), {
      enableAutoAssign: input.options.enableAutoAssign,
    });
    const mine = roles.hosts.find((h) => h.id === host.id);
    if (mine && mine.suggested_role !== host.suggested_role) {
      host = keep({ ...host, suggested_role: mine.suggested_role ?? '' });
      events.push(...roles.events.filter((e) => e.host_id === host.id));
      clusterWithHost = withHost(clusterWithHost, host);
    }
  }

  let computed: { validationsInfo: ValidationsInfo; conditions: Record<string, boolean> };
  try {
    const v = validateHost({
      host,
      ...(clusterWithHost ? { cluster: clusterWithHost } : {}),
      ...(input.infraEnv ? { infraEnv: input.infraEnv } : {}),
      now,
      config: input.validationConfig,
    });
    computed = { validationsInfo: v.validationsInfo, conditions: v.conditions };
  } catch (err) {
    if (err instanceof HostValidationContextError) return out(err.message);
    throw err;
  }
  if (!input.warm) computed = keepStoredValidations(computed, host.validations_info, MEMORY_FACT_VALIDATIONS);

  const validated = applyHostValidations(host, computed.validationsInfo);
  events.push(...validated.events);
  host = keep(validated.host);
  const refreshed = refreshHost(
    host,
    {
      ...(clusterWithHost ? { cluster: withHost(clusterWithHost, host) } : {}),
      validations: host.validations_info ?? {},
    },
    { now, conditions: computed.conditions, options: input.options },
  );
  if (refreshed.ok) {
    events.push(...refreshed.events);
    host = keep(refreshed.host);
  }
  return out();
}
