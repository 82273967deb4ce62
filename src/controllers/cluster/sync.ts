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
import { writeClusterFiles } from '../../records/clusters/artifacts-store.ts';
import { computeAciStatus } from '../../records/clusters/status.ts';
import { withVipVerifications } from '../../records/clusters/vip-verifications.ts';
import type { OperatorContext } from '../../records/context.ts';
import { roleFitness } from '../../records/hosts/role-fitness.ts';
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
import { jsonEqual } from '../../util/json-equal.ts';
import { memoSlot } from '../../util/memo-slot.ts';
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

/** Per cached Agent object (replaced on change): each pass of a large cluster asks of every host. */
const specSyncFalse = memoSlot<Agent, boolean>('Agent has SpecSynced False');

function hasSpecSyncFalse(agent: Agent): boolean {
  let known = specSyncFalse.get(agent);
  if (known === undefined) {
    known = agent.status?.conditions?.some((c) => c.type === 'SpecSynced' && c.status === 'False') ?? false;
    specSyncFalse.set(agent, known);
  }
  return known;
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

/** What the phases of one sync share. */
interface SyncInput {
  ctx: OperatorContext;
  deps: ClusterControllerDeps;
  cd: ClusterDeployment;
  aci: AgentClusterInstall;
  agents: readonly Agent[];
  now: Date;
  log: OperatorContext['logger'];
}

/** What one phase of the sync decided; the sync folds the decisions in order. */
interface PhaseDecision {
  /** The cluster record after the phase. */
  cluster: AgentCluster;
  events?: readonly SmEvent[];
  /** Hosts whose records the phase changed (written to their Agents before the ACI status). */
  changedHostIds?: Iterable<string>;
  /** The phase's reason to look again, in ms from now; the sync waits for the nearest. */
  requeueAfterMs?: number | undefined;
  /** Reported as SpecSynced=False; the first phase to report one wins. */
  specSyncError?: SpecSyncError | undefined;
  /** Run the installation preparation after the status is written. */
  startPreparation?: boolean;
  /** The preparation attempt whose finished job was recorded, to forget once written. */
  recordedPreparation?: string;
}

/** The decisions so far, folded. */
interface SyncDecisions {
  cluster: AgentCluster;
  events: SmEvent[];
  changedHostIds: Set<string>;
  requeues: (number | undefined)[];
  specSyncError: SpecSyncError | undefined;
  startPreparation: boolean;
  recordedPreparation: string | undefined;
}

function fold(into: SyncDecisions, decision: PhaseDecision): void {
  into.cluster = decision.cluster;
  into.events.push(...(decision.events ?? []));
  for (const id of decision.changedHostIds ?? []) into.changedHostIds.add(id);
  into.requeues.push(decision.requeueAfterMs);
  into.specSyncError ??= decision.specSyncError;
  if (decision.startPreparation) into.startPreparation = true;
  if (decision.recordedPreparation !== undefined) into.recordedPreparation = decision.recordedPreparation;
}

export async function syncCluster(
  ctx: OperatorContext,
  deps: ClusterControllerDeps,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
): Promise<ReconcileResult | undefined> {
  const cdKey = keyOf(cd.metadata.namespace ?? '', cd.metadata.name ?? '');
  const input: SyncInput = {
    ctx,
    deps,
    cd,
    aci,
    agents: ctx.agentsOfCluster(cdKey),
    now: ctx.now(),
    log: ctx.logger.child({ controller: 'clusterdeployment', cd: cdKey }),
  };
  const view = await clusterView(ctx, cd);
  const result = view.result;
  const mirror = await readClusterMirror(ctx, aci);
  if (mirror.error !== undefined || !result?.cluster) {
    // Upstream fails before it looks its cluster up: the "Unknown set".
    const error = mirror.error !== undefined ? inputError(mirror.error) : result?.error;
    await writeAciStatus(ctx, deps, cd, aci, input.agents, {
      baseline: aci,
      cluster: undefined,
      before: undefined,
      changedHostIds: new Set(),
      specSyncError: error,
      events: [],
    });
    return requeue(await backendErrorRequeueMs(ctx, aci, error));
  }

  const before = withVipVerifications(ctx, result.cluster);
  const decided: SyncDecisions = {
    cluster: before,
    events: [],
    changedHostIds: new Set(),
    requeues: [],
    specSyncError: result.error,
    startPreparation: false,
    recordedPreparation: undefined,
  };
  fold(decided, await completeClusterRecord(input, decided.cluster));
  fold(decided, monitorPhase(input, decided.cluster));
  fold(decided, finishedPreparationPhase(input, decided.cluster));
  if (!decided.specSyncError) fold(decided, day1StartPhase(input, decided.cluster));
  fold(decided, await day2InstallPhase(input, decided.cluster));
  const handOff = await handOffPhase(input, decided.cluster);
  decided.requeues.push(handOff.requeueAfterMs);
  const { cluster, changedHostIds } = decided;

  const { reissueInMs, statusChanged } = await writeAciStatus(ctx, deps, cd, handOff.aci, input.agents, {
    baseline: aci,
    cluster,
    before,
    changedHostIds,
    specSyncError: decided.specSyncError,
    events: decided.events,
  });
  decided.requeues.push(reissueInMs, await workerPoolPhase(input, cluster, handOff.aci));
  if (decided.recordedPreparation !== undefined) deps.jobs.forget(cluster.id, decided.recordedPreparation);
  if (decided.startPreparation) startPreparationJob(ctx, deps, cdKey, aci, cluster);
  if (statusChanged || changedHostIds.size > 0) {
    for (const a of input.agents)
      ctx.bus.enqueue('agent', keyOf(a.metadata.namespace, a.metadata.name ?? ''));
  }
  return requeue(
    minDelay(
      await backendErrorRequeueMs(ctx, aci, decided.specSyncError),
      nextClusterDeadlineMs(cluster, input.now, deps.smOptions),
      ...decided.requeues,
    ),
  );
}

/**
 * The record as the backend would hold it before monitoring: default monitored operators for a
 * new cluster, the ignition endpoint's CA, install-config overrides checked; and the spoke
 * kubeconfig labelled for the cache (the Agent reconciler's day-2 work reads it).
 */
async function completeClusterRecord(input: SyncInput, record: AgentCluster): Promise<PhaseDecision> {
  const { ctx, cd, aci } = input;
  let cluster = record;
  let specSyncError: SpecSyncError | undefined;
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
        specSyncError = inputError(
          `Failed to parse '${INSTALL_CONFIG_OVERRIDES_ANNOTATION}' annotation: ${err.message}`,
        );
        cluster = { ...cluster, install_config_overrides: undefined };
      }
    }
  }
  if (cd.spec.installed) await readSecret(ctx, cd.metadata.namespace ?? '', kubeconfigSecretName(cd));
  return { cluster, specSyncError };
}

