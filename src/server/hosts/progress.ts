// PUT …/hosts/{id}/progress and …/logs-progress (agent-api.md §2.2): the installer and the log
// sender report. Both write the Agent status directly, with conflict retry: a progress report
// must not be lost.

import { updateInstallProgress } from '../../core/statemachine/index.ts';
import { clusterRecordById, hostFacts } from '../../records/hosts/lookup.ts';
import type { AgentHost } from '../../records/index.ts';
import { agentToHost } from '../../records/index.ts';
import { AGENT } from '../../records/resources.ts';
import { updateStatus } from '../../runtime/index.ts';
import { done, fail, fromSmError } from '../api/backend.ts';
import type { FoundHost, HostInput, HostScope } from './scope.ts';

type InstallProgressInput = HostInput<'updateHostInstallProgress'>;
type LogsProgressInput = HostInput<'updateHostLogsProgress'>;

export async function updateHostInstallProgress(s: HostScope, found: FoundHost, input: InstallProgressInput) {
  const { ctx, memory } = s;
  const { agent } = found;
  const id = agent.metadata.name ?? '';
  const host = agentToHost(agent, hostFacts(ctx, memory, id));
  if (!host.cluster_id) return fail(400, `host ${id} is not bound to any cluster`);
  const cluster = await clusterRecordById(ctx, host.cluster_id);
  const sm = { now: ctx.now(), options: memory.smOptions };
  const first = updateInstallProgress(host, { cluster: cluster ?? null, progress: input.progress }, sm);
  if (!first.ok) return fromSmError(first.error);
  if (!first.changed) return done();
  let result = first;
  await updateStatus(ctx.client, AGENT, agent, (cur) => {
    if (cur !== agent) {
      const h = agentToHost(cur, hostFacts(ctx, memory, id));
      const again = updateInstallProgress(h, { cluster: cluster ?? null, progress: input.progress }, sm);
      if (!again.ok) return cur.status;
      result = { ...again, host: { ...again.host, approved: h.approved } as AgentHost };
    }
    return s.project(cur, { ...result.host, approved: host.approved } as AgentHost);
  });
  const { current_stage: stage, progress_info: info } = input.progress;
  s.events.recordCore([
    ...result.events,
    {
      name: 'host_install_progress_updated',
      severity: stage === 'Failed' ? 'error' : 'info',
      message: `Host ${host.requested_hostname || host.inventory?.hostname || id}: reached installation stage ${stage}${info ? `: ${info}` : ''}`,
      host_id: id,
      infra_env_id: host.infra_env_id,
      cluster_id: host.cluster_id,
    },
  ]);
  s.enqueueCluster(host.cluster_id);
  return done();
}

export async function updateHostLogsProgress(s: HostScope, found: FoundHost, input: LogsProgressInput) {
  const now = s.ctx.now().toISOString();
  await s.writeHost(found.agent, (h) => ({
    ...h,
    logs_info: input.logsState,
    ...(input.logsState === 'requested' ? { logs_started_at: now } : {}),
  }));
  return done();
}
