// BMAC and PreprovisioningImage controllers on the real control plane (metal3 stand-in CRDs from
// config/crd/external). Non-converged: a labelled BMH gets the InfraEnv ISO URL (cool-down
// shortened with BMAC_IMAGE_COOLDOWN_MS), finalizer and labels; an Agent reporting the boot MAC is
// labelled, approved and configured from the BMH annotations, in the writes that store its
// inventory (no stored version has the inventory without them). Converged: a PPI gets the image and
// Ready conditions, the InfraEnv gets the ironic annotation (an InfraEnv whose PPI is known builds
// its image once, with the agent), and a PPI without InfraEnv reports it.
// With the hub ICC Secret, its ironic URLs and image reach the discovery ignition.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Agent, BareMetalHost, InfraEnv, PreprovisioningImage } from '../../../src/api/index.ts';
import { reconcileInfraEnv } from '../../../src/controllers/infraenv/controller.ts';
import { IccSecret, useIccSecret } from '../../../src/records/hub/icc.ts';
import { imageServicesOf } from '../../../src/records/infraenvs/services.ts';
import {
  AGENT,
  BARE_METAL_HOST,
  INFRA_ENV,
  PREPROVISIONING_IMAGE,
  SECRET,
} from '../../../src/records/resources.ts';
import { serviceConfigOf } from '../../../src/records/serviceconfig/service-config.ts';
import type { ApiResource, KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { ignitionFile } from '../../../src/sim/boot.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { call, inventory } from '../hosts/helpers.ts';
import { infraEnv, PULL_SECRET_JSON, setTestOsImage } from '../infraenv/fixtures.ts';

// An architecture/version no other suite uses, so the shared AgentServiceConfig entry is ours.
const OS_IMAGE = { cpuArchitecture: 'ppc64le', openshiftVersion: '4.18', version: '418.94.202501010000-0' };
const OS_URL = 'http://127.0.0.1:9/rhcos-ppc64le.iso';
const MAC = '52:54:00:12:34:56';

async function setup(client: KubeClient, ns: string, ieName: string): Promise<void> {
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(PULL_SECRET_JSON).toString('base64') },
  } as never);
  await client.create(INFRA_ENV, infraEnv(ns, ieName, { cpuArchitecture: 'ppc64le' }));
}

/** Every stored version of one object from now on (a watch from the list's resourceVersion). */
async function recordVersions<T extends KubeObject>(
  client: KubeClient,
  res: ApiResource,
  ns: string,
  name: string,
): Promise<{ versions: T[]; stop: () => Promise<void> }> {
  const versions: T[] = [];
  const abort = new AbortController();
  const list = await client.list(res, { namespace: ns });
  const watching = (async () => {
    for await (const ev of client.watch<T>(res, {
      namespace: ns,
      fieldSelector: `metadata.name=${name}`,
      resourceVersion: list.metadata.resourceVersion,
      timeoutSeconds: 60,
      idleTimeoutMs: 60_000,
      signal: abort.signal,
    })) {
      if (ev.type === 'ADDED' || ev.type === 'MODIFIED') versions.push(ev.object as T);
    }
  })().catch(() => {});
  return {
    versions,
    stop: async () => {
      abort.abort();
      await watching;
    },
  };
}

function bmhObject(
  ns: string,
  name: string,
  ieName: string | undefined,
  annotations: Record<string, string> = {},
): BareMetalHost {
  return {
    apiVersion: 'metal3.io/v1alpha1',
    kind: 'BareMetalHost',
    metadata: {
      name,
      namespace: ns,
      labels: ieName ? { 'infraenvs.agent-install.openshift.io': ieName } : {},
      annotations,
    },
    spec: { online: false, bootMACAddress: MAC.toUpperCase() },
  } as BareMetalHost;
}

/**
 * Plays metal3 (BMAC hands the image only to a host that is ready or available) and waits for the
 * BMH to carry the URL its InfraEnv has now: that URL changes once the OS image set in beforeAll
 * reaches the InfraEnv (a re-render of every InfraEnv, queued behind live changes).
 */
