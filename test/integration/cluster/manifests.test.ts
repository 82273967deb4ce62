// A manifests ConfigMap that is missing or refused does not stop the cluster from being
// registered (upstream syncs manifests after registration): the bound InfraEnv gets its image, a
// simulated host registers and the cluster gets ready, SpecSynced says why nothing installs, and
// fixing the ConfigMap starts the installation. Whole operator, REST API and one simulated host.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { InfraEnv } from '../../../src/api/index.ts';
import { CONFIG_MAP, INFRA_ENV } from '../../../src/records/resources.ts';
import { type Fleet, startFleet } from '../../../src/sim/index.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { buildTestIso } from '../../harness/iso.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient } from '../hosts/helpers.ts';
import { serveFile, setTestOsImage } from '../infraenv/fixtures.ts';
import {
  clusterDeploymentObject,
  condition,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallyAci,
  snoAciObject,
} from './harness.ts';

// This suite's entry in the shared AgentServiceConfig (each suite uses its own arch/version: an
// x86_64 4.18 entry here would change what the other suites' 4.18 InfraEnvs are served).
const OS_IMAGE = { cpuArchitecture: 'x86_64', openshiftVersion: '4.16', version: '416.94.202501010000-0' };
const RELEASE_IMAGE_4_16 = 'quay.io/openshift-release-dev/ocp-release:4.16.2-x86_64';

let op: TestOperator;
let fleet: Fleet | undefined;
let isoDir: string | undefined;
let files: Awaited<ReturnType<typeof serveFile>> | undefined;

beforeAll(async () => {
  const namespace = await newNamespace('manifests');
  isoDir = await mkdtemp(join(tmpdir(), 'aio-manifests-iso-'));
  const iso = await buildTestIso(isoDir, { rhcosVersion: OS_IMAGE.version });
  files = await serveFile(iso.path);
  await setTestOsImage(adminClient(), files.url, true, OS_IMAGE);
  op = await startTestOperator({ namespace, env: { WATCH_NAMESPACE: namespace } });
}, 120_000);
afterAll(async () => {
  if (files) await setTestOsImage(adminClient(), files.url, false, OS_IMAGE).catch(() => {});
  await fleet?.stop();
  await op?.stop();
  await files?.close();
  if (isoDir) await rm(isoDir, { recursive: true, force: true });
});

it('registers the cluster despite a missing, then refused, manifests ConfigMap; fixing it starts the install', async () => {
  const client = op.ctx.client;
  const ns = op.namespace;
  await createPullSecret(client, ns);
  const cis = await createImageSet(client, uniqueName('cis'), RELEASE_IMAGE_4_16);
  const name = uniqueName('manifests');
  const cmName = `${name}-manifests`;
  const aciObj = snoAciObject(ns, name, cis, { manifestsConfigMapRefs: [{ name: cmName }] });
  delete aciObj.spec.networking.machineNetwork;
  const { cd } = await createCluster(client, clusterDeploymentObject(ns, name), aciObj);
  const clusterId = cd.metadata.uid ?? '';
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

  // Registered although the ConfigMap is missing.
  let aci = await eventuallyAci(
    client,
    ns,
    name,
    (a) => a.status?.backend?.clusterID === clusterId,
    'cluster registered',
  );
  expect(condition(aci, 'SpecSynced')).toMatchObject({
    status: 'False',
    reason: 'BackendError',
    message: `The Spec could not be synced due to backend error: configmaps "${cmName}" not found`,
  });
  // The bound InfraEnv gets its image (it stayed MissingClusterDeployment before).
  const withImage = await eventually(
    async () => {
      const live = await client.get<InfraEnv>(INFRA_ENV, name, ns);
      const created = live.status?.conditions?.find((c) => c.type === 'ImageCreated');
      return created?.reason === 'InfraEnvAvailable' ? live : undefined;
    },
    { what: 'InfraEnv image created', timeoutMs: 30_000 },
  );
  expect(withImage.status?.isoDownloadURL).toBeTruthy();

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

  // The host registers and the cluster gets ready, but the install is blocked by the sync error:
  // the reconcile that found it ready would have started it.
  aci = await eventuallyAci(
    client,
    ns,
    name,
    (a) => condition(a, 'RequirementsMet')?.reason === 'ClusterIsReady',
    'ready',
    120_000,
  );
  expect(condition(aci, 'RequirementsMet')?.status).toBe('True');
  expect(aci.status?.debugInfo?.state).toBe('ready');
  expect(condition(aci, 'SpecSynced')?.reason).toBe('BackendError');
  expect(condition(aci, 'Completed')?.reason).toBe('InstallationNotStarted');
  expect(aci.status?.backend?.installStartedAt).toBeUndefined();

  // A ConfigMap with a file the backend refuses: InputError, still not installing. Created
  // unlabelled, as a user would: the 1-minute manifests requeue finds it.
  await client.create(CONFIG_MAP, {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: cmName, namespace: ns },
    data: { '99-extra.txt': 'kind: ConfigMap\n' },
  } as never);
  aci = await eventuallyAci(
    client,
    ns,
    name,
    (a) => condition(a, 'SpecSynced')?.reason === 'InputError',
    'InputError for the file name',
    90_000,
  );
  expect(condition(aci, 'SpecSynced')?.message).toBe(
    `The Spec could not be synced due to an input error: Manifest filename of file openshift/99-extra.txt for cluster ID ${clusterId} is invalid. Only json, yaml and yml extensions are supported`,
  );
  expect(aci.status?.debugInfo?.state).toBe('ready');
  expect(aci.status?.backend?.installStartedAt).toBeUndefined();

  // Fixed (the ConfigMap is labelled for the cache now): the installation starts.
  await client.patch(CONFIG_MAP, cmName, ns, 'merge', {
    data: {
      '99-extra.txt': null,
      '99-extra.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: default\n',
    },
  });
  aci = await eventuallyAci(
    client,
    ns,
    name,
    (a) => !!a.status?.backend?.installStartedAt,
    'installation started',
    60_000,
  );
  expect(condition(aci, 'SpecSynced')).toMatchObject({ status: 'True', reason: 'SyncOK' });
  // The preparation runs with the user manifest (and is done writing before the operator stops).
  await eventuallyAci(
    client,
    ns,
    name,
    (a) => a.status?.backend?.lastInstallationPreparation?.status === 'success',
    'preparation succeeded',
    60_000,
  );
}, 300_000);
