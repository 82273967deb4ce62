// Role auto-assignment (spec §1.7) and bootstrap choice (§8.7).

import { describe, expect, it } from 'vitest';
import type { Cluster, Host } from '../../../../src/core/model.ts';
import {
  applyBootstrapHostMac,
  autoAssignRoles,
  chooseBootstrapHost,
  hostWeight,
  needsSuggestionReset,
  type RoleFitness,
  refreshSuggestedRoles,
  selectRole,
  sortHostsForRoleAssignment,
  withRole,
} from '../../../../src/core/statemachine/index.ts';
import { makeCluster, makeHost } from './fixtures.ts';

const GIB = 1024 ** 3;

/** A host with the given hardware (cores, usable RAM GiB, eligible disk GiB). */
function hw(id: string, cores: number, ramGiB: number, diskGiB: number, more: Partial<Host> = {}): Host {
  return makeHost({
    id,
    role: 'auto-assign',
    suggested_role: '',
    status: 'known',
    inventory: {
      hostname: id,
      cpu: { count: cores },
      memory: { usable_bytes: ramGiB * GIB, physical_bytes: ramGiB * GIB },
      disks: [
        {
          id: `${id}-d`,
          name: 'sda',
          size_bytes: diskGiB * GIB,
          installation_eligibility: { eligible: true },
        },
        { id: `${id}-x`, name: 'sdb', size_bytes: 999 * GIB, installation_eligibility: { eligible: false } },
      ],
    },
    ...more,
  });
}

const everyone: RoleFitness = () => true;

describe('host weight and ordering', () => {
  it('weight = (cores−4) + 0.1·(RAM GiB−16) + 0.004·(eligible disk GiB−100)', () => {
    expect(hostWeight(hw('a', 4, 16, 100))).toBe(0);
    expect(hostWeight(hw('b', 8, 32, 350))).toBeCloseTo(4 + 1.6 + 1, 10);
    expect(hostWeight(makeHost({ inventory: undefined }))).toBeUndefined();
    expect(hostWeight(makeHost({ inventory: {} }))).toBeCloseTo(-4 - 1.6 - 0.4, 10);
  });

  it('non-GPU hosts first, ascending by weight; GPU hosts next; no inventory last', () => {
    const hosts = [
      hw('gpu-small', 4, 16, 100, {
        inventory: { ...hw('x', 4, 16, 100).inventory, gpus: [{ vendor: 'nvidia' }] },
      }),
      makeHost({ id: 'none', inventory: undefined }),
      hw('big', 32, 256, 2000),
      hw('small', 8, 32, 120),
      hw('mid', 16, 64, 500),
    ];
    expect(sortHostsForRoleAssignment(hosts).map((h) => h.id)).toEqual([
      'small',
      'mid',
      'big',
      'gpu-small',
      'none',
    ]);
  });
});

describe('selectRole', () => {
  const cluster = (hosts: Host[], cp = 3) => makeCluster({ control_plane_count: cp, hosts });

  it('day-2 hosts are workers; hosts without inventory stay auto-assign', () => {
    expect(selectRole(hw('d', 8, 32, 200, { kind: 'AddToExistingClusterHost' }), cluster([]), everyone)).toBe(
      'worker',
    );
    expect(selectRole(makeHost({ inventory: undefined }), cluster([]), everyone)).toBe('auto-assign');
  });

  it('master while fewer masters than the control-plane count and the host fits', () => {
    const others = [
      hw('m1', 8, 32, 200, { role: 'master' }),
      hw('m2', 8, 32, 200, { suggested_role: 'master' }),
    ];
    const h = hw('h', 8, 32, 200);
    expect(selectRole(h, cluster([...others, h]), everyone)).toBe('master');
    expect(selectRole(h, cluster([...others, h], 2), everyone)).toBe('arbiter');
    expect(selectRole(h, cluster([...others, h]), (_h, role) => role !== 'master')).toBe('worker');
  });

  it('arbiter only for two control-plane nodes, once, and when the host fits as arbiter', () => {
    const masters = [hw('m1', 8, 32, 200, { role: 'master' }), hw('m2', 8, 32, 200, { role: 'master' })];
    const h = hw('h', 2, 8, 100);
    expect(selectRole(h, cluster([...masters, h], 2), everyone)).toBe('arbiter');
    expect(
      selectRole(h, cluster([...masters, hw('a', 2, 8, 100, { role: 'arbiter' }), h], 2), everyone),
    ).toBe('worker');
    expect(selectRole(h, cluster([...masters, h], 2), () => false)).toBe('worker');
  });
});

