// Smoke test of the whole install path with every controller and the REST API: one simulated
// host boots against an SNO cluster and the cluster ends installed and handed off (the full SNO
// and 3+2 scenarios live with the end-to-end tests).

import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Agent, InfraEnv } from '../../../src/api/index.ts';
import { AGENT, INFRA_ENV } from '../../../src/records/resources.ts';
import { type Fleet, startFleet } from '../../../src/sim/index.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import {
  clusterDeploymentObject,
  condition,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallyAci,
  getCd,
  snoAciObject,
} from './harness.ts';

let op: TestOperator;
let fleet: Fleet | undefined;

beforeAll(async () => {
  // Scoped to its namespace so it leaves the other test files' clusters alone.
  const namespace = await newNamespace('sim');
  op = await startTestOperator({ namespace, env: { WATCH_NAMESPACE: namespace } });
});
afterAll(async () => {
  await fleet?.stop();
  await op?.stop();
});

it('installs a simulated single-node cluster to completion', async () => {
  const client = op.ctx.client;
  const ns = op.namespace;
  await createPullSecret(client, ns);
  const cis = await createImageSet(client);
  const name = uniqueName('simsno');
  const aci = snoAciObject(ns, name, cis);
  // No machine network: the monitor calculates it from the host (SNO rule).
  delete aci.spec.networking.machineNetwork;
  await createCluster(client, clusterDeploymentObject(ns, name), aci);
  const ie = await client.create<InfraEnv>(INFRA_ENV, {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace: ns },
    spec: {
      clusterRef: { name, namespace: ns },
      pullSecretRef: { name: 'pull-secret' },
      agentApproval: { autoApprove: true },
    },
  } as InfraEnv);
  await eventuallyAci(client, ns, name, (a) => !!a.status?.backend?.clusterID, 'cluster registered');

  fleet = await startFleet({
    config: {
      serviceUrl: op.baseUrl,
      infraEnvId: ie.metadata.uid ?? '',
      agentVersion: op.ctx.settings.agentImage,
      insecure: true,
      trustAnchors: [],
      token: op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' }),
      proxy: {},
      agentFlags: {},
    },
    hosts: 1,
    speed: 200,
    machine: { seed: name },
  });

  const done = await eventuallyAci(
    client,
    ns,
    name,
    (a) => a.status?.debugInfo?.state === 'adding-hosts',
    'installed and day 2',
    150_000,
  );
  expect(condition(done, 'Completed')).toMatchObject({ status: 'True', reason: 'InstallationCompleted' });
  expect(done.spec.clusterMetadata?.adminPasswordSecretRef?.name).toBe(`${name}-admin-password`);
  const cd = await getCd(client, ns, name);
  expect(cd.spec.installed).toBe(true);
  await eventually(async () => fleet?.stats.clustersCompleted === 1, { what: 'controller completed' });

  // A Done host keeps its role's stage list with the final stage and percentage.
  const [agent] = (await client.list<Agent>(AGENT, { namespace: ns })).items;
  expect(agent?.status?.progress).toMatchObject({
    currentStage: 'Done',
    installationPercentage: 100,
    progressStages: [
      'Starting installation',
      'Installing',
      'Waiting for bootkube',
      'Writing image to disk',
      'Copying registry data to disk',
      'Rebooting',
      'Joined',
      'Done',
    ],
  });
}, 200_000);
