// Registers the Agent controller (kubeapi.md §3.4). Agents are reconciled on their own changes,
// on changes of their InfraEnv (auto-approval, requirements), of the ClusterDeployment and
// AgentClusterInstall they are bound to or asked to bind to (cluster state drives the host state
// machine; of the ACI, only changes to what records/clusters/agents-view.ts keeps), of Secrets they reference, and on demand through the bus ('agent': step replies,
// check-ins after a disconnection, sibling changes), and when the base URLs change. Every Agent change enqueues its
// ClusterDeployment (level-triggered in both directions, docs/design/records.md).

import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../../api/index.ts';
import { HOST_COUNT_READ_UP_TO } from '../../core/validations/host-context.ts';
import { aciChangeReachesAgents } from '../../records/clusters/agents-view.ts';
import type { OperatorContext } from '../../records/context.ts';
import { operatorEventsFor } from '../../records/events.ts';
import { localAuthFor } from '../../records/hosts/auth.ts';
import { hostMemory } from '../../records/hosts/memory.ts';
import { AGENT_BY_BOUND_CLUSTER_INDEX, AGENT_BY_TOKEN_SECRET_INDEX } from '../../records/indexes.ts';
import {
  AGENT,
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  INFRA_ENV,
  SECRET,
} from '../../records/resources.ts';
import { type KubeObject, keyOf, objectKey, type Predicate, updateWhen } from '../../runtime/index.ts';
import { reconcileAgent, settleNewAgent } from './reconcile.ts';

function agentKeys(agents: readonly Agent[]): string[] {
  return agents.map((a) => objectKey(a));
}

/** ClusterDeployment keys an Agent concerns: the one it asks for and the one it is bound to. */
export function clusterDeploymentKeysOf(ctx: OperatorContext, agent: Agent): string[] {
  const keys = new Set<string>();
  const ref = agent.spec?.clusterDeploymentName;
  if (ref?.name) keys.add(keyOf(ref.namespace || agent.metadata.namespace, ref.name));
  const cid = agent.status?.backend?.clusterID;
  const cd = cid ? ctx.clusterDeploymentById(cid) : undefined;
  if (cd) keys.add(objectKey(cd));
  return [...keys];
}

function agentsOfClusterDeployment(ctx: OperatorContext, cd: ClusterDeployment): string[] {
  const keys = new Set(agentKeys(ctx.agentsOfCluster(objectKey(cd))));
  // Agents still bound to it after their spec moved on (unbinding).
  const uid = cd.metadata.uid;
  if (uid) {
    for (const a of ctx.informers.agents.store.byIndex(AGENT_BY_BOUND_CLUSTER_INDEX, uid))
      keys.add(objectKey(a));
  }
  return [...keys];
}

/** An Agent whose status now names a cluster it did not name before (registration, binding). */
const joinedCluster: Predicate<Agent> = {
  create: (a) => !!a.status?.backend?.clusterID,
  update: (o, n) =>
    !!n.status?.backend?.clusterID && n.status.backend.clusterID !== o.status?.backend?.clusterID,
  delete: () => false,
};

/** The other Agents of `a`'s cluster, when the cluster is small enough for its count to matter. */
function smallClusterPeers(ctx: OperatorContext, a: Agent): string[] {
  const cid = a.status?.backend?.clusterID;
  const cd = cid ? ctx.clusterDeploymentById(cid) : undefined;
  if (!cd) return [];
  const all = agentsOfClusterDeployment(ctx, cd);
  if (all.length > HOST_COUNT_READ_UP_TO) return [];
  const own = objectKey(a);
  return all.filter((k) => k !== own);
}

/** Agent reconcile workers (at least; MAX_CONCURRENT_RECONCILES can raise it), as the cluster controller's. */
export const AGENT_WORKERS = 4;

export function register(ctx: OperatorContext): void {
  const memory = hostMemory(ctx);
  const superseded = new Map<string, readonly string[]>();
  const deps = { memory, events: operatorEventsFor(ctx), auth: () => localAuthFor(ctx), superseded };
  memory.settleNewAgent = (draft, facts, now) => settleNewAgent(ctx, deps, draft, facts, now);
  const controller = ctx.mgr
    .controller('agent')
    .for(AGENT)
    .watches<InfraEnv>(INFRA_ENV, (ie) => agentKeys(ctx.agentsOfInfraEnv(objectKey(ie))))
    .watches<ClusterDeployment>(CLUSTER_DEPLOYMENT, (cd) => agentsOfClusterDeployment(ctx, cd))
    .watches<AgentClusterInstall>(
      AGENT_CLUSTER_INSTALL,
      (aci) => {
        const name = aci.spec?.clusterDeploymentRef?.name;
        const cd = name ? ctx.informers.clusterDeployments.get(aci.metadata.namespace, name) : undefined;
        return cd ? agentsOfClusterDeployment(ctx, cd) : [];
      },
      // Not the validations, conditions and counts the cluster rewrites for every new host.
      { predicates: [updateWhen(aciChangeReachesAgents)] },
    )
    // A host joining a small cluster changes the count its peers' validations read (a larger
    // one's peers are woken once its inventory arrives, reconcile.ts wakeClusterPeers).
    .watches<Agent>(AGENT, (a) => smallClusterPeers(ctx, a), { predicates: [joinedCluster] })
    .watches<KubeObject>(SECRET, (secret) =>
      agentKeys(ctx.informers.agents.store.byIndex(AGENT_BY_TOKEN_SECRET_INDEX, objectKey(secret))),
    )
    // A step reply is answered once its Agent's status is written, and a reconcile mostly waits on
    // its API writes: one worker would answer a wave of replies one write round trip at a time.
    .withWorkers(Math.max(ctx.mgr.defaultWorkers, AGENT_WORKERS))
    .complete((req, rctx) => reconcileAgent(ctx, deps, req, rctx));
  ctx.bus.register('agent', (key, low) => controller.enqueue(key, low));
  // debugInfo.eventsURL and logsURL name the service base URL.
  ctx.onUrlsChange(() => controller.resync(ctx.informers.agents.store.list()));
  const enqueueClusters = (agents: Agent[], lowPriority = false) => {
    const keys = new Set(agents.flatMap((a) => clusterDeploymentKeysOf(ctx, a)));
    for (const k of keys) ctx.bus.enqueue('clusterdeployment', k, lowPriority);
  };
  ctx.informers.agents.addHandler({
    // Agents of a list (a start, a failover) wake their clusters behind the changes of the moment.
    onAdd: (a, fromList) => enqueueClusters([a], fromList),
    onUpdate: (oldA, newA) => enqueueClusters([oldA, newA]),
    onDelete: (a) => {
      enqueueClusters([a]);
      memory.forget(a.metadata.name ?? '');
      superseded.delete(objectKey(a));
      ctx.facts.delete(a.metadata.name ?? '');
    },
  });
}
