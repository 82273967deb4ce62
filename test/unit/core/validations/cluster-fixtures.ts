// A cluster that passes every validation, and helpers to run one validation.

import type { Cluster, Host } from '../../../../src/core/model.ts';
import { type ClusterValidationInput, validateCluster } from '../../../../src/core/validations/cluster.ts';
import type { ClusterValidationId } from '../../../../src/core/validations/types.ts';
import { cluster, hostWithAddresses } from '../network/fixtures.ts';

export const NOW = new Date('2026-03-01T12:00:00Z');

export function readyHost(i: number, fields: Partial<Host> = {}): Host {
  return hostWithAddresses(`h${i}`, [`192.168.127.${10 + i}/24`], {
    role: 'master',
    status: 'known',
    timestamp: NOW.getTime() / 1000,
    ...fields,
  });
}

export function readyCluster(fields: Partial<Cluster> = {}): Cluster {
  return cluster({
    status: 'ready',
    machine_networks: [{ cidr: '192.168.127.0/24' }],
    api_vips: [{ ip: '192.168.127.100', verification: 'succeeded' }],
    ingress_vips: [{ ip: '192.168.127.101', verification: 'succeeded' }],
    hosts: [readyHost(0), readyHost(1), readyHost(2)],
    ...fields,
  });
}

export function run(c: Cluster, extra: Partial<ClusterValidationInput> = {}) {
  return validateCluster({ cluster: c, now: NOW, ...extra });
}

/** The outcome of one validation: [status, message]. */
export function outcome(
  c: Cluster,
  id: ClusterValidationId,
  extra: Partial<ClusterValidationInput> = {},
): [string, string] {
  const o = run(c, extra).outcomes.find((x) => x.id === id);
  if (!o) throw new Error(`no outcome ${id}`);
  return [o.status, o.message];
}
