// The files a host exchanges with the service (agent-api.md §2.2, §6.3): its install ignition
// (GET …/hosts/{id}/downloads/ignition, once the cluster installs) and the logs it or the
// installer controller uploads (POST /v2/clusters/{id}/logs), kept in the cluster's artifact store.

import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Agent, AgentClusterInstall } from '../../api/index.ts';
import { ignitionFileName } from '../../core/statemachine/index.ts';
import { controllerLogsFile, hostLogsFile, readClusterFile } from '../../records/clusters/artifacts-store.ts';
import { clusterRecordById, findHost, hostFacts } from '../../records/hosts/lookup.ts';
import { agentToHost } from '../../records/index.ts';
import { AGENT_CLUSTER_INSTALL } from '../../records/resources.ts';
import { aciFor } from '../../records/views.ts';
import { updateStatus } from '../../runtime/index.ts';
import { done, fail, ok } from '../api/backend.ts';
import type { FoundHost, HostInput, HostScope } from './scope.ts';

type IgnitionInput = HostInput<'downloadHostIgnition'>;
type UploadLogsInput = HostInput<'uploadLogs'>;

/** Cluster states in which hosts may fetch their install ignition. */
const IGNITION_CLUSTER_STATES = [
  'installing',
  'installing-pending-user-action',
  'finalizing',
  'installed',
  'adding-hosts',
];

export async function downloadHostIgnition(s: HostScope, found: FoundHost, _input: IgnitionInput) {
  const { ctx } = s;
  const id = found.agent.metadata.name ?? '';
  const host = agentToHost(found.agent, hostFacts(ctx, s.memory, id));
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
}

export async function uploadLogs(s: HostScope, input: UploadLogsInput) {
  const { ctx } = s;
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
  await writeAtomically(path, input.file.stream);
  const now = ctx.now().toISOString();
  if (agent) {
    await s.writeHost(agent, (h) => ({ ...h, logs_collected_at: now }));
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
    s.enqueueCluster(clusterId);
  }
  return done();
}

/** Streams into a temporary file beside path, then renames it over path (never half a file). */
async function writeAtomically(path: string, stream: Readable): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}-${Date.now()}`;
  try {
    await pipeline(stream, createWriteStream(tmp, { mode: 0o600 }));
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
