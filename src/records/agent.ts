// Agent CR ⇄ core Host record. The Agent is the host record (docs/design/records.md): spec is the
// user's intent, status is what upstream shows, `status.backend` keeps the backend-only facts that
// must survive a restart, and the frequent low-value facts (check-ins, step results) come from
// memory. `hostToAgentStatus(agentToHost(agent))` reproduces the status it was read from, so a
// reconcile that changes nothing writes nothing.

import type {
  Agent,
  AgentBackendStatus,
  AgentStatus,
  HostInventory,
  HostProgress,
  ValidationsStatus,
} from '../api/index.ts';
import {
  deviceFullName,
  diskMatchesPath,
  disksToFormat,
  findDiskByPath,
  REQUESTED_DISK_NOT_ELIGIBLE,
  resolveRequestedInstallationDisk,
} from '../core/hardware/installation-disk.ts';
import { validateIgnitionOverride } from '../core/ignition/override.ts';
import type { Inventory } from '../core/inventory.ts';
import {
  copyValidations,
  type Host,
  type HostProgressInfo,
  type HostRole,
  type HostStage,
  type HostStatus,
  type LogsState,
  type ValidationsInfo,
} from '../core/model.ts';
import { requestedHostnameError, requestedRoleError } from '../core/validations/user-input.ts';
import { memoSlot } from '../util/memo-slot.ts';
import { agentConditionValues, type SpecSyncError } from './agent-conditions.ts';
import {
  appliedIgnitionOverride,
  appliedInstallerArgs,
  appliedNodeLabels,
  installerArgsError,
} from './agent-spec.ts';
import { setConditionsNoHeartbeat } from './conditions.ts';
import { inventoryFromStatus, inventoryToStatus } from './inventory.ts';
import { coreTime, metaTime } from './time.ts';
import { keepSignedUrl } from './urls.ts';

/** A host record with the kube-API-only approval flag (Agent `spec.approved`). */
export interface AgentHost extends Host {
  approved: boolean;
}

/**
 * Host facts the reconciler holds outside the Agent: step results kept in memory (keyed by host
 * id; absent after a restart until the host answers again) and values read from the Secrets the
 * Agent references.
 */
export type HostRuntimeFacts = Partial<
  Pick<
    Host,
    | 'checked_in_at'
    | 'timestamp'
    | 'connectivity'
    | 'free_addresses'
    | 'domain_name_resolutions'
    | 'images_status'
    | 'disks_info'
    | 'api_vip_connectivity'
    | 'tang_connectivity'
    | 'fencing_credentials'
    | 'ignition_endpoint_token_set'
  >
>;

/**
 * States in which the backend applies hostname, role, machine config pool and installation-disk
 * changes (kubeapi.md §3.4.5); in any other state upstream silently keeps the old values.
 */
export const SPEC_UPDATABLE_HOST_STATES: readonly HostStatus[] = [
  'discovering',
  'known',
  'disconnected',
  'insufficient',
  'pending-for-input',
  'disconnected-unbound',
  'insufficient-unbound',
  'discovering-unbound',
  'known-unbound',
  'binding',
];

const REQUESTABLE_ROLES: readonly string[] = ['auto-assign', 'master', 'worker', 'arbiter'];

/** Object with the defined values only (records never carry `key: undefined`). */
function defined<T extends object>(entries: T): T {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as T;
}

function nonEmpty(text: string | undefined): string | undefined {
  return text ? text : undefined;
}

// ---------------------------------------------------------------------------------------------
// Agent → Host
// ---------------------------------------------------------------------------------------------

function ownerInfraEnvId(agent: Agent): string | undefined {
  return agent.metadata.ownerReferences?.find((o) => o.kind === 'InfraEnv')?.uid;
}

/** The record's role: spec.role when given and the state allows it, else the stored one. */
function hostRoles(
  specRole: string,
  backend: AgentBackendStatus,
  updatable: boolean,
): Pick<Host, 'role' | 'suggested_role'> {
  const stored = (backend.role || 'auto-assign') as HostRole;
  const suggested = backend.suggestedRole as HostRole | '' | undefined;
  if (updatable && REQUESTABLE_ROLES.includes(specRole) && specRole !== stored) {
    // A manual role is also the suggestion, as the backend's role update does.
    const role = specRole as HostRole;
    return defined({ role, suggested_role: role === 'auto-assign' ? suggested : role });
  }
  return defined({ role: stored, suggested_role: suggested });
}

