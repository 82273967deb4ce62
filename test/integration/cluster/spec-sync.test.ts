// ClusterDeployment + AgentClusterInstall on the real API server: finalizers, ownerReference,
// SpecSynced and the other conditions, and every input problem reported with upstream's text and
// unblocked once fixed.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENTCLUSTERINSTALL_FINALIZER,
  CLUSTERDEPLOYMENT_FINALIZER,
  INSTALL_CONFIG_OVERRIDES_ANNOTATION,
} from '../../../src/api/index.ts';
import {
  AGENT_CLUSTER_INSTALL,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  CONFIG_MAP,
  SECRET,
} from '../../../src/records/resources.ts';
import type { KubeObject } from '../../../src/runtime/index.ts';
import { reconcilesDone } from '../../harness/barriers.ts';
import { uniqueName } from '../../harness/env.ts';
import { patchIfUnchanged } from '../../harness/unchanged.ts';
import {
  type ClusterTestOperator,
  clusterDeploymentObject,
  condition,
  createCluster,
  createImageSet,
  createPullSecret,
  eventuallyAci,
  eventuallySpecSynced,
  getCd,
  PULL_SECRET,
  RELEASE_IMAGE,
  snoAciObject,
  startClusterOperator,
} from './harness.ts';

let op: ClusterTestOperator;

beforeAll(async () => {
  op = await startClusterOperator();
});
afterAll(async () => {
  await op?.stop();
});

const syncOk = (aci: Parameters<typeof condition>[0]) => condition(aci, 'SpecSynced')?.reason === 'SyncOK';

describe('a new cluster', () => {
  it('gets finalizers, an ownerReference, SyncOK and the insufficient-state conditions', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    const { cd } = await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(ns, name, cis),
    );

    const aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => syncOk(a) && !!a.status?.debugInfo?.state,
      'SyncOK',
    );
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      status: 'True',
      reason: 'SyncOK',
      message: 'SyncOK',
    });
    expect(aci.status?.debugInfo?.state).toBe('insufficient');
    expect(condition(aci, 'RequirementsMet')).toMatchObject({ status: 'False', reason: 'ClusterNotReady' });
    expect(condition(aci, 'Completed')).toMatchObject({ status: 'False', reason: 'InstallationNotStarted' });
    expect(condition(aci, 'Failed')).toMatchObject({ status: 'False', reason: 'InstallationNotFailed' });
    expect(condition(aci, 'Stopped')).toMatchObject({ status: 'False', reason: 'InstallationNotStopped' });
    expect(condition(aci, 'Validated')).toMatchObject({ status: 'False', reason: 'ValidationsFailing' });
    expect(condition(aci, 'Validated')?.message).toContain(
      'Single-node clusters must have a single control plane node',
    );
    expect(aci.status?.backend?.clusterID).toBe(cd.metadata.uid);
    expect(aci.status?.backend?.openshiftVersion).toBe('4.18.1');
    expect(aci.status?.backend?.releaseImage).toBe(RELEASE_IMAGE);
    expect(aci.status?.backend?.monitoredOperators?.map((o) => o.name)).toEqual(['console', 'cvo']);
    expect(aci.status?.platformType).toBe('None');
    expect(aci.status?.userManagedNetworking).toBe(true);
    // Counters upstream leaves empty are filled in.
    expect(aci.status?.controlPlaneAgentsDiscovered).toBe(0);
    expect(aci.status?.debugInfo?.eventsURL).toMatch(
      new RegExp(`/api/assisted-install/v2/events\\?api_key=.+&cluster_id=${cd.metadata.uid}$`),
    );
    expect(aci.metadata.finalizers).toContain(AGENTCLUSTERINSTALL_FINALIZER);
    expect(aci.metadata.ownerReferences).toEqual([
      expect.objectContaining({ kind: 'ClusterDeployment', name, uid: cd.metadata.uid }),
    ]);
    const liveCd = await getCd(op.client, ns, name);
    expect(liveCd.metadata.finalizers).toContain(CLUSTERDEPLOYMENT_FINALIZER);

    // Idle: another pass finds nothing to change and writes nothing. The barrier: that pass has
    // run (no key queued or in flight after the enqueue); then the ACI must still be as seen.
    op.ctx.bus.enqueue('clusterdeployment', `${ns}/${name}`);
    await reconcilesDone(op.ctx.mgr, 'the enqueued ClusterDeployment');
    await patchIfUnchanged(op.client, AGENT_CLUSTER_INSTALL, aci, {
      metadata: { labels: { checked: 'yes' } },
    });
  });
});

