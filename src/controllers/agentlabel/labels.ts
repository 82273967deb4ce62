// The AgentLabel reconciler's decision for one Agent (kubeapi.md §3.8), as a pure function: for
// every AgentClassification of the Agent's namespace, run its query on status.inventory and set,
// keep or remove `agentclassification.agent-install.openshift.io/<labelKey>`.

import type { Agent, AgentClassification } from '../../api/index.ts';
import { AGENT_CLASSIFICATION_LABEL_PREFIX, QUERY_ERROR_PREFIX } from '../../api/index.ts';
import { classify } from '../../core/jq/index.ts';
import { sanitizeLabelValue } from '../../records/agents/metadata.ts';

/** Label changes (`null` = remove) that bring the Agent's classification labels up to date. */
export function classificationLabelChanges(
  agent: Agent,
  classifications: readonly AgentClassification[],
): Record<string, string | null> {
  const labels = agent.metadata.labels ?? {};
  const changes: Record<string, string | null> = {};
  const inventory = agent.status?.inventory ?? {};
  for (const c of classifications) {
    const key = `${AGENT_CLASSIFICATION_LABEL_PREFIX}${c.spec.labelKey}`;
    const value = sanitizeLabelValue(c.spec.labelValue ?? '');
    if (value === undefined) continue;
    const errorValue = sanitizeLabelValue(`${QUERY_ERROR_PREFIX}-${value}`);
    const ours = (v: string | undefined) => v !== undefined && (v === value || v === errorValue);
    const current = labels[key];
    const want = (next: string | null) => {
      if (next === null ? current !== undefined && ours(current) : current !== next) changes[key] = next;
    };
    if (c.metadata.deletionTimestamp) {
      want(null);
      continue;
    }
    const result = classify(c.spec.query ?? '', inventory);
    if (result.kind === 'match') want(value);
    else if (result.kind === 'no-match') want(null);
    else if (errorValue !== undefined) want(errorValue);
  }
  return changes;
}