/** The cluster monitor; until the hosts' facts are back after a restart, look again when they should be. */
function monitorPhase(input: SyncInput, cluster: AgentCluster): PhaseDecision {
  const { ctx, deps, aci, now } = input;
  const factsSince = deps.startedAt;
  const warmUpOver = now.getTime() - factsSince >= WARM_UP_MS;
  // Set when the connectivity groups are older than their inputs (connectivity-pacing.ts).
  let connectivityDueInMs: number | undefined;
  const monitored = monitorCluster({
    cluster,
    now,
    options: deps.smOptions,
    validation: deps.validation,
    installed: isClusterInstalled(input.cd, aci),
    specMachineNetworks: (aci.spec.networking.machineNetwork ?? []).length > 0,
    hostFactsReady: (id) => warmUpOver || ctx.facts.has(id),
    connectivityOf: (hosts, minGroupSize) => {
      const paced = deps.connectivity.of(cluster.id, hosts, minGroupSize);
      connectivityDueInMs = paced.dueInMs;
      return paced.result;
    },
  });
  for (const e of monitored.errors) input.log.debug({ reason: e }, 'cluster monitor');
  const warm = warmUpOver || monitored.cluster.hosts.every((h) => ctx.facts.has(h.id));
  return {
    cluster: monitored.cluster,
    events: monitored.events,
    changedHostIds: monitored.changedHostIds,
    requeueAfterMs: minDelay(
      warm ? undefined : factsSince + WARM_UP_MS - now.getTime() + 1000,
      connectivityDueInMs,
    ),
  };
}

/** A preparation that finished (§2.5 step 6) is recorded; one not started yet is started. */
function finishedPreparationPhase(input: SyncInput, cluster: AgentCluster): PhaseDecision {
  if (
    cluster.status !== 'preparing-for-installation' ||
    cluster.last_installation_preparation?.status !== 'not_started'
  ) {
    return { cluster };
  }
  const attempt = cluster.install_started_at ?? '';
  const state = input.deps.jobs.state(cluster.id, attempt);
  if (state === undefined) return { cluster, startPreparation: true };
  if (state === 'running') return { cluster };
  const sm = { now: input.now, options: input.deps.smOptions };
  const r = state.ok
    ? handlePreInstallSuccess(cluster, { openshiftClusterId: state.openshiftClusterId }, sm)
    : handlePreInstallError(cluster, { error: state.error }, sm);
  if (!r.ok) return { cluster };
  return { cluster: r.cluster as AgentCluster, events: r.events, recordedPreparation: attempt };
}

