// Event-driven host transitions (spec §1.3): RegisterHost, HostProgressChanged and the others.

import { describe, expect, it } from 'vitest';
import type { Host, HostStatus } from '../../../../src/core/model.ts';
import {
  bindHost,
  cancelHostInstallation,
  HOST_STATE_MACHINE,
  type HostResult,
  hostInstallationFailed,
  installHost,
  mediaDisconnected,
  newHostRecord,
  rebootingForReclaim,
  reclaimHost,
  reclaimHostFailed,
  registerHost,
  resetHostPendingUserAction,
  runHostTransition,
  unbindHost,
  updateInstallProgress,
} from '../../../../src/core/statemachine/index.ts';
import { ctx, makeCluster, makeHost, NOW } from './fixtures.ts';

function ok(r: HostResult): Extract<HostResult, { ok: true }> {
  if (!r.ok) throw new Error(`${r.error.code} ${r.error.message}`);
  return r;
}

const WAITING = 'Waiting for host to send hardware details';

describe('RegisterHost', () => {
  it('G1: a new bound host starts discovering', () => {
    const cluster = makeCluster();
    const host = newHostRecord({ id: 'n1', infraEnvId: 'ie1', cluster, now: NOW });
    const r = ok(registerHost(host, { isNew: true, cluster }, ctx()));
    expect([r.rule, r.host.status, r.host.status_info, r.host.status_updated_at]).toEqual([
      'G1',
      'discovering',
      WAITING,
      NOW.toISOString(),
    ]);
    expect(r.events[0]).toMatchObject({
      name: 'host_registration_succeeded',
      message: 'Host n1: Successfully registered',
    });
  });

  it('P-G1: a new unbound host starts discovering-unbound', () => {
    const host = newHostRecord({ id: 'n1', infraEnvId: 'ie1', now: NOW });
    const r = ok(registerHost(host, { isNew: true }, ctx()));
    expect([r.rule, r.host.status]).toEqual(['P-G1', 'discovering-unbound']);
  });

  it('G2: re-registration while preparing keeps hardware and bootstrap, resets the cluster preparation', () => {
    const host = makeHost({
      status: 'preparing-successful',
      bootstrap: true,
      logs_info: 'completed',
      ntp_sources: [{ source_name: 'a' }],
      progress: { current_stage: '', progress_info: 'x' },
    });
    const r = ok(registerHost(host, { discoveryAgentVersion: 'v2' }, ctx()));
    expect(r.rule).toBe('G2');
    expect(r.host).toMatchObject({
      status: 'known',
      status_info: 'Host is ready to be installed',
      bootstrap: true,
      discovery_agent_version: 'v2',
      registered_at: NOW.toISOString(),
      logs_info: '',
    });
    expect(r.host.inventory).toEqual(host.inventory);
    expect(r.host.ntp_sources).toBeUndefined();
    expect(r.host.progress).toEqual({ current_stage: '', installation_percentage: 0, progress_info: '' });
    expect(r.clusterPatch).toEqual({
      last_installation_preparation: { status: 'not_started', reason: 'not performed' },
    });
  });

  it.each([
    'discovering',
    'known',
    'disconnected',
    'insufficient',
    'resetting-pending-user-action',
    'binding',
    'pending-for-input',
  ] as const)('G3: %s re-registers as a new host', (from) => {
    const r = ok(
      registerHost(
        makeHost({ status: from, bootstrap: true, images_status: { a: {} } }),
        { kind: 'Host' },
        ctx(),
      ),
    );
    expect([
      r.rule,
      r.host.status,
      r.host.status_info,
      r.host.inventory,
      r.host.bootstrap,
      r.host.images_status,
    ]).toEqual(['G3', 'discovering', WAITING, undefined, false, undefined]);
  });

  it('G4/G5: a resetting host ignores registration while rebooting, otherwise rediscovers', () => {
    const rebooting = makeHost({ status: 'resetting', progress: { current_stage: 'Rebooting' } });
    const g4 = ok(registerHost(rebooting, {}, ctx()));
    expect([g4.rule, g4.host.status]).toEqual(['G4', 'resetting']);
    const g5 = ok(registerHost(makeHost({ status: 'resetting' }), {}, ctx()));
    expect([g5.rule, g5.host.status]).toEqual(['G5', 'discovering']);
  });

  it('G6: booting the ISO after Rebooting means wrong boot order', () => {
    const host = makeHost({ status: 'installing-in-progress', progress: { current_stage: 'Rebooting' } });
    const r = ok(registerHost(host, {}, ctx()));
    expect([r.rule, r.host.status, r.host.status_info]).toEqual([
      'G6',
      'installing-pending-user-action',
      'Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk SuperDisk SN123 (sda, /dev/disk/by-id/wwn-0x1)',
    ]);
  });

  it('G6: model and serial are optional; a day-2 host in Done also matches', () => {
    const inv = makeHost().inventory!;
    const host = makeHost({
      status: 'added-to-existing-cluster',
      kind: 'AddToExistingClusterHost',
      progress: { current_stage: 'Done' },
      inventory: { ...inv, disks: [{ ...inv.disks![0]!, model: '', serial: '' }] },
    });
    const r = ok(registerHost(host, {}, ctx()));
    expect(r.host.status_info).toBe(
      'Expected the host to boot from disk, but it booted the installation image - please reboot and fix boot order to boot from disk (sda, /dev/disk/by-id/wwn-0x1)',
    );
  });

  it('G6: already pending user action → 403, nothing persisted', () => {
    const host = makeHost({
      status: 'installing-pending-user-action',
      progress: { current_stage: 'Rebooting' },
    });
    expect(registerHost(host, {}, ctx())).toEqual({
      ok: false,
      error: { code: 403, message: 'Host is required to be booted from disk /dev/disk/by-id/wwn-0x1' },
    });
  });

  it('G6: missing installation disk or inventory is an error', () => {
    const base = {
      status: 'installing-in-progress' as const,
      progress: { current_stage: 'Rebooting' as const },
    };
    const noInv = registerHost(makeHost({ ...base, inventory: undefined }), {}, ctx());
    expect(noInv.ok || noInv.error.message).toBe(
      "PostRegisterDuringReboot host h1 doesn't have installation_disk_path or inventory",
    );
    const noDisk = registerHost(makeHost({ ...base, installation_disk_id: '/dev/nvme9' }), {}, ctx());
    expect(noDisk.ok || noDisk.error.message).toBe(
      'PostRegisterDuringReboot Could not find installation disk /dev/nvme9 for host h1',
    );
  });

  it('G7: registration during installation is an error', () => {
    const r = ok(registerHost(makeHost({ status: 'installing' }), {}, ctx()));
    expect([r.rule, r.host.status, r.host.status_info]).toEqual([
      'G7',
      'error',
      'The host unexpectedly restarted during the installation',
    ]);
    const iip = ok(
      registerHost(
        makeHost({ status: 'installing-in-progress', progress: { current_stage: 'Installing' } }),
        {},
        ctx(),
      ),
    );
    expect(iip.rule).toBe('G7');
  });

  it('G8: an error host is accepted without changes', () => {
    const r = ok(registerHost(makeHost({ status: 'error', registered_at: NOW.toISOString() }), {}, ctx()));
    expect([r.rule, r.host.status, r.changed]).toEqual(['G8', 'error', false]);
  });

  it('G9: an installed host is told to go away (409)', () => {
    const r = registerHost(makeHost({ status: 'installed' }), {}, ctx());
    expect(r.ok || r.error.code).toBe(409);
    expect(r.ok || r.error.message).toMatch(
      /^Host is trying to register after the cluster has already been installed\./,
    );
  });

  it('P-G2: unbound re-registration', () => {
    for (const from of ['known-unbound', 'unbinding-pending-user-action', 'reclaiming-rebooting'] as const) {
      const r = ok(registerHost(makeHost({ status: from, cluster_id: null }), {}, ctx()));
      expect([r.rule, r.host.status]).toEqual(['P-G2', 'discovering-unbound']);
    }
  });

  it('states without a rule fail with 400', () => {
    for (const from of ['preparing-failed', 'cancelled'] as const) {
      expect(registerHost(makeHost({ status: from }), {}, ctx())).toEqual({
        ok: false,
        error: { code: 400, message: 'no condition found to run transition' },
      });
    }
  });
});

