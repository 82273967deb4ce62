// The spoke part of one Agent reconcile, between the pure refresh and the status write: the day-2
// work after a host rebooted (kubeapi.md §3.4.7) and the cleanup of the old spoke Node after an
// unbind (§3.4.3 step 1), plus the cleanup on deletion (§3.4.1 step 2). Its results reach the
// status through `apply`, which the reconciler runs on every refresh result it projects (also
// after a write conflict), so the Agent is still written at most once per reconcile.

import type { Logger } from 'pino';
import {
  AGENT_BMH_LABEL,
  type Agent,
  type AgentDeprovisionInfo,
  type BareMetalHost,
  BMH_SPOKE_BMH_MACHINE_CREATED_ANNOTATION,
  type ClusterDeployment,
  type CsrStatus,
} from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import type { HostStage } from '../../core/model.ts';
import {
  effectiveHostname,
  type SmEvent,
  type StateMachineOptions,
  updateInstallProgress,
} from '../../core/statemachine/index.ts';
import {
  needsDay2SpokeWork,
  shouldApproveCsrs,
  skipsSpokeCleanup,
  spokeCleanupBlockedBy,
  spokeResourcesExist,
} from '../../records/agents/day2.ts';
import type { OperatorContext } from '../../records/context.ts';
import { infraEnvOfAgent } from '../../records/hosts/lookup.ts';
import { type AgentCluster, type AgentHost, agentToHost } from '../../records/index.ts';
import { imageServicesOf } from '../../records/infraenvs/services.ts';
import { BARE_METAL_HOST } from '../../records/resources.ts';
import { serviceConfigOf } from '../../records/serviceconfig/service-config.ts';
import { aciFor } from '../../records/views.ts';
import { reclaimDecision, reclaimObjects, reclaimRunnerOnDelete } from './reclaim.ts';
import type { CurrentCluster, RefreshOutput } from './refresh.ts';
import { serviceCaCerts } from './service-ca.ts';
import {
  applyReclaimObjects,
  cleanSpokeNode,
  day2SpokeWork,
  deleteReclaimObjects,
  SPOKE_EVENT_REASON,
  type SpokeCleanupOutcome,
} from './spoke-work.ts';

/** Upstream retries a failed spoke cleanup after 10 s (§3.4.3 step 1). */
export const SPOKE_CLEANUP_RETRY_MS = 10_000;

export interface SpokeStep {
  /** Folds the spoke results into a refresh result (the host's stage; deprovision_info). */
  apply(out: RefreshOutput): RefreshOutput;
  /** csrStatus to write, when this pass changed it. */
  csrStatus?: CsrStatus;
  /** When to look at the spoke again. */
  requeueMs?: number;
}

export interface SpokeStepDeps {
  ctx: OperatorContext;
  log: Logger;
  now: Date;
  smOptions: StateMachineOptions;
  approveCsrsRequeueMs: number;
}

/** The BareMetalHost the BMAC matched to the Agent, when metal3 is served and it is cached. */
export function bmhOfAgent(ctx: OperatorContext, agent: Agent): BareMetalHost | undefined {
  const name = agent.metadata.labels?.[AGENT_BMH_LABEL];
  if (!name) return undefined;
  return ctx.mgr.existingInformer<BareMetalHost>(BARE_METAL_HOST)?.get(agent.metadata.namespace, name);
}

function warn(deps: SpokeStepDeps, agent: Agent, reason: string, message: string): void {
  deps.log.warn({ reason, err: message }, 'spoke work failed');
  deps.ctx.mgr.events.event(agent, 'Warning', reason, message);
}

function describeCleanup(outcome: SpokeCleanupOutcome): string {
  switch (outcome.kind) {
    case 'dropped':
      return `dropped: ${outcome.message}`;
    case 'no-node':
      return 'no Node to clean';
    case 'node-deleted':
      return 'Node deleted';
    case 'machine':
      return outcome.steps.join(', ');
    case 'failed':
      return outcome.message;
  }
}

