// The spoke's worker MachineConfigPool pause of an imported or day-2 cluster (kubeapi.md §3.1.10):
// while a day-2 host that joins a custom pool (nodeLabels and machineConfigPool set) is still
// installing, the spoke's `worker` pool is paused, so the Machine Config Operator does not start
// rolling workers before the new Node has its labels and pool; when none is installing any more it
// is unpaused. Hosts of no custom pool leave the pool alone.
//
// The decision is a pure function of the Agents; the spoke side reads the pool first and writes
// only when spec.paused differs. It goes through the spoke's admin kubeconfig (no hub RBAC), and
// never throws: a missing pool or an unreachable spoke is a log line and a Warning Event on the
// AgentClusterInstall, and the cluster sync asks to be called again later.

import {
  type Agent,
  type AgentClusterInstall,
  type ClusterDeployment,
  type MachineConfigPool,
  machineConfigPoolKind,
  WORKER_MACHINECONFIGPOOL,
} from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import type { AgentCluster } from '../../records/index.ts';
import { resourceOf } from '../../records/resources.ts';
import { spokeClient } from '../../records/spoke.ts';
import { isNotFound, keyOf } from '../../runtime/index.ts';

export const MACHINE_CONFIG_POOL = resourceOf(machineConfigPoolKind);

/** After a failure (spoke unreachable, API error) the pause is tried again this much later. */
export const MCP_PAUSE_RETRY_MS = 30_000;
/** A spoke without the pool is looked at again this much later. */
export const MCP_MISSING_RETRY_MS = 60_000;

/** Warning Event reasons on the AgentClusterInstall. */
export const MCP_PAUSE_EVENT_REASON = {
  missing: 'MachineConfigPoolNotFound',
  failed: 'MachineConfigPoolPauseFailed',
} as const;

/** What the decision reads of one Agent of the cluster. */
export interface McpPauseAgent {
  nodeLabels?: Readonly<Record<string, string>> | undefined;
  machineConfigPool?: string | undefined;
  /** Host state (status.debugInfo.state). */
  state?: string | undefined;
  /** status.progress.currentStage. */
  stage?: string | undefined;
}

const INSTALLING_STATES = ['installing', 'installing-in-progress'];

/**
 * Whether the spoke's worker pool should be paused: true while an Agent with node labels and a
 * custom pool is installing and not at stage Done, false when such Agents exist but none is, and
 * undefined (leave the pool alone) when there are none that are not installed.
 */
export function workerPoolPaused(agents: readonly McpPauseAgent[]): boolean | undefined {
  const relevant = agents.filter(
    (a) => Object.keys(a.nodeLabels ?? {}).length > 0 && !!a.machineConfigPool && a.state !== 'installed',
  );
  if (relevant.length === 0) return undefined;
  return relevant.some((a) => INSTALLING_STATES.includes(a.state ?? '') && a.stage !== 'Done');
}

/**
 * The decision's inputs: node labels and pool from each Agent's spec, state and stage from the
 * cluster record when it has the host (it carries this reconcile's day-2 install starts), from the
 * Agent's status otherwise.
 */
export function mcpPauseAgents(agents: readonly Agent[], cluster: AgentCluster): McpPauseAgent[] {
  const hosts = new Map(cluster.hosts.map((h) => [h.id, h]));
  return agents.map((a) => {
    const host = hosts.get(a.metadata.name ?? '');
    return {
      nodeLabels: a.spec.nodeLabels,
      machineConfigPool: a.spec.machineConfigPool,
      state: host ? host.status : a.status?.debugInfo?.state,
      stage: host ? host.progress?.current_stage : a.status?.progress?.currentStage,
    };
  });
}

export type McpPauseOutcome =
  | { kind: 'unchanged' | 'patched' }
  | { kind: 'missing' | 'failed'; message: string; retryInMs: number };

/** Spokes whose missing pool was already logged (once per spoke until it shows up). */
const missingLogged = new WeakMap<OperatorContext, Set<string>>();

/** Brings the spoke's worker pool to `paused`, reading it first; never throws. */
export async function applyWorkerPoolPause(
  ctx: OperatorContext,
  cd: ClusterDeployment,
  aci: AgentClusterInstall,
  paused: boolean,
): Promise<McpPauseOutcome> {
  const cdKey = keyOf(cd.metadata.namespace, cd.metadata.name ?? '');
  const log = ctx.logger.child({ controller: 'clusterdeployment', cd: cdKey });
  let logged = missingLogged.get(ctx);
  if (!logged) {
    logged = new Set();
    missingLogged.set(ctx, logged);
  }
  const fail = (message: string): McpPauseOutcome => {
    log.warn({ paused, err: message }, 'cannot set the spoke worker MachineConfigPool pause');
    ctx.mgr.events.event(aci, 'Warning', MCP_PAUSE_EVENT_REASON.failed, message);
    return { kind: 'failed', message, retryInMs: MCP_PAUSE_RETRY_MS };
  };
  const spoke = await spokeClient(ctx, cd);
  if (!spoke.ok) return fail(spoke.message);
  try {
    const pool = await spoke.client.getIfExists<MachineConfigPool>(
      MACHINE_CONFIG_POOL,
      WORKER_MACHINECONFIGPOOL,
    );
    if (!pool) {
      const message = `MachineConfigPool ${WORKER_MACHINECONFIGPOOL} not found on the spoke cluster; cannot set paused=${paused}`;
      if (!logged.has(cdKey)) {
        logged.add(cdKey);
        log.warn({ paused }, message);
        ctx.mgr.events.event(aci, 'Warning', MCP_PAUSE_EVENT_REASON.missing, message);
      }
      return { kind: 'missing', message, retryInMs: MCP_MISSING_RETRY_MS };
    }
    logged.delete(cdKey);
    if ((pool.spec?.paused ?? false) === paused) return { kind: 'unchanged' };
    await spoke.client.patch(MACHINE_CONFIG_POOL, WORKER_MACHINECONFIGPOOL, undefined, 'merge', {
      spec: { paused },
    });
    log.info(
      { paused },
      `spoke MachineConfigPool ${WORKER_MACHINECONFIGPOOL} ${paused ? 'paused' : 'unpaused'}`,
    );
    return { kind: 'patched' };
  } catch (err) {
    // A spoke that does not serve MachineConfigPools at all answers 404 on the GET (handled
    // above); a 404 here means the pool went away between the read and the patch.
    if (isNotFound(err))
      return { kind: 'missing', message: (err as Error).message, retryInMs: MCP_MISSING_RETRY_MS };
    return fail(`MachineConfigPool ${WORKER_MACHINECONFIGPOOL}: ${(err as Error).message}`);
  }
}
