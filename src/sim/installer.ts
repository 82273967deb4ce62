// The assisted-installer container a host runs for the install step (agent-api.md §1.2, §6):
// progress stages for its role (bootstrap, master, worker, single node), the ignition downloads,
// the bootstrap's duties towards the other hosts, logs, and the reboot.

import type { HostStage } from '../core/model.ts';
import {
  type Action,
  ActionTask,
  type ClusterHost,
  type ClusterJson,
  type InstallContext,
  type Outcome,
  uploadLogs,
} from './install-task.ts';
import type { InstallRequest } from './steps.ts';

/** Stages the installer itself reports; Configuring/Joined/Done come from the bootstrap or controller. */
export const INSTALLER_STAGES: readonly HostStage[] = [
  'Starting installation',
  'Installing',
  'Writing image to disk',
  'Waiting for control plane',
  'Waiting for bootkube',
  'Waiting for controller',
  'Rebooting',
];

const JOINED_OR_LATER = new Set(['Joined', 'Done']);

export class InstallerTask extends ActionTask {
  readonly name: string;
  protected readonly reporter = 'installer';
  readonly request: InstallRequest;
  private exited = false;

  constructor(ctx: InstallContext, request: InstallRequest) {
    super(ctx);
    this.request = request;
    this.name = `installer:${ctx.name}`;
    this.actions = this.plan();
  }

  get role(): string {
    return this.request.role;
  }

  get singleNode(): boolean {
    return (
      this.ctx.pace.singleNode ??
      (this.request.role === 'bootstrap' && this.request.control_plane_count === 1)
    );
  }

  /** podman stop: the container dies; the agent reports it like any other exit. */
  abort(reason: string): void {
    if (this.aborted) return;
    this.aborted = true;
    void this.exit(143, reason);
  }

  private plan(): Action[] {
    const { request: req } = this;
    const cid = req.cluster_id;
    const role = req.role;
    const bootstrap = role === 'bootstrap' && !this.singleNode;
    const a: Action[] = [this.progress('Starting installation', role)];
    if (this.singleNode) {
      a.push(
        this.progress('Installing', role),
        this.progress('Waiting for bootkube', ''),
        this.hostIgnition(),
      );
    } else {
      if (bootstrap)
        a.push(
          this.call(() =>
            this.download('V2DownloadClusterFiles', `/v2/clusters/${cid}/downloads/files`, {
              file_name: 'bootstrap.ign',
            }),
          ),
        );
      a.push(this.progress('Installing', role), this.hostIgnition());
    }
    a.push(this.progress('Writing image to disk', ''));
    const n = this.pace.writeImageUpdates;
    for (let k = 1; k <= n; k++)
      a.push(this.progress('Writing image to disk', `${Math.round((100 * k) / n)}%`, false));
    if (role === 'worker') {
      let addHosts = false;
      a.push(this.progress('Waiting for control plane', ''));
      a.push(
        this.call(async () => {
          addHosts = (await this.getCluster(cid, true)).kind === 'AddHostsCluster';
        }),
      );
      a.push(() => (addHosts ? Promise.resolve('next') : this.controlPlaneReady()));
    }
    if (bootstrap) {
      a.push(this.progress('Waiting for control plane', 'Waiting for bootstrap node preparation'));
      a.push(
        this.progress(
          'Waiting for control plane',
          'Waiting for masters to join bootstrap control plane',
          false,
        ),
      );
      a.push(() => this.bootstrapDuties());
      a.push(this.progress('Waiting for bootkube', ''));
      a.push(this.progress('Waiting for bootkube', 'waiting for ETCD bootstrap to be complete', false));
      a.push(this.progress('Waiting for controller', 'waiting for controller pod ready event'));
      if (this.pace.uploadLogs) a.push(this.bestEffort('controller logs', () => this.controllerLogs()));
    }
    if (this.pace.uploadLogs) a.push(this.bestEffort('logs_sender', () => this.ctx.sendLogs(cid)));
    a.push(this.progress('Rebooting', ''));
    a.push(async () => {
      await this.exit(0, '');
      return 'stop';
    });
    return a;
  }