async function availableWithImage(client: KubeClient, ns: string, name: string) {
  await client.patch(
    BARE_METAL_HOST,
    name,
    ns,
    'merge',
    { status: { provisioning: { state: 'available' } } },
    { subresource: 'status' },
  );
  return eventually(
    async () => {
      const ie = await client.get<InfraEnv>(INFRA_ENV, 'ie', ns);
      const b = await client.get<BareMetalHost>(BARE_METAL_HOST, name, ns);
      const url = ie.status?.isoDownloadURL;
      return url && b.spec.image?.url === url ? { iso: url, bmh: b } : undefined;
    },
    { timeoutMs: 30_000, what: "BMH image URL equal to the InfraEnv's ISO URL" },
  );
}

/** A host booted from InfraEnv `ie` registers and reports an inventory naming `mac`. */
async function bootHost(op: TestOperator, ns: string, hostId: string, mac: string): Promise<void> {
  const ie = await op.ctx.client.get<InfraEnv>(INFRA_ENV, 'ie', ns);
  const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid ?? '' });
  const base = `/v2/infra-envs/${ie.metadata.uid}/hosts`;
  expect((await call(op.baseUrl, 'POST', base, { token, body: { host_id: hostId } })).status).toBe(201);
  const reply = await call(op.baseUrl, 'POST', `${base}/${hostId}/instructions`, {
    token,
    body: { step_type: 'inventory', output: inventory('inv', mac) },
  });
  expect(reply.status).toBe(204);
}

/** The Agent's status carries a reported inventory (an unreported one is an empty object). */
function hasInventory(a: Agent): boolean {
  return (a.status?.inventory?.interfaces?.length ?? 0) > 0;
}

let shared: KubeClient | undefined;
afterAll(async () => {
  if (shared) await setTestOsImage(shared, OS_URL, false, OS_IMAGE).catch(() => {});
});

