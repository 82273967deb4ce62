// What every cluster route shares: finding the cluster a request names (503 while the caches
// start or the record cannot be built), writing status.backend of its AgentClusterInstall with
// conflict retry, and recording cluster events. Built once per backend by clusterBackend.

import type {
  AgentClusterInstall,
  AgentClusterInstallBackendStatus,
  AgentClusterInstallStatus,
  ClusterDeployment,
} from '../../api/index.ts';
import type { Cluster, Host } from '../../core/model.ts';
import type { OperatorContext } from '../../records/context.ts';
import { operatorEventsFor } from '../../records/events.ts';
import type { AgentCluster } from '../../records/index.ts';
import { AGENT_CLUSTER_INSTALL } from '../../records/resources.ts';
import { clusterView } from '../../records/views.ts';
import { keyOf, updateStatus } from '../../runtime/index.ts';
import {
  type CallContext,
  type ClusterRef,
  done,
  type EventSeverity,
  fail,
  type HostApiBackend,
  type Outcome,
} from '../api/backend.ts';

export interface Located {
  cd: ClusterDeployment;
  aci: AgentClusterInstall;
  cluster: AgentCluster;
}

export interface ClusterScope {
  ctx: OperatorContext;
  locate(clusterId: string): Promise<Located | Outcome<never>>;
  /** Applies `mutate` to the live status.backend of the cluster's ACI, then wakes the reconciler. */
  mutateBackend(
    found: Located,
    mutate: (backend: AgentClusterInstallBackendStatus) => AgentClusterInstallBackendStatus,
  ): Promise<Outcome<void>>;
  clusterEvent(cluster: AgentCluster, name: string, severity: EventSeverity, message: string): void;
  enqueue(found: Located): void;
}

export const isOutcome = (v: Located | Outcome<never>): v is Outcome<never> => 'ok' in v;

/** Cluster states in which the installer reports progress and completion. */
export const INSTALL_PROGRESS_STATUSES = ['installing', 'installing-pending-user-action', 'finalizing'];

/** Thrown inside an updateStatus compute to answer the request with an error instead. */
class Refusal extends Error {
  readonly outcome: Outcome<never>;
  constructor(outcome: Outcome<never>) {
    super('refused');
    this.outcome = outcome;
  }
}

function plainHost(host: AgentCluster['hosts'][number]): Host {
  const { approved: _approved, ...rest } = host;
  return rest;
}

/** The cluster record as the API shows it (hosts without the kube-only approval flag). */
export function apiCluster(cluster: AgentCluster): Cluster {
  return { ...cluster, hosts: cluster.hosts.map(plainHost) };
}

export function clusterScope(ctx: OperatorContext): ClusterScope {
  const enqueue = (found: Located) =>
    ctx.bus.enqueue('clusterdeployment', keyOf(found.cd.metadata.namespace, found.cd.metadata.name ?? ''));
  return {
    ctx,
    locate: (clusterId) => locate(ctx, clusterId),
    enqueue,
    clusterEvent(cluster, name, severity, message) {
      operatorEventsFor(ctx).record({
        name,
        severity,
        category: 'user',
        message,
        event_time: ctx.now().toISOString(),
        cluster_id: cluster.id,
      });
    },
    async mutateBackend(found, mutate) {
      try {
        await updateStatus(ctx.client, AGENT_CLUSTER_INSTALL, found.aci, (current) => {
          const backend = current.status?.backend;
          if (!backend || backend.clusterID !== found.cluster.id) {
            throw new Refusal(fail(503, `cluster ${found.cluster.id} is not registered yet`));
          }
          return {
            ...(current.status as AgentClusterInstallStatus),
            backend: mutate(structuredClone(backend)),
          };
        });
      } catch (err) {
        if (err instanceof Refusal) return err.outcome;
        throw err;
      }
      enqueue(found);
      return done();
    },
  };
}

async function locate(ctx: OperatorContext, clusterId: string): Promise<Located | Outcome<never>> {
  if (!ctx.informers.clusterDeployments.hasSynced() || !ctx.informers.agentClusterInstalls.hasSynced()) {
    return fail(503, 'the service is starting, try again');
  }
  const cd = ctx.clusterDeploymentById(clusterId);
  if (!cd) return fail(404, `Cluster ${clusterId} not found`);
  const view = await clusterView(ctx, cd);
  const cluster = view.result?.cluster;
  if (!view.aci || !cluster) {
    // The record exists but cannot be built right now (e.g. its pull Secret is missing).
    const why = view.result?.error?.message ?? 'the AgentClusterInstall is missing';
    return fail(503, `cluster ${clusterId} is not available: ${why}`);
  }
  return { cd, aci: view.aci, cluster };
}

/** The input of a backend operation. */
export type ClusterInput<K extends keyof HostApiBackend> = Parameters<NonNullable<HostApiBackend[K]>>[1];

/** A route of one cluster: 503 or 404 unless the cluster can be located, then `fn`. */
export function clusterRoute<I extends ClusterRef, T>(
  s: ClusterScope,
  fn: (s: ClusterScope, found: Located, input: I, call: CallContext) => Promise<Outcome<T>>,
): (call: CallContext, input: I) => Promise<Outcome<T>> {
  return async (call, input) => {
    const found = await s.locate(input.clusterId);
    return isOutcome(found) ? found : fn(s, found, input, call);
  };
}