  private progress(stage: HostStage, info: string, canFail = true): Action {
    return async () => {
      if (canFail && this.ctx.pace.failAtStage === stage) {
        await this.fail(`simulated failure at stage "${stage}"`);
        return 'stop';
      }
      await this.putProgress(this.ctx.hostId, this.ctx.infraEnvId, stage, info);
      return 'next';
    };
  }

  /** An action whose API failure (after the installer's retries) is fatal for the installation. */
  private call(fn: () => Promise<unknown>): Action {
    return async () => {
      try {
        await fn();
        return 'next';
      } catch (err) {
        this.error('installer', err);
        await this.fail((err as Error).message);
        return 'stop';
      }
    };
  }

  /** An action whose failure the installer only logs (log collection). */
  private bestEffort(what: string, fn: () => Promise<unknown>): Action {
    return async () => {
      try {
        await fn();
      } catch (err) {
        this.error(what, err);
      }
      return 'next';
    };
  }

  private hostIgnition(): Action {
    const { infra_env_id, host_id } = this.request;
    // The one path under the singular /v2/infra-env/ (§0.1).
    return this.call(() =>
      this.download(
        'v2DownloadHostIgnition',
        `/v2/infra-env/${infra_env_id}/hosts/${host_id}/downloads/ignition`,
      ),
    );
  }

  private async controlPlaneReady(): Promise<Outcome> {
    const cid = this.request.cluster_id;
    const needed = Math.min(2, this.request.control_plane_count ?? 3);
    let done = 0;
    for (const role of ['master', 'arbiter']) {
      try {
        const res = await this.ctx.client.call({
          op: 'ListClusterHosts',
          method: 'GET',
          path: `/v2/clusters/${cid}/hosts`,
          query: { role },
          expect: 200,
          retry: 'installer',
          decode: 'host-list',
        });
        const hosts = res.json as ClusterHost[] | null;
        done += (hosts ?? []).filter((h) => h.progress?.current_stage === 'Done').length;
      } catch (err) {
        this.error('ListClusterHosts', err);
      }
    }
    return done >= needed ? 'next' : 'again';
  }

  /**
   * What the bootstrap's installer does for the others while the control plane forms: hosts it
   * sees rebooted move to Configuring (masters) / Waiting for ignition (workers), configured
   * masters to Joined; it goes on once enough masters joined.
   */
  private async bootstrapDuties(): Promise<Outcome> {
    let cluster: ClusterJson;
    try {
      cluster = await this.getCluster(this.request.cluster_id);
    } catch (err) {
      this.error('v2GetCluster', err);
      return 'again';
    }
    let joined = 0;
    for (const h of cluster.hosts ?? []) {
      if (h.id === this.ctx.hostId || !h.infra_env_id) continue;
      const stage = h.progress?.current_stage ?? '';
      const master = h.role === 'master' || h.role === 'arbiter';
      if (master && JOINED_OR_LATER.has(stage)) joined++;
      const next: HostStage | undefined = master
        ? stage === 'Rebooting'
          ? 'Configuring'
          : stage === 'Configuring'
            ? 'Joined'
            : undefined
        : h.role === 'worker' && stage === 'Rebooting'
          ? 'Waiting for ignition'
          : undefined;
      if (next) await this.putProgress(h.id, h.infra_env_id, next, '');
    }
    const needed = Math.max(0, (this.request.control_plane_count ?? cluster.control_plane_count ?? 3) - 1);
    return joined >= needed ? 'next' : 'again';
  }

  private async controllerLogs(): Promise<void> {
    const cid = this.request.cluster_id;
    await this.ctx.client.call({
      op: 'v2UpdateClusterLogsProgress',
      method: 'PUT',
      path: `/v2/clusters/${cid}/logs-progress`,
      json: { logs_state: 'requested' },
      expect: 204,
      retry: 'installer',
    });
    await uploadLogs(this.ctx, cid, 'controller');
  }

  private async fail(message: string): Promise<void> {
    await this.putProgress(this.ctx.hostId, this.ctx.infraEnvId, 'Failed', message);
    this.ctx.stats.failed++;
    await this.exit(1, message);
  }

  private async exit(code: number, error: string): Promise<void> {
    if (this.exited) return;
    this.exited = true;
    await this.ctx.installerExited(code, error);
  }

  protected async timedOut(): Promise<void> {
    await this.fail('timed out waiting for the control plane');
  }
}
