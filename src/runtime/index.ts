// Public surface of the controller runtime. Controllers import from here only.
export { Backoff, type BackoffOptions } from './backoff.ts';
export {
  ControllerBuilder,
  type ControllerHost,
  type ControllerRegistration,
  type MapFunc,
  mapToControllerOwner,
  type SourceOptions,
} from './builder.ts';
export { InformerCache, type InformerCacheOptions, type ResourceCacheOptions } from './cache.ts';
export {
  ApiError,
  type DeleteOptions,
  isAlreadyExists,
  isConflict,
  isGone,
  isInvalid,
  isNotFound,
  isTransient,
  KubeClient,
  type KubeClientOptions,
  type ListOptions,
  type PatchOptions,
  type PatchType,
  type RequestOptions,
  type WatchOptions,
  type WriteOptions,
} from './client.ts';
export {
  type Condition,
  type ConditionStatus,
  findCondition,
  formatTime,
  isConditionTrue,
  type NewCondition,
  removeCondition,
  setCondition,
} from './conditions.ts';
export {
  ConfigError,
  describeRuntimeConfig,
  describeSettings,
  type LoadSettingsOptions,
  loadRuntimeConfig,
  loadSettings,
  parseBindAddress,
  type RuntimeConfig,
  runtimeSettings,
  type Setting,
} from './config.ts';
export {
  Controller,
  type ReconcileContext,
  type ReconcileOutcome,
  type ReconcileRequest,
  type ReconcileResult,
  type Reconciler,
  TerminalError,
} from './controller.ts';
export { Discovery } from './discovery.ts';
export { OwnWriteEchoes } from './echoes.ts';
export { EventRecorder, type EventType } from './events.ts';
export {
  addFinalizer,
  type FinalizerHandlers,
  hasFinalizer,
  isBeingDeleted,
  reconcileWithFinalizer,
  removeFinalizer,
} from './finalizer.ts';
export { HealthServer } from './health.ts';
export { type EventHandler, Informer } from './informer.ts';
export { cacheStringPool, internStrings, StringPool } from './intern.ts';
export { type KubeConfigLike, kubeConfigFromText, loadKubeConfig } from './kubeconfig.ts';
export { LeaderElector, type LeaderElectorOptions, type Lease, type LeaseSpec } from './leader-election.ts';
export {
  type CreateLoggerOptions,
  createLogger,
  REDACTED,
  scrubbingDestination,
  scrubSecrets,
} from './logger.ts';
export { type LeaderElectionOptions, LeadershipLostError, Manager, type ManagerOptions } from './manager.ts';
export { metricValue, RuntimeMetrics } from './metrics.ts';
export {
  AlreadyOwnedError,
  getControllerOf,
  isOwnedBy,
  setControllerReference,
  setOwnerReference,
} from './owner.ts';
export {
  allOf,
  annotationsChanged,
  anyOf,
  changedAsRead,
  generationChanged,
  labelsChanged,
  objectMatches,
  onlyUpdates,
  type Predicate,
  updateWhen,
} from './predicates.ts';
export { WorkQueue } from './queue.ts';
export {
  defaultControllerRateLimiter,
  ItemExponentialRateLimiter,
  MaxOfRateLimiter,
  type RateLimiter,
  TokenBucket,
} from './rate-limiter.ts';
export {
  formatLabelSelector,
  indexByLabelPairs,
  LABEL_PAIRS_INDEX,
  type LabelSelector,
  matchesLabelSelector,
  selectFromStore,
} from './selector.ts';
export {
  MAX_OBJECT_WRITE_BYTES,
  ObjectTooLargeError,
  type StatusRetryOptions,
  type StatusUpdate,
  updateStatus,
} from './status.ts';
export {
  type IndexFunc,
  indexByLabel,
  indexByNamespace,
  indexByOwner,
  labelIndexName,
  NAMESPACE_INDEX,
  OWNER_INDEX,
  Store,
  type StoreDelta,
} from './store.ts';
export * from './types.ts';
export {
  compactForCache,
  LAST_APPLIED_ANNOTATION,
  stripForCache,
  Watcher,
  type WatcherEvent,
} from './watcher.ts';
