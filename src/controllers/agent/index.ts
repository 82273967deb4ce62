// Registers the Agent controller (kubeapi.md §3.4). Agents are reconciled on their own changes,
// on changes of their InfraEnv (auto-approval, requirements), of the ClusterDeployment and
// AgentClusterInstall they are bound to or asked to bind to (cluster state drives the host state
// machine; of the ACI, only changes to what records/clusters/agents-view.ts keeps), of the other
// Agents of their cluster that their validations read (peers.ts), of Secrets they reference, on
// demand through the bus ('agent': step replies, check-ins after a disconnection, the cluster
// reconciler's host changes), and when the base URLs change. Every Agent change wakes its
// ClusterDeployment through that controller's Agent watch (level-triggered in both directions,
// docs/design/records.md).

import type { Agent, AgentClusterInstall, ClusterDeployment, InfraEnv } from '../../api/index.ts';
import { hostsWhoseGroupsChanged } from '../../core/network/connectivity.ts';
import {
  aciChangeReachesAllAgents,
  majorityGroupsChanged,
  majorityGroupsOf,
} from '../../records/clusters/agents-view.ts';
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
import { type KubeObject, objectKey, onlyUpdates, updateWhen } from '../../runtime/index.ts';
import {
  AGENT_BY_CLUSTER_HOSTNAME_INDEX,
  agentByClusterHostname,
  countReaders,
  hostnameChanged,
  hostnameReaders,
  membershipChanged,
  roleChanged,
  roleReaders,
} from './peers.ts';
import { reconcileAgent, settleNewAgent } from './reconcile.ts';

function agentKeys(agents: readonly Agent[]): string[] {
  return agents.map((a) => objectKey(a));
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

function agentsOfAci(ctx: OperatorContext, aci: AgentClusterInstall): string[] {
  const name = aci.spec?.clusterDeploymentRef?.name;
  const cd = name ? ctx.informers.clusterDeployments.get(aci.metadata.namespace, name) : undefined;
  return cd ? agentsOfClusterDeployment(ctx, cd) : [];
}

/**
 * The Agents a new majority-groups result concerns: the hosts that joined or left a group (or all,
 * when the result cannot be compared). A 1,000-host cluster's every new result reconciled its 1,000
 * Agents, about 0.5 ms each, most to find nothing to write (make bench-scale's connectivity phase).
 */
function majorityGroupReaders(
  ctx: OperatorContext,
  o: AgentClusterInstall,
  n: AgentClusterInstall,
): string[] {
  const all = agentsOfAci(ctx, n);
  const hosts = hostsWhoseGroupsChanged(majorityGroupsOf(o), majorityGroupsOf(n));
  if (hosts === 'all') return all;
  return all.filter((key) => hosts.has(key.slice(key.indexOf('/') + 1)));
}

/** Agent reconcile workers (at least; MAX_CONCURRENT_RECONCILES can raise it), as the cluster controller's. */
export const AGENT_WORKERS = 4;

export function register(ctx: OperatorContext): void {
  const memory = hostMemory(ctx);
  const superseded = new Map<string, readonly string[]>();
  const deps = { memory, events: operatorEventsFor(ctx), auth: () => localAuthFor(ctx), superseded };
  memory.settleNewAgent = (draft, facts, now) => settleNewAgent(ctx, deps, draft, facts, now);
  ctx.informers.agents.store.addIndex(AGENT_BY_CLUSTER_HOSTNAME_INDEX, agentByClusterHostname);
  const controller = ctx.mgr
    .controller('agent')
    .for(AGENT)
    .watches<InfraEnv>(INFRA_ENV, (ie) => agentKeys(ctx.agentsOfInfraEnv(objectKey(ie))))
    .watches<ClusterDeployment>(CLUSTER_DEPLOYMENT, (cd) => agentsOfClusterDeployment(ctx, cd))
    .watches<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, (aci) => agentsOfAci(ctx, aci), {
      // Not the validations, conditions and counts the cluster rewrites for every new host.
      predicates: [updateWhen(aciChangeReachesAllAgents)],
    })
    .watches<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, (aci) => agentsOfAci(ctx, aci), {
      predicates: [onlyUpdates(majorityGroupsChanged)],
      mapUpdate: (o, n) => majorityGroupReaders(ctx, o, n),
    })
    // The other hosts of a cluster whose validations read what changed (peers.ts).
    .watches<Agent>(AGENT, (a) => roleReaders(ctx, a), { predicates: [roleChanged] })
    .watches<Agent>(AGENT, (a) => countReaders(ctx, a), { predicates: [membershipChanged] })
    .watches<Agent>(AGENT, (a) => hostnameReaders(ctx, a), { predicates: [hostnameChanged] })
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
  // The ClusterDeployment's own Agent watch wakes the cluster (cluster/watches.ts, cdKeysOfAgent).
  ctx.informers.agents.addHandler({
    onDelete: (a) => {
      memory.forget(a.metadata.name ?? '');
      superseded.delete(objectKey(a));
      ctx.facts.delete(a.metadata.name ?? '');
    },
  });
}
