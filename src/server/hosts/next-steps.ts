// GET …/hosts/{id}/instructions (agent-api.md §2.1): the next steps of a polling host. A poll
// only touches memory (check-in time, host clock, warm-up) and the host inbox; it enqueues the
// Agent when something the Agent shows may change.

import type { Agent, InfraEnv } from '../../api/index.ts';
import type { Cluster as AgentCluster, InfraEnv as InfraEnvRecord } from '../../core/model.ts';
import {
  type NextStepsResult,
  nextStepsDetailed,
  type StepsOptions,
  stepsAreReusable,
  withFreshStepIds,
} from '../../core/steps/index.ts';
import { referencedFacts } from '../../records/agents/references.ts';
import { clusterRecordForPoll, infraEnvRecordForPoll } from '../../records/hosts/lookup.ts';
import type { PendingHostUpdate } from '../../records/hosts/memory.ts';
import { type AgentHost, cachedAgentToHost, NO_FACTS } from '../../records/index.ts';
import { memoSlot } from '../../util/memo-slot.ts';
import { type CallContext, fail, ok } from '../api/backend.ts';
import type { FoundHost, HostInput, HostScope } from './scope.ts';

type NextStepsInput = HostInput<'getNextSteps'>;

export async function getNextSteps(s: HostScope, found: FoundHost, input: NextStepsInput, call: CallContext) {
  const { ctx, memory } = s;
  const { agent, infraEnv } = found;
  const id = agent.metadata.name ?? '';
  // The host's runner forgets which results it posted only when a poll fails (WarmUp), and its
  // transport retries a 503 by itself, so the refusal is a 500. Nothing is recorded of this poll:
  // the next one, half a second later, is the host's first here.
  if (memory.warmUp.refusesFirstPoll(id)) {
    return fail(
      500,
      `the service restarted and lost the step results of host ${id} it held: poll again and send every result`,
    );
  }
  const now = ctx.now();
  // The first host clock this process hears settles the time-sync validation.
  const firstClock = input.timestamp !== undefined && !ctx.facts.knowsHostClock(id);
  ctx.facts.checkIn(id, now.getTime(), input.timestamp);
  // The Agent's part is built once per cached Agent object: rebuilding it (its inventory above
  // all) on every poll was 1.9 CPU-s per 12,000 polls in make bench-scale. The facts are those
  // less the host's clock, which the choice of steps never reads: they stay the same object from
  // poll to poll, and so does the record.
  const recorded = cachedAgentToHost(agent, ctx.facts.steady(id) ?? NO_FACTS);
  // Upstream records the runner's version before choosing steps; judging by the version stored
  // at registration (the discovery image's) would ask an upgraded runner to upgrade forever.
  const version = call.agentVersionHeader;
  // Copied only when the version differs: each copy is the whole host record, on every poll.
  const host =
    version && version !== recorded.discovery_agent_version
      ? { ...recorded, discovery_agent_version: version }
      : recorded;
  const cluster = await clusterRecordForPoll(ctx, memory, host.cluster_id);
  const chosen = stepsOptionsForHost(s, agent, infraEnv, host);
  const options = chosen instanceof Promise ? await chosen : chosen;
  const inputs: StepsInputs = {
    host,
    cluster,
    infraEnv: await infraEnvRecordForPoll(ctx, memory, infraEnv),
    options,
  };
  const result = stepsOfPoll(s, agent, inputs, now);
  for (const e of result.errors)
    s.log.debug({ host: id, step: e.step_type, error: e.error }, 'step not built');
  memory.warmUp.onPoll(
    id,
    result.steps.instructions.map((st) => st.step_type),
  );
  rememberPoll(s, agent, { recorded, host, version, result, firstClock });
  return ok(result.steps);
}

/** What a host's steps are chosen from (nextStepsDetailed's arguments). */
interface StepsInputs {
  host: AgentHost;
  cluster: AgentCluster | undefined;
  infraEnv: InfraEnvRecord;
  options: StepsOptions;
}

/**
 * The steps answer of the last poll of a cached Agent, with the objects it was chosen from. A
 * steady host polls with the same records and options objects, and the answer differs only in its
 * step ids: building the arguments again (the domain names, the NTP sources) was a tenth of what a
 * poll allocated (docs/operations.md, "Twenty-ninth round"). The cluster's and the infra-env's
 * records are held weakly: a host that stops polling must not keep its cluster's record as it
 * was (with every host record in it) for as long as its Agent stays unchanged.
 */
