// Host rules of the other event-driven transition types (spec §1.3), in upstream order.

import type { HostStatus } from '../model.ts';
import { type HostArgs, type HostEngine, type HostState, isDay2, moveTo, stay } from './host-sm-common.ts';
import { HOST_INFO } from './host-status-info.ts';
import { hostEvent, unbindResetFields } from './host-update.ts';
import { HOST_INSTALL_STARTED_STATUSES, hostnameForMessage } from './hostutil.ts';
import type { HostResult } from './result.ts';

function mediaDisconnected(a: HostArgs, from: HostState, to: HostState): HostResult {
  if (a.host.media_status === 'disconnected') return stay(a);
  let reason: string = HOST_INFO.mediaDisconnected;
  if (to === 'error') {
    reason = `Failed - ${reason}`;
    reason = a.host.status_info.includes(reason) ? a.host.status_info : `${reason}. ${a.host.status_info}`;
  }
  const r = moveTo(reason, () => ({ media_status: 'disconnected' }))(a, from, to);
  const event = hostEvent(
    a.host,
    'host_media_disconnected',
    'error',
    `Host ${hostnameForMessage(a.host)}: ${HOST_INFO.mediaDisconnected}`,
  );
  return { ...r, events: [event, ...r.events] };
}

const unbind = moveTo(HOST_INFO.unbinding, (a) => unbindResetFields(a.host));
const withReason = (fallback: string) => (a: HostArgs, from: HostState, to: HostState) =>
  moveTo(a.input.reason ?? fallback)(a, from, to);

const RESETTABLE: readonly HostStatus[] = [
  'resetting',
  'discovering',
  'known',
  'installing-pending-user-action',
  'installing',
  'preparing-for-installation',
  'preparing-successful',
  'preparing-failed',
  'pending-for-input',
  'resetting-pending-user-action',
  'installing-in-progress',
  'installed',
  'error',
  'cancelled',
  'added-to-existing-cluster',
];
const PRE_INSTALL: readonly HostStatus[] = [
  'known',
  'discovering',
  'disconnected',
  'insufficient',
  'pending-for-input',
];

export function addOtherEventRules(sm: HostEngine): void {
  sm.add('HostInstallationFailed', {
    id: 'F1',
    sources: ['installing', 'installing-in-progress'],
    destination: 'error',
    apply: withReason('installation command failed'),
  });
  sm.add('CancelInstallation', {
    id: 'C1',
    sources: ['installing-pending-user-action', 'installing', 'installing-in-progress', 'installed', 'error'],
    destination: 'cancelled',
    apply: withReason('Installation was cancelled by user'),
  });
  sm.add('CancelInstallation', {
    id: 'C2',
    sources: ['preparing-for-installation', 'preparing-successful'],
    destination: 'known',
    apply: withReason('Installation was cancelled by user'),
  });
  sm.add('CancelInstallation', { id: 'C3', sources: ['known'], destination: 'known', apply: stay });
  sm.add('InstallHost', {
    id: 'I1',
    sources: ['known'],
    condition: isDay2,
    destination: 'installing',
    apply: moveTo(HOST_INFO.installing),
  });
  sm.add('ResettingPendingUserAction', {
    id: 'RPUA',
    sources: RESETTABLE,
    destination: 'resetting-pending-user-action',
    apply: moveTo(HOST_INFO.resettingPendingUserAction),
  });
  sm.add('UnbindHost', { id: 'U1', sources: PRE_INSTALL, destination: 'unbinding', apply: unbind });
  sm.add('UnbindHost', {
    id: 'U2',
    sources: HOST_INSTALL_STARTED_STATUSES,
    destination: 'unbinding-pending-user-action',
    apply: unbind,
  });
  sm.add('ReclaimHost', {
    id: 'RC1',
    sources: ['installed', 'added-to-existing-cluster'],
    destination: 'reclaiming',
    apply: unbind,
  });
  sm.add('RebootingForReclaim', {
    id: 'RB1',
    sources: ['reclaiming'],
    destination: 'reclaiming-rebooting',
    apply: moveTo(HOST_INFO.rebootingForReclaim),
  });
  sm.add('ReclaimHostFailed', {
    id: 'RF1',
    sources: ['reclaiming', 'reclaiming-rebooting'],
    destination: 'unbinding-pending-user-action',
    apply: unbind,
  });
  sm.add('ReclaimHost', { id: 'RC2', sources: PRE_INSTALL, destination: 'unbinding', apply: unbind });
  sm.add('ReclaimHost', {
    id: 'RC3',
    sources: ['error', 'cancelled'],
    destination: 'unbinding-pending-user-action',
    apply: unbind,
  });
  sm.add('MediaDisconnect', {
    id: 'MD1',
    sources: ['discovering', 'insufficient', 'known', 'pending-for-input', 'disconnected', 'binding'],
    destination: 'disconnected',
    apply: mediaDisconnected,
  });
  sm.add('MediaDisconnect', {
    id: 'MD2',
    sources: [
      'preparing-for-installation',
      'preparing-failed',
      'preparing-successful',
      'installing',
      'installing-in-progress',
      'error',
    ],
    destination: 'error',
    apply: mediaDisconnected,
  });
}
