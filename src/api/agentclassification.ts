// AgentClassification (agentclassifications.agent-install.openshift.io/v1beta1): labels
// Agents whose inventory matches a query.

import { z } from 'zod';
import {
  AGENT_INSTALL_API_VERSION,
  AGENT_INSTALL_GROUP,
  AGENT_INSTALL_VERSION,
  conditionSchema,
  doc,
  int,
  resourceSchema,
} from './common.ts';

export const AGENTCLASSIFICATION_GROUP = AGENT_INSTALL_GROUP;
export const AGENTCLASSIFICATION_VERSION = AGENT_INSTALL_VERSION;
export const AGENTCLASSIFICATION_API_VERSION = AGENT_INSTALL_API_VERSION;
export const AGENTCLASSIFICATION_KIND = 'AgentClassification';
export const AGENTCLASSIFICATION_PLURAL = 'agentclassifications';

/** Label values with this prefix mark Agents on which the query failed. */
export const QUERY_ERROR_PREFIX = 'QUERYERROR';

export const agentClassificationSpecSchema = doc(
  z.looseObject({
    labelKey: doc(
      z.string(),
      'Key suffix of the label applied to matching Agents (agentclassification.agent-install.openshift.io/<labelKey>). Immutable.',
    ),
    labelValue: doc(z.string(), 'Value of the label applied to matching Agents. Immutable.'),
    query: doc(
      z.string(),
      'gojq query evaluated on the Agent inventory (status.inventory); must yield exactly one boolean.',
    ),
  }),
  'Desired state of the AgentClassification.',
);
export type AgentClassificationSpec = z.infer<typeof agentClassificationSpecSchema>;

export const agentClassificationStatusSchema = doc(
  z.looseObject({
    matchedCount: doc(int(), 'Agents in the namespace that carry the label value.').optional(),
    errorCount: doc(int(), 'Agents on which the query failed.').optional(),
    conditions: z.array(conditionSchema).optional(),
  }),
  'Observed state of the AgentClassification.',
);
export type AgentClassificationStatus = z.infer<typeof agentClassificationStatusSchema>;

export const agentClassificationSchema = resourceSchema({
  description: 'AgentClassification labels the Agents whose inventory matches a query.',
  spec: agentClassificationSpecSchema,
  status: agentClassificationStatusSchema,
  specRequired: false,
});
export type AgentClassification = z.infer<typeof agentClassificationSchema>;
