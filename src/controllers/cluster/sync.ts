// One reconcile of a live ClusterDeployment + AgentClusterInstall (kubeapi.md §3.1.2 steps 7–15):
// build the cluster record, run the monitor, apply a finished preparation, start a day-1
// installation or day-2 host installs, hand an installed cluster off, then write — changed hosts
// to their Agents first, then the ACI status once (nothing when unchanged) — set the spoke's
// worker MachineConfigPool pause of a day-2 cluster, and return when to look again.

import type { Agent, AgentClusterInstall, ClusterDeployment } from '../../api/index.ts';
import { INSTALL_CONFIG_OVERRIDES_ANNOTATION } from '../../api/index.ts';
import { buildDay2PointerIgnition, hostIgnitionFileName } from '../../core/artifacts/index.ts';
import {
  InstallConfigOverrideError,
  validateInstallConfigOverrides,
} from '../../core/installconfig/index.ts';
import {
  handlePreInstallError,
  handlePreInstallSuccess,
  type SmEvent,
} from '../../core/statemachine/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import {
  type AgentCluster,
  type AgentHost,
  isClusterInstalled,
  isInstallationHeld,
  provisionCounts,
  type SpecSyncError,
} from '../../records/index.ts';
import { readSecret } from '../../records/referenced.ts';
import { AGENT_CLUSTER_INSTALL } from '../../records/resources.ts';
import { clusterView } from '../../records/views.ts';
import { keyOf, type ReconcileResult, updateStatus } from '../../runtime/index.ts';
import { roleFitness } from '../hosts/role-fitness.ts';
import { writeClusterFiles } from './artifacts-store.ts';
import {
  handOffEarlyKubeconfig,
  handOffInstalledCluster,
  kubeconfigSecretName,
  needsInstalledHandOff,
} from './completion.ts';
import type { ClusterControllerDeps } from './deps.ts';
import { writeHostChanges } from './hosts-write.ts';
import {
  clusterInfraEnvs,
  readClusterMirror,
  readCustomManifests,
  readIgnitionEndpointCa,
} from './inputs.ts';
import {
  day2HostsToInstall,
  defaultMonitoredOperators,
  installBlocker,
  installDay2Host,
  startDay1Installation,
} from './install.ts';
import { applyWorkerPoolPause, mcpPauseAgents, workerPoolPaused } from './mcp-pause.ts';
import { monitorCluster, nextClusterDeadlineMs } from './monitor.ts';
import { installConfigOptions, prepareInstallArtifacts } from './preparation.ts';
import { computeAciStatus } from './status.ts';
import { withVipVerifications } from './vip-verifications.ts';

export const BACKEND_ERROR_REQUEUE_MS = 10_000;
export const MANIFESTS_ERROR_REQUEUE_MS = 60_000;
/** After a failed preparation the cluster is ready again; wait a monitor cycle before retrying. */
export const PREPARATION_RETRY_DELAY_MS = 10_000;
/** After a restart, hosts whose facts have not come back are warming up for this long. */
export const WARM_UP_MS = 3 * 60_000;
const HANDOFF_RETRY_MS = 10_000;

/** Statuses in which the spec (and its install-config overrides) may still change the cluster. */
const UPDATABLE_STATUSES = ['insufficient', 'ready', 'pending-for-input'];

/** The ACI status changed under us (e.g. the REST backend recorded progress): start over. */
export class StaleClusterRecordError extends Error {
  constructor() {
    super('the AgentClusterInstall status changed while the cluster was being reconciled');
    this.name = 'StaleClusterRecordError';
  }
}

function hasSpecSyncFalse(agent: Agent): boolean {
  return agent.status?.conditions?.some((c) => c.type === 'SpecSynced' && c.status === 'False') ?? false;
}

function minDelay(...values: (number | undefined)[]): number | undefined {
  const defined = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  return defined.length > 0 ? Math.max(0, Math.min(...defined)) : undefined;
}

const inputError = (message: string): SpecSyncError => ({ kind: 'input', message });

interface WritePlan {
  /** The ACI the cluster record was built from: its status.backend must still be current. */
  baseline: AgentClusterInstall;
  cluster: AgentCluster | undefined;
  before: AgentCluster | undefined;
  changedHostIds: Set<string>;
  specSyncError: SpecSyncError | undefined;
  events: SmEvent[];
}

