// The host part of the REST backend (agent-api.md §2.1, §2.2, §6.3): registration, instructions,
// step replies, install and logs progress, host ignition, log upload, events, component versions.
//
// Who writes what (docs/design/records.md): registration creates the Agent and writes its status
// once; install progress and logs progress write the Agent status directly (with conflict retry:
// they must not be lost). Polls and step replies only touch memory — ctx.facts for the frequent
// low-value facts, the host inbox for results the record keeps (inventory, NTP, media state,
// install failure) — and enqueue the Agent when something it shows may change; the Agent
// reconciler does the rest.
//
// deps: `auth` (the LocalAuth the server authenticates with; signs status URLs), optionally
// `events` (default: the process's OperatorEvents), `memory` (default: the process's HostMemory)
// and `random` (step ids; default Math.random).

import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Agent, AgentClusterInstall } from '../../api/index.ts';
import type { LocalAuth } from '../../auth/index.ts';
import type { Host } from '../../core/model.ts';
import { ignitionFileName, updateInstallProgress } from '../../core/statemachine/index.ts';
import { nextStepsDetailed, type StepsOptions } from '../../core/steps/index.ts';
import { currentSpecSyncError, projectAgentStatus } from '../../records/agents/project.ts';
import { referencedFacts } from '../../records/agents/references.ts';
import { controllerLogsFile, hostLogsFile, readClusterFile } from '../../records/clusters/artifacts-store.ts';
import { recordVipVerifications } from '../../records/clusters/vip-verifications.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type OperatorEvents, operatorEventsFor } from '../../records/events.ts';
import { clusterRecordById, findHost, hostFacts, infraEnvRecordOf } from '../../records/hosts/lookup.ts';
import { type HostMemory, hostMemory, type PendingHostUpdate } from '../../records/hosts/memory.ts';
import { type AgentHost, agentToHost, type HostRuntimeFacts } from '../../records/index.ts';
import { AGENT, AGENT_CLUSTER_INSTALL } from '../../records/resources.ts';
import { aciFor } from '../../records/views.ts';
import { keyOf, objectKey, updateStatus } from '../../runtime/index.ts';
import { capForLog } from '../../util/log-text.ts';
import { type CallContext, done, fail, fromSmError, type HostApiBackend, ok } from '../api/backend.ts';
import { ConnectivityAdmission } from './connectivity-admission.ts';
import { registerHostAgent } from './registration.ts';

export interface HostBackendDeps {
  auth: LocalAuth;
  events?: OperatorEvents;
  memory?: HostMemory;
  random?: () => number;
}

export type HostBackend = Pick<
  HostApiBackend,
  | 'registerHost'
  | 'getNextSteps'
  | 'postStepReply'
  | 'stepReplyRefused'
  | 'updateHostInstallProgress'
  | 'updateHostLogsProgress'
  | 'downloadHostIgnition'
  | 'uploadLogs'
  | 'triggerEvent'
  | 'listEvents'
  | 'getComponentVersions'
>;

/** Cluster states in which hosts may fetch their install ignition. */
const IGNITION_CLUSTER_STATES = [
  'installing',
  'installing-pending-user-action',
  'finalizing',
  'installed',
  'adding-hosts',
];

/** The wire host never carries the kube-API approval flag (it is Agent spec). */
function wireHost(host: AgentHost): Host {
  const { approved: _approved, ...rest } = host;
  return rest;
}

export function stepsOptionsFor(ctx: OperatorContext): StepsOptions {
  return {
    agentImage: ctx.settings.agentImage,
    installerImage: ctx.settings.installerImage,
    controllerImage: ctx.settings.controllerImage,
    kubeApiMode: true,
  };
}

