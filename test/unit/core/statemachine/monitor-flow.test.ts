// Monitor behaviour (spec §1.8, §2.6) and the install flow steps (§2.5).

import { describe, expect, it } from 'vitest';
import type { Cluster } from '../../../../src/core/model.ts';
import {
  applyHostValidations,
  assignRolesForInstall,
  cancelClusterInstallation,
  checkReadyForInstall,
  clusterNeedsHostMonitoring,
  clusterNeedsMonitoring,
  dhcpLeaseTimedOutSince,
  handlePreInstallError,
  handlePreInstallSuccess,
  hostRefreshDeadlineMs,
  initialClusterStatus,
  monitorDeadlinePassed,
  needsPreInstallSuccessRerun,
  resetClusterInstallation,
  resolveOptions,
  schedulableMastersForcedTrue,
  shouldAutoAssignMachineNetwork,
  shouldComputeConnectivity,
  startInstallation,
  transformClusterToDay2,
  unboundHostNeedsMonitoring,
} from '../../../../src/core/statemachine/index.ts';
import { ago, hostsOf, MIN, makeCluster, makeHost, NOW } from './fixtures.ts';

const options = resolveOptions();

describe('host monitor selection', () => {
  it('clusters with hosts still moving are monitored', () => {
    expect(
      clusterNeedsHostMonitoring(makeCluster({ hosts: [makeHost({ status: 'preparing-failed' })] })),
    ).toBe(true);
    expect(
      clusterNeedsHostMonitoring(
        makeCluster({ hosts: [makeHost({ status: 'error', logs_info: 'requested' })] }),
      ),
    ).toBe(true);
    expect(
      clusterNeedsHostMonitoring(
        makeCluster({ hosts: [makeHost({ status: 'error', logs_info: 'completed' })] }),
      ),
    ).toBe(false);
    expect(
      clusterNeedsHostMonitoring(makeCluster({ hosts: [makeHost({ status: 'cancelled', logs_info: '' })] })),
    ).toBe(false);
    expect(
      clusterNeedsHostMonitoring(
        makeCluster({ status: 'finalizing', hosts: [makeHost({ status: 'installed' })] }),
      ),
    ).toBe(true);
    expect(
      clusterNeedsHostMonitoring(
        makeCluster({ status: 'installed', hosts: [makeHost({ status: 'installed' })] }),
      ),
    ).toBe(false);
  });

  it('unbound hosts in pool states are monitored; deadline = disconnection window', () => {
    expect(unboundHostNeedsMonitoring(makeHost({ cluster_id: null, status: 'reclaiming' }))).toBe(true);
    expect(unboundHostNeedsMonitoring(makeHost({ cluster_id: null, status: 'unbinding' }))).toBe(false);
    expect(unboundHostNeedsMonitoring(makeHost({ status: 'binding' }))).toBe(false);
    expect(hostRefreshDeadlineMs(options)).toBe(3 * MIN);
  });

  it('stores validations only when they changed, with failed/fixed events', () => {
    const before = makeHost({
      validations_info: {
        network: [
          { id: 'connected', status: 'success', message: 'Host is connected' },
          { id: 'ntp-synced', status: 'pending', message: 'x' },
          { id: 'has-default-route', status: 'failure', message: 'no route' },
        ],
      },
    });
    const next = {
      network: [
        { id: 'connected', status: 'failure' as const, message: 'Host is disconnected' },
        { id: 'ntp-synced', status: 'failure' as const, message: 'y' },
        { id: 'has-default-route', status: 'success' as const, message: 'route' },
        { id: 'new-one', status: 'failure' as const, message: 'z' },
      ],
    };
    const r = applyHostValidations(before, next);
    expect(r.changed).toBe(true);
    expect(r.host.validations_info).toBe(next);
    expect(r.events.map((e) => e.message)).toEqual([
      "Host node-1: validation 'connected' that used to succeed is now failing",
      "Host node-1: validation 'ntp-synced' failed",
      "Host node-1: validation 'has-default-route' is now fixed",
    ]);
    expect(applyHostValidations(r.host, structuredClone(next)).changed).toBe(false);
    expect(applyHostValidations(before, {}).changed).toBe(false);
  });
});

