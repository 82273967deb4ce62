// RegisterHost and HostProgressChanged rules (spec §1.3), in upstream order.

import type { Host, HostStatus } from '../model.ts';
import { And, Not, Or, When } from './engine.ts';
import {
  type HostArgs,
  type HostEngine,
  type HostState,
  inStages,
  isDay2,
  moveTo,
  stay,
} from './host-sm-common.ts';
import { HOST_INFO } from './host-status-info.ts';
import { hostEvent, resetDiscoveryFields, resetLogsFields, resetProgress } from './host-update.ts';
import {
  deviceIdentifier,
  findInstallationDisk,
  hostnameForMessage,
  installationPath,
  isUnboundHost,
} from './hostutil.ts';
import { failure, type HostResult } from './result.ts';
import { STAGE } from './stages.ts';

export const isUnbound = When<HostArgs>((a) => isUnboundHost(a.host));
const inReboot = inStages(STAGE.rebooting);
const inDone = inStages(STAGE.done);

export function registerNew(a: HostArgs, _from: HostState, to: HostState): HostResult {
  const host: Host = {
    ...a.host,
    status: to as HostStatus,
    status_info: HOST_INFO.discovering,
    status_updated_at: a.now.toISOString(),
  };
  const event = hostEvent(
    host,
    'host_registration_succeeded',
    'info',
    `Host ${hostnameForMessage(host)}: Successfully registered`,
  );
  return { ok: true, host, changed: true, events: [event] };
}

/** Fields reset when a known host re-registers: a new boot may mean new hardware. */
function reRegistrationFields(a: HostArgs, keepHardware: boolean): Partial<Host> {
  return {
    ...(keepHardware
      ? { progress: resetProgress(a.host.progress), progress_stages: undefined, images_status: undefined }
      : resetDiscoveryFields(a.host)),
    ...resetLogsFields(),
    ntp_sources: undefined,
    discovery_agent_version: a.input.discoveryAgentVersion ?? a.host.discovery_agent_version,
    kind: a.input.kind ?? a.host.kind,
  };
}

export const reRegister = moveTo(HOST_INFO.discovering, (a) => reRegistrationFields(a, false));

/** G2: a host rebooted while preparing keeps its hardware and bootstrap flag; the cluster re-checks. */
function reRegisterWhilePreparing(a: HostArgs, from: HostState, to: HostState): HostResult {
  const r = moveTo(HOST_INFO.known, (x) => reRegistrationFields(x, true))(a, from, to);
  return {
    ...r,
    clusterPatch: { last_installation_preparation: { status: 'not_started', reason: 'not performed' } },
  };
}

/** G6: the host booted the discovery ISO after writing the image to disk. */
function registerDuringReboot(a: HostArgs, from: HostState, to: HostState): HostResult {
  const path = installationPath(a.host);
  if (from === 'installing-pending-user-action')
    return failure(403, `Host is required to be booted from disk ${path}`);
  if (!path || !a.host.inventory) {
    return failure(
      500,
      `PostRegisterDuringReboot host ${a.host.id} doesn't have installation_disk_path or inventory`,
    );
  }
  const disk = findInstallationDisk(a.host);
  if (!disk)
    return failure(
      500,
      `PostRegisterDuringReboot Could not find installation disk ${path} for host ${a.host.id}`,
    );
  const parts: string[] = [HOST_INFO.wrongBootOrder];
  if (disk.model) parts.push(disk.model);
  if (disk.serial) parts.push(disk.serial);
  parts.push(`(${disk.name ?? ''}, ${deviceIdentifier(disk)})`);
  return moveTo(parts.join(' '))(a, from, to);
}

/** The stage name as status_info (progress rules run after the new stage is stored). */
const stageInfo = (a: HostArgs, from: HostState, to: HostState): HostResult =>
  moveTo(a.host.progress?.current_stage ?? '')(a, from, to);

export function addRegisterRules(sm: HostEngine): void {
  sm.add('RegisterHost', {
    id: 'G1',
    sources: [''],
    condition: Not(isUnbound),
    destination: 'discovering',
    apply: registerNew,
  });
  sm.add('RegisterHost', {
    id: 'G2',
    sources: ['preparing-for-installation', 'preparing-successful'],
    destination: 'known',
    apply: reRegisterWhilePreparing,
  });
  sm.add('RegisterHost', {
    id: 'G3',
    sources: [
      'discovering',
      'known',
      'disconnected',
      'insufficient',
      'resetting-pending-user-action',
      'binding',
      'pending-for-input',
    ],
    destination: 'discovering',
    apply: reRegister,
  });
  sm.add('RegisterHost', {
    id: 'G4',
    sources: ['resetting'],
    condition: inReboot,
    destination: 'resetting',
    apply: stay,
  });
  sm.add('RegisterHost', {
    id: 'G5',
    sources: ['resetting'],
    condition: Not(inReboot),
    destination: 'discovering',
    apply: reRegister,
  });
  sm.add('RegisterHost', {
    id: 'G6',
    sources: ['installing-in-progress', 'installing-pending-user-action', 'added-to-existing-cluster'],
    condition: Or(inReboot, And(isDay2, inDone)),
    destination: 'installing-pending-user-action',
    apply: registerDuringReboot,
  });
  sm.add('RegisterHost', {
    id: 'G7',
    sources: ['installing', 'installing-in-progress'],
    destination: 'error',
    apply: moveTo(HOST_INFO.restartedDuringInstallation),
  });
  sm.add('RegisterHost', { id: 'G8', sources: ['error'], destination: 'error', apply: stay });
  sm.add('RegisterHost', {
    id: 'G9',
    sources: ['installed'],
    destination: 'installed',
    apply: () => failure(409, HOST_INFO.registeredAfterInstallation),
  });
}

export function addProgressRules(sm: HostEngine): void {
  sm.add('HostProgressChanged', {
    id: 'HP1',
    sources: ['installing-in-progress', 'installing'],
    condition: And(inReboot, isDay2),
    destination: 'installing-in-progress',
    apply: stageInfo,
  });
  sm.add('HostProgressChanged', {
    id: 'HP2',
    sources: ['installing-in-progress', 'installing', 'installing-pending-user-action'],
    condition: And(inDone, isDay2),
    destination: 'added-to-existing-cluster',
    apply: (a, from, to) =>
      a.input.rebootingRewritten ? moveTo(HOST_INFO.rebootingDay2)(a, from, to) : stageInfo(a, from, to),
  });
  sm.add('HostProgressChanged', {
    id: 'HP3',
    sources: ['installing-in-progress', 'installing'],
    condition: inDone,
    destination: 'installed',
    apply: stageInfo,
  });
  sm.add('HostProgressChanged', {
    id: 'HP4',
    sources: ['installing-in-progress', 'installing', 'installing-pending-user-action'],
    destination: 'installing-in-progress',
    apply: stageInfo,
  });
  for (const state of [
    'installed',
    'installing-pending-user-action',
    'resetting-pending-user-action',
  ] as const) {
    sm.add('HostProgressChanged', { id: 'HP5', sources: [state], destination: state, apply: stay });
  }
}
