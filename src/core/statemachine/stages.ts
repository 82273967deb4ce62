// Installation stages (spec §1.6), the stage sets rules test against, and finalizing stages (§2.4).

import type { Cluster, Host, HostStage } from '../model.ts';
import { effectiveRole, isDay2Host, isSingleNodeCluster } from './hostutil.ts';

const S = {
  starting: 'Starting installation',
  installing: 'Installing',
  writing: 'Writing image to disk',
  copying: 'Copying registry data to disk',
  controlPlane: 'Waiting for control plane',
  bootkube: 'Waiting for bootkube',
  controller: 'Waiting for controller',
  rebooting: 'Rebooting',
  ignition: 'Waiting for ignition',
  configuring: 'Configuring',
  joined: 'Joined',
  done: 'Done',
} as const satisfies Record<string, HostStage>;
export const STAGE = S;

export const BOOTSTRAP_STAGES: readonly HostStage[] = [
  S.starting,
  S.installing,
  S.writing,
  S.copying,
  S.controlPlane,
  S.bootkube,
  S.controller,
  S.rebooting,
  S.configuring,
  S.joined,
  S.done,
];
export const SNO_BOOTSTRAP_STAGES: readonly HostStage[] = [
  S.starting,
  S.installing,
  S.bootkube,
  S.writing,
  S.copying,
  S.rebooting,
  S.joined,
  S.done,
];
export const MASTER_STAGES: readonly HostStage[] = [
  S.starting,
  S.installing,
  S.writing,
  S.copying,
  S.rebooting,
  S.configuring,
  S.joined,
  S.done,
];
export const WORKER_STAGES: readonly HostStage[] = [
  S.starting,
  S.installing,
  S.writing,
  S.controlPlane,
  S.rebooting,
  S.ignition,
  S.configuring,
  S.joined,
  S.done,
];

/** From these on a host must be rebooted by hand to reset; connectivity outputs are hidden. */
export const MANUAL_REBOOT_STAGES: readonly HostStage[] = [
  S.rebooting,
  S.ignition,
  S.configuring,
  S.joined,
  S.done,
];

/** Stages whose timeouts freeze while the cluster waits for a user (R20). */
export const WRONG_BOOT_STAGES: readonly HostStage[] = [
  S.controlPlane,
  S.controller,
  S.bootkube,
  S.rebooting,
];

/** Stages before Rebooting: the `connected` validation only applies in these (or with no stage). */
export const PRE_REBOOT_BOOTSTRAP_STAGES: readonly HostStage[] = BOOTSTRAP_STAGES.slice(
  0,
  BOOTSTRAP_STAGES.indexOf(S.rebooting),
);

/** Upstream's FindMatchingStages: the list for a role/bootstrap flag (auto-assign → none). */
export function stagesForRole(role: string, bootstrap: boolean, singleNode: boolean): readonly HostStage[] {
  if (bootstrap || role === 'bootstrap') return singleNode ? SNO_BOOTSTRAP_STAGES : BOOTSTRAP_STAGES;
  if (role === 'master' || role === 'arbiter') return MASTER_STAGES;
  if (role === 'worker') return WORKER_STAGES;
  return [];
}

/** The stage list a host reports against; day-2 hosts stop at Rebooting unless in kube-API mode. */
export function stagesForHost(
  host: Host,
  cluster: Cluster | null | undefined,
  kubeApiEnabled: boolean,
): readonly HostStage[] {
  const stages = stagesForRole(effectiveRole(host), host.bootstrap === true, isSingleNodeCluster(cluster));
  if (isDay2Host(host) && stages.length > 0 && !kubeApiEnabled) {
    return stages.slice(0, stages.indexOf(S.rebooting) + 1);
  }
  return stages;
}

export const FINALIZING_STAGES = [
  'Waiting for cluster operators',
  'Adding router ca',
  'Applying olm manifests',
  'Waiting for olm operators csv initialization',
  'Waiting for olm operators csv',
  'Waiting for OLM operator setup jobs',
  'Done',
] as const;
export type FinalizingStage = (typeof FINALIZING_STAGES)[number];

/** Stages whose timeout only warns, never fails the cluster (CR14/CR15). */
export const NON_FAILING_FINALIZING_STAGES: readonly string[] = [
  'Applying olm manifests',
  'Waiting for olm operators csv initialization',
  'Waiting for olm operators csv',
];

/** Stages whose timeout is raised to the largest OLM operator `timeout_seconds`. */
export const OLM_FINALIZING_STAGES: readonly string[] = NON_FAILING_FINALIZING_STAGES;

/** "Writing image to disk" → "WRITING_IMAGE_TO_DISK", the env-variable spelling of a stage. */
export function stageEnvKey(stage: string): string {
  return stage.toUpperCase().replaceAll(' ', '_');
}