describe('HostProgressChanged (updateInstallProgress)', () => {
  const installing = (more: Partial<Host> = {}) =>
    makeHost({ status: 'installing', progress: { current_stage: '' }, ...more });
  const report = (host: Host, stage: string, info?: string, kube = true, cluster = makeCluster()) =>
    updateInstallProgress(
      host,
      {
        cluster,
        progress: { current_stage: stage as never, ...(info !== undefined ? { progress_info: info } : {}) },
      },
      ctx({}, { kubeApiEnabled: kube }),
    );

  it('HP4: a new stage moves the host to installing-in-progress and stores the progress', () => {
    const r = ok(report(installing(), 'Starting installation', 'go'));
    expect([r.rule, r.host.status, r.host.status_info]).toEqual([
      'HP4',
      'installing-in-progress',
      'Starting installation',
    ]);
    expect(r.host.progress).toEqual({
      current_stage: 'Starting installation',
      progress_info: 'go',
      installation_percentage: 12,
      stage_started_at: NOW.toISOString(),
      stage_updated_at: NOW.toISOString(),
      stage_timed_out: false,
    });
    expect(r.host.progress_stages).toEqual([
      'Starting installation',
      'Installing',
      'Writing image to disk',
      'Copying registry data to disk',
      'Rebooting',
      'Configuring',
      'Joined',
      'Done',
    ]);
  });

  it('HP4 also catches installing-pending-user-action (HP5 for it is unreachable)', () => {
    const host = makeHost({
      status: 'installing-pending-user-action',
      progress: { current_stage: 'Rebooting' },
    });
    const r = ok(report(host, 'Configuring'));
    expect([r.rule, r.host.status]).toEqual(['HP4', 'installing-in-progress']);
  });

  it('HP3: Done → installed', () => {
    const host = makeHost({ status: 'installing-in-progress', progress: { current_stage: 'Joined' } });
    const r = ok(report(host, 'Done'));
    expect([r.rule, r.host.status, r.host.status_info, r.host.progress?.installation_percentage]).toEqual([
      'HP3',
      'installed',
      'Done',
      100,
    ]);
    expect(r.host.progress_stages?.at(-1)).toBe('Done');
  });

  it('HP1: a day-2 host reporting Rebooting in kube-API mode keeps installing', () => {
    const host = installing({ kind: 'AddToExistingClusterHost', role: 'worker' });
    const r = ok(report(host, 'Rebooting'));
    expect([r.rule, r.host.status, r.host.status_info]).toEqual([
      'HP1',
      'installing-in-progress',
      'Rebooting',
    ]);
  });

  it('HP2: a day-2 host reaching Done is added to the existing cluster', () => {
    const host = installing({
      kind: 'AddToExistingClusterHost',
      role: 'worker',
      status: 'installing-in-progress',
    });
    const r = ok(report(host, 'Done'));
    expect([r.rule, r.host.status, r.host.status_info]).toEqual(['HP2', 'added-to-existing-cluster', 'Done']);
  });

  it('HP2 outside kube-API mode: Rebooting is rewritten to Done with the day-2 message', () => {
    const host = installing({ kind: 'AddToExistingClusterHost', role: 'worker' });
    const r = ok(report(host, 'Rebooting', '', false));
    expect([
      r.rule,
      r.host.status,
      r.host.progress?.current_stage,
      r.host.progress?.installation_percentage,
    ]).toEqual(['HP2', 'added-to-existing-cluster', 'Done', 100]);
    expect(r.host.status_info).toBe(
      'Host has rebooted and no further updates will be posted. Please check console for progress and to possibly approve pending CSRs',
    );
  });

  it('HP5: installed / pending states keep their status', () => {
    for (const state of [
      'installed',
      'installing-pending-user-action',
      'resetting-pending-user-action',
    ] as const) {
      const r = ok(
        runHostTransition(
          'HostProgressChanged',
          makeHost({ status: state, progress: { current_stage: 'Joined' } }),
          ctx(),
        ),
      );
      const shadowed = state === 'installing-pending-user-action';
      expect([r.rule, r.host.status]).toEqual(shadowed ? ['HP4', 'installing-in-progress'] : ['HP5', state]);
    }
  });

  it('the same stage and info is a no-op; new info only refreshes the timer', () => {
    const host = makeHost({
      status: 'installing-in-progress',
      progress: { current_stage: 'Writing image to disk', progress_info: '10%' },
    });
    expect(ok(report(host, 'Writing image to disk', '10%')).changed).toBe(false);
    const r = ok(report(host, 'Writing image to disk', '20%'));
    expect(r.host.progress).toEqual({
      current_stage: 'Writing image to disk',
      progress_info: '20%',
      stage_updated_at: NOW.toISOString(),
    });
    expect(r.host.status).toBe('installing-in-progress');
  });

  it('rejects stages outside installing statuses, unknown stages and going backwards (409)', () => {
    expect(report(makeHost({ status: 'known' }), 'Installing')).toEqual({
      ok: false,
      error: { code: 409, message: "Can't set progress <Installing> to host in status <known>" },
    });
    const worker = makeHost({
      status: 'installing-in-progress',
      role: 'worker',
      progress: { current_stage: 'Installing' },
    });
    expect(report(worker, 'Waiting for bootkube')).toEqual({
      ok: false,
      error: {
        code: 409,
        message: "Stages Waiting for bootkube isn't available for host role worker bootstrap false",
      },
    });
    const later = makeHost({ status: 'installing-in-progress', progress: { current_stage: 'Rebooting' } });
    expect(report(later, 'Installing')).toEqual({
      ok: false,
      error: {
        code: 409,
        message: 'Can\'t assign lower stage "Installing" after host has been in stage "Rebooting"',
      },
    });
  });

  it('Failed moves the host straight to error, keeping the stage', () => {
    const host = makeHost({ status: 'installing-in-progress', progress: { current_stage: 'Installing' } });
    const r = ok(report(host, 'Failed', 'disk exploded'));
    expect([r.host.status, r.host.status_info, r.host.progress?.current_stage, r.rule]).toEqual([
      'error',
      'Failed - disk exploded',
      'Installing',
      undefined,
    ]);
    expect(ok(report(host, 'Failed')).host.status_info).toBe('Failed');
  });
});

