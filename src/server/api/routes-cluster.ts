// Cluster-scoped operations of the installer and the in-cluster assisted-installer-controller
// (agent-api.md §2.2, §2.3). Both authenticate with an infra-env's agent token, which opens the
// clusters that infra-env's hosts belong to.

import type { Cluster, Host } from '../../core/model.ts';
import {
  type ApiReply,
  type ApiRoute,
  defineRoute,
  errorReply,
  fromOutcome,
  type HandlerContext,
} from './api-route.ts';
import {
  CLUSTER_FILE_NAMES,
  type ClusterFileName,
  CREDENTIAL_FILE_NAMES,
  type CredentialFileName,
} from './backend.ts';
import type { JsonList } from './http-io.ts';
import {
  completionParamsSchema,
  finalizingProgressSchema,
  ingressCertSchema,
  logsProgressParamsSchema,
  operatorMonitorReportSchema,
} from './schemas.ts';
import { clusterToWire, type HostListFilter, hostListOf, hostToWire, operatorToWire } from './wire.ts';

const AGENT = { agent: true } as const;
const CLUSTER_PATH = '/v2/clusters/{cluster_id}';
const HOST_LIST_ROLES = ['master', 'arbiter', 'worker', 'auto-assign'] as const;

function clusterId(ctx: HandlerContext<unknown>): string {
  return ctx.params.cluster_id!;
}

/** A cluster with its hosts, sent host by host when they are many (sendJsonList). */
function clusterReply(cluster: Cluster, status: number): ApiReply {
  const list: JsonList<Host> = {
    head: clusterToWire(cluster, { excludeHosts: true }),
    field: 'hosts',
    items: cluster.hosts,
    itemToWire: (h) => hostToWire(h),
  };
  return { kind: 'jsonList', status, list };
}

const getCluster = defineRoute<{ excludeHosts: boolean }>({
  method: 'GET',
  path: CLUSTER_PATH,
  auth: AGENT,
  query: (q) => ({ excludeHosts: q.bool('exclude-hosts') ?? false }),
  async handle(ctx) {
    const outcome = await ctx.deps.backend.getCluster(ctx.call, { clusterId: clusterId(ctx) });
    return fromOutcome(outcome, (cluster) =>
      ctx.query.excludeHosts
        ? { kind: 'json', status: 200, body: clusterToWire(cluster, { excludeHosts: true }) }
        : clusterReply(cluster, 200),
    );
  },
});

const listClusterHosts = defineRoute<HostListFilter>({
  method: 'GET',
  path: `${CLUSTER_PATH}/hosts`,
  auth: AGENT,
  query: (q) => {
    const filter: HostListFilter = {
      withInventory: q.bool('with-inventory') ?? false,
      withConnectivity: q.bool('with-connectivity') ?? false,
    };
    const role = q.oneOf('role', HOST_LIST_ROLES);
    const status = q.string('status');
    if (role !== undefined) filter.role = role;
    if (status !== undefined) filter.status = status;
    return filter;
  },
  async handle(ctx) {
    const outcome = await ctx.deps.backend.getCluster(ctx.call, { clusterId: clusterId(ctx) });
    return fromOutcome(outcome, (cluster: Cluster): ApiReply => {
      const { hosts, toWire } = hostListOf(cluster.hosts, ctx.query);
      const list: JsonList<Host> = { items: hosts, itemToWire: toWire };
      return { kind: 'jsonList', status: 200, list };
    });
  },
});

const downloadClusterFiles = defineRoute<{ fileName: ClusterFileName }>({
  method: 'GET',
  path: `${CLUSTER_PATH}/downloads/files`,
  auth: AGENT,
  query: (q) => ({ fileName: q.oneOf('file_name', CLUSTER_FILE_NAMES, true)! }),
  async handle(ctx) {
    const outcome = await ctx.deps.backend.downloadClusterFile(ctx.call, {
      clusterId: clusterId(ctx),
      fileName: ctx.query.fileName,
    });
    return fromOutcome(outcome, (file) => ({ kind: 'file', file }));
  },
});

const downloadClusterCredentials = defineRoute<{ fileName: CredentialFileName }>({
  method: 'GET',
  path: `${CLUSTER_PATH}/downloads/credentials`,
  auth: AGENT,
  query: (q) => ({ fileName: q.oneOf('file_name', CREDENTIAL_FILE_NAMES, true)! }),
  async handle(ctx) {
    const outcome = await ctx.deps.backend.downloadClusterCredentials(ctx.call, {
      clusterId: clusterId(ctx),
      fileName: ctx.query.fileName,
    });
    return fromOutcome(outcome, (file) => ({ kind: 'file', file }));
  },
});

