// The cluster-level operations of the host REST API (agent-api.md §2.2, §2.3) on top of the
// records: reads build the cluster from the caches (views.clusterView); writes change only what
// they report — in `AgentClusterInstall.status.backend`, through updateStatus (conflicts retried
// on the live object) — and enqueue the ClusterDeployment, whose reconciler recomputes the rest
// of the status (conditions, progress) and moves the cluster on.
//
// deps: { auth } — the API's local authentication; registering it here also lets the reconciler
// sign the events and logs URLs it writes into status.

import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import type {
  AgentClusterInstall,
  AgentClusterInstallBackendStatus,
  AgentClusterInstallStatus,
  ClusterDeployment,
  MonitoredOperatorStatus,
} from '../../api/index.ts';
import {
  agentClusterDownload,
  type ClusterDownloadRoute,
  HOST_INSTALL_STATES,
  type LocalAuth,
} from '../../auth/index.ts';
import type { Cluster, Host, LogsState } from '../../core/model.ts';
import { FINALIZING_STAGES } from '../../core/statemachine/index.ts';
import {
  clusterFileExists,
  clusterLogsDir,
  controllerLogsFile,
  hostLogsFile,
  readClusterFile,
  writeClusterFiles,
} from '../../records/clusters/artifacts-store.ts';
import { setClusterUrlAuth } from '../../records/clusters/status.ts';
import type { OperatorContext } from '../../records/context.ts';
import { operatorEventsFor } from '../../records/events.ts';
import type { AgentCluster } from '../../records/index.ts';
import { AGENT_CLUSTER_INSTALL } from '../../records/resources.ts';
import { clusterView } from '../../records/views.ts';
import { keyOf, updateStatus } from '../../runtime/index.ts';
import { type TarFileEntry, tarStream, tarStreamSize } from '../../util/tar.ts';
import {
  type CallContext,
  type ClusterFileName,
  type CredentialFileName,
  done,
  type EventSeverity,
  type FileDownload,
  fail,
  type HostApiBackend,
  type Outcome,
  ok,
} from '../api/backend.ts';
import { mergeIngressCa } from './kubeconfig.ts';

export interface ClusterBackendDeps {
  auth: LocalAuth;
}

export type ClusterBackend = Pick<
  HostApiBackend,
  | 'getCluster'
  | 'downloadClusterFile'
  | 'downloadClusterCredentials'
  | 'downloadClusterLogs'
  | 'updateClusterLogsProgress'
  | 'updateClusterFinalizingProgress'
  | 'reportMonitoredOperatorStatus'
  | 'uploadIngressCert'
  | 'completeInstallation'
>;

interface Located {
  cd: ClusterDeployment;
  aci: AgentClusterInstall;
  cluster: AgentCluster;
}

/** Thrown inside an updateStatus compute to answer the request with an error instead. */
class Refusal extends Error {
  readonly outcome: Outcome<never>;
  constructor(outcome: Outcome<never>) {
    super('refused');
    this.outcome = outcome;
  }
}

const INSTALL_PROGRESS_STATUSES = ['installing', 'installing-pending-user-action', 'finalizing'];

function plainHost(host: AgentCluster['hosts'][number]): Host {
  const { approved: _approved, ...rest } = host;
  return rest;
}

/** The cluster record as the API shows it (hosts without the kube-only approval flag). */
function apiCluster(cluster: AgentCluster): Cluster {
  return { ...cluster, hosts: cluster.hosts.map(plainHost) };
}

