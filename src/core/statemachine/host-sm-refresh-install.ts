// RefreshHost rules R14–R29 (spec §1.3): cluster errors, connectivity and stage timeouts while
// installing. Registered between the preparing and the discovery rules.

import type { HostStatus } from '../model.ts';
import { And, Not } from './engine.ts';
import {
  C,
  clusterCanDoWithoutHost,
  clusterInError,
  connectionTimedOut,
  copying,
  disconnected,
  ignoreStageTimeout,
  longStages,
  soft,
  stageTimedOut,
  stageTimedOutFlag,
  statusTimedOut,
  writing,
} from './host-refresh-conditions.ts';
import { connectionSoftTimeout, refreshStageUpdatedAt, stageSoftTimeout } from './host-refresh-effects.ts';
import { type HostEngine, inStages, isDay2, refreshRuleAdder, refreshTo, stay } from './host-sm-common.ts';
import { HOST_INFO } from './host-status-info.ts';
import { STAGE } from './stages.ts';

export function addInstallingRefreshRules(sm: HostEngine): void {
  const add = refreshRuleAdder(sm);
  const preparing: HostStatus = 'preparing-for-installation';
  add(
    'R14',
    [
      'installing',
      'installing-in-progress',
      'installed',
      'resetting-pending-user-action',
      'installing-pending-user-action',
    ],
    'error',
    And(clusterInError, Not(isDay2)),
    refreshTo(HOST_INFO.abortingDueClusterErrors),
  );
  add(
    'R15',
    ['installing'],
    'error',
    statusTimedOut((a) => a.options.hostInstallationTimeoutMs),
    refreshTo(HOST_INFO.installationTimedOut),
  );
  add(
    'R16',
    [preparing, 'preparing-successful'],
    'disconnected',
    disconnected,
    refreshTo(HOST_INFO.connectionTimedOutPreparing),
  );
  add(
    'R17',
    ['installing', 'installing-in-progress'],
    'error',
    And(Not(C), Not(soft)),
    refreshTo(HOST_INFO.connectionTimedOutInstalling),
  );
  for (const state of ['installing', 'installing-in-progress'] as const) {
    add(
      'R18',
      [state],
      state,
      And(Not(C), soft, Not(connectionTimedOut)),
      connectionSoftTimeout(HOST_INFO.connectionSoftTimedOutInstalling, true),
    );
    add(
      'R19',
      [state],
      state,
      And(C, soft, connectionTimedOut),
      connectionSoftTimeout(HOST_INFO.connectionSoftTimedOutRecovered, false),
    );
  }
  const iip: HostStatus = 'installing-in-progress';
  add('R20', [iip], iip, ignoreStageTimeout, refreshStageUpdatedAt);
  add(
    'R21',
    [iip],
    'error',
    And(Not(soft), Not(longStages), stageTimedOut, Not(ignoreStageTimeout)),
    refreshTo(HOST_INFO.stageTimedOut),
  );
  add(
    'R22',
    [iip],
    'error',
    And(Not(soft), writing, stageTimedOut, Not(ignoreStageTimeout)),
    refreshTo(HOST_INFO.stageNotProgressing),
  );
  add(
    'R23',
    [iip],
    'error',
    And(Not(soft), copying, stageTimedOut, Not(ignoreStageTimeout)),
    refreshTo(HOST_INFO.stageNotProgressing),
  );
  add(
    'R24',
    [iip],
    iip,
    And(soft, Not(stageTimedOutFlag), Not(longStages), stageTimedOut, Not(ignoreStageTimeout)),
    stageSoftTimeout(HOST_INFO.stageSoftTimedOut),
  );
  add(
    'R25',
    [iip],
    iip,
    And(soft, Not(stageTimedOutFlag), writing, stageTimedOut, Not(ignoreStageTimeout)),
    stageSoftTimeout(HOST_INFO.stageNotProgressingSoft),
  );
  add(
    'R26',
    [iip],
    iip,
    And(soft, Not(stageTimedOutFlag), copying, stageTimedOut, Not(ignoreStageTimeout)),
    stageSoftTimeout(HOST_INFO.stageNotProgressingSoft),
  );
  add(
    'R27',
    [iip],
    'installing-pending-user-action',
    And(stageTimedOut, inStages(STAGE.rebooting)),
    refreshTo(HOST_INFO.rebootTimeout),
  );
  add(
    'R28',
    ['installing-pending-user-action'],
    'error',
    And(
      statusTimedOut((a) => a.options.hostInstallingPendingUserActionTimeoutMs),
      clusterCanDoWithoutHost,
    ),
    refreshTo(HOST_INFO.pendingUserActionTimedOut),
  );
  for (const state of [
    'installing',
    iip,
    'installed',
    'installing-pending-user-action',
    'resetting-pending-user-action',
  ] as const) {
    add('R29', [state], state, Not(clusterInError), stay);
  }
}