export function hostBackend(ctx: OperatorContext, deps: HostBackendDeps): HostBackend {
  const events = deps.events ?? operatorEventsFor(ctx);
  const memory = deps.memory ?? hostMemory(ctx);
  const random = deps.random ?? Math.random;
  const log = ctx.logger.child({ component: 'host-api' });
  // Clusters of more than 150 hosts: connectivity checks are admitted 150 a minute (core.md §9.3).
  const connectivity = new ConnectivityAdmission({ now: () => ctx.now().getTime() });

  const enqueueAgent = (agent: Agent) => ctx.bus.enqueue('agent', objectKey(agent));
  const enqueueCluster = (clusterId: string | undefined) => {
    const cd = clusterId ? ctx.clusterDeploymentById(clusterId) : undefined;
    if (cd) ctx.bus.enqueue('clusterdeployment', keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
  };
  const project = (agent: Agent, host: AgentHost) =>
    projectAgentStatus(agent, host, {
      now: ctx.now(),
      serviceBaseUrl: ctx.urls.serviceBaseUrl,
      auth: deps.auth,
      specSyncError: currentSpecSyncError(agent),
    });
  /** Updates memory facts; true when a value changed. */
  const setFacts = (hostId: string, patch: HostRuntimeFacts) =>
    ctx.facts.update(hostId, patch, ctx.now().getTime());
  /** Writes a change to the host record through the Agent status (conflicts retried). */
  const writeHost = (agent: Agent, change: (host: AgentHost) => AgentHost) =>
    updateStatus(ctx.client, AGENT, agent, (cur) => {
      const host = agentToHost(cur, hostFacts(ctx, memory, cur.metadata.name ?? ''));
      return project(cur, change(host));
    });

  return {
    async registerHost(_call: CallContext, input) {
      const result = await registerHostAgent(ctx, { auth: deps.auth, memory }, input);
      if (!result.ok) return result;
      const { host } = result.value;
      // A registering agent starts a new era: what memory held about its last boot is stale.
      memory.inbox.delete(host.id);
      memory.warmUp.markWarm(host.id);
      ctx.facts.delete(host.id);
      setFacts(host.id, { checked_in_at: ctx.now().toISOString() });
      events.recordCore(result.value.events);
      return ok({ host: wireHost(host), nextStepRunner: { agentImage: ctx.settings.agentImage } });
    },

    async getNextSteps(call, input) {
      const found = await findHost(ctx, input.infraEnvId, input.hostId);
      if (!found.ok) return fail(found.status, found.reason);
      const { agent, infraEnv } = found;
      const id = agent.metadata.name ?? '';
      const now = ctx.now();
      // The first host clock this process hears settles the time-sync validation.
      const firstClock = input.timestamp !== undefined && ctx.facts.get(id)?.timestamp === undefined;
      setFacts(id, {
        checked_in_at: now.toISOString(),
        ...(input.timestamp !== undefined ? { timestamp: input.timestamp } : {}),
      });
      const recorded = agentToHost(agent, hostFacts(ctx, memory, id));
      // Upstream records the runner's version before choosing steps; judging by the version stored
      // at registration (the discovery image's) would ask an upgraded runner to upgrade forever.
      const version = call.agentVersionHeader;
      const host = version ? { ...recorded, discovery_agent_version: version } : recorded;
      const cluster = await clusterRecordById(ctx, host.cluster_id);
      const options = stepsOptionsFor(ctx);
      options.admitConnectivityCheck = (clusterId, hostId) => connectivity.admit(clusterId, hostId);
      const headers = agent.spec.ignitionEndpointHTTPHeaders;
      if (agent.spec.ignitionEndpointTokenReference?.name || headers) {
        // Day-2 hosts fetch the cluster's ignition with the token and headers the Agent names.
        const { ignitionToken } = await referencedFacts(ctx, agent);
        options.hostIgnitionEndpoint = () => ({
          ...(ignitionToken ? { token: ignitionToken } : {}),
          ...(headers ? { headers } : {}),
        });
      }
      if (host.status === 'reclaiming') {
        // The discovery boot artifacts the reclaimed host downloads: the InfraEnv's (initrd signed).
        const a = infraEnv.status?.bootArtifacts;
        if (a?.kernel && a.rootfs && a.initrd) {
          options.bootArtifacts = { kernel_url: a.kernel, rootfs_url: a.rootfs, initrd_url: a.initrd };
        }
      }
      const result = nextStepsDetailed(host, cluster, await infraEnvRecordOf(ctx, infraEnv), {
        now,
        random,
        options,
      });
      for (const e of result.errors)
        log.debug({ host: id, step: e.step_type, error: e.error }, 'step not built');
      memory.warmUp.onPoll(
        id,
        result.steps.instructions.map((s) => s.step_type),
      );
      const pending: PendingHostUpdate = {};
      if (result.installer_version && result.installer_version !== host.installer_version) {
        pending.installerVersion = result.installer_version;
      }
      if (version && version !== recorded.discovery_agent_version) pending.discoveryAgentVersion = version;
      if (host.media_status === 'disconnected') pending.mediaConnected = true;
      if (result.upgrade_agent) {
        log.info({ host: id, image: ctx.settings.agentImage }, 'agent asked to upgrade');
      }
      const connectedFailing = Object.values(host.validations_info ?? {}).some((list) =>
        list.some((v) => v.id === 'connected' && v.status === 'failure'),
      );
      const visible =
        host.status === 'disconnected' ||
        host.status === 'disconnected-unbound' ||
        connectedFailing ||
        firstClock;
      if (Object.keys(pending).length > 0) memory.inbox.put(id, pending);
      if (visible || Object.keys(pending).length > 0) enqueueAgent(agent);
      return ok(result.steps);
    },

    async postStepReply(_call, input) {
      const found = await findHost(ctx, input.infraEnvId, input.hostId);
      if (!found.ok) return fail(found.status, found.reason);
      const { agent } = found;
      const id = agent.metadata.name ?? '';
      const decoded = input.decoded;
      memory.warmUp.onReply(id, input.reply.step_type);
      const put = (update: PendingHostUpdate) => {
        memory.inbox.put(id, update);
        enqueueAgent(agent);
      };
      if (decoded.media_disconnected) put({ mediaDisconnected: true });
      if (!decoded.ok) {
        log.info({ host: id, step: decoded.step_type, error: capForLog(decoded.error) }, 'step failed');
        return done();
      }
      const facts = ctx.facts.get(id) ?? {};
      const fact = (patch: HostRuntimeFacts, alsoCluster = false) => {
        if (!setFacts(id, patch)) return;
        enqueueAgent(agent);
        if (alsoCluster) enqueueCluster(agent.status?.backend?.clusterID);
      };
      const v = decoded.value;
      switch (v.kind) {
        case 'inventory':
          put({ inventory: v.inventory });
          break;
        case 'ntp': {
          const stored = (agent.status?.ntpSources ?? []).map((s) => ({
            source_name: s.sourceName ?? '',
            source_state: s.sourceState ?? '',
          }));
          const got = v.sources.map((s) => ({
            source_name: s.source_name ?? '',
            source_state: s.source_state ?? '',
          }));
          if (JSON.stringify(stored) !== JSON.stringify(got)) put({ ntpSources: v.sources });
          break;
        }
        case 'connectivity':
          fact({ connectivity: v.report }, true);
          break;
        case 'free-addresses':
          setFacts(id, { free_addresses: v.networks });
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
          events.record({
            name: v.result === 'success' ? 'upgrade_agent_finished' : 'upgrade_agent_failed',
            severity: v.result === 'success' ? 'info' : 'error',
            category: 'user',
            message: `Agent of host ${id} ${v.result === 'success' ? 'upgraded' : 'failed to upgrade'} to ${v.agent_image ?? ctx.settings.agentImage}`,
            event_time: ctx.now().toISOString(),
            host_id: id,
            infra_env_id: input.infraEnvId,
          });
          break;
        case 'verify-vips': {
          // VIP verification is a cluster fact: api-vips-valid waits for it on multi-node clusters.
          const clusterId = agent.status?.backend?.clusterID;
          if (clusterId && recordVipVerifications(ctx, clusterId, v.vips)) enqueueCluster(clusterId);
          break;
        }
        case 'dhcp-lease':
          // DHCP-allocated VIPs are not kept in kube-API mode yet.
          log.debug({ host: id, step: v.kind }, 'step reply not used');
          break;
        default:
          break;
      }
      return done();
    },

    async stepReplyRefused(_call, input) {
      const found = await findHost(ctx, input.infraEnvId, input.hostId);
      if (!found.ok) return;
      const id = found.agent.metadata.name ?? '';
      log.warn({ host: id, reason: capForLog(input.reason) }, 'step reply refused');
      // A Warning Event on the Agent (and in its events URL): why its record does not change.
      events.record({
        name: 'host_step_reply_refused',
        severity: 'warning',
        category: 'user',
        message: `Host ${id}: ${input.reason}`,
        event_time: ctx.now().toISOString(),
        host_id: id,
        infra_env_id: input.infraEnvId,
      });
    },

    async updateHostInstallProgress(_call, input) {
      const found = await findHost(ctx, input.infraEnvId, input.hostId);
      if (!found.ok) return fail(found.status, found.reason);
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
        return project(cur, { ...result.host, approved: host.approved } as AgentHost);
      });
      const { current_stage: stage, progress_info: info } = input.progress;
      events.recordCore([
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
      enqueueCluster(host.cluster_id);
      return done();
    },

    async updateHostLogsProgress(_call, input) {
      const found = await findHost(ctx, input.infraEnvId, input.hostId);
      if (!found.ok) return fail(found.status, found.reason);
      const now = ctx.now().toISOString();
      await writeHost(found.agent, (h) => ({
        ...h,
        logs_info: input.logsState,
        ...(input.logsState === 'requested' ? { logs_started_at: now } : {}),
      }));
      return done();
    },

    async downloadHostIgnition(_call, input) {
      const found = await findHost(ctx, input.infraEnvId, input.hostId);
      if (!found.ok) return fail(found.status, found.reason);
      const id = found.agent.metadata.name ?? '';
      const host = agentToHost(found.agent, hostFacts(ctx, memory, id));
      if (!host.cluster_id) return fail(409, `host ${id} is not bound to any cluster`);
      const cluster = await clusterRecordById(ctx, host.cluster_id);
      if (!cluster) return fail(503, `cluster ${host.cluster_id} is not available, try again later`);
      if (!IGNITION_CLUSTER_STATES.includes(cluster.status)) {
        return fail(
          409,
          `Cluster ${cluster.id} is in ${cluster.status} state, host ignition can be downloaded only in one of the following states: [${IGNITION_CLUSTER_STATES.join(' ')}]`,
        );
      }
      const name = ignitionFileName(host);
      const content = await readClusterFile(ctx, cluster.id, name);
      if (!content) return fail(404, `ignition ${name} of cluster ${cluster.id} was not generated`);
      return ok({ content, fileName: name });
    },

    async uploadLogs(_call, input) {
      const cd = ctx.clusterDeploymentById(input.clusterId.toLowerCase());
      if (!cd) return fail(404, `cluster ${input.clusterId} not found`);
      const clusterId = cd.metadata.uid ?? '';
      let agent: Agent | undefined;
      if (input.logsType === 'host') {
        const found = await findHost(ctx, input.infraEnvId ?? '', input.hostId ?? '');
        if (!found.ok) return fail(found.status, found.reason);
        if (found.agent.status?.backend?.clusterID !== clusterId) {
          return fail(404, `host ${input.hostId} is not part of cluster ${clusterId}`);
        }
        agent = found.agent;
      }
      const path = agent
        ? hostLogsFile(ctx, clusterId, agent.metadata.name ?? '')
        : controllerLogsFile(ctx, clusterId);
      await mkdir(dirname(path), { recursive: true });
      const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
      try {
        await pipeline(input.file.stream, createWriteStream(tmp, { mode: 0o600 }));
        await rename(tmp, path);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
      const now = ctx.now().toISOString();
      if (agent) {
        await writeHost(agent, (h) => ({ ...h, logs_collected_at: now }));
      } else {
        const aci = aciFor(ctx, cd);
        if (aci) {
          await updateStatus<AgentClusterInstall>(
            ctx.client,
            AGENT_CLUSTER_INSTALL,
            aci,
            (cur) =>
              ({
                ...cur.status,
                backend: { ...cur.status?.backend, controllerLogsCollectedAt: now },
              }) as AgentClusterInstall['status'],
          );
        }
        enqueueCluster(clusterId);
      }
      return done();
    },

    async triggerEvent(_call, input) {
      events.record(input.event);
      return done();
    },

    async listEvents(_call, filter) {
      return ok(await events.list(filter));
    },

    async getComponentVersions() {
      return ok({
        versions: {
          'assisted-installer-service': process.env.OPERATOR_IMAGE ?? 'agent-install-operator',
          'discovery-agent': ctx.settings.agentImage,
          'assisted-installer': ctx.settings.installerImage,
          'assisted-installer-controller': ctx.settings.controllerImage,
        },
        release_tag: process.env.RELEASE_TAG ?? '',
      });
    },
  };
}