describe('refreshSuggestedRoles (monitor cycle)', () => {
  it('suggests the weakest fitting hosts as masters and the rest as workers, with events', () => {
    const hosts = [
      hw('big', 32, 256, 2000),
      hw('s1', 8, 32, 120),
      hw('s2', 8, 32, 130),
      hw('s3', 8, 32, 140),
      hw('mid', 16, 64, 500),
    ];
    const r = refreshSuggestedRoles(makeCluster({ hosts }), everyone, { enableAutoAssign: true });
    expect(Object.fromEntries(r.hosts.map((h) => [h.id, h.suggested_role]))).toEqual({
      big: 'worker',
      s1: 'master',
      s2: 'master',
      s3: 'master',
      mid: 'worker',
    });
    expect(r.changedHostIds.sort()).toEqual(['big', 'mid', 's1', 's2', 's3']);
    expect(r.events.map((e) => e.message)).toContain('Host s1: suggested role changed to master');
  });

  it('hosts that cannot be masters are skipped in favour of bigger ones', () => {
    const hosts = [hw('tiny', 2, 4, 50), hw('a', 8, 32, 200), hw('b', 8, 32, 210), hw('c', 8, 32, 220)];
    const fits: RoleFitness = (h) => h.id !== 'tiny';
    const r = refreshSuggestedRoles(makeCluster({ hosts }), fits, { enableAutoAssign: true });
    expect(r.hosts.map((h) => h.suggested_role)).toEqual(['worker', 'master', 'master', 'master']);
  });

  it('resets stale suggestions when an active auto-assign host has none', () => {
    const hosts = [
      hw('a', 8, 32, 200, { suggested_role: 'worker' }),
      hw('b', 8, 32, 210),
      hw('c', 8, 32, 220, { status: 'disconnected', suggested_role: '' }),
    ];
    const cluster = makeCluster({ hosts });
    expect(needsSuggestionReset(cluster)).toBe(true);
    const r = refreshSuggestedRoles(cluster, everyone, { enableAutoAssign: true });
    expect(r.hosts.map((h) => h.suggested_role)).toEqual(['master', 'master', 'master']);
  });

  it('does nothing beyond the reset when a host lacks inventory or auto-assign is disabled', () => {
    const hosts = [
      hw('a', 8, 32, 200),
      makeHost({ id: 'n', role: 'auto-assign', suggested_role: '', inventory: undefined }),
    ];
    const r = refreshSuggestedRoles(makeCluster({ hosts }), everyone, { enableAutoAssign: true });
    expect(r.hosts.map((h) => h.suggested_role)).toEqual(['auto-assign', 'auto-assign']);
    const off = refreshSuggestedRoles(makeCluster({ hosts: [hw('a', 8, 32, 200)] }), everyone, {
      enableAutoAssign: false,
    });
    expect(off.hosts[0]?.suggested_role).toBe('auto-assign');
  });

  it('leaves fixed roles and hosts past discovery alone; stable suggestions produce no change', () => {
    const hosts = [
      hw('a', 8, 32, 200, { role: 'worker', suggested_role: 'worker' }),
      hw('b', 8, 32, 200, { status: 'installing', suggested_role: 'master' }),
      hw('c', 8, 32, 200, { suggested_role: 'master' }),
    ];
    const r = refreshSuggestedRoles(makeCluster({ hosts }), everyone, { enableAutoAssign: true });
    expect(r.changedHostIds).toEqual([]);
    expect(r.events).toEqual([]);
  });
});

