// The machinery shared by the programs a host runs after the install step — the installer
// (installer.ts) and the in-cluster controller (controller.ts): what they need from their host,
// the cluster JSON they read, and ActionTask, a scheduler task that performs one action per run
// and returns the delay to the next (the stage pace, or the poll interval while waiting).

import type { HostStage } from '../core/model.ts';
import { type AgentApiClient, ApiError } from './http.ts';
import { hostLogsTarGz, multipartFile } from './logs.ts';
import type { SimTask } from './scheduler.ts';
import type { SimEvent, SimStats } from './stats.ts';

export interface InstallPace {
  /** Simulated ms between two installer actions. Default 10 000. */
  stageMs?: number;
  /** Number of "Writing image to disk" percentage updates. Default 5 (20% … 100%). */
  writeImageUpdates?: number;
  /** Simulated ms between cluster polls (bootstrap, worker, controller). Default 10 000. */
  pollMs?: number;
  /** Simulated ms after which a wait (control plane, nodes) fails the host. Default 2 h. */
  waitTimeoutMs?: number;
  /** Report Failed instead of this stage (installer stages only). */
  failAtStage?: HostStage;
  /** Run logs_sender before rebooting (default true). */
  uploadLogs?: boolean;
  /** Force the single-node sequence (otherwise: role bootstrap and control_plane_count 1). */
  singleNode?: boolean;
}

/** What the installer and controller need from their host. */
export interface InstallContext {
  readonly name: string;
  readonly hostId: string;
  readonly infraEnvId: string;
  readonly client: AgentApiClient;
  readonly speed: number;
  readonly pace: InstallPace;
  readonly stats: SimStats;
  emit(ev: SimEvent): void;
  /** logs_sender for this host. */
  sendLogs(clusterId: string): Promise<void>;
  /** The installer container exited: the agent posts the install reply; 0 → the host reboots. */
  installerExited(exitCode: number, error: string): Promise<void>;
}

export type Outcome = 'next' | 'again' | 'stop';
export type Action = () => Promise<Outcome>;

export interface ClusterHost {
  id: string;
  infra_env_id?: string;
  role?: string;
  bootstrap?: boolean;
  inventory?: string;
  progress?: { current_stage?: string };
}

export interface ClusterJson {
  id: string;
  kind?: string;
  openshift_version?: string;
  control_plane_count?: number;
  hosts?: ClusterHost[] | null;
}

const defaults = (p: InstallPace) => ({
  stageMs: p.stageMs ?? 10_000,
  pollMs: p.pollMs ?? 10_000,
  waitTimeoutMs: p.waitTimeoutMs ?? 2 * 3600_000,
  writeImageUpdates: Math.max(1, p.writeImageUpdates ?? 5),
  uploadLogs: p.uploadLogs ?? true,
});

/** Runs actions in order; 'again' re-runs the same action after the poll interval. */
export abstract class ActionTask implements SimTask {
  abstract readonly name: string;
  protected abstract readonly reporter: 'installer' | 'controller';
  protected readonly ctx: InstallContext;
  protected actions: Action[] = [];
  private index = 0;
  private waitingSince: number | undefined;
  protected aborted = false;

  constructor(ctx: InstallContext) {
    this.ctx = ctx;
  }

  protected get pace() {
    return defaults(this.ctx.pace);
  }

  protected realMs(simMs: number): number {
    return simMs / this.ctx.speed;
  }

  async run(): Promise<number | undefined> {
    if (this.aborted) return undefined;
    const action = this.actions[this.index];
    if (!action) return undefined;
    const outcome = await action();
    if (outcome === 'stop' || this.aborted) return undefined;
    if (outcome === 'again') {
      this.waitingSince ??= performance.now();
      if (performance.now() - this.waitingSince > this.realMs(this.pace.waitTimeoutMs)) {
        await this.timedOut();
        return undefined;
      }
      return this.realMs(this.pace.pollMs);
    }
    this.waitingSince = undefined;
    this.index++;
    return this.index < this.actions.length ? this.realMs(this.pace.stageMs) : undefined;
  }

