// AgentClassification admission rules (kubeapi.md §1.8 "AgentClassification").
//
// * CREATE: `agentclassification.agent-install.openshift.io/<labelKey>=<labelValue>` must be a valid
//   label, the value must not start with QUERYERROR, and the query must compile as jq (src/core/jq,
//   the same module the AgentLabel controller evaluates with). All problems
//   are reported in one message.
// * UPDATE: labelKey and labelValue cannot change. Beyond upstream, a changed query must parse
//   too (upstream only checks it on CREATE, so a typo made later turns into QUERYERROR labels).

import type { AgentClassification } from '../api/agentclassification.ts';
import { QUERY_ERROR_PREFIX } from '../api/agentclassification.ts';
import { AGENT_CLASSIFICATION_LABEL_PREFIX } from '../api/annotations.ts';
import { JqSyntaxError, jqQueryError } from '../core/jq/index.ts';
import { aggregateErrors, labelKeyErrors, labelValueErrors } from './labels.ts';
import {
  type AdmissionResult,
  allow,
  type DeepPartial,
  deny,
  jsonEqual,
  type Operation,
  str,
} from './types.ts';

type AgentClassificationInput = DeepPartial<AgentClassification>;

export const AGENTCLASSIFICATION_QUERYERROR_MESSAGE =
  'label must not start with QUERYERROR as this is reserved';
export const AGENTCLASSIFICATION_LABEL_MODIFIED_MESSAGE =
  'Label modified: the specified label may not be modified after creation';

function queryErrors(query: string): string[] {
  if (query.trim() === '') return ['spec.query: Required value: the query must not be empty'];
  // Admission runs the same compile step the AgentLabel controller runs before evaluating.
  const err = jqQueryError(query);
  if (!err) return [];
  const stage = err instanceof JqSyntaxError ? 'parse' : 'compile';
  return [`spec.query: Invalid value: ${JSON.stringify(query)}: failed to ${stage} query: ${err.message}`];
}

export function validateAgentClassification(
  operation: Operation,
  newObj: AgentClassificationInput,
  oldObj?: AgentClassificationInput,
): AdmissionResult {
  const spec = newObj.spec ?? {};
  const labelKey = str(spec.labelKey);
  const labelValue = str(spec.labelValue);
  const query = str(spec.query);

  if (operation === 'UPDATE' && oldObj) {
    const old = oldObj.spec ?? {};
    if (str(old.labelKey) !== labelKey || str(old.labelValue) !== labelValue) {
      return deny(AGENTCLASSIFICATION_LABEL_MODIFIED_MESSAGE);
    }
    if (jsonEqual(old.query, spec.query)) return allow();
    const errs = queryErrors(query);
    return errs.length > 0 ? deny(aggregateErrors(errs)) : allow();
  }

  const errs: string[] = [];
  const key = AGENT_CLASSIFICATION_LABEL_PREFIX + labelKey;
  for (const e of labelKeyErrors(key))
    errs.push(`spec.labelKey: Invalid value: ${JSON.stringify(key)}: ${e}`);
  for (const e of labelValueErrors(labelValue)) {
    errs.push(`spec.labelValue: Invalid value: ${JSON.stringify(labelValue)}: ${e}`);
  }
  if (labelValue.startsWith(QUERY_ERROR_PREFIX)) errs.push(AGENTCLASSIFICATION_QUERYERROR_MESSAGE);
  errs.push(...queryErrors(query));
  return errs.length > 0 ? deny(aggregateErrors(errs)) : allow();
}