/** Day-1 installation start (§3.1.8), or when to retry after a failed preparation. */
function day1StartPhase(input: SyncInput, cluster: AgentCluster): PhaseDecision {
  const { aci, now } = input;
  if (cluster.kind !== 'Cluster' || cluster.status !== 'ready') return { cluster };
  const blocker = installBlocker({
    cluster,
    requirements: provisionCounts(aci.spec),
    held: isInstallationHeld(input.cd, aci),
    unsyncedAgents: input.agents.filter(hasSpecSyncFalse).length,
  });
  if (blocker) return { cluster };
  const failedAt =
    cluster.last_installation_preparation?.status === 'failed' ? cluster.status_updated_at : undefined;
  const retryAt = failedAt ? Date.parse(failedAt) + PREPARATION_RETRY_DELAY_MS : 0;
  if (retryAt > now.getTime()) return { cluster, requeueAfterMs: retryAt - now.getTime() };
  const sm = { now, options: input.deps.smOptions };
  const started = startDay1Installation(cluster, roleFitness(cluster, undefined, now), sm);
  if (!started.ok) {
    const kind = started.code >= 400 && started.code < 500 ? 'input' : 'backend';
    return { cluster, specSyncError: { kind, message: started.message } };
  }
  input.log.info('installation started');
  return {
    cluster: started.cluster,
    events: started.events,
    changedHostIds: started.changedHostIds,
    startPreparation: true,
  };
}

/** Day-2 host installs (§3.1.10): each host's pointer ignition written, then the host installing. */
async function day2InstallPhase(input: SyncInput, record: AgentCluster): Promise<PhaseDecision> {
  const { ctx, agents } = input;
  const sm = { now: input.now, options: input.deps.smOptions };
  let cluster = record;
  const events: SmEvent[] = [];
  const changedHostIds: string[] = [];
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
      input.log.info({ host: host.id, reason: r.message }, 'day-2 host not installed');
      continue;
    }
    cluster = { ...cluster, hosts: cluster.hosts.map((h) => (h.id === host.id ? r.host : h)) };
    events.push(...r.events);
    changedHostIds.push(host.id);
  }
  return { cluster, events, changedHostIds };
}

/**
 * Hand-off to Hive (§3.1.9): Secrets and clusterMetadata before Completed turns True. Returns
 * the ACI as the hand-off left it.
 */
async function handOffPhase(
  input: SyncInput,
  cluster: AgentCluster,
): Promise<{ aci: AgentClusterInstall; requeueAfterMs?: number }> {
  const { ctx, cd, aci } = input;
  if (needsInstalledHandOff(cd, aci, cluster)) {
    const outcome = await handOffInstalledCluster(ctx, cd, aci, cluster);
    if (!outcome.pending) return { aci: outcome.aci ?? aci };
    input.log.info({ reason: outcome.pending }, 'installed cluster not handed off yet');
    return { aci: outcome.aci ?? aci, requeueAfterMs: HANDOFF_RETRY_MS };
  }
  if ((cluster.status === 'installing' || cluster.status === 'finalizing') && !aci.spec.clusterMetadata) {
    const outcome = await handOffEarlyKubeconfig(ctx, cd, aci, cluster);
    return { aci: outcome.aci ?? aci };
  }
  return { aci };
}

/**
 * The spoke's worker pool pause (§3.1.10), after the host records are written: a spoke problem is
 * reported and retried (the delay returned), and never holds up the rest of the sync.
 */
async function workerPoolPhase(
  input: SyncInput,
  cluster: AgentCluster,
  current: AgentClusterInstall,
): Promise<number | undefined> {
  if (cluster.kind !== 'AddHostsCluster') return undefined;
  const paused = workerPoolPaused(mcpPauseAgents(input.agents, cluster));
  if (paused === undefined) return undefined;
  const outcome = await applyWorkerPoolPause(input.ctx, input.cd, current, paused);
  return 'retryInMs' in outcome ? outcome.retryInMs : undefined;
}

/** A backend error is retried soon; one caused by unreadable custom manifests less often. */
async function backendErrorRequeueMs(
  ctx: OperatorContext,
  aci: AgentClusterInstall,
  error: SpecSyncError | undefined,
): Promise<number | undefined> {
  if (error?.kind !== 'backend') return undefined;
  return (await isManifestsError(ctx, aci)) ? MANIFESTS_ERROR_REQUEUE_MS : BACKEND_ERROR_REQUEUE_MS;
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
  const written = await updateStatus(
    ctx.client,
    AGENT_CLUSTER_INSTALL,
    aci,
    (current) => {
      // Another writer (the REST backend) changed the record we computed from: recompute from scratch.
      if (plan.cluster && !jsonEqual(current.status?.backend, plan.baseline.status?.backend)) {
        throw new StaleClusterRecordError();
      }
      const out = computeAciStatus(ctx, { ...input, aci: current });
      reissueInMs = out.reissueInMs;
      return out.status;
    },
    // The backend record, which the next pass rebuilds the cluster from, stays as this pass found
    // it: the write refreshes only what is derived from it (conditions, validations, host counts),
    // which a second pass would derive the same, so its watch event need not wake the cluster. A
    // write that changes the record does: the next pass may move the state on from it (installed
    // → adding-hosts, a failed preparation → ready).
    {
      echoes: {
        tracker: deps.echoes,
        when: (current, desired) => jsonEqual(current.status?.backend, desired?.backend),
      },
    },
  );
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
