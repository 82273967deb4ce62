// The two condition setters of the kube-API (kubeapi.md §0 "Condition libraries").
//
// * Agent and InfraEnv use openshift custom-resource-status with the "no heartbeat" setter:
//   lastHeartbeatTime is never written and lastTransitionTime changes only when the status does.
// * AgentClusterInstall uses Hive's ClusterInstallCondition with a setter that renews both
//   lastProbeTime and lastTransitionTime whenever status, reason or message changes.
//
// Both keep conditions of other types where they are and append new types at the end, so
// setting the same conditions twice yields a deep-equal list (this is what makes idle writes zero).

import type { ClusterInstallCondition, Condition, ConditionStatus } from '../api/index.ts';
import { metaTime } from './time.ts';

/** A condition as the controllers compute it, before timestamps. */
export interface ConditionValue {
  type: string;
  status: ConditionStatus;
  reason: string;
  message: string;
}

/** The condition of a record whose backend status this version does not know. */
export function unknownStatus(type: string, status: string): ConditionValue {
  return {
    type,
    status: 'Unknown',
    reason: 'UnknownStatus',
    message: `The installation status is currently not recognized: ${status}`,
  };
}

function replaceOrAppend<T extends { type: string }>(list: readonly T[], next: T): T[] {
  const index = list.findIndex((c) => c.type === next.type);
  if (index < 0) return [...list, next];
  return list.map((c, i) => (i === index ? next : c));
}

/** custom-resource-status SetStatusConditionNoHeartbeat, for a list of conditions in order. */
export function setConditionsNoHeartbeat(
  previous: readonly Condition[] | undefined,
  values: readonly ConditionValue[],
  now: Date,
): Condition[] {
  let list: Condition[] = [...(previous ?? [])];
  for (const v of values) {
    const old = list.find((c) => c.type === v.type);
    const lastTransitionTime =
      old?.lastTransitionTime !== undefined && old.status === v.status
        ? old.lastTransitionTime
        : metaTime(now);
    list = replaceOrAppend(list, {
      type: v.type,
      status: v.status,
      reason: v.reason,
      message: v.message,
      lastTransitionTime,
    });
  }
  return list;
}

/** Hive's change-checking setter for ClusterInstallConditions, for a list of conditions in order. */
export function setClusterInstallConditions(
  previous: readonly ClusterInstallCondition[] | undefined,
  values: readonly ConditionValue[],
  now: Date,
): ClusterInstallCondition[] {
  let list: ClusterInstallCondition[] = [...(previous ?? [])];
  for (const v of values) {
    const old = list.find((c) => c.type === v.type);
    const unchanged =
      old !== undefined &&
      old.status === v.status &&
      (old.reason ?? '') === v.reason &&
      (old.message ?? '') === v.message &&
      old.lastProbeTime !== undefined &&
      old.lastTransitionTime !== undefined;
    const time = metaTime(now);
    list = replaceOrAppend(list, {
      type: v.type,
      status: v.status,
      reason: v.reason,
      message: v.message,
      lastProbeTime: unchanged ? old.lastProbeTime : time,
      lastTransitionTime: unchanged ? old.lastTransitionTime : time,
    });
  }
  return list;
}

/** The condition of a type, if present. */
export function findCondition<T extends { type: string }>(list: readonly T[] | undefined, type: string) {
  return list?.find((c) => c.type === type);
}
