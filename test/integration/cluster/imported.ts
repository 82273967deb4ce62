// An imported ("day-2") cluster for tests of spoke-side work: an installed ClusterDeployment and
// its AgentClusterInstall whose admin kubeconfig Secret holds `kubeconfig` (usually the harness's
// own, so the test API server plays the spoke), and an InfraEnv bound to it whose hosts register
// as day-2 hosts.
import { randomUUID } from 'node:crypto';
import type { AgentClusterInstall, InfraEnv } from '../../../src/api/index.ts';
import { SECRET } from '../../../src/operator/resources.ts';
import type { KubeClient } from '../../../src/runtime/index.ts';
import { eventually, uniqueName } from '../../harness/env.ts';
import type { TestOperator } from '../../harness/operator.ts';
import { createInfraEnv } from '../hosts/helpers.ts';
import { clusterDeploymentObject, createCluster, eventuallyAci, snoAciObject } from './harness.ts';

export interface ImportedCluster {
  name: string;
  ie: InfraEnv;
  /** Agent token of the InfraEnv, for REST calls as its hosts. */
  token: string;
}

export async function importedCluster(opts: {
  client: KubeClient;
  op: TestOperator;
  ns: string;
  kubeconfig: string;
  prefix?: string;
  /** ACI spec fields over the SNO defaults (e.g. a multi-node baremetal platform). */
  aciSpec?: Partial<AgentClusterInstall['spec']>;
}): Promise<ImportedCluster> {
  const { client, op, ns } = opts;
  const name = uniqueName(opts.prefix ?? 'day2');
  const secret = `${name}-admin-kubeconfig`;
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: secret, namespace: ns },
    data: { kubeconfig: Buffer.from(opts.kubeconfig).toString('base64') },
  } as never);
  const cd = clusterDeploymentObject(ns, name, { installed: true });
  delete cd.spec.pullSecretRef;
  const aci = snoAciObject(ns, name, 'unused', {
    clusterMetadata: { clusterID: randomUUID(), infraID: name, adminKubeconfigSecretRef: { name: secret } },
    ...opts.aciSpec,
  });
  delete aci.spec.imageSetRef;
  await createCluster(client, cd, aci);
  await eventuallyAci(client, ns, name, (a) => a.status?.debugInfo?.state === 'adding-hosts', 'adding-hosts');
  const ie = await createInfraEnv(client, ns, name, { clusterRef: { name, namespace: ns } });
  await eventually(async () => op.ctx.infraEnvById(ie.metadata.uid ?? ''), { what: 'InfraEnv in cache' });
  return {
    name,
    ie,
    token: op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
  };
}
