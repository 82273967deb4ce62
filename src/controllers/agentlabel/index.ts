// AgentLabel controller (kubeapi.md §3.8): keeps each Agent's classification labels in line with
// the AgentClassifications of its namespace. Reconciles Agents; a classification change wakes
// every Agent of its namespace. One metadata patch per Agent, only when a label changes.

import type { Agent, AgentClassification } from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { AGENT, AGENT_CLASSIFICATION } from '../../records/resources.ts';
import { isNotFound, objectKey } from '../../runtime/index.ts';
import { classificationLabelChanges } from './labels.ts';

export function register(ctx: OperatorContext): void {
  const agents = ctx.informers.agents;
  const classifications = ctx.informers.agentClassifications;
  ctx.mgr
    .controller('agentlabel')
    .for(AGENT)
    .watches<AgentClassification>(AGENT_CLASSIFICATION, (c) =>
      agents.store.byNamespace(c.metadata.namespace ?? '').map((a) => objectKey(a)),
    )
    .complete(async (req) => {
      const agent = agents.get(req.namespace, req.name);
      if (!agent || agent.metadata.deletionTimestamp) return;
      const changes = classificationLabelChanges(
        agent,
        classifications.store.byNamespace(req.namespace ?? ''),
      );
      if (Object.keys(changes).length === 0) return;
      try {
        await ctx.client.patch<Agent>(AGENT, req.name, req.namespace, 'merge', {
          metadata: { labels: changes, resourceVersion: agent.metadata.resourceVersion },
        });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    });
}
