// POST …/hosts/{id}/instructions/{step} (agent-api.md §2.1): a step reply. Frequent low-value
// facts go to ctx.facts, results the record keeps (inventory, NTP, media state, install failure,
// reclaim) to the host inbox; the Agent (and for cluster facts its ClusterDeployment) is enqueued
// when something it shows may change. A refused reply leaves a Warning Event on the Agent.

import type { Agent } from '../../api/index.ts';
import type { NtpSource } from '../../core/model.ts';
import type { StepReplyValue } from '../../core/steps/index.ts';
import { recordVipVerifications } from '../../records/clusters/vip-verifications.ts';
import { findHost } from '../../records/hosts/lookup.ts';
import type { PendingHostUpdate } from '../../records/hosts/memory.ts';
import type { HostRuntimeFacts } from '../../records/index.ts';
import { capForLog } from '../../util/log-text.ts';
import { done, fail } from '../api/backend.ts';
import type { FoundHost, HostInput, HostScope } from './scope.ts';

type StepReplyInput = HostInput<'postStepReply'>;
type RefusedInput = HostInput<'stepReplyRefused'>;

/** How one reply reaches the record: through the inbox (put) or the memory facts (fact). */
interface Sinks {
  put(update: PendingHostUpdate): void;
  fact(patch: HostRuntimeFacts, alsoCluster?: boolean): void;
}

/**
 * How long a reply whose result the record keeps waits for the reconciler to write it. Past this
 * the answer is 503 and the agent sends the result again with its next round; the result stays in
 * the inbox meanwhile, so a slow write is not lost either.
 */
export const REPLY_APPLY_TIMEOUT_MS = 20_000;

export async function postStepReply(s: HostScope, found: FoundHost, input: StepReplyInput) {
  const { agent } = found;
  const id = agent.metadata.name ?? '';
  const decoded = input.decoded;
  s.memory.warmUp.onReply(id, input.reply.step_type);
  let waitFor: Promise<boolean> | undefined;
  const sinks: Sinks = {
    put: (update) => {
      const seq = s.memory.inbox.put(id, update);
      waitFor = s.memory.inbox.whenApplied(id, seq, REPLY_APPLY_TIMEOUT_MS);
      s.enqueueAgent(agent);
    },
    fact: (patch, alsoCluster = false) => {
      if (!s.setFacts(id, patch)) return;
      s.enqueueAgent(agent);
      if (alsoCluster) s.enqueueCluster(agent.status?.backend?.clusterID);
    },
  };
  if (decoded.media_disconnected) sinks.put({ mediaDisconnected: true });
  if (!decoded.ok) {
    s.log.info({ host: id, step: decoded.step_type, error: capForLog(decoded.error) }, 'step failed');
  } else applyStepValue(s, agent, input.infraEnvId, decoded.value, sinks);
  // Only the Lease holder reconciles, and its memory dies with it: a 2xx must mean "stored" (as
  // upstream's, which writes its database before answering), or a failover loses the result.
  if (waitFor && !(await waitFor)) {
    return fail(503, `the ${decoded.step_type} result of host ${id} is not stored yet; send it again`);
  }
  return done();
}

function applyStepValue(
  s: HostScope,
  agent: Agent,
  infraEnvId: string,
  v: StepReplyValue,
  sinks: Sinks,
): void {
  const id = agent.metadata.name ?? '';
  const facts = s.ctx.facts.get(id) ?? {};
  const { put, fact } = sinks;
  switch (v.kind) {
    case 'inventory':
      put({ inventory: v.inventory });
      break;
    case 'ntp':
      if (ntpChanged(agent, v.sources)) put({ ntpSources: v.sources });
      break;
    case 'connectivity':
      fact({ connectivity: v.report }, true);
      break;
    case 'free-addresses':
      s.setFacts(id, { free_addresses: v.networks });
      break;
    case 'domain-resolution':
      fact({ domain_name_resolutions: v.response });
      break;
    case 'image-availability': {
      const merged = { ...(facts.images_status ?? {}) };
      for (const image of v.images) if (image.name) merged[image.name] = image;
      fact({ images_status: merged });
      break;
    }
    case 'disk-speed':
      fact({ disks_info: { ...(facts.disks_info ?? {}), [v.path]: v.info } });
      break;
    case 'api-vip-connectivity':
      fact({ api_vip_connectivity: v.result });
      break;
    case 'tang':
      fact({ tang_connectivity: v.raw });
      break;
    case 'install-failed':
      put({ installFailed: v.error });
      break;
    case 'download-boot-artifacts':
      put({ reclaim: { rebooting: true } });
      break;
    case 'reclaim-failed':
      put({ reclaim: { failed: v.error } });
      break;
    case 'upgrade-agent':
      recordAgentUpgrade(s, id, infraEnvId, v);
      break;
    case 'verify-vips': {
      // VIP verification is a cluster fact: api-vips-valid waits for it on multi-node clusters.
      const clusterId = agent.status?.backend?.clusterID;
      if (clusterId && recordVipVerifications(s.ctx, clusterId, v.vips)) s.enqueueCluster(clusterId);
      break;
    }
    case 'dhcp-lease':
      // DHCP-allocated VIPs are not kept in kube-API mode yet.
      s.log.debug({ host: id, step: v.kind }, 'step reply not used');
      break;
    default:
      break;
  }
}

function ntpChanged(agent: Agent, sources: readonly NtpSource[]): boolean {
  const stored = (agent.status?.ntpSources ?? []).map((src) => ({
    source_name: src.sourceName ?? '',
    source_state: src.sourceState ?? '',
  }));
  const got = sources.map((src) => ({
    source_name: src.source_name ?? '',
    source_state: src.source_state ?? '',
  }));
  return JSON.stringify(stored) !== JSON.stringify(got);
}

function recordAgentUpgrade(
  s: HostScope,
  id: string,
  infraEnvId: string,
  v: Extract<StepReplyValue, { kind: 'upgrade-agent' }>,
): void {
  s.events.record({
    name: v.result === 'success' ? 'upgrade_agent_finished' : 'upgrade_agent_failed',
    severity: v.result === 'success' ? 'info' : 'error',
    category: 'user',
    message: `Agent of host ${id} ${v.result === 'success' ? 'upgraded' : 'failed to upgrade'} to ${v.agent_image ?? s.ctx.settings.agentImage}`,
    event_time: s.ctx.now().toISOString(),
    host_id: id,
    infra_env_id: infraEnvId,
  });
}

export async function stepReplyRefused(s: HostScope, input: RefusedInput): Promise<void> {
  const found = await findHost(s.ctx, input.infraEnvId, input.hostId);
  if (!found.ok) return;
  const id = found.agent.metadata.name ?? '';
  s.log.warn({ host: id, reason: capForLog(input.reason) }, 'step reply refused');
  // A Warning Event on the Agent (and in its events URL): why its record does not change.
  s.events.record({
    name: 'host_step_reply_refused',
    severity: 'warning',
    category: 'user',
    message: `Host ${id}: ${input.reason}`,
    event_time: s.ctx.now().toISOString(),
    host_id: id,
    infra_env_id: input.infraEnvId,
  });
}
