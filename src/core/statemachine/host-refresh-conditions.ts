// Condition groups of the host refresh rules (spec §1.3 "Derived condition groups").

import type { HostStatus } from '../model.ts';
import { hasEnoughMastersAndWorkers } from './cluster-predicates.ts';
import { HC, HV, SUFFICIENT_FOR_INSTALL_IDS } from './condition-ids.ts';
import { And, type Condition, If, Not, Or, When } from './engine.ts';
import { hasInstallationInProgressTimedOut, hasStatusTimedOut } from './host-conditions.ts';
import { type HostArgs, inStages } from './host-sm-common.ts';
import { STAGE } from './stages.ts';

export const IfH = (id: string): Condition<HostArgs> => If<HostArgs>(id);

export const C = IfH(HV.connected);
export const M = IfH(HV.mediaConnected);
export const hasInventory = IfH(HV.hasInventory);
export const hasValidInventory = And(hasInventory, IfH(HV.inventoryNotFullyTruncated));
export const hasMinRequiredHardware = And(
  IfH(HV.hasMinValidDisks),
  IfH(HV.hasMinCpuCores),
  IfH(HV.hasMinMemory),
  IfH(HV.compatibleWithClusterPlatform),
  IfH(HV.diskEncryptionRequirementsSatisfied),
);
export const requiredInputFieldsExist = IfH(HV.machineCidrDefined);
export const isSufficientForInstall = And(...SUFFICIENT_FOR_INSTALL_IDS.map(IfH));
export const vsphereUuid = IfH(HV.vsphereDiskUuidEnabled);

export const DS = IfH(HC.installationDiskSpeedCheckSuccessful);
export const IMG = IfH(HC.successfulContainerImageAvailability);
export const DSv = IfH(HV.sufficientInstallationDiskSpeed);
export const IMGv = IfH(HV.containerImagesAvailable);
export const diskSpeedUnknown = And(Not(DS), DSv);
export const imagesUnknown = And(Not(IMG), IMGv);
export const allSuccessful = And(DS, IMG);
export const allSuccessOrUnknown = And(DSv, IMGv);
export const atLeastOneUnknown = And(Or(diskSpeedUnknown, imagesUnknown), allSuccessOrUnknown);

export const clusterPreparing = IfH(HC.clusterPreparingForInstallation);
export const clusterInstalling = IfH(HC.clusterInstalling);
export const clusterInError = IfH(HC.clusterInError);
export const validRole = IfH(HC.validRoleForInstallation);
export const soft = IfH(HC.softTimeoutsEnabled);
export const stageTimedOutFlag = IfH(HC.hostStageTimedOut);
export const connectionTimedOut = IfH(HC.connectionTimedOut);
export const ignoreStageTimeout = And(IfH(HC.stageInWrongBootStages), IfH(HC.clusterPendingUserAction));
export const stageTimedOut = When<HostArgs>((a) =>
  hasInstallationInProgressTimedOut(a.host, a.cluster, a.now, a.options),
);
export const statusTimedOut = (ms: (a: HostArgs) => number) =>
  When<HostArgs>((a) => hasStatusTimedOut(a.host, a.now, ms(a)));
export const reclaimTimedOut = statusTimedOut((a) => a.options.reclaimTimeoutMs);
export const writing = inStages(STAGE.writing);
export const copying = inStages(STAGE.copying);
export const longStages = inStages(STAGE.writing, STAGE.copying, STAGE.rebooting);
export const disconnected = Or(Not(C), Not(M));
export const readyForInstall = And(
  C,
  M,
  hasValidInventory,
  hasMinRequiredHardware,
  requiredInputFieldsExist,
  isSufficientForInstall,
  vsphereUuid,
);
export const poolHardwareOk = And(
  IfH(HV.hasMinValidDisks),
  IfH(HV.hasMinCpuCores),
  IfH(HV.hasMinMemory),
  IfH(HV.hostnameValid),
);

/** R28: enough hosts are installed without this one and the cluster is not done yet. */
export const clusterCanDoWithoutHost = When<HostArgs>(
  (a) =>
    !!a.cluster &&
    a.cluster.status !== 'installed' &&
    a.cluster.status !== 'adding-hosts' &&
    hasEnoughMastersAndWorkers(a.cluster, ['installed']),
);

export const HW_SOURCES: readonly HostStatus[] = [
  'disconnected',
  'discovering',
  'insufficient',
  'known',
  'pending-for-input',
];
