// Conditions the host state machine reads next to the validations (§1.4), computed in the same
// refresh so the condition map is complete.

import type { HostStage } from '../model.ts';
import type { HostValidationContext } from './host-context.ts';
import { bootDeviceInfo } from './host-hardware.ts';
import { failedImageNames } from './host-network.ts';

export const HOST_CONDITION_IDS = [
  'installation-disk-speed-check-successful',
  'cluster-preparing-for-installation',
  'cluster-installing',
  'valid-role-for-installation',
  'stage-in-wrong-boot-stages',
  'cluster-pending-user-action',
  'cluster-in-error',
  'successful-container-image-availability',
] as const;
export type HostConditionId = (typeof HOST_CONDITION_IDS)[number];

const WRONG_BOOT_STAGES: readonly HostStage[] = [
  'Waiting for control plane',
  'Waiting for controller',
  'Waiting for bootkube',
  'Rebooting',
];

/** Installer args that keep partitions: the disk-speed check and disk cleanup are skipped. */
export function hasSavePartitionArgs(installerArgs: string | undefined): boolean {
  return /--save-part(label|index)/.test(installerArgs ?? '');
}

export function hostConditions(c: HostValidationContext): Record<HostConditionId, boolean> {
  const status = c.cluster?.status;
  const speed = bootDeviceInfo(c)?.disk_speed;
  const images = c.host.images_status ?? {};
  const stage = c.host.progress?.current_stage;
  return {
    'installation-disk-speed-check-successful':
      !!c.cluster &&
      (hasSavePartitionArgs(c.host.installer_args) ||
        c.inventory?.boot?.device_type === 'persistent' ||
        (speed?.tested === true && (speed.exit_code ?? 0) === 0)),
    'cluster-preparing-for-installation': status === 'preparing-for-installation',
    'cluster-installing': status === 'installing',
    'valid-role-for-installation':
      c.host.role === 'master' || c.host.role === 'arbiter' || c.host.role === 'worker',
    'stage-in-wrong-boot-stages': !!stage && WRONG_BOOT_STAGES.includes(stage),
    'cluster-pending-user-action': status === 'installing-pending-user-action',
    'cluster-in-error': status === 'error',
    'successful-container-image-availability':
      Object.keys(images).length > 0 && failedImageNames(images).length === 0,
  };
}