  protected abstract timedOut(): Promise<void>;

  protected error(op: string, err: unknown): void {
    // Requests cut short by stopping the simulation are not errors of the service.
    if (this.ctx.client.ctx.signal?.aborted) return;
    const status = err instanceof ApiError ? err.status : 0;
    this.ctx.emit({
      type: 'error',
      host: this.ctx.name,
      hostId: this.ctx.hostId,
      op,
      status,
      message: (err as Error).message,
    });
  }

  /** PUT …/progress for any host; the installer only logs failures (§11.12). */
  protected async putProgress(
    hostId: string,
    infraEnvId: string,
    stage: HostStage,
    info: string,
  ): Promise<boolean> {
    try {
      await this.ctx.client.call({
        op: 'v2UpdateHostInstallProgress',
        method: 'PUT',
        path: `/v2/infra-envs/${infraEnvId}/hosts/${hostId}/progress`,
        json: { current_stage: stage, progress_info: info },
        expect: 200,
        retry: 'installer',
      });
      this.ctx.stats.progressUpdates++;
      this.ctx.emit({
        type: 'stage',
        host: this.ctx.name,
        hostId: this.ctx.hostId,
        stage,
        info,
        by: this.reporter,
        ...(hostId !== this.ctx.hostId ? { forHostId: hostId } : {}),
      });
      return true;
    } catch (err) {
      this.error(`v2UpdateHostInstallProgress(${stage})`, err);
      return false;
    }
  }

  /** GET /v2/clusters/{id}; checks that every host's inventory is an Inventory JSON string (§2.2). */
  protected async getCluster(clusterId: string, excludeHosts = false): Promise<ClusterJson> {
    const res = await this.ctx.client.call({
      op: 'v2GetCluster',
      method: 'GET',
      path: `/v2/clusters/${clusterId}`,
      query: excludeHosts ? { 'exclude-hosts': true } : undefined,
      expect: 200,
      retry: 'installer',
      decode: 'cluster',
    });
    const cluster = res.json as ClusterJson;
    for (const h of cluster.hosts ?? []) {
      try {
        const inv = JSON.parse(h.inventory ?? '');
        if (typeof inv !== 'object' || inv === null) throw new Error('not an object');
      } catch {
        this.ctx.emit({
          type: 'error',
          host: this.ctx.name,
          hostId: this.ctx.hostId,
          op: 'v2GetCluster',
          status: 200,
          message: `host ${h.id}: inventory is not an Inventory JSON string (the installer would abort)`,
        });
      }
    }
    return cluster;
  }

  protected async download(op: string, path: string, query?: Record<string, string>): Promise<Buffer> {
    const res = await this.ctx.client.call({
      op,
      method: 'GET',
      path,
      query,
      expect: 200,
      retry: 'installer',
      octetStream: true,
    });
    return res.body;
  }
}

/** POST /v2/clusters/{id}/logs (multipart `upfile`). */
export async function uploadLogs(
  ctx: InstallContext,
  clusterId: string,
  logsType: 'host' | 'controller',
): Promise<void> {
  const { body, contentType } = multipartFile(
    'upfile',
    `${logsType}-logs.tar.gz`,
    await hostLogsTarGz(ctx.hostId, ctx.name, logsType),
  );
  await ctx.client.call({
    op: 'V2UploadLogs',
    method: 'POST',
    path: `/v2/clusters/${clusterId}/logs`,
    query:
      logsType === 'host'
        ? { logs_type: 'host', infra_env_id: ctx.infraEnvId, host_id: ctx.hostId }
        : { logs_type: 'controller' },
    body,
    contentType,
    expect: 204,
    retry: 'installer',
  });
  ctx.emit({ type: 'logs-uploaded', host: ctx.name, hostId: ctx.hostId, logsType });
}
