// Progress the installer controller reports for a cluster (agent-api.md §2.2): logs progress,
// the finalizing stage and monitored operators. Each writes only status.backend of the
// AgentClusterInstall; the ClusterDeployment reconciler recomputes the rest.

import type { MonitoredOperatorStatus } from '../../api/index.ts';
import type { LogsState } from '../../core/model.ts';
import { FINALIZING_STAGES } from '../../core/statemachine/index.ts';
import { fail } from '../api/backend.ts';
import { type ClusterInput, type ClusterScope, INSTALL_PROGRESS_STATUSES, type Located } from './scope.ts';

type LogsProgressInput = ClusterInput<'updateClusterLogsProgress'>;
type FinalizingInput = ClusterInput<'updateClusterFinalizingProgress'>;
type OperatorReportInput = ClusterInput<'reportMonitoredOperatorStatus'>;

export async function updateClusterLogsProgress(s: ClusterScope, found: Located, input: LogsProgressInput) {
  const { ctx } = s;
  const now = ctx.now().toISOString();
  return s.mutateBackend(found, (b) => ({
    ...b,
    logsInfo: input.logsState satisfies LogsState,
    ...(input.logsState === 'requested' ? { controllerLogsStartedAt: now } : {}),
  }));
}

export async function updateClusterFinalizingProgress(
  s: ClusterScope,
  found: Located,
  input: FinalizingInput,
) {
  const { ctx } = s;
  const status = found.cluster.status;
  if (!INSTALL_PROGRESS_STATUSES.includes(status)) {
    return fail(
      409,
      `Cluster ${found.cluster.id} is in ${status} state, finalizing stage can be updated only in one of [${INSTALL_PROGRESS_STATUSES.join(' ')}]`,
    );
  }
  if (!(FINALIZING_STAGES as readonly string[]).includes(input.finalizingStage)) {
    return fail(400, `unknown finalizing stage ${input.finalizingStage}`);
  }
  const now = ctx.now().toISOString();
  return s.mutateBackend(found, (b) => {
    const progress = { ...b.progress };
    if (progress.finalizingStage !== input.finalizingStage) {
      progress.finalizingStage = input.finalizingStage;
      progress.finalizingStageStartedAt = now;
      progress.finalizingStageTimedOut = false;
    }
    return { ...b, progress };
  });
}

export async function reportMonitoredOperatorStatus(
  s: ClusterScope,
  found: Located,
  input: OperatorReportInput,
) {
  const { report } = input;
  if (!(found.cluster.monitored_operators ?? []).some((o) => o.name === report.name)) {
    return fail(404, `Operator ${report.name} is not monitored in cluster ${found.cluster.id}`);
  }
  return s.mutateBackend(found, (b) => ({
    ...b,
    monitoredOperators: (b.monitoredOperators ?? []).map(
      (o): MonitoredOperatorStatus =>
        o.name !== report.name
          ? o
          : {
              ...o,
              status: report.status,
              ...(report.status_info !== undefined ? { statusInfo: report.status_info } : {}),
              ...(report.version ? { version: report.version } : {}),
            },
    ),
  }));
}