describe('input problems', () => {
  it('a missing ClusterImageSet is a BackendError with the Unknown set, until it exists', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = uniqueName('cis');
    const name = uniqueName('sno');
    await createCluster(op.client, clusterDeploymentObject(ns, name), snoAciObject(ns, name, cis));
    const aci = await eventuallySpecSynced(op.client, ns, name, 'ClusterImageSet');
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      reason: 'BackendError',
      message: `The Spec could not be synced due to backend error: ClusterImageSet ${cis} not found. Please ensure the ClusterImageSet exists`,
    });
    for (const type of ['Validated', 'RequirementsMet', 'Completed', 'Failed', 'Stopped']) {
      expect(condition(aci, type)).toMatchObject({
        status: 'Unknown',
        reason: 'NotAvailable',
        message: 'Information not available',
      });
    }
    expect(aci.status?.debugInfo).toMatchObject({ eventsURL: '', logsURL: '' });
    await op.client.create(CLUSTER_IMAGE_SET, {
      apiVersion: 'hive.openshift.io/v1',
      kind: 'ClusterImageSet',
      metadata: { name: cis },
      spec: { releaseImage: RELEASE_IMAGE },
    } as never);
    await eventuallyAci(op.client, ns, name, syncOk, 'SyncOK after the ClusterImageSet appears');
  });

  it('a missing pull secret is reported, and fixed once the Secret exists', async () => {
    const ns = op.namespace;
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    const secret = uniqueName('ps');
    await createCluster(
      op.client,
      clusterDeploymentObject(ns, name, { pullSecretRef: { name: secret } }),
      snoAciObject(ns, name, cis),
    );
    const aci = await eventuallySpecSynced(op.client, ns, name, 'pull secret');
    expect(condition(aci, 'SpecSynced')?.message).toBe(
      `The Spec could not be synced due to backend error: failed to validate pull secret for ClusterDeployment ${name}/${ns}: failed to find secret ${secret}`,
    );
    await createPullSecret(op.client, ns, secret);
    // An unlabelled Secret is not watched (upstream quirk 16); the 10 s backend-error requeue finds it.
    await eventuallyAci(op.client, ns, name, syncOk, 'SyncOK after the pull secret appears', 30_000);
  });

  it('an invalid or keyless pull Secret is a BackendError; replacing its content re-reconciles', async () => {
    const ns = op.namespace;
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    const secret = uniqueName('ps');
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const prefix = `The Spec could not be synced due to backend error: failed to validate pull secret for ClusterDeployment ${name}/${ns}: `;
    // `auth` decodes to "nocolon": not user:password.
    const badAuth = b64('nocolon');
    await op.client.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secret, namespace: ns },
      type: 'Opaque',
      data: { '.dockerconfigjson': b64(JSON.stringify({ auths: { 'quay.io': { auth: badAuth } } })) },
    } as never);
    await createCluster(
      op.client,
      clusterDeploymentObject(ns, name, { pullSecretRef: { name: secret } }),
      snoAciObject(ns, name, cis),
    );
    let aci = await eventuallySpecSynced(op.client, ns, name, 'invalid pull secret data');
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      status: 'False',
      reason: 'BackendError',
      message: `${prefix}invalid pull secret data in secret ${secret}: invalid pull secret: 'auth' for quay.io is not in 'user:password' format`,
    });
    expect(JSON.stringify(aci.status)).not.toContain(badAuth);
    expect(condition(aci, 'Completed')).toMatchObject({ status: 'Unknown', reason: 'NotAvailable' });

    // Fixed in place: the Secret watch wakes the reconciler (well before the 10 s error requeue).
    await op.client.patch(SECRET, secret, ns, 'merge', { data: { '.dockerconfigjson': b64(PULL_SECRET) } });
    await eventuallyAci(op.client, ns, name, syncOk, 'SyncOK after the Secret is fixed', 5_000);

    // Replaced whole (PUT, our labels gone) by a Secret without the key: reported again.
    const current = await op.client.get<KubeObject>(SECRET, secret, ns);
    await op.client.replace(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: secret, namespace: ns, resourceVersion: current.metadata.resourceVersion },
      type: 'Opaque',
      data: { config: b64(PULL_SECRET) },
    } as never);
    aci = await eventuallySpecSynced(op.client, ns, name, 'did not contain key', 5_000);
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      reason: 'BackendError',
      message: `${prefix}secret ${secret} did not contain key .dockerconfigjson`,
    });
  });

  it('a ClusterDeployment without pull secret reference is an InputError', async () => {
    const ns = op.namespace;
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    const cd = clusterDeploymentObject(ns, name);
    delete cd.spec.pullSecretRef;
    await createCluster(op.client, cd, snoAciObject(ns, name, cis));
    const aci = await eventuallySpecSynced(op.client, ns, name, 'PullSecret');
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      reason: 'InputError',
      message: `The Spec could not be synced due to an input error: PullSecret is required for ClusterDeployment ${name}/${ns}`,
    });
  });

  it('a bad install-config override is an InputError until the annotation is fixed', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    const aciObj = snoAciObject(
      ns,
      name,
      cis,
      {},
      {
        annotations: { [INSTALL_CONFIG_OVERRIDES_ANNOTATION]: '{"networking":{"bogusField":1}}' },
      },
    );
    await createCluster(op.client, clusterDeploymentObject(ns, name), aciObj);
    const aci = await eventuallySpecSynced(op.client, ns, name, 'Failed to parse');
    expect(condition(aci, 'SpecSynced')?.reason).toBe('InputError');
    expect(condition(aci, 'SpecSynced')?.message).toContain(
      `The Spec could not be synced due to an input error: Failed to parse '${INSTALL_CONFIG_OVERRIDES_ANNOTATION}' annotation: `,
    );
    expect(condition(aci, 'SpecSynced')?.message).toContain('bogusField');
    await op.client.patch(AGENT_CLUSTER_INSTALL, name, ns, 'merge', {
      metadata: { annotations: { [INSTALL_CONFIG_OVERRIDES_ANNOTATION]: '{"fips":false}' } },
    });
    await eventuallyAci(op.client, ns, name, syncOk, 'SyncOK after the override is fixed');
  });

  it('a missing manifests ConfigMap is a BackendError until it exists; duplicate keys are a conflict', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    const m1 = uniqueName('m1');
    const m2 = uniqueName('m2');
    await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(ns, name, cis, { manifestsConfigMapRefs: [{ name: m1 }, { name: m2 }] }),
    );
    let aci = await eventuallySpecSynced(op.client, ns, name, 'configmaps');
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      reason: 'BackendError',
      message: `The Spec could not be synced due to backend error: configmaps "${m1}" not found`,
    });
    const cm = (cmName: string, data: Record<string, string>) =>
      op.client.create(CONFIG_MAP, {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        // Labelled for the operator's cache, so creating it wakes the reconciler at once (an
        // unlabelled one is found by the 1-minute manifests requeue).
        metadata: { name: cmName, namespace: ns, labels: { 'agent-install.openshift.io/watch': 'true' } },
        data,
      } as never);
    await cm(m1, {
      'a.yaml': 'kind: ConfigMap\napiVersion: v1\nmetadata:\n  name: a\n  namespace: default\n',
    });
    await cm(m2, { 'a.yaml': 'kind: ConfigMap\n' });
    aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => condition(a, 'SpecSynced')?.message?.includes('Conflict in manifest names') === true,
      'manifest conflict',
    );
    expect(condition(aci, 'SpecSynced')?.message).toBe(
      "The Spec could not be synced due to backend error: Conflict in manifest names ('a.yaml' is not unique)",
    );
    // The ConfigMaps are labelled for the cache now: an edit wakes the reconciler at once.
    await op.client.patch(CONFIG_MAP, m2, ns, 'merge', {
      data: { 'a.yaml': null, 'b.yaml': 'kind: ConfigMap\n' },
    });
    await eventuallyAci(op.client, ns, name, syncOk, 'SyncOK after the conflict is fixed');
  });
});

