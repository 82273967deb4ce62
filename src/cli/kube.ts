// Reads one cluster's objects for the CLI through the runtime KubeClient (kubeconfig from
// $KUBECONFIG or ~/.kube/config, as kubectl).

import { KubeConfig } from '@kubernetes/client-node';
import type { Agent, AgentClusterInstall, ClusterDeployment } from '../api/index.ts';
import { AGENT, AGENT_CLUSTER_INSTALL, CLUSTER_DEPLOYMENT } from '../records/resources.ts';
import { ApiError, KubeClient } from '../runtime/client.ts';
import type { ClusterSnapshot } from './status.ts';

export function cliClient(): KubeClient {
  const kc = new KubeConfig();
  kc.loadFromDefault();
  return new KubeClient({ kubeConfig: kc, qps: 0, userAgent: 'agent-install-cli' });
}

function boundTo(a: Agent, name: string, namespace: string): boolean {
  const ref = a.spec.clusterDeploymentName;
  return ref?.name === name && (ref.namespace ?? a.metadata.namespace) === namespace;
}

/**
 * The ClusterDeployment `namespace/name`, its AgentClusterInstall (by clusterInstallRef, else the
 * same name) and the Agents bound to it. Agents may live in another namespace (the InfraEnv's), so
 * all namespaces are listed when allowed; a user limited to one namespace sees that namespace's.
 */
export async function readCluster(
  client: KubeClient,
  name: string,
  namespace: string,
): Promise<ClusterSnapshot> {
  const clusterDeployment = await client.getIfExists<ClusterDeployment>(CLUSTER_DEPLOYMENT, name, namespace);
  const aciName = clusterDeployment?.spec.clusterInstallRef?.name ?? name;
  const agentClusterInstall = await client.getIfExists<AgentClusterInstall>(
    AGENT_CLUSTER_INSTALL,
    aciName,
    namespace,
  );
  let agents: Agent[];
  try {
    agents = (await client.list<Agent>(AGENT)).items;
  } catch (err) {
    if (!(err instanceof ApiError) || err.statusCode !== 403) throw err;
    agents = (await client.list<Agent>(AGENT, { namespace })).items;
  }
  return {
    clusterDeployment,
    agentClusterInstall,
    agents: agents.filter((a) => boundTo(a, name, namespace)),
  };
}