describe('BMAC (non-converged)', () => {
  let op: TestOperator;
  let client: KubeClient;
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace('bmac');
    op = await startTestOperator({
      namespace: ns,
      settings: { allowConvergedFlow: false },
      env: { BMAC_IMAGE_COOLDOWN_MS: '1000' },
    });
    client = op.ctx.client;
    shared = client;
    await setTestOsImage(client, OS_URL, true, OS_IMAGE);
    await setup(client, ns, 'ie');
  });
  afterAll(async () => {
    await op?.stop();
  });

  it('sets the image URL and configures the matched Agent', async () => {
    await client.create(
      BARE_METAL_HOST,
      bmhObject(ns, 'host-1', 'ie', {
        'bmac.agent-install.openshift.io/role': 'worker',
        'bmac.agent-install.openshift.io/hostname': 'node-1',
        'bmac.agent-install.openshift.io.node-label.zone': 'a',
        'bmac.agent-install.openshift.io.agent-label.team': 'blue',
      }),
    );
    const { iso, bmh } = await availableWithImage(client, ns, 'host-1');
    expect(bmh.spec.image).toMatchObject({ url: iso, diskFormat: 'live-iso' });
    expect(bmh.spec.online).toBe(true);
    expect(bmh.spec.automatedCleaningMode).toBe('disabled');
    expect(bmh.metadata.annotations?.['inspect.metal3.io']).toBe('disabled');
    expect(bmh.metadata.labels?.['cluster.open-cluster-management.io/backup']).toBe('true');
    expect(bmh.metadata.finalizers).toContain('bmac.agent-install.openshift.io/deprovision');

    // The Agent registers through the REST API as a booted host would, reporting the boot MAC.
    const hostId = randomUUID();
    await bootHost(op, ns, hostId, MAC);
    const agent = await eventually(
      async () => {
        const a = await client.get<Agent>(AGENT, hostId, ns);
        return a.spec.approved && a.spec.hostname === 'node-1' ? a : undefined;
      },
      { timeoutMs: 30_000, what: 'Agent configured from the BMH' },
    );
    expect(agent.metadata.labels?.['agent-install.openshift.io/bmh']).toBe('host-1');
    expect(agent.metadata.labels?.team).toBe('blue');
    expect(agent.spec.role).toBe('worker');
    expect(agent.spec.nodeLabels).toEqual({ zone: 'a' });
    const withDetails = await eventually(
      async () => {
        const b = await client.get<BareMetalHost>(BARE_METAL_HOST, 'host-1', ns);
        return b.metadata.annotations?.['inspect.metal3.io/hardwaredetails'] ? b : undefined;
      },
      { timeoutMs: 30_000, what: 'hardware details' },
    );
    const details = JSON.parse(
      withDetails.metadata.annotations?.['inspect.metal3.io/hardwaredetails'] ?? '{}',
    );
    expect(details.nics.some((n: { mac: string }) => n.mac.toLowerCase() === MAC)).toBe(true);
  });

  it('stores the inventory that pairs a host with its BMH together with the spec BMAC asks for', async () => {
    // Issue 16: the inventory used to be stored, then BMAC patched the spec, then the Agent was
    // written twice more for what that spec changes. Every stored version of the Agent that has
    // the inventory must now already carry BMAC's spec, and a status computed from it.
    const mac = '52:54:00:ab:cd:03';
    await client.create(BARE_METAL_HOST, {
      ...bmhObject(ns, 'host-3', 'ie', {
        'bmac.agent-install.openshift.io/role': 'master',
        'bmac.agent-install.openshift.io/hostname': 'node-3',
        'bmac.agent-install.openshift.io.node-label.zone': 'b',
        'bmac.agent-install.openshift.io.agent-label.team': 'green',
      }),
      spec: { online: false, bootMACAddress: mac, rootDeviceHints: { deviceName: '/dev/vda' } },
    } as BareMetalHost);
    await availableWithImage(client, ns, 'host-3');

    const hostId = randomUUID();
    const { versions, stop } = await recordVersions<Agent>(client, AGENT, ns, hostId);

    await bootHost(op, ns, hostId, mac);
    // Settled: BMAC's spec is in place and the stored status was computed from it.
    await eventually(
      async () =>
        versions.some((a) => a.spec.approved && hasInventory(a) && a.status?.role === 'master') || undefined,
      { timeoutMs: 30_000, what: 'Agent configured from the BMH, with its inventory' },
    );
    await stop();

    const withInventory = versions.filter(hasInventory);
    expect(withInventory.length).toBeGreaterThan(0);
    for (const a of withInventory) {
      expect(a.spec).toMatchObject({
        approved: true,
        hostname: 'node-3',
        role: 'master',
        installation_disk_id: '/dev/disk/by-path/pci-0000:00:04.0',
        nodeLabels: { zone: 'b' },
      });
      expect(a.metadata.labels).toMatchObject({ 'agent-install.openshift.io/bmh': 'host-3', team: 'green' });
      expect(a.status?.role).toBe('master');
      // Computed from the spec and the inventory together: the requested disk is in it.
      const synced = a.status?.conditions?.find((c) => c.type === 'SpecSynced');
      expect(synced).toMatchObject({ status: 'True', reason: 'SyncOK' });
    }
  });

  it('removes its finalizer from a BMH that loses the InfraEnv label', async () => {
    await client.create(BARE_METAL_HOST, bmhObject(ns, 'host-2', 'ie'));
    await eventually(
      async () =>
        (await client.get<BareMetalHost>(BARE_METAL_HOST, 'host-2', ns)).metadata.finalizers?.length,
      { timeoutMs: 30_000, what: 'finalizer' },
    );
    await client.patch(BARE_METAL_HOST, 'host-2', ns, 'merge', {
      metadata: { labels: { 'infraenvs.agent-install.openshift.io': null } },
    });
    await eventually(
      async () =>
        !(await client.get<BareMetalHost>(BARE_METAL_HOST, 'host-2', ns)).metadata.finalizers?.length,
      { timeoutMs: 30_000, what: 'finalizer removed' },
    );
  });
});

