// Admission webhooks for Agent, AgentClusterInstall, InfraEnv and AgentClassification
// (kubeapi.md §1.8): pure validators and the ACI mutator, the AdmissionReview handler, the HTTPS
// server and the webhook configuration objects. See README.md in this directory.

export * from './admission.ts';
export * from './agent.ts';
export * from './agentclassification.ts';
export * from './agentclusterinstall.ts';
export * from './config.ts';
export * from './diff.ts';
export * from './infraenv.ts';
export * from './kube.ts';
export * from './labels.ts';
export * from './references.ts';
export * from './server.ts';
export * from './types.ts';