describe('user-managed networking', () => {
  it('turning it on for a multi-node cluster with VIPs is refused with the VIP message, not the platform one', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('multi');
    await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(ns, name, cis, {
        networking: {
          clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
          serviceNetwork: ['172.30.0.0/16'],
          machineNetwork: [{ cidr: '192.168.111.0/24' }],
          userManagedNetworking: false,
        },
        provisionRequirements: { controlPlaneAgents: 3 },
        apiVIPs: ['192.168.111.5'],
        ingressVIPs: ['192.168.111.4'],
      }),
    );
    await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => syncOk(a) && a.status?.apiVIPs?.[0] === '192.168.111.5',
      'SyncOK with the VIPs',
    );
    await op.client.patch(AGENT_CLUSTER_INSTALL, name, ns, 'merge', {
      spec: { networking: { userManagedNetworking: true } },
    });
    const aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => condition(a, 'SpecSynced')?.status === 'False',
      'SpecSynced False after UMN is turned on',
    );
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      reason: 'InputError',
      message:
        'The Spec could not be synced due to an input error: User Managed Networking cannot be set with API VIPs',
    });
    // The refused update changes nothing.
    expect(aci.status?.userManagedNetworking).toBe(false);
    expect(aci.status?.platformType).toBe('BareMetal');
    expect(aci.status?.apiVIPs).toEqual(['192.168.111.5']);
  });
});

