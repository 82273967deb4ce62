// Host (§3) and cluster (§4) validations and the types they share.
export * from './cluster.ts';
export * from './host.ts';
export { HOST_CONDITION_IDS, type HostConditionId, hasSavePartitionArgs } from './host-conditions.ts';
export {
  type HostValidationConfig,
  HostValidationContextError,
  type HostValidationInput,
  type OperatorHostValidationResult,
} from './host-context.ts';
export {
  buildHostnameIds,
  countedHostname,
  FORBIDDEN_HOSTNAMES,
  HOSTNAME_PATTERN,
  type HostnameIds,
  hostnameError,
  hostnameIdsOf,
  isAgentCompatible,
  rememberHostnameIds,
  shareHostnameIds,
} from './host-hardware.ts';
export { MEDIA_DISCONNECTED_MESSAGE } from './host-network.ts';
export { pullSecretProblem } from './pull-secret.ts';
export * from './types.ts';
