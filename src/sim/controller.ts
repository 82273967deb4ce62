// The in-cluster assisted-installer-controller (agent-api.md §1.3, §2.3), run by one simulated
// host per cluster after its reboot: moves rebooted nodes through their last stages to Done,
// then finalizes (credentials, operators, router CA, events, logs) and completes the installation.

import { HOST_STAGES, type HostStage } from '../core/model.ts';
import { selfSignedIngressCa } from './ingress-ca.ts';
import {
  type Action,
  ActionTask,
  type ClusterHost,
  type ClusterJson,
  type InstallContext,
  type Outcome,
  uploadLogs,
} from './install-task.ts';

/** The stage the controller moves a rebooted node to next, if any. */
function nextNodeStage(stage: string, worker: boolean, singleNode: boolean): HostStage | undefined {
  switch (stage) {
    case 'Rebooting':
      return singleNode ? 'Joined' : worker ? 'Waiting for ignition' : 'Configuring';
    case 'Waiting for ignition':
      return 'Configuring';
    case 'Configuring':
      return 'Joined';
    case 'Joined':
      return 'Done';
    default:
      return undefined;
  }
}

const FINALIZING_OLM: readonly string[] = [
  'Applying olm manifests',
  'Waiting for olm operators csv initialization',
  'Waiting for olm operators csv',
];

interface MonitoredOperator {
  name: string;
  version?: string;
  operator_type?: string;
}

export class ControllerTask extends ActionTask {
  readonly name: string;
  protected readonly reporter = 'controller';
  readonly clusterId: string;
  private operators: MonitoredOperator[] = [];
  private openshiftVersion = '';

  constructor(ctx: InstallContext, clusterId: string) {
    super(ctx);
    this.clusterId = clusterId;
    this.name = `controller:${clusterId}`;
    const cid = clusterId;
    this.actions = [
      () => this.advanceNodes(),
      this.step(() =>
        this.download('V2DownloadClusterCredentials', `/v2/clusters/${cid}/downloads/credentials`, {
          file_name: 'kubeconfig-noingress',
        }),
      ),
      this.step(() =>
        this.download('V2DownloadClusterFiles', `/v2/clusters/${cid}/downloads/files`, {
          file_name: 'custom_manifests.json',
        }),
      ),
      this.step(() => this.finalizing('Waiting for cluster operators')),
      this.required(() => this.reportOperators()),
      this.step(() => this.finalizing('Adding router ca')),
      this.required(() => this.uploadIngressCert()),
      this.step(async () => {
        if (!this.operators.some((o) => o.operator_type === 'olm')) return;
        for (const stage of FINALIZING_OLM) await this.finalizing(stage);
      }),
      this.step(() => this.finalizing('Done')),
      this.step(() => this.event('Cluster installation completed by the simulated controller')),
      this.step(async () => {
        await this.logsProgress('requested');
        await uploadLogs(this.ctx, cid, 'controller');
        await this.logsProgress('completed');
      }),
      () => this.complete(),
    ];
  }

  /** One finalizing action; failures are reported and the controller moves on, as the real one retries elsewhere. */
  private step(fn: () => Promise<unknown>): Action {
    return async () => {
      try {
        await fn();
      } catch (err) {
        this.error('controller', err);
      }
      return 'next';
    };
  }

  /**
   * A finalizing action the cluster cannot complete without (operator statuses, the router CA that
   * makes the kubeconfig): retried after the poll interval until it succeeds, as the real
   * controller does — e.g. the service refuses the CA until the cluster is finalizing.
   */
  private required(fn: () => Promise<unknown>): Action {
    return async () => {
      try {
        await fn();
        return 'next';
      } catch (err) {
        this.error('controller', err);
        return 'again';
      }
    };
  }

  private emitCluster(action: string, detail?: string): void {
    this.ctx.emit({
      type: 'cluster',
      host: this.ctx.name,
      clusterId: this.clusterId,
      action,
      ...(detail ? { detail } : {}),
    });
  }

