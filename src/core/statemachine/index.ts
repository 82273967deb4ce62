// Host and cluster state machines (core.md §1, §2), role assignment, bootstrap choice and progress.

export * from './bootstrap.ts';
export * from './cluster-predicates.ts';
export { CLUSTER_INFO, completionStatusInfo } from './cluster-refresh-effects.ts';
export * from './cluster-sm.ts';
export {
  CLUSTER_TRANSITIONS,
  type ClusterArgs,
  type ClusterTransitionType,
  singleNodeIp,
} from './cluster-sm-common.ts';
export * from './cluster-timeouts.ts';
export * from './condition-ids.ts';
export * from './durations.ts';
export * from './engine.ts';
export * from './host-conditions.ts';
export * from './host-registration.ts';
export * from './host-sm.ts';
export {
  HOST_TRANSITIONS,
  type HostArgs,
  type HostState,
  type HostTransitionInput,
  type HostTransitionType,
} from './host-sm-common.ts';
export { failingValidationMessages, HOST_INFO } from './host-status-info.ts';
export { STATUS_INFO_MAX_LENGTH, truncateStatusInfo } from './host-update.ts';
export * from './hostutil.ts';
export * from './install-flow.ts';
export * from './monitor.ts';
export * from './options.ts';
export * from './progress.ts';
export * from './result.ts';
export * from './role-assignment.ts';
export * from './stages.ts';