describe('PreprovisioningImage (converged)', () => {
  let op: TestOperator;
  let client: KubeClient;
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace('ppi');
    op = await startTestOperator({
      namespace: ns,
      env: { BMAC_IMAGE_COOLDOWN_MS: '1000', IRONIC_BASE_URL: 'https://ironic.example:6385' },
    });
    client = op.ctx.client;
    shared = client;
    await setTestOsImage(client, OS_URL, true, OS_IMAGE);
    await setup(client, ns, 'ie');
  });
  afterAll(async () => {
    await op?.stop();
  });

  function ppiObject(name: string, ieName: string, uid: string): PreprovisioningImage {
    return {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'PreprovisioningImage',
      metadata: {
        name,
        namespace: ns,
        labels: { 'infraenvs.agent-install.openshift.io': ieName },
        ownerReferences: [{ apiVersion: 'metal3.io/v1alpha1', kind: 'BareMetalHost', name, uid }],
      },
      spec: { acceptFormats: ['iso'], architecture: 'ppc64le' },
    } as PreprovisioningImage;
  }

  it('sets the PPI image and conditions; the BMH gets customDeploy', async () => {
    const bmh = await client.create<BareMetalHost>(BARE_METAL_HOST, bmhObject(ns, 'host-c', 'ie'));
    await client.create(PREPROVISIONING_IMAGE, ppiObject('host-c', 'ie', bmh.metadata.uid ?? ''));
    // Ready on the InfraEnv's current image (the ironic annotation rebuilds it once, so an earlier
    // Ready may name the previous image for a moment).
    let ie: InfraEnv | undefined;
    const ppi = await eventually(
      async () => {
        const p = await client.get<PreprovisioningImage>(PREPROVISIONING_IMAGE, 'host-c', ns);
        ie = await client.get<InfraEnv>(INFRA_ENV, 'ie', ns);
        const ready = p.status?.conditions?.find((c) => c.type === 'Ready');
        return ready?.status === 'True' && p.status?.imageUrl === ie.status?.isoDownloadURL ? p : undefined;
      },
      { timeoutMs: 45_000, what: 'PPI Ready' },
    );
    expect(ie?.metadata.annotations?.['infraenv.agent-install.openshift.io/enable-ironic-agent']).toBe(
      'true',
    );
    expect(ppi.status).toMatchObject({
      imageUrl: ie?.status?.isoDownloadURL,
      format: 'iso',
      architecture: 'ppc64le',
    });
    expect(ppi.status?.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('InfraEnvAvailable');
    expect(ppi.status?.conditions?.find((c) => c.type === 'Error')?.status).toBe('False');
    expect(ppi.metadata.finalizers).toContain(
      'preprovisioningimage.agent-install.openshift.io/ai-deprovision',
    );
    expect(ppi.metadata.labels?.['velero.io/exclude-from-backup']).toBe('true');
    await eventually(
      async () =>
        (await client.get<BareMetalHost>(BARE_METAL_HOST, 'host-c', ns)).spec.customDeploy?.method ===
        'start_assisted_install',
      { timeoutMs: 30_000, what: 'BMH customDeploy' },
    );
  });

  it('builds the image of an InfraEnv whose PPI is already known once, with the ironic agent', async () => {
    // Issue 16: the image was built without the ironic agent, then again once the PPI controller's
    // annotation arrived (a status write and an Event more per ZTP site). With the PPI in the
    // cache when the InfraEnv is first reconciled, its first image already carries the agent, and
    // the annotation rides on the finalizer's patch.
    const bmh = await client.create<BareMetalHost>(BARE_METAL_HOST, bmhObject(ns, 'host-once', 'ie-once'));
    await client.create(PREPROVISIONING_IMAGE, ppiObject('host-once', 'ie-once', bmh.metadata.uid ?? ''));
    await eventually(async () => op.ctx.mgr.existingInformer(PREPROVISIONING_IMAGE)?.get(ns, 'host-once'), {
      timeoutMs: 30_000,
      what: 'PPI in the operator cache',
    });
    const { versions, stop } = await recordVersions<InfraEnv>(client, INFRA_ENV, ns, 'ie-once');
    await client.create(INFRA_ENV, infraEnv(ns, 'ie-once', { cpuArchitecture: 'ppc64le' }));

    await eventually(
      async () => {
        const p = await client.get<PreprovisioningImage>(PREPROVISIONING_IMAGE, 'host-once', ns);
        const cached = op.ctx.informers.infraEnvs.get(ns, 'ie-once');
        const ready = p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
        const annotated =
          cached?.metadata.annotations?.['infraenv.agent-install.openshift.io/enable-ironic-agent'] ===
          'true';
        return ready && annotated && p.status?.imageUrl === cached?.status?.isoDownloadURL ? p : undefined;
      },
      { timeoutMs: 45_000, what: 'PPI Ready and the InfraEnv annotated' },
    );
    // One more pass over the annotated InfraEnv: whatever image it describes is written now.
    const services = imageServicesOf(op.ctx);
    await reconcileInfraEnv(op.ctx, services, serviceConfigOf(op.ctx).current, {
      key: `${ns}/ie-once`,
      namespace: ns,
      name: 'ie-once',
    });
    const settled = await client.get<InfraEnv>(INFRA_ENV, 'ie-once', ns);
    await eventually(
      async () => versions.some((v) => v.metadata.resourceVersion === settled.metadata.resourceVersion),
      { timeoutMs: 30_000, what: 'the settled InfraEnv in the watch' },
    );
    await stop();

    const digests = new Set(versions.map((v) => v.status?.backend?.imageDigest).filter(Boolean));
    expect([...digests]).toEqual([settled.status?.backend?.imageDigest]);
    // The mark the PPI controller would add came with the finalizer: one metadata write, not two.
    const finalized = versions.filter((v) =>
      v.metadata.finalizers?.includes('infraenv.agent-install.openshift.io/ai-deprovision'),
    );
    expect(finalized.length).toBeGreaterThan(0);
    for (const v of finalized) {
      expect(v.metadata.annotations?.['infraenv.agent-install.openshift.io/enable-ironic-agent']).toBe(
        'true',
      );
    }
    const url = settled.status?.bootArtifacts?.discoveryIgnitionURL ?? '';
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const ign = (await res.json()) as Parameters<typeof ignitionFile>[0];
    expect(ignitionFile(ign, '/etc/ironic-python-agent.conf')).toContain(
      'api_url = https://ironic.example:6385',
    );
  });

  it('rebuilds the image when an annotation the image depends on changes', async () => {
    // Annotation-only changes were filtered out (the generation does not move), so the PPI
    // controller enqueued the InfraEnv on every one of its passes to be sure the ironic agent landed.
    await client.create(INFRA_ENV, infraEnv(ns, 'ie-ann', { cpuArchitecture: 'ppc64le' }));
    const digestOf = async () =>
      (await client.get<InfraEnv>(INFRA_ENV, 'ie-ann', ns)).status?.backend?.imageDigest;
    const plain = await eventually(digestOf, { timeoutMs: 30_000, what: 'first image' });
    const ignition = async () => {
      const ie = await client.get<InfraEnv>(INFRA_ENV, 'ie-ann', ns);
      const res = await fetch(ie.status?.bootArtifacts?.discoveryIgnitionURL ?? '');
      return JSON.stringify(await res.json());
    };
    expect(await ignition()).not.toContain('ironic-python-agent.conf');

    const annotate = (annotations: Record<string, string>) =>
      client.patch(INFRA_ENV, 'ie-ann', ns, 'merge', { metadata: { annotations } });
    await annotate({ 'infraenv.agent-install.openshift.io/enable-ironic-agent': 'true' });
    const withAgent = await eventually(async () => ((await digestOf()) !== plain ? digestOf() : undefined), {
      timeoutMs: 30_000,
      what: 'image rebuilt for enable-ironic-agent',
    });
    expect(await ignition()).toContain('ironic-python-agent.conf');

    const image = 'registry.example/ironic-agent@sha256:override';
    await annotate({ 'infraenv.agent-install.openshift.io/ironic-agent-image-override': image });
    await eventually(async () => ((await digestOf()) !== withAgent ? true : undefined), {
      timeoutMs: 30_000,
      what: 'image rebuilt for ironic-agent-image-override',
    });
    expect(await ignition()).toContain(image);
  });

  it('reports a missing InfraEnv', async () => {
    await client.create(
      PREPROVISIONING_IMAGE,
      ppiObject('host-x', 'nope', '00000000-0000-0000-0000-000000000001'),
    );
    const ready = await eventually(
      async () => {
        const p = await client.get<PreprovisioningImage>(PREPROVISIONING_IMAGE, 'host-x', ns);
        return p.status?.conditions?.find((c) => c.type === 'Ready');
      },
      { timeoutMs: 30_000, what: 'PPI condition' },
    );
    expect(ready).toMatchObject({
      status: 'False',
      reason: 'InfraEnvNotAvailable',
      message: `InfraEnv nope/${ns} is not found or is being deleted`,
    });
  });
});