  /**
   * Nodes that rebooted move one stage per poll through their role's remaining stages
   * (Waiting for ignition →) Configuring → Joined → Done; single-node has no Configuring. While a
   * bootstrap host's installer still runs, the masters are its business (it moves them to Joined).
   */
  private async advanceNodes(): Promise<Outcome> {
    let cluster: ClusterJson;
    try {
      cluster = await this.getCluster(this.clusterId);
    } catch (err) {
      this.error('v2GetCluster', err);
      return 'again';
    }
    this.openshiftVersion = cluster.openshift_version ?? '';
    const hosts = cluster.hosts ?? [];
    // Every stage a host has before Rebooting comes before it in the enum's declaration order.
    const stageIndex = (h: ClusterHost) =>
      (HOST_STAGES as readonly string[]).indexOf(h.progress?.current_stage ?? '');
    const bootstrapActive = hosts.some(
      (h) => h.bootstrap && h.id !== this.ctx.hostId && stageIndex(h) < HOST_STAGES.indexOf('Rebooting'),
    );
    const singleNode = cluster.control_plane_count === 1 || hosts.length === 1;
    let done = 0;
    for (const h of hosts) {
      const stage = h.progress?.current_stage ?? '';
      if (stage === 'Done') done++;
      if (!h.infra_env_id) continue;
      const master = h.role === 'master' || h.role === 'arbiter';
      if (master && !h.bootstrap && bootstrapActive) continue;
      const worker = h.role === 'worker';
      const next = nextNodeStage(stage, worker, singleNode && !worker);
      if (next) await this.putProgress(h.id, h.infra_env_id, next, '');
    }
    return hosts.length > 0 && done === hosts.length ? 'next' : 'again';
  }

  private async finalizing(stage: string): Promise<void> {
    await this.ctx.client.call({
      op: 'v2UpdateClusterFinalizingProgress',
      method: 'PUT',
      path: `/v2/clusters/${this.clusterId}/progress`,
      json: { finalizing_stage: stage },
      expect: 200,
      retry: 'installer',
    });
    this.emitCluster('finalizing', stage);
  }

  private async reportOperators(): Promise<void> {
    const res = await this.ctx.client.call({
      op: 'V2ListOfClusterOperators',
      method: 'GET',
      path: `/v2/clusters/${this.clusterId}/monitored-operators`,
      expect: 200,
      retry: 'installer',
      decode: 'monitored-operators-list',
    });
    this.operators = (res.json as MonitoredOperator[] | null) ?? [];
    for (const op of this.operators) {
      await this.ctx.client.call({
        op: 'v2ReportMonitoredOperatorStatus',
        method: 'PUT',
        path: `/v2/clusters/${this.clusterId}/monitored-operators`,
        json: {
          name: op.name,
          version: op.version || this.openshiftVersion,
          status: 'available',
          status_info: 'All is well',
        },
        expect: 200,
        retry: 'installer',
      });
    }
  }

  private async uploadIngressCert(): Promise<void> {
    const pem = await selfSignedIngressCa(`ingress-operator@${this.clusterId.slice(0, 8)}`);
    await this.ctx.client.call({
      op: 'v2UploadClusterIngressCert',
      method: 'POST',
      path: `/v2/clusters/${this.clusterId}/uploads/ingress-cert`,
      // The body is a JSON string holding the PEM bundle.
      json: pem,
      expect: 201,
      retry: 'installer',
    });
  }

  private async event(message: string): Promise<void> {
    await this.ctx.client.call({
      op: 'v2TriggerEvent',
      method: 'POST',
      path: '/v2/events',
      json: {
        cluster_id: this.clusterId,
        severity: 'info',
        category: 'user',
        message,
        event_time: new Date().toISOString(),
      },
      expect: 201,
      retry: 'installer',
    });
  }

  private async logsProgress(state: 'requested' | 'completed'): Promise<void> {
    await this.ctx.client.call({
      op: 'v2UpdateClusterLogsProgress',
      method: 'PUT',
      path: `/v2/clusters/${this.clusterId}/logs-progress`,
      json: { logs_state: state },
      expect: 204,
      retry: 'installer',
    });
  }

  private async complete(): Promise<Outcome> {
    try {
      await this.ctx.client.call({
        op: 'v2CompleteInstallation',
        method: 'POST',
        path: `/v2/clusters/${this.clusterId}/actions/complete-installation`,
        json: { is_success: true, data: {} },
        expect: 202,
        retry: 'installer',
        // Unused, but the Go client decodes it: a bad cluster body fails the call.
        decode: 'cluster',
      });
    } catch (err) {
      this.error('v2CompleteInstallation', err);
      return 'again';
    }
    this.ctx.stats.clustersCompleted++;
    this.emitCluster('completed');
    return 'stop';
  }

  protected async timedOut(): Promise<void> {
    this.emitCluster('gave-up', 'timed out waiting for the nodes');
  }
}
