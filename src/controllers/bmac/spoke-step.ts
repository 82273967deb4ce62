// The spoke half of a BMAC pass, run before planning (kubeapi.md §3.6): drain the host's Node
// before a converged delete deprovisions it, and give a day-2 host the spoke's MCS CA through the
// ignition-config-overrides annotation. Both talk to the installed cluster through the admin
// kubeconfig (src/operator/spoke.ts); failures are logged, shown as Warning events on the BMH and
// retried, never thrown.
import type { Agent, BareMetalHost, ClusterDeployment } from '../../api/index.ts';
import {
  BMH_DRAIN_STARTED_AT_ANNOTATION,
  BMH_DRAIN_STATUS_ANNOTATION,
  BMH_DRAIN_STATUS_SUCCEEDED,
  BMH_DRAIN_STATUS_TIMED_OUT,
  BMH_DRAIN_TIMEOUT_ANNOTATION,
  BMH_FINALIZER,
  BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION,
  BMH_REMOVE_AGENT_AND_NODE_ON_DELETE_ANNOTATION,
} from '../../api/index.ts';
import type { OperatorContext } from '../../operator/context.ts';
import { spokeClient } from '../../operator/spoke.ts';
import { objectKey } from '../../runtime/index.ts';
import { AGENT_CONDITION } from '../records/agent-conditions.ts';
import { hasSpokeNode, unbindingPendingUserAction } from './mapping.ts';
import { type DrainDecision, decideDrain, drainAttempt, spokeMcsCa, withMcsCa } from './spoke.ts';

/** A spoke's MCS CA is read at most this often per cluster (it changes about yearly). */
const MCS_CA_TTL_MS = 10 * 60_000;
const mcsCaCache = new WeakMap<OperatorContext, Map<string, { ca: string; at: number }>>();

export interface BmacSpokeInputs {
  drain?: DrainDecision;
  mcsCaOverrides?: string;
}

type Log = OperatorContext['logger'];

function clusterOf(ctx: OperatorContext, agent: Agent): ClusterDeployment | undefined {
  const ref = agent.spec.clusterDeploymentName;
  if (!ref?.name) return undefined;
  return ctx.informers.clusterDeployments.get(ref.namespace || agent.metadata.namespace || '', ref.name);
}

function nodeName(agent: Agent): string {
  return agent.spec.hostname || agent.status?.inventory?.hostname || agent.metadata.name || '';
}

function agentInstalled(agent: Agent): boolean {
  return (
    (agent.status?.conditions ?? []).some(
      (c) => c.type === AGENT_CONDITION.installed && c.status === 'True',
    ) || agent.status?.progress?.currentStage === 'Done'
  );
}

export async function bmacSpokeInputs(
  ctx: OperatorContext,
  bmh: BareMetalHost,
  agent: Agent | undefined,
  converged: boolean,
  log: Log,
): Promise<BmacSpokeInputs> {
  if (!agent) return {};
  const ann = bmh.metadata.annotations ?? {};
  if (bmh.metadata.deletionTimestamp) {
    const status = ann[BMH_DRAIN_STATUS_ANNOTATION];
    const needsDrain =
      converged &&
      (bmh.metadata.finalizers ?? []).includes(BMH_FINALIZER) &&
      ann[BMH_REMOVE_AGENT_AND_NODE_ON_DELETE_ANNOTATION] !== undefined &&
      hasSpokeNode(agent) &&
      status !== BMH_DRAIN_STATUS_SUCCEEDED &&
      status !== BMH_DRAIN_STATUS_TIMED_OUT;
    return needsDrain ? { drain: await drainStep(ctx, bmh, agent, log) } : {};
  }
  const cd = clusterOf(ctx, agent);
  if (!cd?.spec.installed || agentInstalled(agent) || unbindingPendingUserAction(agent)) return {};
  const ca = await mcsCa(ctx, cd);
  if ('error' in ca) {
    const message = `cannot give the day-2 host the machine-config-server CA of cluster ${objectKey(cd)}: ${ca.error}`;
    log.warn({ bmh: objectKey(bmh), agent: objectKey(agent) }, message);
    ctx.mgr.events.event(bmh, 'Warning', 'MachineConfigServerCAError', message);
    return {};
  }
  // Undefined also for an override that is not a JSON object: the Agent's SpecSynced reports that.
  const merged = withMcsCa(ann[BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION], ca.ca);
  return merged === undefined ? {} : { mcsCaOverrides: merged };
}

async function mcsCa(
  ctx: OperatorContext,
  cd: ClusterDeployment,
): Promise<{ ca: string } | { error: string }> {
  let cache = mcsCaCache.get(ctx);
  if (!cache) {
    cache = new Map();
    mcsCaCache.set(ctx, cache);
  }
  const key = objectKey(cd);
  const hit = cache.get(key);
  const now = ctx.now().getTime();
  if (hit && now - hit.at < MCS_CA_TTL_MS) return { ca: hit.ca };
  const spoke = await spokeClient(ctx, cd);
  if (!spoke.ok) return { error: spoke.message };
  const found = await spokeMcsCa(spoke.client);
  if ('ca' in found) cache.set(key, { ca: found.ca, at: now });
  return found;
}

async function drainStep(
  ctx: OperatorContext,
  bmh: BareMetalHost,
  agent: Agent,
  log: Log,
): Promise<DrainDecision> {
  const ann = bmh.metadata.annotations ?? {};
  const cd = clusterOf(ctx, agent);
  const node = nodeName(agent);
  let attempt: Awaited<ReturnType<typeof drainAttempt>>;
  if (!cd) {
    attempt = { error: `ClusterDeployment ${agent.spec.clusterDeploymentName?.name ?? ''} not found` };
  } else {
    const spoke = await spokeClient(ctx, cd);
    attempt = spoke.ok ? await drainAttempt(spoke.client, node) : { error: spoke.message };
  }
  const decision = decideDrain({
    startedAt: ann[BMH_DRAIN_STARTED_AT_ANNOTATION],
    timeout: ann[BMH_DRAIN_TIMEOUT_ANNOTATION],
    now: ctx.now(),
    attempt,
  });
  if (decision.status !== ann[BMH_DRAIN_STATUS_ANNOTATION]) {
    const failed = 'error' in attempt || decision.status === BMH_DRAIN_STATUS_TIMED_OUT;
    const message = `Node ${node}: ${decision.status}`;
    log[failed ? 'warn' : 'info']({ bmh: objectKey(bmh), agent: objectKey(agent) }, message);
    ctx.mgr.events.event(bmh, failed ? 'Warning' : 'Normal', 'NodeDrain', message);
  }
  return decision;
}