describe('PreprovisioningImage (converged) with the hub ICC Secret', () => {
  let op: TestOperator;
  let client: KubeClient;
  let ns: string;
  const ICC_IMAGE = 'registry.example/ironic-agent@sha256:icc';
  beforeAll(async () => {
    ns = await newNamespace('icc');
    // The ICC Secret lives in this test's namespace (not openshift-machine-api) so parallel files
    // never share it.
    op = await startTestOperator({
      namespace: ns,
      env: {
        BMAC_IMAGE_COOLDOWN_MS: '1000',
        IRONIC_BASE_URL: 'https://settings-ironic.example:6385',
        ICC_SECRET_NAMESPACE: ns,
        ICC_SECRET_NAME: 'image-customization',
      },
    });
    // The registry stand-in: the ICC image is published for ppc64le (the InfraEnv's arch).
    useIccSecret(op.ctx, new IccSecret(op.ctx, { architectures: async () => ['ppc64le'] }));
    client = op.ctx.client;
    shared = client;
    await setTestOsImage(client, OS_URL, true, OS_IMAGE);
    await client.create(SECRET, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'image-customization', namespace: ns },
      stringData: {
        IRONIC_BASE_URL: 'https://icc-ironic.example:6385',
        IRONIC_INSPECTOR_BASE_URL: 'https://icc-inspector.example:5050',
        IRONIC_AGENT_IMAGE: ICC_IMAGE,
      },
    } as never);
    await setup(client, ns, 'ie');
  });
  afterAll(async () => {
    await op?.stop();
  });

  it('puts the ICC ironic URLs and image into the discovery ignition', async () => {
    const bmh = await client.create<BareMetalHost>(BARE_METAL_HOST, bmhObject(ns, 'host-i', 'ie'));
    await client.create(PREPROVISIONING_IMAGE, {
      apiVersion: 'metal3.io/v1alpha1',
      kind: 'PreprovisioningImage',
      metadata: {
        name: 'host-i',
        namespace: ns,
        labels: { 'infraenvs.agent-install.openshift.io': 'ie' },
        ownerReferences: [
          {
            apiVersion: 'metal3.io/v1alpha1',
            kind: 'BareMetalHost',
            name: 'host-i',
            uid: bmh.metadata.uid ?? '',
          },
        ],
      },
      spec: { acceptFormats: ['iso'], architecture: 'ppc64le' },
    } as never);
    const ign = await eventually(
      async () => {
        const ie = await client.get<InfraEnv>(INFRA_ENV, 'ie', ns);
        const url = ie.status?.bootArtifacts?.discoveryIgnitionURL;
        if (ie.metadata.annotations?.['infraenv.agent-install.openshift.io/enable-ironic-agent'] !== 'true')
          return;
        if (!url) return;
        const res = await fetch(url);
        if (!res.ok) return;
        const parsed = (await res.json()) as Parameters<typeof ignitionFile>[0];
        return ignitionFile(parsed, '/etc/ironic-python-agent.conf') ? parsed : undefined;
      },
      { timeoutMs: 45_000, what: 'discovery ignition with the ironic agent' },
    );
    const conf = ignitionFile(ign, '/etc/ironic-python-agent.conf');
    expect(conf).toContain('api_url = https://icc-ironic.example:6385');
    expect(conf).toContain('inspection_callback_url = https://icc-inspector.example:5050');
    expect(conf).not.toContain('settings-ironic');
    expect(JSON.stringify(ign)).toContain(ICC_IMAGE);
  });
});