describe('other event-driven host transitions', () => {
  type Fn = (h: Host) => HostResult;
  const rows: [string, Fn, HostStatus, Partial<Host>, HostStatus, string][] = [
    [
      'F1',
      (h) => hostInstallationFailed(h, { reason: 'installation command failed' }, ctx()),
      'installing',
      {},
      'error',
      'installation command failed',
    ],
    [
      'C1',
      (h) => cancelHostInstallation(h, {}, ctx()),
      'installed',
      {},
      'cancelled',
      'Installation was cancelled by user',
    ],
    [
      'C2',
      (h) => cancelHostInstallation(h, { reason: 'stop' }, ctx()),
      'preparing-successful',
      {},
      'known',
      'stop',
    ],
    [
      'C3',
      (h) => cancelHostInstallation(h, {}, ctx()),
      'known',
      {},
      'known',
      'Host is ready to be installed',
    ],
    [
      'I1',
      (h) => installHost(h, {}, ctx()),
      'known',
      { kind: 'AddToExistingClusterHost' },
      'installing',
      'Installation is in progress',
    ],
    [
      'RPUA',
      (h) => resetHostPendingUserAction(h, {}, ctx()),
      'added-to-existing-cluster',
      {},
      'resetting-pending-user-action',
      'Host requires booting into the discovery image to complete resetting the installation',
    ],
    [
      'U1',
      (h) => unbindHost(h, {}, ctx()),
      'insufficient',
      {},
      'unbinding',
      'Host is waiting to be unbound from the cluster',
    ],
    [
      'U2',
      (h) => unbindHost(h, {}, ctx()),
      'preparing-failed',
      {},
      'unbinding-pending-user-action',
      'Host is waiting to be unbound from the cluster',
    ],
    [
      'RC1',
      (h) => reclaimHost(h, {}, ctx()),
      'installed',
      {},
      'reclaiming',
      'Host is waiting to be unbound from the cluster',
    ],
    [
      'RC2',
      (h) => reclaimHost(h, {}, ctx()),
      'known',
      {},
      'unbinding',
      'Host is waiting to be unbound from the cluster',
    ],
    [
      'RC3',
      (h) => reclaimHost(h, {}, ctx()),
      'cancelled',
      {},
      'unbinding-pending-user-action',
      'Host is waiting to be unbound from the cluster',
    ],
    [
      'RB1',
      (h) => rebootingForReclaim(h, {}, ctx()),
      'reclaiming',
      {},
      'reclaiming-rebooting',
      'Host is rebooting into the discovery image',
    ],
    [
      'RF1',
      (h) => reclaimHostFailed(h, {}, ctx()),
      'reclaiming-rebooting',
      {},
      'unbinding-pending-user-action',
      'Host is waiting to be unbound from the cluster',
    ],
    [
      'B1',
      (h) => bindHost(h, { clusterId: 'c9' }, ctx()),
      'known-unbound',
      { cluster_id: null },
      'binding',
      'Host is waiting to be bound to the cluster',
    ],
  ];
  it.each(rows)('%s: %s', (rule, fn, from, more, to, info) => {
    const r = ok(fn(makeHost({ status: from, ...more })));
    expect([r.rule, r.host.status, r.host.status_info]).toEqual([rule, to, info]);
  });

  it('unbinding clears the cluster-specific fields', () => {
    const r = ok(
      unbindHost(
        makeHost({ status: 'known', machine_config_pool_name: 'infra', bootstrap: true }),
        {},
        ctx(),
      ),
    );
    expect(r.host).toMatchObject({
      cluster_id: null,
      kind: 'Host',
      role: 'auto-assign',
      suggested_role: '',
      bootstrap: false,
      installation_disk_id: '',
      installation_disk_path: '',
      machine_config_pool_name: '',
    });
    expect(r.host.inventory).toBeUndefined();
  });

  it('binding sets the cluster and resets the hardware', () => {
    const r = ok(
      bindHost(makeHost({ status: 'known-unbound', cluster_id: null }), { clusterId: 'c9' }, ctx()),
    );
    expect([r.host.cluster_id, r.host.inventory, r.host.bootstrap]).toEqual(['c9', undefined, false]);
  });

  it('InstallHost is day-2 only; missing rules fail with 409', () => {
    expect(installHost(makeHost({ status: 'known' }), {}, ctx())).toEqual({
      ok: false,
      error: { code: 409, message: 'no condition found to run transition' },
    });
    expect(cancelHostInstallation(makeHost({ status: 'preparing-failed' }), {}, ctx()).ok).toBe(false);
  });

  it('MediaDisconnect pre-install → disconnected with the media text', () => {
    const r = ok(mediaDisconnected(makeHost({ status: 'known' }), {}, ctx()));
    expect([r.rule, r.host.status, r.host.media_status]).toEqual(['MD1', 'disconnected', 'disconnected']);
    expect(r.host.status_info).toMatch(/^Unable to read from the discovery media\./);
    expect(r.events.map((e) => e.name)).toEqual(['host_media_disconnected', 'host_status_updated']);
  });

  it('MediaDisconnect during installation → error, prefixed onto the existing info', () => {
    const r = ok(
      mediaDisconnected(
        makeHost({ status: 'installing', status_info: 'Installation is in progress' }),
        {},
        ctx(),
      ),
    );
    expect([r.rule, r.host.status]).toEqual(['MD2', 'error']);
    expect(r.host.status_info).toMatch(
      /^Failed - Unable to read .* until the installation is completed\. Installation is in progress$/,
    );
    const again = ok(mediaDisconnected({ ...r.host, media_status: 'connected' }, {}, ctx()));
    expect(again.host.status_info).toBe(r.host.status_info);
  });

  it('MediaDisconnect does nothing when media is already disconnected', () => {
    const host = makeHost({ status: 'known', media_status: 'disconnected' });
    const r = ok(mediaDisconnected(host, {}, ctx()));
    expect([r.host.status, r.changed]).toEqual(['known', false]);
  });

  it('every event rule id is exercised', () => {
    const types = [
      'HostInstallationFailed',
      'CancelInstallation',
      'InstallHost',
      'ResettingPendingUserAction',
      'UnbindHost',
      'ReclaimHost',
      'RebootingForReclaim',
      'ReclaimHostFailed',
      'MediaDisconnect',
      'BindHost',
    ] as const;
    const ids = types.flatMap((t) => HOST_STATE_MACHINE.rules(t).map((r) => r.id));
    expect(ids.sort()).toEqual([...rows.map((r) => r[0]), 'MD1', 'MD2'].sort());
  });
});
