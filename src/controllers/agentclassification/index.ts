// AgentClassification controller (kubeapi.md §3.8, §2.5): counts the Agents of the namespace that
// carry the classification's label value (matchedCount) or a QUERYERROR value (errorCount), sets
// QueryErrors, and holds its finalizer while deleting until no Agent carries the value any more
// (the AgentLabel controller removes the labels of a classification being deleted).

import type { AgentClassification } from '../../api/index.ts';
import {
  AGENT_CLASSIFICATION_LABEL_PREFIX,
  AGENTCLASSIFICATION_FINALIZER,
  QUERY_ERROR_PREFIX,
} from '../../api/index.ts';
import type { OperatorContext } from '../../records/context.ts';
import { type ConditionValue, setConditionsNoHeartbeat } from '../../records/index.ts';
import { AGENT, AGENT_CLASSIFICATION } from '../../records/resources.ts';
import {
  addFinalizer,
  hasFinalizer,
  isBeingDeleted,
  objectKey,
  removeFinalizer,
  updateStatus,
} from '../../runtime/index.ts';

export function queryErrorsCondition(errorCount: number): ConditionValue {
  return errorCount === 0
    ? {
        type: 'QueryErrors',
        status: 'False',
        reason: 'NoQueryErrors',
        message: 'No Agents failed to apply the classification',
      }
    : {
        type: 'QueryErrors',
        status: 'True',
        reason: 'HasQueryErrors',
        message: `${errorCount} Agents failed to apply the classification`,
      };
}

export function register(ctx: OperatorContext): void {
  const agents = ctx.informers.agents;
  const classifications = ctx.informers.agentClassifications;
  ctx.mgr
    .controller('agentclassification')
    .for(AGENT_CLASSIFICATION)
    .watches(AGENT, (a) =>
      classifications.store.byNamespace(a.metadata.namespace ?? '').map((c) => objectKey(c)),
    )
    .complete(async (req) => {
      let c = classifications.get(req.namespace, req.name);
      if (!c) return;
      const key = `${AGENT_CLASSIFICATION_LABEL_PREFIX}${c.spec.labelKey}`;
      let matched = 0;
      let errors = 0;
      for (const a of agents.store.byNamespace(req.namespace ?? '')) {
        const v = a.metadata.labels?.[key];
        if (v === undefined) continue;
        if (v === c.spec.labelValue) matched++;
        else if (v.startsWith(QUERY_ERROR_PREFIX)) errors++;
      }
      if (isBeingDeleted(c)) {
        if (hasFinalizer(c, AGENTCLASSIFICATION_FINALIZER) && matched === 0) {
          await removeFinalizer(ctx.client, AGENT_CLASSIFICATION, c, AGENTCLASSIFICATION_FINALIZER);
        }
        return;
      }
      if (!hasFinalizer(c, AGENTCLASSIFICATION_FINALIZER)) {
        const added = await addFinalizer(ctx.client, AGENT_CLASSIFICATION, c, AGENTCLASSIFICATION_FINALIZER);
        if (!added) return;
        c = added;
      }
      const now = ctx.now();
      await updateStatus<AgentClassification>(ctx.client, AGENT_CLASSIFICATION, c, (cur) => ({
        ...cur.status,
        matchedCount: matched,
        errorCount: errors,
        conditions: setConditionsNoHeartbeat(cur.status?.conditions, [queryErrorsCondition(errors)], now),
      }));
    });
}
