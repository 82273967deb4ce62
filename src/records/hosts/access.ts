// Record lookups local authentication needs, answered from the informer caches. Until the caches
// have synced the answers are unknown: both methods reject, and the request gets 503 (agents
// retry) instead of a 401 that would stop them for good.

import type { Agent, ClusterDeployment, InfraEnv } from '../../api/index.ts';
import { INFRAENV_TOKEN_GENERATION_ANNOTATION } from '../../api/index.ts';
import type { AccessResolver, AccessTarget, TokenSubject } from '../../auth/index.ts';
import { keyOf } from '../../runtime/index.ts';
import type { OperatorContext } from '../context.ts';
import { AGENT_BY_NAME_INDEX } from '../indexes.ts';
import { crossNamespaceRefusal } from '../references.ts';

const same = (a: string | undefined, b: string | undefined) =>
  a !== undefined && b !== undefined && a.toLowerCase() === b.toLowerCase();

export class CacheAccessResolver implements AccessResolver {
  private readonly ctx: OperatorContext;

  constructor(ctx: OperatorContext) {
    this.ctx = ctx;
  }

  private ensureSynced(): void {
    const { infraEnvs, agents, clusterDeployments } = this.ctx.informers;
    if (!infraEnvs.hasSynced() || !agents.hasSynced() || !clusterDeployments.hasSynced()) {
      throw new Error('caches are not synced yet');
    }
  }

  async exists(subject: TokenSubject): Promise<boolean> {
    this.ensureSynced();
    return subject.kind === 'infra-env'
      ? this.ctx.infraEnvById(subject.id.toLowerCase()) !== undefined
      : this.ctx.clusterDeploymentById(subject.id.toLowerCase()) !== undefined;
  }

  async covers(subject: TokenSubject, target: AccessTarget): Promise<boolean> {
    this.ensureSynced();
    return subject.kind === 'infra-env'
      ? this.coveredByInfraEnv(subject.id.toLowerCase(), target)
      : this.coveredByCluster(subject.id.toLowerCase(), target);
  }

  generation(subject: TokenSubject): string | undefined {
    if (subject.kind !== 'infra-env') return undefined;
    const ie = this.ctx.infraEnvById(subject.id.toLowerCase());
    return ie?.metadata.annotations?.[INFRAENV_TOKEN_GENERATION_ANNOTATION];
  }

  /** The host's Agent (host ids are agent names), looked up in the likely namespaces first. */
  private agent(hostId: string, hints: readonly (string | undefined)[]): Agent | undefined {
    const id = hostId.toLowerCase();
    for (const ns of hints) {
      if (!ns) continue;
      const a = this.ctx.informers.agents.get(ns, id);
      if (a) return a;
    }
    return this.ctx.informers.agents.store.byIndex(AGENT_BY_NAME_INDEX, id)[0];
  }

  /**
   * The clusters (ClusterDeployment uids) an infra-env's tokens open: those one of its hosts is
   * bound to right now (status and spec agree) while that host still needs the cluster — until a
   * day-1 cluster is installed (plus INSTALLED_TAIL_MS for the controller's last calls), or until a
   * day-2 host has joined. A clusterRef alone opens nothing:
   * no client calls cluster routes before one of the infra-env's hosts is bound.
   */
  private clustersOfInfraEnv(ie: InfraEnv): Set<string> {
    const out = new Set<string>();
    const ns = ie.metadata.namespace ?? '';
    for (const a of this.ctx.agentsOfInfraEnv(keyOf(ns, ie.metadata.name ?? ''))) {
      const cid = a.status?.backend?.clusterID;
      if (!cid || out.has(cid)) continue;
      const cd = this.ctx.clusterDeploymentById(cid);
      if (cd && boundTo(a, cd) && this.honoured(a, cd) && this.hostNeedsCluster(a, cd)) out.add(cid);
    }
    return out;
  }

  /** A binding to another namespace counts only where the cross-namespace setting honours it. */
  private honoured(agent: Agent, cd: ClusterDeployment): boolean {
    return !crossNamespaceRefusal(this.ctx.settings, 'Agent', agent.metadata.namespace ?? '', {
      namespace: cd.metadata.namespace ?? '',
      name: cd.metadata.name ?? '',
    });
  }