export async function syncCluster(
  ctx: OperatorContext,
  deps: ClusterControllerDeps,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
): Promise<ReconcileResult | undefined> {
  const now = ctx.now();
  const sm = { now, options: deps.smOptions };
  const ns = cd.metadata.namespace ?? '';
  const cdKey = keyOf(ns, cd.metadata.name ?? '');
  const log = ctx.logger.child({ controller: 'clusterdeployment', cd: cdKey });
  const agents = ctx.agentsOfCluster(cdKey);
  const unsyncedAgents = agents.filter(hasSpecSyncFalse).length;
  const hold = isInstallationHeld(cd, aci);
  const installed = isClusterInstalled(cd, aci);

  const view = await clusterView(ctx, cd);
  const result = view.result;
  const mirror = await readClusterMirror(ctx, aci);
  if (mirror.error !== undefined || !result?.cluster) {
    // Upstream fails before it looks its cluster up: the "Unknown set".
    const error = mirror.error !== undefined ? inputError(mirror.error) : result?.error;
    await writeAciStatus(ctx, deps, cd, aci, agents, {
      baseline: aci,
      cluster: undefined,
      before: undefined,
      changedHostIds: new Set(),
      specSyncError: error,
      events: [],
    });
    if (error?.kind !== 'backend') return undefined;
    const manifests = await isManifestsError(ctx, aci);
    return { requeueAfter: manifests ? MANIFESTS_ERROR_REQUEUE_MS : BACKEND_ERROR_REQUEUE_MS };
  }

  let cluster: AgentCluster = withVipVerifications(ctx, result.cluster);
  let specSyncError = result.error;
  const before = cluster;
  const events: SmEvent[] = [];
  const changedHostIds = new Set<string>();
  const existing = aci.status?.backend?.clusterID === cluster.id;
  if (!existing && cluster.kind === 'Cluster' && !cluster.monitored_operators) {
    cluster = { ...cluster, monitored_operators: defaultMonitoredOperators() };
  }
  const ca = await readIgnitionEndpointCa(ctx, aci);
  if (ca && cluster.ignition_endpoint) {
    cluster = {
      ...cluster,
      ignition_endpoint: { ...cluster.ignition_endpoint, ca_certificate: Buffer.from(ca).toString('base64') },
    };
  }
  if (
    cluster.install_config_overrides &&
    cluster.kind === 'Cluster' &&
    UPDATABLE_STATUSES.includes(cluster.status)
  ) {
    // The backend checks a new overrides document against the generated install-config.
    try {
      validateInstallConfigOverrides(
        { ...cluster, install_config_overrides: undefined },
        cluster.install_config_overrides,
      );
    } catch (err) {
      if (err instanceof InstallConfigOverrideError) {
        specSyncError ??= inputError(
          `Failed to parse '${INSTALL_CONFIG_OVERRIDES_ANNOTATION}' annotation: ${err.message}`,
        );
        cluster = { ...cluster, install_config_overrides: undefined };
      }
    }
  }
  if (cd.spec.installed) {
    // Label the spoke kubeconfig for the cache (the Agent reconciler's day-2 work reads it).
    await readSecret(ctx, ns, kubeconfigSecretName(cd));
  }

  // The cluster monitor.
  const factsSince = deps.startedAt;
  const warmUpOver = now.getTime() - factsSince >= WARM_UP_MS;
  const monitored = monitorCluster({
    cluster,
    now,
    options: deps.smOptions,
    validation: deps.validation,
    installed,
    specMachineNetworks: (aci.spec.networking.machineNetwork ?? []).length > 0,
    hostFactsReady: (id) => warmUpOver || ctx.facts.entry(id) !== undefined,
  });
  cluster = monitored.cluster;
  events.push(...monitored.events);
  for (const id of monitored.changedHostIds) changedHostIds.add(id);
  for (const e of monitored.errors) log.debug({ reason: e }, 'cluster monitor');
  const warm = warmUpOver || cluster.hosts.every((h) => ctx.facts.entry(h.id) !== undefined);

  // A finished preparation (§2.5 step 6).
  let startPreparation = false;
  let recordedAttempt: string | undefined;
  if (
    cluster.status === 'preparing-for-installation' &&
    cluster.last_installation_preparation?.status === 'not_started'
  ) {
    const attempt = cluster.install_started_at ?? '';
    const state = deps.jobs.state(cluster.id, attempt);
    if (state === undefined) startPreparation = true;
    else if (state !== 'running') {
      const r = state.ok
        ? handlePreInstallSuccess(cluster, { openshiftClusterId: state.openshiftClusterId }, sm)
        : handlePreInstallError(cluster, { error: state.error }, sm);
      if (r.ok) {
        cluster = r.cluster as AgentCluster;
        events.push(...r.events);
        recordedAttempt = attempt;
      }
    }
  }

  // Day-1 installation start (§3.1.8).
  let retryInMs: number | undefined;
  if (!specSyncError && cluster.kind === 'Cluster' && cluster.status === 'ready') {
    const blocker = installBlocker({
      cluster,
      requirements: provisionCounts(aci.spec),
      held: hold,
      unsyncedAgents,
    });
    const failedAt =
      cluster.last_installation_preparation?.status === 'failed' ? cluster.status_updated_at : undefined;
    const retryAt = failedAt ? Date.parse(failedAt) + PREPARATION_RETRY_DELAY_MS : 0;
    if (!blocker && retryAt > now.getTime()) retryInMs = retryAt - now.getTime();
    else if (!blocker) {
      const started = startDay1Installation(cluster, roleFitness(cluster, undefined, now), sm);
      if (started.ok) {
        cluster = started.cluster;
        events.push(...started.events);
        for (const id of started.changedHostIds) changedHostIds.add(id);
        startPreparation = true;
        log.info('installation started');
      } else {
        specSyncError = {
          kind: started.code >= 400 && started.code < 500 ? 'input' : 'backend',
          message: started.message,
        };
      }
    }
  }

  // Day-2 host installs (§3.1.10).
  for (const host of day2HostsToInstall(cluster)) {
    const agent = agents.find((a) => a.metadata.name === host.id);
    const ignition = buildDay2PointerIgnition({
      cluster,
      host,
      ...(await day2Credentials(ctx, agent)),
    });
    await writeClusterFiles(ctx, cluster.id, { [hostIgnitionFileName(host)]: ignition.content });
    const r = installDay2Host(host, sm);
    if (!r.ok) {
      log.info({ host: host.id, reason: r.message }, 'day-2 host not installed');
      continue;
    }
    cluster = { ...cluster, hosts: cluster.hosts.map((h) => (h.id === host.id ? r.host : h)) };
    events.push(...r.events);
    changedHostIds.add(host.id);
  }

  // Hand-off to Hive (§3.1.9): Secrets and clusterMetadata before Completed turns True.
  let current = aci;
  let handOffPending: string | undefined;
  if (needsInstalledHandOff(cd, aci, cluster)) {
    const outcome = await handOffInstalledCluster(ctx, cd, aci, cluster);
    handOffPending = outcome.pending;
    if (outcome.aci) current = outcome.aci;
  } else if (
    (cluster.status === 'installing' || cluster.status === 'finalizing') &&
    !aci.spec.clusterMetadata
  ) {
    const outcome = await handOffEarlyKubeconfig(ctx, cd, aci, cluster);
    if (outcome.aci) current = outcome.aci;
  }
  if (handOffPending) log.info({ reason: handOffPending }, 'installed cluster not handed off yet');

  const { reissueInMs, statusChanged } = await writeAciStatus(ctx, deps, cd, current, agents, {
    baseline: aci,
    cluster,
    before,
    changedHostIds,
    specSyncError,
    events,
  });
  // The spoke's worker pool pause (§3.1.10), after the host records are written: a spoke problem
  // is reported and retried, and never holds up the rest of the sync.
  let poolRetryInMs: number | undefined;
  if (cluster.kind === 'AddHostsCluster') {
    const paused = workerPoolPaused(mcpPauseAgents(agents, cluster));
    if (paused !== undefined) {
      const outcome = await applyWorkerPoolPause(ctx, cd, current, paused);
      if ('retryInMs' in outcome) poolRetryInMs = outcome.retryInMs;
    }
  }
  if (recordedAttempt !== undefined) deps.jobs.forget(cluster.id, recordedAttempt);
  if (startPreparation) startPreparationJob(ctx, deps, cdKey, aci, cluster);
  if (statusChanged || changedHostIds.size > 0) {
    for (const a of agents) ctx.bus.enqueue('agent', keyOf(a.metadata.namespace, a.metadata.name ?? ''));
  }

  return requeue(
    minDelay(
      specSyncError?.kind === 'backend'
        ? (await isManifestsError(ctx, aci))
          ? MANIFESTS_ERROR_REQUEUE_MS
          : BACKEND_ERROR_REQUEUE_MS
        : undefined,
      nextClusterDeadlineMs(cluster, now, deps.smOptions),
      warm ? undefined : factsSince + WARM_UP_MS - now.getTime() + 1000,
      reissueInMs,
      retryInMs,
      handOffPending ? HANDOFF_RETRY_MS : undefined,
      poolRetryInMs,
    ),
  );
}

