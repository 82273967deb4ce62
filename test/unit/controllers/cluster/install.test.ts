import { describe, expect, it } from 'vitest';
import {
  day2HostsToInstall,
  defaultMonitoredOperators,
  installBlocker,
  installDay2Host,
  startDay1Installation,
} from '../../../../src/controllers/cluster/install.ts';
import { agentCluster, agentHost, NOW, readySno } from './fixtures.ts';

const SNO = { controlPlane: 1, workers: 0, arbiters: 0 };
const fitsAll = () => true;

describe('installBlocker', () => {
  it('lets a ready, unheld cluster with exactly the required known, approved hosts start', () => {
    expect(
      installBlocker({ cluster: readySno(), requirements: SNO, held: false, unsyncedAgents: 0 }),
    ).toBeUndefined();
  });

  it('holds a held cluster', () => {
    expect(installBlocker({ cluster: readySno(), requirements: SNO, held: true, unsyncedAgents: 0 })).toBe(
      'installation is held',
    );
  });

  it('waits for a ready cluster', () => {
    const cluster = readySno({ status: 'insufficient' });
    expect(installBlocker({ cluster, requirements: SNO, held: false, unsyncedAgents: 0 })).toBe(
      'cluster status is insufficient',
    );
  });

  it('needs exactly the required number of known hosts', () => {
    const cluster = readySno();
    cluster.hosts.push(agentHost({ id: 'h2', role: 'worker', suggested_role: 'worker' }));
    expect(installBlocker({ cluster, requirements: SNO, held: false, unsyncedAgents: 0 })).toBe(
      '2 hosts are known, 1 are required',
    );
  });

  it('reports unapproved and unsynced Agents with the RequirementsMet message', () => {
    const unapproved = readySno({ hosts: [agentHost({ id: 'h1', approved: false })] });
    expect(installBlocker({ cluster: unapproved, requirements: SNO, held: false, unsyncedAgents: 0 })).toBe(
      'The installation is pending on the approval of 1 agents',
    );
    expect(installBlocker({ cluster: readySno(), requirements: SNO, held: false, unsyncedAgents: 1 })).toBe(
      'The cluster currently has 1 agents with spec error',
    );
  });

  it('needs the suggested roles to match the requirements', () => {
    const cluster = readySno({
      hosts: [agentHost({ id: 'h1', role: 'auto-assign', suggested_role: 'worker' })],
    });
    expect(installBlocker({ cluster, requirements: SNO, held: false, unsyncedAgents: 0 })).toContain(
      'requires exactly 1 master agents',
    );
  });

  it('never starts a day-2 cluster', () => {
    const cluster = readySno({ kind: 'AddHostsCluster', status: 'adding-hosts' });
    expect(installBlocker({ cluster, requirements: SNO, held: false, unsyncedAgents: 0 })).toBe(
      'cluster kind is AddHostsCluster',
    );
  });
});

describe('startDay1Installation', () => {
  it('moves the cluster to preparing-for-installation and keeps the SNO bootstrap', () => {
    const r = startDay1Installation(readySno(), fitsAll, { now: NOW });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.cluster.status).toBe('preparing-for-installation');
    expect(r.cluster.install_started_at).toBe(NOW.toISOString());
    expect(r.cluster.last_installation_preparation).toEqual({
      status: 'not_started',
      reason: 'not performed',
    });
    expect(r.cluster.hosts[0]?.bootstrap).toBe(true);
    expect(r.cluster.hosts[0]?.approved).toBe(true);
  });

  it('assigns auto-assign roles and picks a bootstrap master', () => {
    const hosts = [0, 1, 2, 3, 4].map((i) =>
      agentHost({ id: `h${i}`, role: 'auto-assign', suggested_role: i < 3 ? 'master' : 'worker' }),
    );
    const cluster = agentCluster({ status: 'ready', control_plane_count: 3, hosts });
    const r = startDay1Installation(cluster, fitsAll, { now: NOW });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const roles = r.cluster.hosts.map((h) => h.role).sort();
    expect(roles).toEqual(['master', 'master', 'master', 'worker', 'worker']);
    const bootstraps = r.cluster.hosts.filter((h) => h.bootstrap);
    expect(bootstraps).toHaveLength(1);
    expect(bootstraps[0]?.role).toBe('master');
    expect(r.changedHostIds.sort()).toEqual(['h0', 'h1', 'h2', 'h3', 'h4']);
  });

  it('refuses a cluster that is not ready', () => {
    const r = startDay1Installation(readySno({ status: 'insufficient', status_info: 'x' }), fitsAll, {
      now: NOW,
    });
    expect(r).toMatchObject({ ok: false, code: 409 });
  });
});

describe('day 2', () => {
  it('installs known, approved day-2 hosts of an adding-hosts cluster', () => {
    const cluster = agentCluster({
      kind: 'AddHostsCluster',
      status: 'adding-hosts',
      hosts: [
        agentHost({ id: 'a', kind: 'AddToExistingClusterHost', role: 'worker', status: 'known' }),
        agentHost({
          id: 'b',
          kind: 'AddToExistingClusterHost',
          role: 'worker',
          status: 'known',
          approved: false,
        }),
        agentHost({ id: 'c', kind: 'AddToExistingClusterHost', role: 'worker', status: 'insufficient' }),
      ],
    });
    const todo = day2HostsToInstall(cluster);
    expect(todo.map((h) => h.id)).toEqual(['a']);
    const r = installDay2Host(todo[0]!, { now: NOW });
    expect(r.ok && r.host.status).toBe('installing');
    expect(r.ok && r.host.approved).toBe(true);
    expect(day2HostsToInstall(readySno())).toEqual([]);
  });
});

it('monitors console and cvo on every day-1 cluster', () => {
  expect(defaultMonitoredOperators().map((o) => [o.name, o.operator_type])).toEqual([
    ['console', 'builtin'],
    ['cvo', 'builtin'],
  ]);
});