/** Runs the spoke work this reconcile needs; never throws for spoke problems (they are values). */
export async function spokeStep(
  deps: SpokeStepDeps,
  agent: Agent,
  out: RefreshOutput,
  cluster: AgentCluster | undefined,
): Promise<SpokeStep> {
  const steps: ((o: RefreshOutput) => RefreshOutput)[] = [];
  const step: SpokeStep = { apply: (o) => steps.reduce((acc, f) => f(acc), o) };
  const after: number[] = [];

  // §3.4.3 step 1: the old spoke's Node, once the unbound host left the unbinding states. Only
  // this pass's cleanup may clear deprovision_info: a refresh recomputed after a write conflict
  // can reach 'clear' on a newer object than the one cleaned for, and then it waits.
  const info = agent.status?.deprovision_info;
  let cleaned = false;
  if (out.deprovisionInfo === 'clear' && info) {
    const failure = await unbindCleanup(deps, agent, info);
    if (failure !== undefined) {
      after.push(SPOKE_CLEANUP_RETRY_MS);
      steps.push((o) =>
        o.deprovisionInfo === 'clear' ? { ...o, deprovisionInfo: { ...info, message: failure } } : o,
      );
    } else {
      cleaned = true;
    }
  }
  steps.push((o) => {
    if (o.deprovisionInfo !== 'clear' || cleaned) return o;
    const { deprovisionInfo: _keep, ...rest } = o;
    return rest;
  });

  // §3.4.7: a day-2 host after its reboot.
  const host = out.host;
  const cd = host.cluster_id ? deps.ctx.clusterDeploymentById(host.cluster_id) : undefined;
  if (needsDay2SpokeWork(host) && cd && cluster && cluster.id === host.cluster_id) {
    after.push(deps.approveCsrsRequeueMs);
    const autoApprove = shouldApproveCsrs({
      host,
      cluster,
      hasBmh: bmhOfAgent(deps.ctx, agent) !== undefined,
    });
    const hostname = effectiveHostname(host);
    const r = await day2SpokeWork(deps.ctx, {
      cd,
      hostname,
      status: host.status,
      autoApprove,
      csrStatus: agent.status?.csrStatus,
      nodeLabels: host.node_labels,
      now: deps.now,
      // Less than the poll interval, so the next poll of this Agent tries again.
      unreachableHoldMs: deps.approveCsrsRequeueMs / 2,
    });
    if (!r.ok) {
      warn(deps, agent, SPOKE_EVENT_REASON.day2, r.message);
    } else {
      const v = r.value;
      for (const e of v.errors) warn(deps, agent, SPOKE_EVENT_REASON.day2, e);
      if (v.approvedNow.length > 0 || v.labelled.length > 0) {
        deps.log.info({ approved: v.approvedNow, labelled: v.labelled, node: hostname }, 'day-2 spoke work');
      }
      if (JSON.stringify(v.csrStatus ?? {}) !== JSON.stringify(agent.status?.csrStatus ?? {})) {
        step.csrStatus = v.csrStatus ?? {};
      }
      const progress = v.progress;
      if (progress) steps.push((o) => reportStage(deps, o, cluster, progress));
    }
  }
  if (after.length > 0) step.requeueMs = Math.min(...after);
  return step;
}

/** The stage through the same progress rules as an installer's report (HostProgressChanged). */
function reportStage(
  deps: SpokeStepDeps,
  o: RefreshOutput,
  cluster: AgentCluster,
  progress: { stage: HostStage; info: string },
): RefreshOutput {
  const host = o.host;
  if (!needsDay2SpokeWork(host)) return o;
  const r = updateInstallProgress(
    host,
    { cluster, progress: { current_stage: progress.stage, progress_info: progress.info } },
    { now: deps.now, options: deps.smOptions },
  );
  if (!r.ok) {
    deps.log.info({ stage: progress.stage, err: r.error.message }, 'day-2 stage not reported');
    return o;
  }
  if (!r.changed) return o;
  const name = effectiveHostname(host) || host.id;
  const reached: SmEvent = {
    name: 'host_install_progress_updated',
    severity: 'info',
    message: `Host ${name}: reached installation stage ${progress.stage}${progress.info ? `: ${progress.info}` : ''}`,
    host_id: host.id,
    infra_env_id: host.infra_env_id,
    ...(host.cluster_id ? { cluster_id: host.cluster_id } : {}),
  };
  return {
    ...o,
    host: { ...(r.host as AgentHost), approved: host.approved },
    events: [...o.events, ...r.events, reached],
  };
}

/**
 * Cleans the Node deprovision_info names, and the host's reclaim objects; the failure message, or
 * undefined when done or dropped.
 */