  private hostNeedsCluster(agent: Agent, cd: ClusterDeployment): boolean {
    const aci = this.ctx.aciOfCluster(keyOf(cd.metadata.namespace, cd.metadata.name ?? ''));
    const backend = aci?.status?.backend;
    const state = backend?.state ?? aci?.status?.debugInfo?.state;
    // The in-cluster controller's last calls (events, logs, complete-installation) may arrive after
    // the monitor has already marked the cluster installed. Credentials are not affected: their
    // downloads are limited to installing states (host-downloads.ts).
    const completedAt = Date.parse(backend?.installCompletedAt ?? '');
    const inTail = Number.isFinite(completedAt) && this.ctx.now().getTime() - completedAt < INSTALLED_TAIL_MS;
    if (backend?.kind === 'AddHostsCluster' || state === 'adding-hosts') {
      return inTail || !JOINED_HOST_STATES.includes(agent.status?.debugInfo?.state ?? '');
    }
    return state !== 'installed' || inTail;
  }

  private coveredByInfraEnv(infraEnvId: string, target: AccessTarget): boolean {
    const ie = this.ctx.infraEnvById(infraEnvId);
    if (!ie) return false;
    const clusters = this.clustersOfInfraEnv(ie);
    if (target.clusterId && !clusters.has(target.clusterId.toLowerCase())) return false;
    if (target.hostId) {
      const targetIe = target.infraEnvId ? this.ctx.infraEnvById(target.infraEnvId.toLowerCase()) : undefined;
      const agent = this.agent(target.hostId, [targetIe?.metadata.namespace, ie.metadata.namespace]);
      if (!agent) return false;
      const ownIe = agent.status?.backend?.infraEnvID ?? ownerInfraEnvUid(agent);
      const inOwnInfraEnv = same(ownIe, infraEnvId);
      const cid = agent.status?.backend?.clusterID;
      if (!inOwnInfraEnv && !(cid && clusters.has(cid))) return false;
      // The host must also belong to the infra-env the path names (else the backend would act on
      // a host of another infra-env).
      if (target.infraEnvId && !same(ownIe, target.infraEnvId)) return false;
      return true;
    }
    // An infra-env other than the subject's, named without a host: never covered.
    if (target.infraEnvId && !same(target.infraEnvId, infraEnvId)) return false;
    return true;
  }

  private coveredByCluster(clusterId: string, target: AccessTarget): boolean {
    const cd = this.ctx.clusterDeploymentById(clusterId);
    if (!cd) return false;
    if (target.clusterId && !same(target.clusterId, clusterId)) return false;
    if (target.hostId) {
      const agent = this.agent(target.hostId, [cd.metadata.namespace]);
      if (!agent || !same(agent.status?.backend?.clusterID, clusterId)) return false;
    }
    if (target.infraEnvId) {
      const ie = this.ctx.infraEnvById(target.infraEnvId.toLowerCase());
      if (!ie || !this.clustersOfInfraEnv(ie).has(clusterId)) return false;
    }
    return true;
  }
}

/** How long after completion a day-1 cluster stays open to its hosts' tokens (controller tail). */
export const INSTALLED_TAIL_MS = 30 * 60_000;

/** Host states after which a day-2 host no longer calls its cluster. */
const JOINED_HOST_STATES = ['added-to-existing-cluster', 'installed'];

/** Whether the Agent's spec binds it to `cd` (its status alone may lag behind an unbind). */
function boundTo(agent: Agent, cd: ClusterDeployment): boolean {
  const ref = agent.spec.clusterDeploymentName;
  if (!ref?.name) return false;
  return (
    ref.name === cd.metadata.name && (ref.namespace || agent.metadata.namespace) === cd.metadata.namespace
  );
}

export function ownerInfraEnvUid(agent: Agent): string | undefined {
  return agent.metadata.ownerReferences?.find((o) => o.kind === 'InfraEnv')?.uid;
}
