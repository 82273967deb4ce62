// RefreshHost rules for bound hosts (spec §1.3 R1–R13 and R30–R39; R14–R29 live in
// host-sm-refresh-install.ts). First match wins, so registration order is part of the behaviour.

import type { HostStatus } from '../model.ts';
import { HV } from './condition-ids.ts';
import { And, Not, Or, When } from './engine.ts';
import { isHostLogCollectionTimedOut } from './host-conditions.ts';
import {
  allSuccessful,
  allSuccessOrUnknown,
  atLeastOneUnknown,
  C,
  clusterInstalling,
  clusterPreparing,
  DSv,
  disconnected,
  diskSpeedUnknown,
  HW_SOURCES,
  hasInventory,
  hasMinRequiredHardware,
  hasValidInventory,
  IfH,
  IMGv,
  imagesUnknown,
  isSufficientForInstall,
  M,
  readyForInstall,
  reclaimTimedOut,
  requiredInputFieldsExist,
  statusTimedOut,
  validRole,
  vsphereUuid,
} from './host-refresh-conditions.ts';
import { enterPreparing, logsTimedOut, preparationTimedOut } from './host-refresh-effects.ts';
import {
  type HostArgs,
  type HostEngine,
  isDay2,
  moveTo,
  refreshRuleAdder,
  refreshTo,
  stay,
} from './host-sm-common.ts';
import { addInstallingRefreshRules } from './host-sm-refresh-install.ts';
import { HOST_INFO } from './host-status-info.ts';
import { unbindResetFields } from './host-update.ts';

export function addRefreshRules(sm: HostEngine): void {
  addPreparingRefreshRules(sm);
  addInstallingRefreshRules(sm);
  addDiscoveryRefreshRules(sm);
}

/** R1–R13: reclaim timeout, preparation, disconnection before installation. */
function addPreparingRefreshRules(sm: HostEngine): void {
  const add = refreshRuleAdder(sm);
  const preparing: HostStatus = 'preparing-for-installation';

  add(
    'R1',
    ['reclaiming', 'reclaiming-rebooting'],
    'unbinding-pending-user-action',
    reclaimTimedOut,
    moveTo(HOST_INFO.unbinding, (a) => unbindResetFields(a.host)),
  );
  add('R2', ['known'], preparing, And(validRole, C, M, clusterPreparing), enterPreparing);
  add(
    'R3',
    [preparing],
    'preparing-successful',
    And(C, M, allSuccessful, clusterPreparing),
    refreshTo(HOST_INFO.preparationSuccessful),
  );
  add('R4', ['preparing-successful'], 'preparing-successful', And(C, M, clusterPreparing), stay);
  add(
    'R5',
    ['preparing-successful'],
    'installing',
    And(C, M, clusterInstalling),
    refreshTo(HOST_INFO.installing),
  );
  add(
    'R6',
    [preparing],
    'known',
    And(C, M, allSuccessOrUnknown, Not(clusterPreparing)),
    refreshTo(HOST_INFO.known),
  );
  add(
    'R7',
    [preparing, 'preparing-failed', 'known'],
    'insufficient',
    And(C, M, Not(DSv)),
    refreshTo(HOST_INFO.notReadyForInstall),
  );
  add(
    'R8',
    [preparing],
    'preparing-failed',
    And(
      C,
      M,
      statusTimedOut((a) => a.options.prepareForInstallationHostTimeoutMs),
      Or(diskSpeedUnknown, imagesUnknown),
      allSuccessOrUnknown,
    ),
    preparationTimedOut,
  );
  add('R9', [preparing], 'preparing-failed', And(C, M, Not(IMGv)), refreshTo(HOST_INFO.preparationFailure));
  add('R10', [preparing], preparing, And(C, M, atLeastOneUnknown, clusterPreparing), stay);
  add('R11', ['preparing-failed'], 'known', And(C, M, Not(clusterPreparing)), refreshTo(HOST_INFO.known));
  add(
    'R12',
    ['preparing-successful'],
    'known',
    And(C, M, Not(Or(clusterPreparing, clusterInstalling))),
    refreshTo(HOST_INFO.known),
  );
  add(
    'R13',
    ['discovering', 'insufficient', 'known', 'pending-for-input', 'disconnected', 'preparing-failed'],
    'disconnected',
    disconnected,
    refreshTo(HOST_INFO.disconnected),
  );
}

/** R30–R39: discovery/readiness and the states that only wait. */
function addDiscoveryRefreshRules(sm: HostEngine): void {
  const add = refreshRuleAdder(sm);
  add(
    'R30',
    ['disconnected', 'discovering'],
    'discovering',
    And(C, M, Not(hasValidInventory)),
    refreshTo(HOST_INFO.discovering),
  );
  add(
    'R31',
    HW_SOURCES,
    'insufficient',
    And(C, M, hasValidInventory, Not(hasMinRequiredHardware)),
    refreshTo(HOST_INFO.insufficientHardware),
  );
  add(
    'R32',
    HW_SOURCES,
    'pending-for-input',
    And(C, M, hasValidInventory, vsphereUuid, hasMinRequiredHardware, Not(requiredInputFieldsExist)),
    refreshTo(HOST_INFO.pendingForInput),
  );
  add(
    'R33',
    ['disconnected', 'insufficient', 'pending-for-input', 'discovering', 'known'],
    'insufficient',
    And(
      C,
      M,
      hasInventory,
      Or(hasMinRequiredHardware, Not(IfH(HV.inventoryNotFullyTruncated))),
      Or(Not(vsphereUuid), And(requiredInputFieldsExist, Not(isSufficientForInstall))),
    ),
    refreshTo(HOST_INFO.notReadyForInstall),
  );
  add(
    'R34',
    ['disconnected', 'insufficient', 'pending-for-input', 'discovering'],
    'known',
    readyForInstall,
    refreshTo(HOST_INFO.known),
  );
  add(
    'R35',
    ['known'],
    'known',
    And(readyForInstall, Not(And(clusterPreparing, validRole))),
    refreshTo(HOST_INFO.known),
  );
  const logCollectionTimedOut = When<HostArgs>((a) => isHostLogCollectionTimedOut(a.host, a.now, a.options));
  for (const state of ['error', 'cancelled'] as const)
    add('R36', [state], state, logCollectionTimedOut, logsTimedOut);
  for (const state of ['error', 'cancelled', 'resetting'] as const)
    add('R37', [state], state, undefined, stay);
  add('R38', ['added-to-existing-cluster'], 'added-to-existing-cluster', isDay2, stay);
  for (const state of ['reclaiming', 'reclaiming-rebooting'] as const) {
    add('R39', [state], state, Not(reclaimTimedOut), stay);
  }
}