function installationDisk(
  agent: Agent,
  inventory: Inventory | undefined,
  updatable: boolean,
): Pick<Host, 'installation_disk_id' | 'installation_disk_path'> {
  const stored = agent.status?.installation_disk_id ?? '';
  const current = stored ? findDiskByPath(inventory, stored) : undefined;
  const wanted = agent.spec.installation_disk_path || agent.spec.installation_disk_id || '';
  if (wanted && updatable && !(current && diskMatchesPath(current, wanted))) {
    const requested = resolveRequestedInstallationDisk(inventory, wanted);
    if ('choice' in requested) return requested.choice;
  }
  if (!stored) return {};
  return { installation_disk_id: stored, installation_disk_path: current ? deviceFullName(current) : '' };
}

function progressFromStatus(
  progress: HostProgress | undefined,
  backend: AgentBackendStatus,
): HostProgressInfo | undefined {
  const info = defined<HostProgressInfo>({
    current_stage: progress?.currentStage as HostStage | undefined,
    progress_info: progress?.progressInfo,
    installation_percentage: progress?.installationPercentage,
    stage_started_at: progress?.stageStartTime === undefined ? undefined : coreTime(progress.stageStartTime),
    stage_updated_at:
      progress?.stageUpdateTime === undefined ? undefined : coreTime(progress.stageUpdateTime),
    stage_timed_out: backend.stageTimedOut,
  });
  return Object.keys(info).length > 0 ? info : undefined;
}

/** The host record an Agent holds, with its spec applied as the backend would apply it. */
export function agentToHost(agent: Agent, facts: HostRuntimeFacts = {}): AgentHost {
  const status = agent.status;
  const backend: AgentBackendStatus = status?.backend ?? {};
  const spec = agent.spec;
  const clusterId = backend.clusterID ? backend.clusterID : null;
  const hostStatus = (status?.debugInfo?.state ||
    (clusterId ? 'discovering' : 'discovering-unbound')) as HostStatus;
  const updatable = SPEC_UPDATABLE_HOST_STATES.includes(hostStatus);
  // inventoryExtra is written whenever an inventory exists; upstream's always-present empty
  // `status.inventory` shape alone means "no inventory yet".
  const inventory =
    status?.inventory !== undefined && backend.inventoryExtra !== undefined
      ? inventoryFromStatus(status.inventory, backend.inventoryExtra)
      : undefined;
  const ntp = status?.ntpSources?.map((s) =>
    defined({
      source_name: s.sourceName,
      source_state: s.sourceState as NonNullable<Host['ntp_sources']>[number]['source_state'],
    }),
  );
  return defined<AgentHost>({
    id: agent.metadata.name ?? '',
    infra_env_id: backend.infraEnvID ?? ownerInfraEnvId(agent) ?? '',
    cluster_id: clusterId,
    kind: (status?.kind || 'Host') as Host['kind'],
    status: hostStatus,
    status_info: status?.debugInfo?.stateInfo ?? '',
    status_updated_at: backend.statusUpdatedAt,
    ...hostRoles(spec.role ?? '', backend, updatable),
    bootstrap: status?.bootstrap === true ? true : undefined,
    inventory,
    validations_info: status?.validationsInfo as ValidationsInfo | undefined,
    progress: progressFromStatus(status?.progress, backend),
    progress_stages: status?.progress?.progressStages as HostStage[] | undefined,
    ntp_sources: ntp && ntp.length > 0 ? ntp : undefined,
    ...installationDisk(agent, inventory, updatable),
    disks_to_be_formatted: inventory ? disksToFormat(inventory) : undefined,
    requested_hostname:
      (updatable && !requestedHostnameError(spec.hostname ?? '') ? nonEmpty(spec.hostname) : undefined) ??
      backend.requestedHostname,
    machine_config_pool_name:
      (updatable ? nonEmpty(spec.machineConfigPool) : undefined) ?? backend.machineConfigPool,
    ignition_config_overrides: appliedIgnitionOverride(
      spec.ignitionConfigOverrides,
      backend.ignitionConfigOverrides,
    ),
    installer_args: appliedInstallerArgs(
      spec.installerArgs,
      backend.installerArgs,
      agent.metadata.name ?? '',
      backend.infraEnvID ?? '',
    ),
    node_labels: appliedNodeLabels(spec.nodeLabels, backend.nodeLabels),
    // Only while the spec names the Secret; the reconciler's fact (read from it) wins.
    ignition_endpoint_token_set: spec.ignitionEndpointTokenReference?.name
      ? backend.ignitionEndpointTokenSet
      : undefined,
    discovery_agent_version: backend.discoveryAgentVersion,
    installer_version: backend.installerVersion,
    media_status: backend.mediaStatus as Host['media_status'],
    registered_at: backend.registeredAt,
    logs_info: backend.logsInfo as LogsState | undefined,
    logs_started_at: backend.logsStartedAt,
    logs_collected_at: backend.logsCollectedAt,
    connection_timed_out: backend.connectionTimedOut,
    created_at: agent.metadata.creationTimestamp,
    approved: spec.approved === true,
    ...defined(facts),
  });
}