export function clusterBackend(ctx: OperatorContext, deps: ClusterBackendDeps): ClusterBackend {
  setClusterUrlAuth(ctx, deps.auth);

  async function locate(clusterId: string): Promise<Located | Outcome<never>> {
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

  const isOutcome = (v: Located | Outcome<never>): v is Outcome<never> => 'ok' in v;

  function clusterEvent(cluster: AgentCluster, name: string, severity: EventSeverity, message: string): void {
    operatorEventsFor(ctx).record({
      name,
      severity,
      category: 'user',
      message,
      event_time: ctx.now().toISOString(),
      cluster_id: cluster.id,
    });
  }

  /** Applies `mutate` to the live status.backend of the cluster's ACI, then wakes the reconciler. */
  async function mutateBackend(
    found: Located,
    mutate: (backend: AgentClusterInstallBackendStatus) => AgentClusterInstallBackendStatus,
  ): Promise<Outcome<void>> {
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
    ctx.bus.enqueue('clusterdeployment', keyOf(found.cd.metadata.namespace, found.cd.metadata.name ?? ''));
    return done();
  }

  function stateOf(found: Located): string {
    return found.cluster.status;
  }

  /** Agent tokens get only what the installer and controller fetch, while it installs (src/auth/host-downloads.ts). */
  function agentMayDownload(
    call: CallContext,
    found: Located,
    route: ClusterDownloadRoute,
    fileName: string,
  ): Outcome<never> | undefined {
    const { principal } = call;
    if (principal.scheme !== 'agent') return undefined;
    const { subject } = principal;
    const hosts = found.cluster.hosts;
    const participating = hosts.some(
      (h) =>
        HOST_INSTALL_STATES.includes(h.status) &&
        (subject.kind === 'cluster' || h.infra_env_id.toLowerCase() === subject.id.toLowerCase()),
    );
    const decision = agentClusterDownload({
      route,
      fileName,
      clusterId: found.cluster.id,
      clusterState: found.cluster.status,
      participating,
    });
    return decision.ok ? undefined : fail(decision.status, decision.reason);
  }

  async function download(clusterId: string, name: string, what: string): Promise<Outcome<FileDownload>> {
    const bytes = await readClusterFile(ctx, clusterId, name);
    if (!bytes) return fail(409, `${what} ${name} for cluster ${clusterId} is not available yet`);
    return ok({ content: bytes, fileName: name });
  }

  return {
    async getCluster(_call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      return ok(apiCluster(found.cluster));
    },

    async downloadClusterFile(call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      const refused = agentMayDownload(call, found, 'files', input.fileName);
      if (refused) return refused;
      return download(found.cluster.id, input.fileName satisfies ClusterFileName, 'File');
    },

    async downloadClusterCredentials(call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      const refused = agentMayDownload(call, found, 'credentials', input.fileName);
      if (refused) return refused;
      return download(found.cluster.id, input.fileName satisfies CredentialFileName, 'Credentials file');
    },

    async downloadClusterLogs(_call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      const id = found.cluster.id;
      const name = found.cluster.name;
      const type = input.logsType ?? '';
      if (type === 'host' || (input.hostId && type !== 'controller' && type !== 'all')) {
        if (!input.hostId) return fail(400, 'host_id is required for host logs');
        const file = await fileDownload(
          hostLogsFile(ctx, id, input.hostId),
          `${name}_${input.hostId}.tar.gz`,
        );
        return file ? ok(file) : fail(404, `Logs for host ${input.hostId} were not found`);
      }
      if (type === 'controller') {
        const file = await fileDownload(controllerLogsFile(ctx, id), `${name}_${id}_controller_logs.tar.gz`);
        return file ? ok(file) : fail(404, `Logs for cluster ${id} were not found`);
      }
      const entries = await allLogs(ctx, id);
      if (entries.length === 0) return fail(404, `Logs for cluster ${id} were not found`);
      // Streamed from the files: several concurrent downloads of large log sets stay small in memory.
      return ok({ content: tarStream(entries), size: tarStreamSize(entries), fileName: `${name}_${id}.tar` });
    },

    async updateClusterLogsProgress(_call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      const now = ctx.now().toISOString();
      return mutateBackend(found, (b) => ({
        ...b,
        logsInfo: input.logsState satisfies LogsState,
        ...(input.logsState === 'requested' ? { controllerLogsStartedAt: now } : {}),
      }));
    },

    async updateClusterFinalizingProgress(_call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      const status = stateOf(found);
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
      return mutateBackend(found, (b) => {
        const progress = { ...b.progress };
        if (progress.finalizingStage !== input.finalizingStage) {
          progress.finalizingStage = input.finalizingStage;
          progress.finalizingStageStartedAt = now;
          progress.finalizingStageTimedOut = false;
        }
        return { ...b, progress };
      });
    },

    async reportMonitoredOperatorStatus(_call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      const { report } = input;
      if (!(found.cluster.monitored_operators ?? []).some((o) => o.name === report.name)) {
        return fail(404, `Operator ${report.name} is not monitored in cluster ${found.cluster.id}`);
      }
      return mutateBackend(found, (b) => ({
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
    },

    async uploadIngressCert(_call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      const id = found.cluster.id;
      const status = stateOf(found);
      if (status !== 'finalizing' && status !== 'installed') {
        return fail(
          400,
          `Cluster ${id} is in ${status} state, upload ingress ca can be done only in finalizing or installed state`,
        );
      }
      if (!(await clusterFileExists(ctx, id, 'kubeconfig'))) {
        const noIngress = await readClusterFile(ctx, id, 'kubeconfig-noingress');
        if (!noIngress) return fail(500, `kubeconfig-noingress of cluster ${id} was not found`);
        let merged: string;
        try {
          merged = mergeIngressCa(noIngress.toString('utf8'), input.pem);
        } catch (err) {
          return fail(500, `failed to merge the ingress CA into the kubeconfig: ${(err as Error).message}`);
        }
        await writeClusterFiles(ctx, id, { kubeconfig: merged });
      }
      if (found.aci.status?.backend?.kubeconfigUploaded === true) return done();
      return mutateBackend(found, (b) => ({ ...b, kubeconfigUploaded: true }));
    },

    async completeInstallation(_call, input) {
      const found = await locate(input.clusterId);
      if (isOutcome(found)) return found;
      const { cluster } = found;
      if (input.isSuccess) {
        // Completion itself is the monitor's (all hosts installed, kubeconfig and operators in).
        clusterEvent(
          cluster,
          'cluster_installation_reported_complete',
          'info',
          `The installer controller reported that cluster ${cluster.name} finished installing`,
        );
        ctx.bus.enqueue(
          'clusterdeployment',
          keyOf(found.cd.metadata.namespace, found.cd.metadata.name ?? ''),
        );
        return ok(apiCluster(cluster));
      }
      if (!INSTALL_PROGRESS_STATUSES.includes(cluster.status)) {
        return fail(
          409,
          `Cluster ${cluster.id} is in ${cluster.status} state, installation cannot be completed`,
        );
      }
      const reason = input.errorInfo || 'The installer controller reported a failure';
      const now = ctx.now().toISOString();
      const written = await mutateBackend(found, (b) => ({
        ...b,
        state: 'error',
        stateInfo: reason,
        statusUpdatedAt: now,
        installCompletedAt: now,
      }));
      if (!written.ok) return written;
      clusterEvent(
        cluster,
        'cluster_installation_failed',
        'critical',
        `Failed installing cluster ${cluster.name}. Reason: ${reason}`,
      );
      return ok(apiCluster({ ...cluster, status: 'error', status_info: reason }));
    },
  };
}

/** Every uploaded log file of a cluster, as tar entries named `<host id>.tar.gz` / `controller_logs.tar.gz`. */
async function allLogs(ctx: OperatorContext, clusterId: string): Promise<TarFileEntry[]> {
  const dir = clusterLogsDir(ctx, clusterId);
  const names = await readdir(dir).catch(() => [] as string[]);
  const entries: TarFileEntry[] = [];
  for (const sub of names.sort()) {
    const file = sub === 'cluster' ? controllerLogsFile(ctx, clusterId) : `${dir}/${sub}/logs.tar.gz`;
    const info = await stat(file).catch(() => undefined);
    if (!info) continue;
    entries.push({
      name: sub === 'cluster' ? 'controller_logs.tar.gz' : `${sub}.tar.gz`,
      path: file,
      size: info.size,
      mtime: info.mtime,
    });
  }
  return entries;
}

/** One stored file as a streamed download (undefined when it does not exist). */
async function fileDownload(path: string, fileName: string): Promise<FileDownload | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  return {
    content: createReadStream(path, { start: 0, end: Math.max(0, info.size - 1) }),
    size: info.size,
    fileName,
  };
}

/**
 * For the logs upload (the hosts' REST backend): the installer controller's logs arrived. Records
 * controller_logs_collected_at on the cluster, as upstream does on upload.
 */
export async function recordControllerLogsCollected(ctx: OperatorContext, clusterId: string): Promise<void> {
  const cd = ctx.clusterDeploymentById(clusterId);
  const aci = cd ? (await clusterView(ctx, cd)).aci : undefined;
  if (!cd || !aci) return;
  const now = ctx.now().toISOString();
  await updateStatus(ctx.client, AGENT_CLUSTER_INSTALL, aci, (current) => {
    const backend = current.status?.backend;
    if (!backend || backend.clusterID !== clusterId) return current.status;
    return {
      ...(current.status as AgentClusterInstallStatus),
      backend: { ...backend, controllerLogsCollectedAt: now },
    };
  });
  ctx.bus.enqueue('clusterdeployment', keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
}