interface KeptSteps {
  host: AgentHost;
  cluster: WeakRef<AgentCluster> | undefined;
  infraEnv: WeakRef<InfraEnvRecord>;
  options: StepsOptions;
  result: NextStepsResult;
}

const lastSteps = memoSlot<Agent, KeptSteps>('steps of the last poll');

function stepsOfPoll(s: HostScope, agent: Agent, inputs: StepsInputs, now: Date): NextStepsResult {
  const { host, cluster, infraEnv, options } = inputs;
  const last = lastSteps.get(agent);
  if (
    last &&
    last.host === host &&
    last.options === options &&
    (cluster === undefined ? last.cluster === undefined : last.cluster?.deref() === cluster) &&
    last.infraEnv.deref() === infraEnv
  ) {
    return withFreshStepIds(last.result, s.random);
  }
  const result = nextStepsDetailed(host, cluster, infraEnv, { now, random: s.random, options });
  if (stepsAreReusable(host, cluster, options)) {
    lastSteps.set(agent, {
      host,
      cluster: cluster && new WeakRef(cluster),
      infraEnv: new WeakRef(infraEnv),
      options,
      result,
    });
  }
  return result;
}

/**
 * The steps options of this host: the scope's, or a copy with the day-2 ignition endpoint or the
 * reclaim boot artifacts. A promise only for a day-2 host, whose token is read.
 */
function stepsOptionsForHost(
  s: HostScope,
  agent: Agent,
  infraEnv: InfraEnv,
  host: AgentHost,
): StepsOptions | Promise<StepsOptions> {
  let options: StepsOptions = s.stepsOptions;
  if (host.status === 'reclaiming') {
    // The discovery boot artifacts the reclaimed host downloads: the InfraEnv's (initrd signed).
    const a = infraEnv.status?.bootArtifacts;
    if (a?.kernel && a.rootfs && a.initrd) {
      options = {
        ...options,
        bootArtifacts: { kernel_url: a.kernel, rootfs_url: a.rootfs, initrd_url: a.initrd },
      };
    }
  }
  const headers = agent.spec.ignitionEndpointHTTPHeaders;
  if (!agent.spec.ignitionEndpointTokenReference?.name && !headers) return options;
  // Day-2 hosts fetch the cluster's ignition with the token and headers the Agent names.
  return referencedFacts(s.ctx, agent).then(({ ignitionToken }) => ({
    ...options,
    hostIgnitionEndpoint: () => ({
      ...(ignitionToken ? { token: ignitionToken } : {}),
      ...(headers ? { headers } : {}),
    }),
  }));
}

interface Poll {
  recorded: AgentHost;
  host: AgentHost;
  version: string | undefined;
  result: NextStepsResult;
  firstClock: boolean;
}

/** Puts what the record keeps into the inbox, and enqueues the Agent when its status may change. */
function rememberPoll(
  s: HostScope,
  agent: Agent,
  { recorded, host, version, result, firstClock }: Poll,
): void {
  const id = agent.metadata.name ?? '';
  // Made only when there is something to keep: most polls keep nothing.
  let pending: PendingHostUpdate | undefined;
  if (result.installer_version && result.installer_version !== host.installer_version) {
    pending = { installerVersion: result.installer_version };
  }
  if (version && version !== recorded.discovery_agent_version) {
    pending = { ...pending, discoveryAgentVersion: version };
  }
  if (host.media_status === 'disconnected') pending = { ...pending, mediaConnected: true };
  if (result.upgrade_agent) {
    s.log.info({ host: id, image: s.ctx.settings.agentImage }, 'agent asked to upgrade');
  }
  const visible =
    host.status === 'disconnected' ||
    host.status === 'disconnected-unbound' ||
    firstClock ||
    connectedFailing(host);
  if (pending) s.memory.inbox.put(id, pending);
  if (visible || pending) s.enqueueAgent(agent);
}

/** Whether the host's `connected` validation fails. */
function connectedFailing(host: AgentHost): boolean {
  for (const category in host.validations_info) {
    for (const v of host.validations_info[category] ?? []) {
      if (v.id === 'connected' && v.status === 'failure') return true;
    }
  }
  return false;
}