const updateClusterLogsProgress = defineRoute({
  method: 'PUT',
  path: `${CLUSTER_PATH}/logs-progress`,
  bodyKind: 'small',
  auth: AGENT,
  async handle(ctx) {
    const body = await ctx.body(logsProgressParamsSchema, 'logs-progress-params');
    if (!body.ok) return errorReply(400, body.message);
    const outcome = await ctx.deps.backend.updateClusterLogsProgress(ctx.call, {
      clusterId: clusterId(ctx),
      logsState: body.value.logs_state,
    });
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 204 }));
  },
});

const updateClusterFinalizingProgress = defineRoute({
  method: 'PUT',
  path: `${CLUSTER_PATH}/progress`,
  bodyKind: 'small',
  auth: AGENT,
  async handle(ctx) {
    const body = await ctx.body(finalizingProgressSchema, 'cluster-finalizing-progress');
    if (!body.ok) return errorReply(400, body.message);
    const outcome = await ctx.deps.backend.updateClusterFinalizingProgress(ctx.call, {
      clusterId: clusterId(ctx),
      finalizingStage: body.value.finalizing_stage,
    });
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 200 }));
  },
});

const listMonitoredOperators = defineRoute<{ operatorName?: string }>({
  method: 'GET',
  path: `${CLUSTER_PATH}/monitored-operators`,
  auth: AGENT,
  query: (q) => {
    const operatorName = q.string('operator_name');
    return operatorName === undefined ? {} : { operatorName };
  },
  async handle(ctx) {
    const outcome = await ctx.deps.backend.getCluster(ctx.call, { clusterId: clusterId(ctx) });
    // An unknown operator name yields an empty list, never a 404 the installer would retry.
    return fromOutcome(outcome, (cluster) => ({
      kind: 'json',
      status: 200,
      body: (cluster.monitored_operators ?? [])
        .filter((op) => ctx.query.operatorName === undefined || op.name === ctx.query.operatorName)
        .map((op) => operatorToWire(cluster.id, op)),
    }));
  },
});

const reportMonitoredOperatorStatus = defineRoute({
  method: 'PUT',
  path: `${CLUSTER_PATH}/monitored-operators`,
  bodyKind: 'small',
  auth: AGENT,
  async handle(ctx) {
    const body = await ctx.body(operatorMonitorReportSchema, 'operator-monitor-report');
    if (!body.ok) return errorReply(400, body.message);
    const { name, status, version, status_info } = body.value;
    const outcome = await ctx.deps.backend.reportMonitoredOperatorStatus(ctx.call, {
      clusterId: clusterId(ctx),
      report: {
        name,
        status,
        ...(version !== undefined ? { version } : {}),
        ...(status_info !== undefined ? { status_info } : {}),
      },
    });
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 200 }));
  },
});

const uploadIngressCert = defineRoute({
  method: 'POST',
  path: `${CLUSTER_PATH}/uploads/ingress-cert`,
  auth: AGENT,
  async handle(ctx) {
    const body = await ctx.body(ingressCertSchema, 'ingress-cert-params');
    if (!body.ok) return errorReply(400, body.message);
    const outcome = await ctx.deps.backend.uploadIngressCert(ctx.call, {
      clusterId: clusterId(ctx),
      pem: body.value,
    });
    return fromOutcome(outcome, () => ({ kind: 'empty', status: 201 }));
  },
});

const completeInstallation = defineRoute({
  method: 'POST',
  path: `${CLUSTER_PATH}/actions/complete-installation`,
  auth: AGENT,
  async handle(ctx) {
    const body = await ctx.body(completionParamsSchema, 'completion-params');
    if (!body.ok) return errorReply(400, body.message);
    const { is_success, error_info, data } = body.value;
    const outcome = await ctx.deps.backend.completeInstallation(ctx.call, {
      clusterId: clusterId(ctx),
      isSuccess: is_success,
      ...(error_info !== undefined ? { errorInfo: error_info } : {}),
      ...(data !== undefined ? { data } : {}),
    });
    return fromOutcome(outcome, (cluster) => clusterReply(cluster, 202));
  },
});

export const CLUSTER_ROUTES: readonly ApiRoute<unknown>[] = [
  getCluster,
  listClusterHosts,
  downloadClusterFiles,
  downloadClusterCredentials,
  updateClusterLogsProgress,
  updateClusterFinalizingProgress,
  listMonitoredOperators,
  reportMonitoredOperatorStatus,
  uploadIngressCert,
  completeInstallation,
];
