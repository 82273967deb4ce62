// The spoke half of a BMAC pass, run before planning (kubeapi.md §3.6): drain the host's Node
// before a converged delete deprovisions it, give a day-2 host the spoke's MCS CA through the
// ignition-config-overrides annotation (step 9), and create a day-2 host's BareMetalHost and
// Machine in the spoke's Machine API while it installs (step 10). All talk to the installed
// cluster through the admin kubeconfig (src/records/spoke.ts); failures are logged, shown as
// Warning events on the BMH and retried on later passes, never thrown.
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
import {
  agentInstalled,
  type DrainDecision,
  hasSpokeNode,
  unbindingPendingUserAction,
} from '../../records/bmac-plan.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type SpokeClientResult, spokeClient } from '../../records/spoke.ts';
import { clusterView } from '../../records/views.ts';
import { objectKey } from '../../runtime/index.ts';
import {
  decideDrain,
  drainAttempt,
  ensureSpokeBmhAndMachine,
  spokeMachineClusterSkip,
  spokeMachineSkip,
  spokeMcsCa,
  withMcsCa,
} from './spoke.ts';

/** A spoke's MCS CA is read at most this often per cluster (it changes about yearly). */
const MCS_CA_TTL_MS = 10 * 60_000;
const mcsCaCache = new WeakMap<OperatorContext, Map<string, { ca: string; at: number }>>();

export interface BmacSpokeInputs {
  drain?: DrainDecision;
  mcsCaOverrides?: string;
  spokeBmhMachineCreated?: string;
}

/** Event reasons of the spoke steps (Warning). */
export const BMAC_SPOKE_EVENT_REASON = {
  mcsCa: 'MachineConfigServerCAError',
  spokeMachine: 'SpokeMachineError',
} as const;

type Log = OperatorContext['logger'];
/** The pass's spoke client of the Agent's cluster (created on first use). */
type SpokeOf = () => Promise<SpokeClientResult>;

function clusterOf(ctx: OperatorContext, agent: Agent): ClusterDeployment | undefined {
  const ref = agent.spec.clusterDeploymentName;
  if (!ref?.name) return undefined;
  return ctx.informers.clusterDeployments.get(ref.namespace || agent.metadata.namespace || '', ref.name);
}

function nodeName(agent: Agent): string {
  return agent.spec.hostname || agent.status?.inventory?.hostname || agent.metadata.name || '';
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
  if (!cd?.spec.installed) return {};
  // One spoke client per pass for both steps, fetched only when a step gets that far.
  let client: Promise<SpokeClientResult> | undefined;
  const spoke: SpokeOf = () => {
    client ??= spokeClient(ctx, cd);
    return client;
  };
  const out: BmacSpokeInputs = {};
  const mcsCaOverrides = await mcsCaStep(ctx, bmh, agent, cd, spoke, log);
  if (mcsCaOverrides !== undefined) out.mcsCaOverrides = mcsCaOverrides;
  const created = await spokeMachineStep(ctx, bmh, agent, cd, spoke, log);
  if (created !== undefined) out.spokeBmhMachineCreated = created;
  return out;
}

/** Step 9: the overrides annotation with the spoke's MCS CA merged in, when it changes. */
async function mcsCaStep(
  ctx: OperatorContext,
  bmh: BareMetalHost,
  agent: Agent,
  cd: ClusterDeployment,
  spokeOf: SpokeOf,
  log: Log,
): Promise<string | undefined> {
  if (agentInstalled(agent) || unbindingPendingUserAction(agent)) return undefined;
  const ca = await mcsCa(ctx, cd, spokeOf);
  if ('error' in ca) {
    const message = `cannot give the day-2 host the machine-config-server CA of cluster ${objectKey(cd)}: ${ca.error}`;
    log.warn({ bmh: objectKey(bmh), agent: objectKey(agent) }, message);
    ctx.mgr.events.event(bmh, 'Warning', BMAC_SPOKE_EVENT_REASON.mcsCa, message);
    return undefined;
  }
  // Undefined also for an override that is not a JSON object: the Agent's SpecSynced reports that.
  return withMcsCa(bmh.metadata.annotations?.[BMH_IGNITION_CONFIG_OVERRIDES_ANNOTATION], ca.ca);
}

/**
 * Step 10: while a day-2 host installs, its BareMetalHost and Machine on the spoke, so the
 * cluster's Machine API knows the new Node. Returns the time to record in the hub BMH's
 * spoke-bmh-machine-created annotation once both exist; undefined otherwise (skipped, no master
 * Machine to take the image from, or a failure, which the next pass retries).
 */
async function spokeMachineStep(
  ctx: OperatorContext,
  bmh: BareMetalHost,
  agent: Agent,
  cd: ClusterDeployment,
  spokeOf: SpokeOf,
  log: Log,
): Promise<string | undefined> {
  if (spokeMachineSkip({ bmh, agent, cdInstalled: cd.spec.installed === true }) !== undefined)
    return undefined;
  const keys = { bmh: objectKey(bmh), agent: objectKey(agent) };
  // The cluster record only now: building it is the costly part, and few passes get this far.
  const skip = spokeMachineClusterSkip((await clusterView(ctx, cd)).result?.cluster);
  if (skip) {
    log.debug({ ...keys, why: skip }, 'no spoke BareMetalHost and Machine for the day-2 host');
    return undefined;
  }
  const spoke = await spokeOf();
  const outcome = spoke.ok
    ? await ensureSpokeBmhAndMachine(spoke.client, { hubBmh: bmh, agent, cdName: cd.metadata.name ?? '' })
    : ({ kind: 'error', message: spoke.message } as const);
  switch (outcome.kind) {
    case 'no-masters':
      log.debug(
        keys,
        'no master Machine on the spoke to take the image from: no spoke BareMetalHost and Machine',
      );
      return undefined;
    case 'error': {
      const message = `cannot create the day-2 host's BareMetalHost and Machine on the spoke of cluster ${objectKey(cd)}: ${outcome.message}`;
      log.warn(keys, message);
      ctx.mgr.events.event(bmh, 'Warning', BMAC_SPOKE_EVENT_REASON.spokeMachine, message);
      return undefined;
    }
    case 'done':
      log.info(
        { ...keys, spokeBmh: outcome.bmh, spokeMachine: outcome.machine },
        'day-2 host BareMetalHost and Machine on the spoke',
      );
      return ctx.now().toISOString();
  }
}

async function mcsCa(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  spokeOf: SpokeOf,
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
  const spoke = await spokeOf();
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