/** The facts of a host the process has none for (one object, so the memo below can hit). */
export const NO_FACTS: HostRuntimeFacts = Object.freeze({});

/**
 * Per cached Agent (never changed in place: each update is a new object): its record, and that
 * record with the facts last asked for laid over (HostFactsStore replaces, never edits, a host's
 * facts). Both are frozen: the same records go to every reader until the Agent or its facts change.
 */
const hostsOfAgents = memoSlot<Agent, { base: AgentHost; facts: HostRuntimeFacts; host: AgentHost }>(
  'host of Agent',
);

function memoOf(agent: Agent) {
  let memo = hostsOfAgents.get(agent);
  if (!memo) {
    const base = Object.freeze(agentToHost(agent));
    memo = { base, facts: NO_FACTS, host: base };
    hostsOfAgents.set(agent, memo);
  }
  return memo;
}

/**
 * agentToHost for an Agent of the informer cache, memoised per object and facts object. Building
 * every host of a cluster on each reconcile of one of them made a registration wave quadratic in
 * the cluster's size, and copying each one's record for each cluster pass was a tenth of the
 * operator's thread in a 500-host inventory wave (issue 16).
 */
export function cachedAgentToHost(agent: Agent, facts: HostRuntimeFacts = NO_FACTS): AgentHost {
  const memo = memoOf(agent);
  if (memo.facts !== facts) {
    memo.facts = facts;
    memo.host = Object.freeze({ ...memo.base, ...defined(facts) });
  }
  return memo.host;
}

/**
 * The record without the facts, for readers that look at a field or two of every host of a
 * cluster (what the Agent's own spec and status say: hostname, role, inventory).
 */
export function memoisedHost(agent: Agent): Readonly<AgentHost> {
  return memoOf(agent).base;
}

/**
 * Why the Agent spec cannot be applied to the host (an input error), or undefined. Covers what
 * this layer can check without the backend: installer args JSON, the ignition override and the
 * requested installation disk.
 */
