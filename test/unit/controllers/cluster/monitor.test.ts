import { describe, expect, it } from 'vitest';
import {
  clusterValidations,
  monitorCluster,
  nextClusterDeadlineMs,
} from '../../../../src/controllers/cluster/monitor.ts';
import { ago, HOUR, MIN } from '../../core/statemachine/fixtures.ts';
import { agentCluster, agentHost, NOW, readySno } from './fixtures.ts';

const always = () => true;
const base = { now: NOW, installed: false, specMachineNetworks: true, hostFactsReady: always };

describe('monitorCluster', () => {
  it('keeps a ready SNO cluster ready and writes its validations', () => {
    const r = monitorCluster({ ...base, cluster: readySno() });
    expect(r.errors).toEqual([]);
    expect(r.cluster.status).toBe('ready');
    expect(
      r.cluster.validations_info?.['hosts-data']?.find((v) => v.id === 'sufficient-masters-count')?.status,
    ).toBe('success');
    expect(r.cluster.schedulable_masters_forced_true).toBe(true);
  });

  it('stores the connectivity its caller gives (the controller paces the computation)', () => {
    const given = {
      groups: '{"majority_groups":{"IPv4":[]},"l3_connected_addresses":{}}',
      ipCollisions: '{}',
    };
    const asked: number[] = [];
    const r = monitorCluster({
      ...base,
      cluster: readySno(),
      connectivityOf: (hosts, minGroupSize) => {
        asked.push(hosts.length, minGroupSize);
        return given;
      },
    });
    expect(asked).toEqual([1, 3]);
    expect(r.cluster.connectivity_majority_groups).toBe(given.groups);
    expect(r.cluster.ip_collisions).toBe('{}');
  });

  it('turns an installed day-1 cluster into an adding-hosts cluster only once it is regarded installed', () => {
    const installed = readySno({ status: 'installed', status_info: 'Cluster is installed' });
    expect(monitorCluster({ ...base, cluster: installed }).cluster.status).toBe('installed');
    const r = monitorCluster({ ...base, installed: true, cluster: installed });
    expect(r.cluster.status).toBe('adding-hosts');
    expect(r.cluster.kind).toBe('AddHostsCluster');
    expect(r.cluster.api_vip_dns_name).toBe('api.demo.example.com');
    expect(r.cluster.status_info).toBe('Cluster is installed');
  });

  it('moves an installing cluster on and recomputes its progress', () => {
    const cluster = readySno({
      status: 'installing',
      status_info: 'Installation in progress',
      install_started_at: ago(30 * MIN),
      progress: { preparing_for_installation_stage_percentage: 100, total_percentage: 10 },
      hosts: [
        agentHost({
          id: 'h1',
          bootstrap: true,
          status: 'installing-in-progress',
          progress: { current_stage: 'Writing image to disk' },
        }),
      ],
    });
    const r = monitorCluster({ ...base, cluster });
    expect(r.cluster.status).toBe('installing');
    expect(r.cluster.progress?.installing_stage_percentage).toBeGreaterThan(0);
    expect(r.cluster.progress?.total_percentage).toBeGreaterThan(10);
  });

  it('calculates machine networks only when the spec names none', () => {
    const cluster = agentCluster({
      status: 'insufficient',
      machine_networks: [],
      hosts: [agentHost({ id: 'h1', status: 'known' })],
    });
    expect(monitorCluster({ ...base, cluster }).cluster.machine_networks).toEqual([]);
    const r = monitorCluster({ ...base, specMachineNetworks: false, cluster });
    expect(r.cluster.machine_networks).toEqual([{ cidr: '192.168.1.0/24' }]);
  });

  it('records the cluster timing out while preparing, with the hosts it resets', () => {
    const cluster = readySno({
      status: 'preparing-for-installation',
      status_updated_at: ago(11 * MIN),
      last_installation_preparation: { status: 'not_started', reason: '' },
      hosts: [agentHost({ id: 'h1', bootstrap: true, status: 'preparing-for-installation' })],
    });
    const r = monitorCluster({ ...base, cluster });
    expect(r.cluster.status).toBe('ready');
    expect(r.cluster.status_info).toBe('Preparing cluster for installation timeout');
    expect(r.events.some((e) => e.name === 'cluster_preparation_timed_out')).toBe(true);
  });
});

describe('clusterValidations during warm-up', () => {
  it('keeps the stored result of validations that need in-memory host facts', () => {
    const cluster = agentCluster({
      status: 'ready',
      hosts: [agentHost({ id: 'h1' }), agentHost({ id: 'h2' }), agentHost({ id: 'h3' })],
      validations_info: {
        network: [{ id: 'api-vips-valid', status: 'success', message: 'stored before the restart' }],
      },
    });
    const cold = clusterValidations(cluster, NOW, undefined, false);
    const api = cold.info.network?.find((v) => v.id === 'api-vips-valid');
    expect(api).toEqual({ id: 'api-vips-valid', status: 'success', message: 'stored before the restart' });
    expect(cold.conditions['api-vips-valid']).toBe(true);
    const warm = clusterValidations(cluster, NOW, undefined, true);
    expect(warm.info.network?.find((v) => v.id === 'api-vips-valid')?.message).not.toBe(
      'stored before the restart',
    );
  });

  it('computes nothing outside the validated statuses', () => {
    expect(clusterValidations(readySno({ status: 'installing' }), NOW, undefined, true).computed).toBe(false);
  });
});

describe('nextClusterDeadlineMs', () => {
  it('wakes at the preparing timeout', () => {
    const cluster = readySno({ status: 'preparing-for-installation', status_updated_at: ago(4 * MIN) });
    expect(nextClusterDeadlineMs(cluster, NOW)).toBe(6 * MIN + 1000);
  });

  it('wakes at the earliest of the installation, finalizing and stage timeouts', () => {
    const cluster = readySno({
      status: 'finalizing',
      install_started_at: ago(2 * HOUR),
      status_updated_at: ago(HOUR),
      progress: { finalizing_stage: 'Adding router ca', finalizing_stage_started_at: ago(60 * MIN) },
    });
    expect(nextClusterDeadlineMs(cluster, NOW)).toBe(10 * MIN + 1000);
  });

  it('honours configured timeouts and has nothing to wait for when ready', () => {
    const cluster = readySno({ status: 'installing', install_started_at: ago(MIN) });
    expect(nextClusterDeadlineMs(cluster, NOW, { installationTimeoutMs: 2 * MIN })).toBe(MIN + 1000);
    expect(nextClusterDeadlineMs(readySno(), NOW)).toBeUndefined();
  });
});