async function unbindCleanup(
  deps: SpokeStepDeps,
  agent: Agent,
  info: AgentDeprovisionInfo,
): Promise<string | undefined> {
  const { ctx, log } = deps;
  const cd = ctx.informers.clusterDeployments.get(info.cluster_namespace ?? '', info.cluster_name ?? '');
  const blocked = spokeCleanupBlockedBy({
    clusterDeployment: cd,
    agentClusterInstall: cd ? aciFor(ctx, cd) : undefined,
    infraEnv: infraEnvOfAgent(ctx, agent),
  });
  if (blocked || !cd) {
    log.info({ node: info.node_name, why: blocked }, 'spoke cleanup dropped');
    return undefined;
  }
  if (skipsSpokeCleanup(agent)) {
    log.info({ node: info.node_name }, 'spoke cleanup skipped (skip-spoke-cleanup annotation)');
  } else {
    const outcome = await cleanSpokeNode(ctx, cd, info.node_name ?? '');
    if (outcome.kind === 'failed') {
      warn(deps, agent, SPOKE_EVENT_REASON.cleanup, outcome.message);
      return outcome.message;
    }
    log.info({ node: info.node_name, outcome: describeCleanup(outcome) }, 'spoke cleanup after unbind');
  }
  // The reclaim runner is ours, not the cluster's: it goes even with skip-spoke-cleanup, or it
  // would poll as the host again should the node ever rejoin.
  const reclaim = await deleteReclaimObjects(ctx, cd, agent.metadata.name ?? '');
  if (!reclaim.ok) {
    warn(deps, agent, SPOKE_EVENT_REASON.cleanup, reclaim.message);
    return reclaim.message;
  }
  if (reclaim.deleted.length > 0)
    log.info({ deleted: reclaim.deleted }, 'reclaim objects removed from the spoke');
  return undefined;
}

export interface ReclaimStepDeps {
  ctx: OperatorContext;
  log: Logger;
  /** Signs an agent token when the image services have none yet. */
  auth: LocalAuth;
}

/**
 * Reclaim on unbind (§3.4.4): when this refresh unbinds the host and reclaim applies, puts the
 * reclaim objects onto the old spoke. True when they are all there, and the unbind is then a
 * ReclaimHost; on failure (logged, Warning event) reclaim is just not done.
 */
export async function reclaimOnUnbind(
  deps: ReclaimStepDeps,
  agent: Agent,
  out: RefreshOutput,
  current: CurrentCluster,
): Promise<boolean> {
  const { ctx, log } = deps;
  if (!out.unbound) return false;
  const decision = reclaimDecision({
    imageServiceEnabled: serviceConfigOf(ctx).current.imageServiceEnabled,
    hasBmh: bmhOfAgent(ctx, agent) !== undefined,
    status: out.unbound.from,
  });
  if (!decision.reclaim) {
    log.info({ why: decision.why }, 'unbind without reclaim');
    return false;
  }
  const fail = (message: string, level: 'warn' | 'error' = 'warn') => {
    log[level]({ reason: SPOKE_EVENT_REASON.reclaim, err: message }, 'reclaim failed; unbinding without it');
    ctx.mgr.events.event(
      agent,
      'Warning',
      SPOKE_EVENT_REASON.reclaim,
      `reclaim failed, unbinding without it: ${message}`,
    );
    return false;
  };
  const cd = ctx.informers.clusterDeployments.get(current.cdNamespace ?? '', current.cdName ?? '');
  if (!cd) return fail('the ClusterDeployment of the old cluster is not available');
  const host = out.host;
  const nodeName = out.unbound.nodeName;
  if (!nodeName) return fail('the host has no hostname, so its Node is unknown');
  // A CA that is set but cannot be read is a configuration error: without it the runner could not
  // trust the service, so the node would reboot into nothing.
  const ca = await serviceCaCerts.get(ctx.settings.serviceCaCertPath);
  if (!ca.ok) return fail(ca.message, 'error');
  let token: string;
  try {
    token = imageServicesOf(ctx).agentToken(host.infra_env_id);
  } catch {
    token = deps.auth.issueAgentToken({ kind: 'infra-env', id: host.infra_env_id });
  }
  const objects = reclaimObjects({
    hostId: host.id,
    infraEnvId: host.infra_env_id,
    nodeName,
    agentImage: ctx.settings.agentImage,
    serviceBaseUrl: ctx.urls.serviceBaseUrl,
    token,
    serviceCaCert: ca.pem,
  });
  const applied = await applyReclaimObjects(ctx, cd, objects);
  if (!applied.ok) return fail(applied.message);
  log.info(
    { node: nodeName, objects: objects.map((o) => `${o.kind} ${o.metadata.name}`) },
    'reclaim objects on the spoke',
  );
  return true;
}

