// An imported ("day-2") cluster for tests of spoke-side work: an installed ClusterDeployment and
// its AgentClusterInstall whose admin kubeconfig Secret holds `kubeconfig` (usually the harness's
// own, so the test API server plays the spoke), and an InfraEnv bound to it whose hosts register
// as day-2 hosts.
import { randomUUID } from 'node:crypto';
import type { Agent, AgentClusterInstall, InfraEnv } from '../../../src/api/index.ts';
import { EVENT, SECRET } from '../../../src/records/resources.ts';
import type { KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { eventually, uniqueName } from '../../harness/env.ts';
import type { TestOperator } from '../../harness/operator.ts';
import { call, createInfraEnv, inventory, waitForAgent } from '../hosts/helpers.ts';
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

/**
 * A day-2 host registered into `cluster` over the REST API with an inventory (hostname and MAC
 * derived from its id unless given); resolves once its Agent shows the inventory.
 */
export async function registerDay2Host(opts: {
  client: KubeClient;
  op: TestOperator;
  ns: string;
  cluster: ImportedCluster;
  mac?: string;
  hostname?: string;
}): Promise<{ id: string; hostname: string; agent: Agent }> {
  const { client, op, ns, cluster } = opts;
  const id = randomUUID();
  const hostname = opts.hostname ?? uniqueName('worker');
  const mac = opts.mac ?? `52:54:00:${id.slice(0, 2)}:${id.slice(2, 4)}:${id.slice(4, 6)}`;
  const base = `/v2/infra-envs/${cluster.ie.metadata.uid}/hosts`;
  const token = cluster.token;
  const registered = await call(op.baseUrl, 'POST', base, { token, body: { host_id: id } });
  if (registered.status !== 201) throw new Error(`register: ${registered.status} ${registered.text}`);
  await call(op.baseUrl, 'POST', `${base}/${id}/instructions`, {
    token,
    body: { step_type: 'inventory', output: inventory(hostname, mac) },
  });
  const agent = await waitForAgent(
    client,
    ns,
    id,
    (a) => a.status?.kind === 'AddToExistingClusterHost' && a.status?.inventory?.hostname === hostname,
    'day-2 host with inventory',
  );
  return { id, hostname, agent };
}

/** The first Event about `name` with `reason`, waiting for it. */
export function eventFor(
  client: KubeClient,
  ns: string,
  name: string,
  reason: string,
): Promise<KubeObject & { reason?: string; message?: string; type?: string }> {
  return eventually(
    async () => {
      const list = await client.list<KubeObject & { reason?: string; message?: string; type?: string }>(
        EVENT,
        {
          namespace: ns,
          fieldSelector: `involvedObject.name=${name}`,
        },
      );
      return list.items.find((e) => e.reason === reason);
    },
    { what: `${reason} event on ${name}` },
  );
}
