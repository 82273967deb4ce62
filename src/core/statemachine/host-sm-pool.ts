// The late-binding (pool) rules of upstream's pool_host_statemachine.go, appended to the same
// engine after every host rule.

import type { HostStatus } from '../model.ts';
import { And, Not } from './engine.ts';
import { C, hasValidInventory, M, poolHardwareOk } from './host-refresh-conditions.ts';
import { type HostEngine, moveTo, refreshRuleAdder, refreshTo, stay } from './host-sm-common.ts';
import { isUnbound, registerNew, reRegister } from './host-sm-register.ts';
import { HOST_INFO } from './host-status-info.ts';
import { resetDiscoveryFields } from './host-update.ts';

/** Pool event rules (registration of unbound hosts, binding). */
export function addPoolEventRules(sm: HostEngine): void {
  sm.add('RegisterHost', {
    id: 'P-G1',
    sources: [''],
    condition: isUnbound,
    destination: 'discovering-unbound',
    apply: registerNew,
  });
  sm.add('RegisterHost', {
    id: 'P-G2',
    sources: [
      'discovering-unbound',
      'disconnected-unbound',
      'insufficient-unbound',
      'known-unbound',
      'unbinding',
      'unbinding-pending-user-action',
      'reclaiming-rebooting',
    ],
    destination: 'discovering-unbound',
    apply: reRegister,
  });
  sm.add('BindHost', {
    id: 'B1',
    sources: ['known-unbound'],
    destination: 'binding',
    apply: moveTo(HOST_INFO.binding, (a) => ({
      ...resetDiscoveryFields(a.host),
      cluster_id: a.input.clusterId,
    })),
  });
}

/** Pool refresh rules P1–P5, appended after every host rule as upstream does. */
export function addPoolRefreshRules(sm: HostEngine): void {
  const add = refreshRuleAdder(sm);
  const hwSources: readonly HostStatus[] = [
    'disconnected-unbound',
    'discovering-unbound',
    'insufficient-unbound',
    'known-unbound',
  ];
  add(
    'P1',
    ['discovering-unbound', 'insufficient-unbound', 'known-unbound', 'disconnected-unbound', 'unbinding'],
    'disconnected-unbound',
    Not(C),
    refreshTo(HOST_INFO.disconnected),
  );
  add(
    'P2',
    ['disconnected-unbound', 'discovering-unbound'],
    'discovering-unbound',
    And(C, M, Not(hasValidInventory)),
    refreshTo(HOST_INFO.discovering),
  );
  add(
    'P3',
    hwSources,
    'insufficient-unbound',
    And(C, M, hasValidInventory, Not(poolHardwareOk)),
    refreshTo(HOST_INFO.insufficientHardware),
  );
  for (const state of ['binding', 'unbinding'] as const) add('P4', [state], state, undefined, stay);
  add(
    'P5',
    hwSources,
    'known-unbound',
    And(C, M, hasValidInventory, poolHardwareOk),
    refreshTo(HOST_INFO.readyToBeBound),
  );
}