describe('cluster monitor extras', () => {
  it('skips finished clusters', () => {
    expect(clusterNeedsMonitoring(makeCluster({ status: 'installed' }))).toBe(false);
    expect(clusterNeedsMonitoring(makeCluster({ status: 'unmonitored' }))).toBe(false);
    expect(clusterNeedsMonitoring(makeCluster({ status: 'error', logs_info: 'timeout' }))).toBe(false);
    expect(clusterNeedsMonitoring(makeCluster({ status: 'cancelled', logs_info: 'requested' }))).toBe(true);
    expect(clusterNeedsMonitoring(makeCluster({ status: 'ready' }))).toBe(true);
  });

  it('which per-cycle computations run in which status', () => {
    expect(
      ['pending-for-input', 'insufficient', 'ready', 'installing'].map((s) => [
        shouldAutoAssignMachineNetwork(makeCluster({ status: s as never })),
        shouldComputeConnectivity(makeCluster({ status: s as never })),
      ]),
    ).toEqual([
      [true, true],
      [true, true],
      [false, true],
      [false, false],
    ]);
  });

  it('schedulable masters are forced for SNO or fewer than two workers', () => {
    expect(schedulableMastersForcedTrue(makeCluster({ control_plane_count: 1 }))).toBe(true);
    expect(
      schedulableMastersForcedTrue(
        makeCluster({ hosts: [...hostsOf(3, 'master', 'known'), ...hostsOf(1, 'worker', 'known')] }),
      ),
    ).toBe(true);
    expect(
      schedulableMastersForcedTrue(
        makeCluster({ hosts: [...hostsOf(3, 'master', 'known'), ...hostsOf(2, 'worker', 'known')] }),
      ),
    ).toBe(false);
  });

  it('DHCP lease timeout fires once, in the cycle where the 2 minutes elapse', () => {
    const c = (more: Partial<Cluster>) =>
      makeCluster({
        vip_dhcp_allocation: true,
        api_vips: [],
        ingress_vips: [],
        machine_network_cidr_updated_at: ago(2 * MIN),
        ...more,
      });
    const prev = new Date(NOW.getTime() - 10_000);
    expect(dhcpLeaseTimedOutSince(c({}), prev, NOW, options)).toBe(true);
    expect(
      dhcpLeaseTimedOutSince(c({ machine_network_cidr_updated_at: ago(3 * MIN) }), prev, NOW, options),
    ).toBe(false);
    expect(dhcpLeaseTimedOutSince(c({ machine_network_cidr_updated_at: ago(MIN) }), prev, NOW, options)).toBe(
      false,
    );
    expect(dhcpLeaseTimedOutSince(c({ vip_dhcp_allocation: false }), prev, NOW, options)).toBe(false);
    expect(
      dhcpLeaseTimedOutSince(
        c({ api_vips: [{ ip: '1.1.1.1' }], ingress_vips: [{ ip: '1.1.1.2' }] }),
        prev,
        NOW,
        options,
      ),
    ).toBe(false);
    expect(dhcpLeaseTimedOutSince(c({ machine_networks: [] }), prev, NOW, options)).toBe(false);
  });

  it('monitor deadlines', () => {
    expect(monitorDeadlinePassed(ago(2 * MIN + 1), NOW, options.clusterMonitorPerClusterDeadlineMs)).toBe(
      true,
    );
    expect(monitorDeadlinePassed(ago(2 * MIN), NOW, options.clusterMonitorPerClusterDeadlineMs)).toBe(false);
  });

  it('initial statuses and day-2 transformation', () => {
    expect(initialClusterStatus('Cluster')).toEqual({
      status: 'insufficient',
      status_info: 'Cluster is not ready for install',
    });
    expect(initialClusterStatus('AddHostsCluster')).toEqual({
      status: 'adding-hosts',
      status_info: 'cluster is adding hosts to existing OCP cluster',
    });
    expect(initialClusterStatus('DisconnectedCluster')).toEqual({
      status: 'unmonitored',
      status_info: 'Cluster created for offline installation',
    });
    expect(initialClusterStatus('Other').status).toBe('insufficient');
    const day2 = transformClusterToDay2(
      makeCluster({ status: 'installed', status_info: 'Cluster is installed' }),
      {},
      { now: NOW },
    );
    expect(
      day2.ok && [
        day2.cluster.status,
        day2.cluster.kind,
        day2.cluster.api_vip_dns_name,
        day2.cluster.status_info,
      ],
    ).toEqual(['adding-hosts', 'AddHostsCluster', '192.168.1.100', 'Cluster is installed']);
    const umn = transformClusterToDay2(
      makeCluster({ status: 'installed', user_managed_networking: true }),
      {},
      { now: NOW },
    );
    expect(umn.ok && umn.cluster.api_vip_dns_name).toBe('api.demo.example.com');
    expect(transformClusterToDay2(makeCluster({ status: 'ready' }), {}, { now: NOW }).ok).toBe(false);
  });
});

