// Cluster and host records for the cluster controller's unit tests.

import type { Cluster, Host } from '../../../../src/core/model.ts';
import type { AgentCluster, AgentHost } from '../../../../src/records/index.ts';
import { makeCluster, makeHost, NOW } from '../../core/statemachine/fixtures.ts';

export { NOW };

export function agentHost(overrides: Partial<Host> & { approved?: boolean } = {}): AgentHost {
  const { approved, ...rest } = overrides;
  return { ...makeHost(rest), approved: approved ?? true };
}

type ClusterOverrides = Partial<Omit<Cluster, 'hosts'>> & { hosts?: AgentHost[] };

export function agentCluster(overrides: ClusterOverrides = {}): AgentCluster {
  return makeCluster(overrides) as AgentCluster;
}

/** An SNO cluster (UMN, one known master) that is ready to install. */
export function readySno(overrides: ClusterOverrides = {}): AgentCluster {
  return agentCluster({
    id: 'c1',
    status: 'ready',
    status_info: 'Cluster ready to be installed',
    control_plane_count: 1,
    platform: { type: 'none' },
    user_managed_networking: true,
    api_vips: [],
    ingress_vips: [],
    network_type: 'OVNKubernetes',
    pull_secret_set: true,
    hosts: [agentHost({ id: 'h1', role: 'master', suggested_role: 'master', bootstrap: true })],
    ...overrides,
  });
}