export function agentSpecError(agent: Agent, host: Host): string | undefined {
  const args = installerArgsError(
    agent.spec.installerArgs ?? '',
    agent.metadata.name ?? '',
    host.infra_env_id,
  );
  if (args) return args;
  const ignition = validateIgnitionOverride(agent.spec.ignitionConfigOverrides);
  if (ignition) return ignition.error;
  const updatable = SPEC_UPDATABLE_HOST_STATES.includes(host.status);
  const hostname = agent.spec.hostname ?? '';
  if (updatable && hostname !== '' && hostname !== host.requested_hostname) {
    const error = requestedHostnameError(hostname);
    if (error) return error;
  }
  const role = agent.spec.role ?? '';
  if (updatable && role !== '' && role !== host.role) {
    const day2 = host.kind === 'AddToExistingClusterHost';
    const error = requestedRoleError(role, { id: host.id, infraEnvId: host.infra_env_id, day2 });
    if (error) return error;
  }
  const wanted = agent.spec.installation_disk_path || agent.spec.installation_disk_id || '';
  if (wanted && SPEC_UPDATABLE_HOST_STATES.includes(host.status)) {
    const current = findDiskByPath(host.inventory, host.installation_disk_id ?? '');
    const matches = current !== undefined && diskMatchesPath(current, wanted);
    if (!matches && 'error' in resolveRequestedInstallationDisk(host.inventory, wanted)) {
      return REQUESTED_DISK_NOT_ELIGIBLE;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Host → Agent status
// ---------------------------------------------------------------------------------------------

export interface AgentStatusContext {
  now: Date;
  /** Signed events URL of this host (written only while the host is bound). */
  eventsURL?: string;
  /** Signed logs URL of this host (written only while bound and once logs were collected). */
  logsURL?: string;
  /** Why the spec could not be applied in this reconcile. */
  specSyncError?: SpecSyncError;
}

/** Upstream always serialises these struct-valued inventory fields, even without an inventory. */
function emptyInventoryStatus(): HostInventory {
  return { memory: {}, cpu: {}, boot: {}, systemVendor: {} };
}

/** Go omitempty copy of the progress fields (struct always present, possibly `{}`). */
function progressToStatus(host: Host): HostProgress {
  const p = host.progress;
  const out: HostProgress = {};
  if (p?.current_stage) out.currentStage = p.current_stage;
  if (host.progress_stages && host.progress_stages.length > 0) out.progressStages = [...host.progress_stages];
  if (p?.progress_info) out.progressInfo = p.progress_info;
  if (p?.installation_percentage) out.installationPercentage = p.installation_percentage;
  if (p?.stage_started_at) out.stageStartTime = metaTime(p.stage_started_at);
  if (p?.stage_updated_at) out.stageUpdateTime = metaTime(p.stage_updated_at);
  return out;
}

/** Role shown in status: the suggested role while the host is auto-assign. */
export function effectiveAgentRole(host: Pick<Host, 'role' | 'suggested_role'>): string {
  return host.role === 'auto-assign' && host.suggested_role ? host.suggested_role : host.role;
}

function backendStatus(
  host: AgentHost,
  inventoryExtra: AgentBackendStatus['inventoryExtra'],
): AgentBackendStatus {
  return defined<AgentBackendStatus>({
    clusterID: nonEmpty(host.cluster_id ?? undefined),
    infraEnvID: nonEmpty(host.infra_env_id),
    role: host.role,
    suggestedRole: host.suggested_role,
    requestedHostname: nonEmpty(host.requested_hostname),
    machineConfigPool: nonEmpty(host.machine_config_pool_name),
    statusUpdatedAt: host.status_updated_at,
    registeredAt: host.registered_at,
    installerVersion: host.installer_version,
    discoveryAgentVersion: host.discovery_agent_version,
    logsInfo: host.logs_info,
    logsStartedAt: host.logs_started_at,
    logsCollectedAt: host.logs_collected_at,
    mediaStatus: host.media_status ?? undefined,
    connectionTimedOut: host.connection_timed_out,
    stageTimedOut: host.progress?.stage_timed_out,
    installerArgs: nonEmpty(host.installer_args),
    ignitionConfigOverrides: nonEmpty(host.ignition_config_overrides),
    nodeLabels:
      host.node_labels && Object.keys(host.node_labels).length > 0 ? { ...host.node_labels } : undefined,
    ignitionEndpointTokenSet: host.ignition_endpoint_token_set || undefined,
    inventoryExtra,
  });
}

/**
 * The Agent status for a host record. Conditions keep their lastTransitionTime unless their
 * status changes, URLs already in status are kept while they name the same target, and
 * `deprovision_info`/`csrStatus` (reconciler bookkeeping) are carried over, so projecting the same
 * host twice yields a deep-equal status. Without a host, the host-derived conditions are Unknown
 * and the rest of the previous status is kept.
 */
export function hostToAgentStatus(
  host: AgentHost | undefined,
  agent: Agent,
  ctx: AgentStatusContext,
): AgentStatus {
  const previous = agent.status;
  const conditions = setConditionsNoHeartbeat(
    previous?.conditions,
    agentConditionValues(host, agent.spec.approved === true, ctx.specSyncError),
    ctx.now,
  );
  if (!host) {
    const { state: _state, stateInfo: _stateInfo, ...debugInfo } = previous?.debugInfo ?? {};
    return { ...previous, role: previous?.role ?? '', conditions, debugInfo };
  }
  const bound = !!host.cluster_id;
  const converted = host.inventory ? inventoryToStatus(host.inventory) : undefined;
  const ntpSources = (host.ntp_sources ?? []).map((s) =>
    defined({ sourceName: nonEmpty(s.source_name), sourceState: nonEmpty(s.source_state) }),
  );
  const debugInfo = defined({
    eventsURL:
      bound && ctx.eventsURL ? keepSignedUrl(previous?.debugInfo?.eventsURL, ctx.eventsURL) : undefined,
    logsURL:
      bound && ctx.logsURL && host.logs_collected_at
        ? keepSignedUrl(previous?.debugInfo?.logsURL, ctx.logsURL)
        : undefined,
    state: nonEmpty(host.status),
    stateInfo: nonEmpty(host.status_info),
  });
  const validationsInfo =
    host.validations_info && Object.keys(host.validations_info).length > 0
      ? (copyValidations(host.validations_info) as ValidationsStatus)
      : undefined;
  return defined<AgentStatus>({
    bootstrap: host.bootstrap === true ? true : undefined,
    role: effectiveAgentRole(host),
    inventory: converted?.inventory ?? emptyInventoryStatus(),
    progress: progressToStatus(host),
    ntpSources: ntpSources.length > 0 ? ntpSources : undefined,
    conditions,
    debugInfo,
    validationsInfo,
    installation_disk_id: nonEmpty(host.installation_disk_id),
    deprovision_info: previous?.deprovision_info,
    csrStatus: previous?.csrStatus ?? {},
    kind: host.kind,
    backend: backendStatus(host, converted?.extra),
  });
}