function requeue(ms: number | undefined): ReconcileResult | undefined {
  return ms === undefined ? undefined : { requeueAfter: Math.max(1000, ms) };
}

async function isManifestsError(ctx: OperatorContext, aci: AgentClusterInstall): Promise<boolean> {
  return 'error' in (await readCustomManifests(ctx, aci));
}

/** The day-2 host's ignition-endpoint token and headers from its Agent. */
async function day2Credentials(
  ctx: OperatorContext,
  agent: Agent | undefined,
): Promise<{ ignitionEndpointToken?: string; httpHeaders?: Record<string, string> }> {
  if (!agent) return {};
  const out: { ignitionEndpointToken?: string; httpHeaders?: Record<string, string> } = {};
  const ref = agent.spec.ignitionEndpointTokenReference;
  if (ref?.name) {
    const token = (await readSecret(ctx, ref.namespace, ref.name))?.['ignition-token'];
    if (token) out.ignitionEndpointToken = token;
  }
  if (agent.spec.ignitionEndpointHTTPHeaders) out.httpHeaders = { ...agent.spec.ignitionEndpointHTTPHeaders };
  return out;
}

/** Host records first (they must be in place before the cluster says "preparing"), then the ACI. */
async function writeAciStatus(
  ctx: OperatorContext,
  deps: ClusterControllerDeps,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
  agents: readonly Agent[],
  plan: WritePlan,
): Promise<{ reissueInMs?: number; statusChanged: boolean }> {
  const { cluster, before } = plan;
  if (cluster && before && plan.changedHostIds.size > 0) {
    await writeHostChanges(ctx, agents, before.hosts, cluster.hosts as AgentHost[], plan.changedHostIds);
  }
  const hold = isInstallationHeld(cd, aci);
  const unsyncedAgents = agents.filter(hasSpecSyncFalse).length;
  const input = {
    cluster,
    hold,
    unsyncedAgents,
    ...(plan.specSyncError ? { specSyncError: plan.specSyncError } : {}),
  };
  let reissueInMs: number | undefined;
  const previousBackend = JSON.stringify(plan.baseline.status?.backend);
  const written = await updateStatus(ctx.client, AGENT_CLUSTER_INSTALL, aci, (current) => {
    // Another writer (the REST backend) changed the record we computed from: recompute from scratch.
    if (plan.cluster && JSON.stringify(current.status?.backend) !== previousBackend) {
      throw new StaleClusterRecordError();
    }
    const out = computeAciStatus(ctx, { ...input, aci: current });
    reissueInMs = out.reissueInMs;
    return out.status;
  });
  if (plan.events.length > 0) deps.events(plan.events, { aci, agents });
  const statusChanged =
    written.written &&
    (plan.baseline.status?.backend?.state !== cluster?.status ||
      plan.baseline.status?.backend?.kind !== cluster?.kind);
  return reissueInMs === undefined ? { statusChanged } : { reissueInMs, statusChanged };
}