/**
 * Spoke cleanup of a deleted Agent (§3.4.1 steps 1–2). Problems are logged and recorded as events;
 * they do not hold the deletion (an unreachable spoke must not keep an Agent forever).
 */
export async function deletionSpokeCleanup(
  deps: Omit<SpokeStepDeps, 'smOptions' | 'approveCsrsRequeueMs'>,
  agent: Agent,
): Promise<void> {
  const { ctx, log } = deps;
  await deletionReclaimCleanup(deps, agent);
  const host = agentToHost(agent);
  const exists = spokeResourcesExist({
    stage: host.progress?.current_stage,
    bmhMachineCreated:
      bmhOfAgent(ctx, agent)?.metadata.annotations?.[BMH_SPOKE_BMH_MACHINE_CREATED_ANNOTATION] !== undefined,
    csrStatus: agent.status?.csrStatus,
  });
  const cid = host.cluster_id;
  if (!exists || !cid) return;
  const nodeName = effectiveHostname(host);
  if (skipsSpokeCleanup(agent)) {
    log.info({ node: nodeName }, 'spoke cleanup skipped (skip-spoke-cleanup annotation)');
    return;
  }
  const cd: ClusterDeployment | undefined = ctx.clusterDeploymentById(cid);
  const blocked = spokeCleanupBlockedBy({
    clusterDeployment: cd,
    agentClusterInstall: cd ? aciFor(ctx, cd) : undefined,
    infraEnv: infraEnvOfAgent(ctx, agent),
  });
  if (blocked || !cd) {
    log.info({ node: nodeName, why: blocked }, 'spoke cleanup not done');
    return;
  }
  const outcome = await cleanSpokeNode(ctx, cd, nodeName);
  if (outcome.kind === 'failed') {
    deps.log.warn({ reason: SPOKE_EVENT_REASON.cleanup, err: outcome.message }, 'spoke work failed');
    ctx.mgr.events.event(agent, 'Warning', SPOKE_EVENT_REASON.cleanup, outcome.message);
    return;
  }
  log.info({ node: nodeName, outcome: describeCleanup(outcome) }, 'spoke cleanup on delete');
}

/**
 * The host's reclaim runner and token on the old spoke, when the Agent is deleted before the
 * unbind cleanup removed them; else the runner would keep polling as a host that no longer
 * exists. Like unbindCleanup it ignores skip-spoke-cleanup (the runner is ours). Problems are
 * logged and recorded as events and do not hold the deletion.
 */
async function deletionReclaimCleanup(
  deps: Omit<SpokeStepDeps, 'smOptions' | 'approveCsrsRequeueMs'>,
  agent: Agent,
): Promise<void> {
  const { ctx, log } = deps;
  const target = reclaimRunnerOnDelete({
    state: agent.status?.debugInfo?.state,
    deprovisionInfo: agent.status?.deprovision_info,
  });
  if (!target) return;
  const cd = ctx.informers.clusterDeployments.get(target.clusterNamespace, target.clusterName);
  if (!cd || cd.metadata.deletionTimestamp) {
    log.info(
      { cluster: `${target.clusterNamespace}/${target.clusterName}` },
      'reclaim objects not removed: the old ClusterDeployment is gone',
    );
    return;
  }
  const removed = await deleteReclaimObjects(ctx, cd, agent.metadata.name ?? '');
  if (!removed.ok) {
    log.warn({ reason: SPOKE_EVENT_REASON.cleanup, err: removed.message }, 'spoke work failed');
    ctx.mgr.events.event(agent, 'Warning', SPOKE_EVENT_REASON.cleanup, removed.message);
    return;
  }
  if (removed.deleted.length > 0 || target.reclaiming)
    log.info({ deleted: removed.deleted }, 'reclaim objects removed from the spoke on delete');
}