describe('ignored validations annotations', () => {
  it('an empty item in the ignore list is an InputError', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    const annotation = 'agent-install.openshift.io/ignored-cluster-validations';
    await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(
        ns,
        name,
        cis,
        {},
        { annotations: { [annotation]: 'ntp-server-configured,,network-type-valid' } },
      ),
    );
    const aci = await eventuallySpecSynced(op.client, ns, name, 'ignored');
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      reason: 'InputError',
      message: `The Spec could not be synced due to an input error: Failed to parse '${annotation}' annotation: annotation "${annotation}": failed to parse comma-separated validation IDs: empty ignored validation ID found in 'ntp-server-configured,,network-type-valid'`,
    });
    await op.client.patch(AGENT_CLUSTER_INSTALL, name, ns, 'merge', {
      metadata: { annotations: { [annotation]: 'ntp-server-configured' } },
    });
    await eventuallyAci(op.client, ns, name, syncOk, 'SyncOK after the list is fixed');
  });
});

describe('references', () => {
  it('an ACI whose ClusterDeployment is missing reports it (ACI-only check)', async () => {
    const ns = op.namespace;
    const name = uniqueName('lonely');
    await op.client.create(AGENT_CLUSTER_INSTALL, snoAciObject(ns, name, 'whatever'));
    const aci = await eventuallyAci(
      op.client,
      ns,
      name,
      (a) => condition(a, 'SpecSynced')?.status === 'False',
      'SpecSynced False',
    );
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      reason: 'InputError',
      message: `The Spec could not be synced due to an input error: ClusterDeployment with name '${name}' in namespace '${ns}' not found. Ensure that the CRD is already applied.`,
    });
    expect(condition(aci, 'Completed')).toMatchObject({ status: 'Unknown', reason: 'NotAvailable' });
    expect(aci.metadata.finalizers ?? []).not.toContain(AGENTCLUSTERINSTALL_FINALIZER);
  });

  it('mismatched references are reported as an InputError on the ACI', async () => {
    const ns = op.namespace;
    await createPullSecret(op.client, ns);
    const cis = await createImageSet(op.client);
    const name = uniqueName('sno');
    // The ACI names another ClusterDeployment than the one pointing at it.
    await createCluster(
      op.client,
      clusterDeploymentObject(ns, name),
      snoAciObject(ns, name, cis, { clusterDeploymentRef: { name: 'someone-else' } }),
    );
    const aci = await eventuallySpecSynced(op.client, ns, name, 'references');
    expect(condition(aci, 'SpecSynced')).toMatchObject({
      reason: 'InputError',
      message: `The Spec could not be synced due to an input error: AgentClusterInstall ${ns}/${name} references ClusterDeployment 'someone-else' but ClusterDeployment ${ns}/${name} references AgentClusterInstall '${name}'`,
    });

    // A ClusterDeployment that points elsewhere leaves its ACI reported, not managed.
    const other = uniqueName('other');
    await op.client.create(
      CLUSTER_DEPLOYMENT,
      clusterDeploymentObject(ns, other, {
        clusterInstallRef: {
          group: 'extensions.hive.openshift.io',
          version: 'v1beta1',
          kind: 'AgentClusterInstall',
          name: 'not-this-one',
        },
      }),
    );
    await op.client.create(
      AGENT_CLUSTER_INSTALL,
      snoAciObject(ns, `${other}-aci`, cis, { clusterDeploymentRef: { name: other } }),
    );
    const orphan = await eventuallySpecSynced(op.client, ns, `${other}-aci`, 'references');
    expect(condition(orphan, 'SpecSynced')?.message).toContain(
      `references AgentClusterInstall 'not-this-one'`,
    );
  });
});