describe('install flow', () => {
  const known = (id: string, more = {}) => makeHost({ id, role: 'auto-assign', suggested_role: '', ...more });
  const everyone = () => true;

  it('steps 1–2: auto-assigns roles and asks for a refresh', () => {
    const cluster = makeCluster({ hosts: [known('a'), known('b'), known('c'), known('d'), known('e')] });
    const r = assignRolesForInstall(cluster, everyone);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.needsRefresh).toBe(true);
    expect(r.cluster.hosts.map((h) => h.role)).toEqual(['master', 'master', 'master', 'worker', 'worker']);
    expect(r.cluster.schedulable_masters_forced_true).toBe(false);
  });

  it('step 2: every day-1 host must be known once roles were assigned', () => {
    const r = assignRolesForInstall(
      makeCluster({ hosts: [known('a'), known('b', { status: 'insufficient' })] }),
      everyone,
    );
    expect(r).toEqual({
      ok: false,
      error: { code: 400, message: 'Host node-1 is in status insufficient and not ready for install' },
    });
    const fixed = assignRolesForInstall(
      makeCluster({ hosts: hostsOf(3, 'master', 'insufficient') }),
      everyone,
    );
    expect(fixed.ok && fixed.needsRefresh).toBe(false);
  });

  it('step 3: only a ready cluster installs', () => {
    expect(checkReadyForInstall(makeCluster({ status: 'ready' }))).toBeUndefined();
    expect(checkReadyForInstall(makeCluster({ validations_info: {} }))).toEqual({
      code: 409,
      message: 'Cluster is not ready for installation, Cluster is not ready for install validation_info={}',
    });
  });

  it('step 4: preparing + bootstrap chosen together', () => {
    const cluster = makeCluster({ status: 'ready', hosts: hostsOf(3, 'master', 'known') });
    const r = startInstallation(cluster, { now: NOW });
    if (!r.ok) throw new Error(r.error.message);
    expect([r.cluster.status, r.rule, r.changedHostIds]).toEqual([
      'preparing-for-installation',
      'PI1',
      ['master-2'],
    ]);
    expect(r.cluster.hosts.map((h) => h.bootstrap ?? false)).toEqual([false, false, true]);
    expect(
      startInstallation(makeCluster({ status: 'ready', hosts: hostsOf(2, 'worker', 'known') }), { now: NOW }),
    ).toEqual({
      ok: false,
      error: { code: 409, message: 'Cluster have no master hosts that can operate as bootstrap' },
    });
    expect(startInstallation(makeCluster(), { now: NOW }).ok).toBe(false);
  });

  it('step 6: preparation outcome; step 8: re-run after a re-registration', () => {
    const ok = handlePreInstallSuccess(makeCluster(), { openshiftClusterId: 'oid' }, { now: NOW });
    expect(ok.ok && [ok.cluster.last_installation_preparation, ok.cluster.openshift_cluster_id]).toEqual([
      { status: 'success', reason: '' },
      'oid',
    ]);
    const bad = handlePreInstallError(makeCluster(), { error: 'generator failed' }, { now: NOW });
    expect(bad.ok && bad.cluster.last_installation_preparation).toEqual({
      status: 'failed',
      reason: 'generator failed',
    });
    const c = makeCluster({
      status: 'preparing-for-installation',
      hosts: hostsOf(3, 'master', 'preparing-successful'),
      last_installation_preparation: { status: 'not_started', reason: 'not performed' },
    });
    expect(needsPreInstallSuccessRerun(c)).toBe(true);
    expect(
      needsPreInstallSuccessRerun({ ...c, last_installation_preparation: { status: 'success', reason: '' } }),
    ).toBe(false);
    expect(needsPreInstallSuccessRerun({ ...c, hosts: [] })).toBe(false);
  });

  it('reset: cluster to insufficient, every host to resetting-pending-user-action', () => {
    const r = resetClusterInstallation(
      makeCluster({
        status: 'error',
        hosts: [makeHost({ id: 'a', status: 'error' }), makeHost({ id: 'b', status: 'installed' })],
      }),
      {},
      { now: NOW },
    );
    if (!r.ok) throw new Error(r.error.message);
    expect([r.cluster.status, r.cluster.hosts.map((h) => h.status), r.changedHostIds]).toEqual([
      'insufficient',
      ['resetting-pending-user-action', 'resetting-pending-user-action'],
      ['a', 'b'],
    ]);
    expect(resetClusterInstallation(makeCluster({ status: 'ready' }), {}, { now: NOW }).ok).toBe(false);
    const stuck = resetClusterInstallation(
      makeCluster({ status: 'error', hosts: [makeHost({ status: 'disconnected' })] }),
      {},
      { now: NOW },
    );
    expect(stuck.ok).toBe(false);
  });

  it('cancel: cluster and hosts; one host without a rule aborts everything', () => {
    const r = cancelClusterInstallation(
      makeCluster({
        status: 'installing',
        hosts: [makeHost({ id: 'a', status: 'installing' }), makeHost({ id: 'b', status: 'known' })],
      }),
      { reason: 'stop' },
      { now: NOW },
    );
    if (!r.ok) throw new Error(r.error.message);
    expect([r.cluster.status, r.cluster.hosts.map((h) => [h.status, h.status_info])]).toEqual([
      'cancelled',
      [
        ['cancelled', 'stop'],
        ['known', 'Host is ready to be installed'],
      ],
    ]);
    expect(r.changedHostIds).toEqual(['a']);
    const abort = cancelClusterInstallation(
      makeCluster({ status: 'installing', hosts: [makeHost({ status: 'preparing-failed' })] }),
      {},
      { now: NOW },
    );
    expect(abort).toEqual({
      ok: false,
      error: { code: 409, message: 'no condition found to run transition' },
    });
  });
});