describe('autoAssignRoles (install time)', () => {
  it('copies fresh suggestions into roles; workers lose the bootstrap flag', () => {
    const hosts = [
      hw('w', 32, 256, 2000, { bootstrap: true }),
      hw('m1', 8, 32, 120),
      hw('m2', 8, 32, 130),
      hw('m3', 8, 32, 140),
      hw('fixed', 8, 32, 100, { role: 'worker' }),
    ];
    const r = autoAssignRoles(makeCluster({ hosts }), everyone);
    expect(r.hosts.map((h) => [h.id, h.role, h.suggested_role, h.bootstrap ?? false])).toEqual([
      ['w', 'worker', 'worker', false],
      ['m1', 'master', 'master', false],
      ['m2', 'master', 'master', false],
      ['m3', 'master', 'master', false],
      ['fixed', 'worker', '', false],
    ]);
    expect(r.changedHostIds).toEqual(['w', 'm1', 'm2', 'm3']);
  });

  it('needs every inventory', () => {
    const r = autoAssignRoles(
      makeCluster({ hosts: [hw('a', 8, 32, 200), makeHost({ id: 'n', inventory: undefined })] }),
      everyone,
    );
    expect(r.changedHostIds).toEqual([]);
  });

  it('withRole keeps a day-2 host pool in step with its role', () => {
    const d2 = makeHost({
      kind: 'AddToExistingClusterHost',
      role: 'auto-assign',
      machine_config_pool_name: '',
    });
    expect(withRole(d2, 'worker').machine_config_pool_name).toBe('worker');
    expect(withRole({ ...d2, machine_config_pool_name: 'infra' }, 'worker').machine_config_pool_name).toBe(
      'infra',
    );
    expect(withRole(makeHost({ role: 'master' }), 'master', 'worker')).toMatchObject({
      role: 'master',
      suggested_role: 'worker',
    });
  });
});

describe('bootstrap choice', () => {
  const c = (hosts: Host[]): Pick<Cluster, 'hosts'> => ({ hosts });

  it('keeps an existing bootstrap host', () => {
    const hosts = [makeHost({ id: 'a' }), makeHost({ id: 'b', bootstrap: true })];
    expect(chooseBootstrapHost(c(hosts))).toMatchObject({ ok: true, hostId: 'b', changed: false });
  });

  it('picks the LAST known/preparing master in record order', () => {
    const hosts = [
      makeHost({ id: 'm1' }),
      makeHost({ id: 'm2', status: 'preparing-for-installation' }),
      makeHost({ id: 'w', role: 'worker' }),
      makeHost({ id: 'm3', status: 'insufficient' }),
      makeHost({ id: 'aa', role: 'auto-assign', suggested_role: 'worker' }),
    ];
    const r = chooseBootstrapHost(c(hosts));
    if (!r.ok) throw new Error(r.error.message);
    expect([r.hostId, r.hosts.filter((h) => h.bootstrap).map((h) => h.id)]).toEqual(['m2', ['m2']]);
    expect(r.events[0]?.message).toBe('Host node-1: set as bootstrap');
  });

  it('counts auto-assign hosts suggested as master', () => {
    const r = chooseBootstrapHost(c([makeHost({ id: 'x', role: 'auto-assign', suggested_role: 'master' })]));
    expect(r.ok && r.hostId).toBe('x');
  });

  it('fails without a candidate', () => {
    expect(chooseBootstrapHost(c([makeHost({ role: 'worker' })]))).toEqual({
      ok: false,
      error: { code: 409, message: 'Cluster have no master hosts that can operate as bootstrap' },
    });
  });

  it('BOOTSTRAP_HOST_MAC forces master + bootstrap on the owner', () => {
    const h = makeHost({ role: 'auto-assign' });
    expect(applyBootstrapHostMac(h, 'aa:bb:cc:00:00:01')).toMatchObject({ role: 'master', bootstrap: true });
    expect(applyBootstrapHostMac(h, 'aa:bb:cc:00:00:02')).toBe(h);
    expect(applyBootstrapHostMac(h, undefined)).toBe(h);
    const already = makeHost({ role: 'master', bootstrap: true });
    expect(applyBootstrapHostMac(already, 'AA:BB:CC:00:00:01')).toBe(already);
  });
});