/** Runs the preparation outside the reconcile; its end wakes the ClusterDeployment again. */
function startPreparationJob(
  ctx: OperatorContext,
  deps: ClusterControllerDeps,
  cdKey: string,
  aci: AgentClusterInstall,
  cluster: AgentCluster,
): void {
  const attempt = cluster.install_started_at ?? '';
  deps.jobs.start(
    cluster.id,
    attempt,
    async () => {
      const manifests = await readCustomManifests(ctx, aci);
      if ('error' in manifests) return { ok: false, error: manifests.error };
      const mirror = await readClusterMirror(ctx, aci);
      return prepareInstallArtifacts(ctx, deps.generator, {
        cluster,
        customManifests: manifests.manifests,
        installConfig: installConfigOptions(cluster, clusterInfraEnvs(ctx, cluster), mirror.mirror),
      });
    },
    () => deps.enqueue(cdKey),
  );
}

/** The cancelled cluster's status (ACI deletion during installation). */
export async function writeCancelledStatus(
  ctx: OperatorContext,
  deps: ClusterControllerDeps,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
  cluster: AgentCluster,
): Promise<void> {
  const agents = ctx.agentsOfCluster(keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
  await writeAciStatus(ctx, deps, cd, aci, agents, {
    baseline: aci,
    cluster,
    before: undefined,
    changedHostIds: new Set(),
    specSyncError: undefined,
    events: [],
  });
}
