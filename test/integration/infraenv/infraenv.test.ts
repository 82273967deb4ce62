// The discovery path against the real control plane with the operator in-process: an
// AgentServiceConfig naming a base ISO on a loopback server, a pull Secret and InfraEnvs. Checks
// the InfraEnv status the controller writes (ImageCreated, URLs, createdTime, errors), and that
// the URLs it writes serve what they say: ISO (GET, HEAD, Range) with the InfraEnv's ignition
// embedded, discovery.ign, iPXE, PXE initrd, kernel — and refuse forged, expired or foreign tokens.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { constants, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentServiceConfig, InfraEnv, NMStateConfig } from '../../../src/api/index.ts';
import { readNewc } from '../../../src/images/cpio.ts';
import { EVENT_LABEL } from '../../../src/records/events.ts';
import {
  AGENT_SERVICE_CONFIG,
  CONFIG_MAP,
  EVENT,
  INFRA_ENV,
  NMSTATE_CONFIG,
  SECRET,
} from '../../../src/records/resources.ts';
import type { KubeClient, KubeObject } from '../../../src/runtime/index.ts';
import { parseDiscoveryIgnition } from '../../../src/sim/boot.ts';
import { bufferSource, findIsoFile, readEmbeddedIgnition } from '../../../src/sim/iso-read.ts';
import { eventually, newNamespace } from '../../harness/env.ts';
import { buildTestIso, type TestIso } from '../../harness/iso.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { patchIfUnchanged } from '../../harness/unchanged.ts';
import { call } from '../hosts/helpers.ts';
import {
  infraEnv,
  PULL_SECRET_JSON,
  serveFile,
  setTestOsImage,
  TEST_ARCH,
  TEST_OCP_VERSION,
  TEST_RHCOS_VERSION,
} from './fixtures.ts';

let op: TestOperator;
let client: KubeClient;
let ns: string;
let iso: TestIso;
let isoDir: string;
let files: Awaited<ReturnType<typeof serveFile>>;

beforeAll(async () => {
  isoDir = await mkdtemp(join(tmpdir(), 'aio-ie-iso-'));
  iso = await buildTestIso(isoDir, { rhcosVersion: TEST_RHCOS_VERSION });
  files = await serveFile(iso.path);
  ns = await newNamespace('infraenv');
  // Only this namespace: operators of other test files must not share these InfraEnvs.
  op = await startTestOperator({ namespace: ns, env: { WATCH_NAMESPACE: ns } });
  client = op.ctx.client;
  await client.create(SECRET, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'pull-secret', namespace: ns },
    type: 'kubernetes.io/dockerconfigjson',
    data: { '.dockerconfigjson': Buffer.from(PULL_SECRET_JSON).toString('base64') },
  } as never);
  await setTestOsImage(client, files.url, true);
});

afterAll(async () => {
  await setTestOsImage(client, files.url, false).catch(() => {});
  await op?.stop();
  await files?.close();
  await rm(isoDir, { recursive: true, force: true });
});

async function get(name: string): Promise<InfraEnv> {
  return client.get<InfraEnv>(INFRA_ENV, name, ns);
}

function imageCreated(ie: InfraEnv) {
  return ie.status?.conditions?.find((c) => c.type === 'ImageCreated');
}

/** Waits for ImageCreated with the given reason and returns the InfraEnv. */
async function waitFor(name: string, reason: string, extra: (ie: InfraEnv) => boolean = () => true) {
  return eventually(
    async () => {
      const ie = await get(name);
      return imageCreated(ie)?.reason === reason && extra(ie) ? ie : undefined;
    },
    { timeoutMs: 30_000, what: `${name} ImageCreated ${reason}` },
  );
}

async function fetchBytes(url: string, init: RequestInit = {}) {
  const res = await fetch(url, init);
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

async function createAvailable(name: string, spec: Partial<InfraEnv['spec']> = {}): Promise<InfraEnv> {
  await client.create(INFRA_ENV, infraEnv(ns, name, spec));
  return waitFor(name, 'InfraEnvAvailable', (ie) => Boolean(ie.status?.isoDownloadURL));
}

describe('InfraEnv controller and image service', () => {
  it('creates the image: ImageCreated True, URLs, createdTime, selector, finalizer', async () => {
    const ie = await createAvailable('basic');
    const uid = ie.metadata.uid!;
    expect(imageCreated(ie)).toMatchObject({
      status: 'True',
      reason: 'InfraEnvAvailable',
      message: 'InfraEnv is available: Image has been created',
    });
    expect(ie.metadata.finalizers).toContain('infraenv.agent-install.openshift.io/ai-deprovision');
    expect(ie.status?.isoDownloadURL).toMatch(
      new RegExp(`^${op.baseUrl}/byapikey/[^/]+/${TEST_OCP_VERSION}/${TEST_ARCH}/minimal\\.iso$`),
    );
    expect(ie.status?.createdTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(ie.status?.agentLabelSelector).toEqual({
      matchLabels: { 'infraenvs.agent-install.openshift.io': 'basic' },
    });
    expect(ie.status?.debugInfo?.eventsURL).toMatch(
      new RegExp(`^${op.baseUrl}/api/assisted-install/v2/events\\?api_key=[^&]+&infra_env_id=${uid}$`),
    );
    expect(ie.status?.bootArtifacts?.kernel).toBe(
      `${op.baseUrl}/boot-artifacts/kernel?arch=${TEST_ARCH}&version=${TEST_OCP_VERSION}`,
    );
    expect(ie.status?.bootArtifacts?.initrd).toMatch(
      new RegExp(
        `^${op.baseUrl}/images/${uid}/pxe-initrd\\?api_key=[^&]+&arch=${TEST_ARCH}&version=${TEST_OCP_VERSION}$`,
      ),
    );
    expect(ie.status?.bootArtifacts?.discoveryIgnitionURL).toMatch(/file_name=discovery\.ign$/);
    // The infra-env event of the new image, for GET /v2/events.
    await eventually(
      async () => {
        const events = await client.list<KubeObject & { message?: string }>(EVENT, {
          namespace: ns,
          labelSelector: `${EVENT_LABEL.infraEnvId}=${uid}`,
        });
        return events.items.some(
          (e) => e.message === 'Generated image (Image type is "minimal-iso", SSH public key is not set)',
        );
      },
      { what: 'image generated event' },
    );
  });

  it('serves the ISO with the InfraEnv ignition embedded (GET, HEAD, Range) and a working agent token', async () => {
    const ie = await createAvailable('iso', {
      sshAuthorizedKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIsoKeyIsoKeyIsoKeyIsoKeyIsoKeyIsoKeyIsoKeyI',
      imageType: 'full-iso',
    });
    const url = ie.status!.isoDownloadURL!;
    expect(url).toMatch(/\/full\.iso$/);
    const { res, body } = await fetchBytes(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename=${ie.metadata.uid}-discovery.iso`,
    );
    expect(body.length).toBe(Number(res.headers.get('content-length')));
    expect(body.length).toBe((await fetchBytes(files.url)).body.length);

    const { ignition } = await readEmbeddedIgnition(bufferSource(body));
    const { config, ignition: parsed } = parseDiscoveryIgnition(ignition.toString());
    expect(config.infraEnvId).toBe(ie.metadata.uid);
    expect(config.serviceUrl).toBe(op.baseUrl);
    expect(config.pullSecret).toBe(PULL_SECRET_JSON);
    expect(JSON.stringify(parsed)).toContain(
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIsoKeyIsoKeyIsoKeyIsoKeyIsoKeyIsoKeyIsoKeyI',
    );
    // The embedded token is an agent token of this infra-env.
    const auth = await op.server.auth.authenticate({
      method: 'GET',
      path: `/api/assisted-install/v2/infra-envs/${ie.metadata.uid}`,
      agentToken: config.token,
      accepts: { agent: true },
      target: { infraEnvId: ie.metadata.uid! },
    });
    expect(auth.ok).toBe(true);

    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(body.length));
    expect(head.headers.get('accept-ranges')).toBe('bytes');

    const range = await fetchBytes(url, { headers: { range: 'bytes=32768-40959' } });
    expect(range.res.status).toBe(206);
    expect(range.res.headers.get('content-range')).toBe(`bytes 32768-40959/${body.length}`);
    expect(range.body.equals(body.subarray(32768, 40960))).toBe(true);
    // A second download is byte-identical (same token, same archive): resumable.
    expect((await fetchBytes(url)).body.equals(body)).toBe(true);
  });

  it('keeps URLs on annotation-only changes and issues new ones when the image changes', async () => {
    const before = await createAvailable('stable');
    const annotated = await client.patch<InfraEnv>(INFRA_ENV, 'stable', ns, 'merge', {
      metadata: { annotations: { note: 'hello' } },
    });
    expect(annotated.status).toEqual(before.status);
    // The operator has seen the annotation-only change once its cache holds that version.
    await eventually(
      async () =>
        op.ctx.infraEnvById(annotated.metadata.uid ?? '')?.metadata.resourceVersion ===
        annotated.metadata.resourceVersion,
      { what: 'operator cache at the annotated version' },
    );
    // Barrier: a spec change it must react to, applied only if nothing wrote the InfraEnv since the
    // annotation (409 otherwise); its reaction below proves the operator was processing events.
    await patchIfUnchanged(client, INFRA_ENV, annotated, {
      spec: {
        sshAuthorizedKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINewKeyNewKeyNewKeyNewKeyNewKeyNewKeyNewKeyN',
      },
    });
    const changed = await eventually(
      async () => {
        const ie = await get('stable');
        return ie.status?.isoDownloadURL !== before.status?.isoDownloadURL ? ie : undefined;
      },
      { what: 'new ISO URL' },
    );
    expect(changed.status?.backend?.imageDigest).not.toBe(before.status?.backend?.imageDigest);
    expect(changed.status?.bootArtifacts?.initrd).not.toBe(before.status?.bootArtifacts?.initrd);
    expect(Date.parse(changed.status!.createdTime!)).toBeGreaterThanOrEqual(
      Date.parse(before.status!.createdTime!),
    );
    const ign = await fetchBytes(changed.status!.bootArtifacts!.discoveryIgnitionURL);
    expect(ign.body.toString()).toContain(
      'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINewKeyNewKeyNewKeyNewKeyNewKeyNewKeyNewKeyN',
    );
  });

  it('reports a missing ClusterDeployment', async () => {
    await client.create(INFRA_ENV, infraEnv(ns, 'unbound', { clusterRef: { name: 'nope', namespace: ns } }));
    const ie = await waitFor('unbound', 'MissingClusterDeployment');
    expect(imageCreated(ie)).toMatchObject({
      status: 'Unknown',
      message: `ClusterDeployment is missing: failed to get clusterDeployment with name nope in namespace ${ns}: clusterdeployments.hive.openshift.io "nope" not found`,
    });
  });

  it('reports invalid NMState and recovers when the NMStateConfig is fixed', async () => {
    const nm: NMStateConfig = {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'NMStateConfig',
      metadata: { name: 'host-a', namespace: ns, labels: { set: 'bad' } },
      spec: {
        interfaces: [{ name: 'eth0', macAddress: '52:54:00:00:00:01' }],
        config: {
          interfaces: [{ name: 'eth9', type: 'ethernet', state: 'up', ipv4: { enabled: true, dhcp: true } }],
        },
      },
    };
    await client.create(NMSTATE_CONFIG, nm);
    await client.create(
      INFRA_ENV,
      infraEnv(ns, 'nmstate', { nmStateConfigLabelSelector: { matchLabels: { set: 'bad' } } }),
    );
    const bad = await waitFor('nmstate', 'ImageCreationError');
    expect(imageCreated(bad)).toMatchObject({
      status: 'False',
      message:
        'Failed to create image: mac-interface mapping for interface eth9 is missing and not a physical interface',
    });
    expect(bad.status?.isoDownloadURL).toBeUndefined();
    expect(bad.status?.createdTime).toBeUndefined();

    await client.patch(NMSTATE_CONFIG, 'host-a', ns, 'merge', {
      spec: {
        config: {
          interfaces: [{ name: 'eth0', type: 'ethernet', state: 'up', ipv4: { enabled: true, dhcp: true } }],
        },
      },
    });
    const good = await waitFor('nmstate', 'InfraEnvAvailable', (ie) =>
      Boolean(ie.status?.debugInfo?.staticNetworkDownloadURL),
    );
    const tar = await fetchBytes(good.status!.debugInfo!.staticNetworkDownloadURL!);
    expect(tar.res.status).toBe(200);
    expect(tar.body.toString()).toContain('/etc/assisted/network/host0/mac_interface.ini');
    // The minimal ISO carries static networking in its ramdisk, not in the ignition.
    const minimal = await fetchBytes(good.status!.isoDownloadURL!);
    expect(minimal.res.status, minimal.body.toString().slice(0, 500)).toBe(200);
    const source = bufferSource(minimal.body);
    const { ignition } = await readEmbeddedIgnition(source);
    expect(ignition.toString()).not.toContain('/etc/assisted/network');
    const placeholder = await findIsoFile(source, 'images/assisted_installer_custom.img');
    const ramdisk = minimal.body.subarray(placeholder!.offset, placeholder!.offset + placeholder!.size);
    const entries = readNewc(gunzipSync(ramdisk, { finishFlush: constants.Z_SYNC_FLUSH }));
    expect(entries.map((e) => e.name)).toContain('etc/assisted/network/host0/mac_interface.ini');
  });

  it('lists one static network entry per selected NMStateConfig and clears them on delete', async () => {
    const nmState = (name: string, mac: string): NMStateConfig => ({
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'NMStateConfig',
      metadata: { name, namespace: ns, labels: { set: 'pair' } },
      spec: {
        interfaces: [{ name: 'eth0', macAddress: mac }],
        config: {
          interfaces: [{ name: 'eth0', type: 'ethernet', state: 'up', ipv4: { enabled: true, dhcp: true } }],
        },
      },
    });
    await client.create(NMSTATE_CONFIG, nmState('pair-a', '52:54:00:00:00:0a'));
    await client.create(NMSTATE_CONFIG, nmState('pair-b', '52:54:00:00:00:0b'));
    await client.create(
      INFRA_ENV,
      infraEnv(ns, 'pair', { nmStateConfigLabelSelector: { matchLabels: { set: 'pair' } } }),
    );
    const ie = await waitFor('pair', 'InfraEnvAvailable', (i) =>
      Boolean(i.status?.debugInfo?.staticNetworkDownloadURL),
    );
    const token = op.server.auth.issueAgentToken({ kind: 'infra-env', id: ie.metadata.uid! });
    const restStaticNetwork = async () => {
      const reply = await call(op.baseUrl, 'GET', `/v2/infra-envs/${ie.metadata.uid}`, { token });
      expect(reply.status, reply.text).toBe(200);
      const text = (reply.body as { static_network_config?: string }).static_network_config;
      return text ? (JSON.parse(text) as { mac_interface_map: unknown; network_yaml: string }[]) : [];
    };
    const entries = await restStaticNetwork();
    expect(entries.map((e) => e.mac_interface_map)).toEqual([
      [{ logical_nic_name: 'eth0', mac_address: '52:54:00:00:00:0a' }],
      [{ logical_nic_name: 'eth0', mac_address: '52:54:00:00:00:0b' }],
    ]);
    expect(entries[0]?.network_yaml).toContain('name: eth0');

    await client.delete(NMSTATE_CONFIG, 'pair-a', ns);
    await client.delete(NMSTATE_CONFIG, 'pair-b', ns);
    await eventually(async () => (await restStaticNetwork()).length === 0, {
      timeoutMs: 30_000,
      what: 'static network config emptied',
    });
  });

  it('reports an nmstate document of the wrong shape as Invalid YAML', async () => {
    await client.create(NMSTATE_CONFIG, {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'NMStateConfig',
      metadata: { name: 'shapeless', namespace: ns, labels: { set: 'shapeless' } },
      spec: {
        interfaces: [{ name: 'eth0', macAddress: '52:54:00:00:00:0c' }],
        config: { interfaces: 'eth0' },
      },
    } as NMStateConfig);
    await client.create(
      INFRA_ENV,
      infraEnv(ns, 'shapeless', { nmStateConfigLabelSelector: { matchLabels: { set: 'shapeless' } } }),
    );
    const ie = await waitFor('shapeless', 'ImageCreationError');
    expect(imageCreated(ie)?.message).toContain('Invalid YAML');
  });

  it('reports an invalid ignition override with the upstream message', async () => {
    await client.create(
      INFRA_ENV,
      infraEnv(ns, 'override', { ignitionConfigOverride: '{"ignition":{"version":"9.9"' }),
    );
    const ie = await waitFor('override', 'ImageCreationError');
    expect(imageCreated(ie)?.message).toBe(
      'Failed to create image: error parsing ignition: config is not valid',
    );
  });

  it('serves discovery.ign, the iPXE script, the PXE initrd and the kernel', async () => {
    const ie = await createAvailable('pxe', {
      kernelArguments: [{ operation: 'append', value: 'console=ttyS0' }],
    });
    const uid = ie.metadata.uid!;
    const ign = await fetchBytes(ie.status!.bootArtifacts!.discoveryIgnitionURL);
    expect(ign.res.status).toBe(200);
    expect(parseDiscoveryIgnition(ign.body.toString()).config.infraEnvId).toBe(uid);

    const script = (await fetchBytes(ie.status!.bootArtifacts!.ipxeScript)).body.toString();
    const initrdUrl = new RegExp(
      `^initrd --name initrd (${op.baseUrl}/images/${uid}/pxe-initrd\\?api_key=[^&\\s]+&arch=${TEST_ARCH}&version=${TEST_OCP_VERSION})$`,
      'm',
    ).exec(script)?.[1];
    expect(script.startsWith('#!ipxe\n')).toBe(true);
    expect(initrdUrl).toBeDefined();
    expect(script).toContain(
      `kernel ${op.baseUrl}/boot-artifacts/kernel?arch=${TEST_ARCH}&version=${TEST_OCP_VERSION} initrd=initrd`,
    );
    expect(script).toContain(' console=ttyS0\nboot\n');

    const initrd = await fetchBytes(initrdUrl!);
    expect(initrd.res.status).toBe(200);
    expect(initrd.body.subarray(0, iso.files.initrd.length).equals(iso.files.initrd)).toBe(true);
    expect(initrd.body.length).toBeGreaterThan(iso.files.initrd.length);

    const kernel = await fetchBytes(ie.status!.bootArtifacts!.kernel);
    expect(kernel.res.status).toBe(200);
    expect(kernel.body.equals(iso.files.vmlinuz)).toBe(true);
    expect((await fetch(`${op.baseUrl}/boot-artifacts/kernel?arch=${TEST_ARCH}&version=0.0`)).status).toBe(
      400,
    );

    // BootOrderControl: the script chains back with the NIC's MAC.
    const boc = await createAvailable('boc', { ipxeScriptType: 'BootOrderControl' });
    expect(boc.status?.bootArtifacts?.ipxeScript).toMatch(/ipxe_script_type=boot-order-control$/);
    const chain = (await fetchBytes(boc.status!.bootArtifacts!.ipxeScript)).body.toString();
    expect(chain).toMatch(
      new RegExp(
        `^#!ipxe\\nchain ${op.baseUrl}/api/assisted-install/v2/infra-envs/${boc.metadata.uid}/downloads/files\\?api_key=[^&]+&file_name=ipxe-script&mac=\\$\\{net0/mac\\}\\n$`,
      ),
    );
  });

  it('refuses forged, expired and foreign download tokens', async () => {
    const a = await createAvailable('tokens-a');
    const b = await createAvailable('tokens-b');
    const isoA = a.status!.isoDownloadURL!;
    const forged = isoA.replace(
      /\/byapikey\/([^/]+)\//,
      (_m, t: string) => `/byapikey/${t.slice(0, -4)}AAAA/`,
    );
    expect((await fetch(forged, { method: 'HEAD' })).status).toBe(401);

    const uidA = a.metadata.uid!;
    const auth = op.server.auth;
    const expired = auth.issueUrlToken(
      'iso',
      { kind: 'infra-env', id: uidA },
      new Date(Date.now() - 8 * 24 * 3600_000),
    );
    const longForm = (token: string) =>
      `${op.baseUrl}/images/${uidA}?api_key=${token}&arch=${TEST_ARCH}&type=full-iso&version=${TEST_OCP_VERSION}`;
    const expiredRes = await fetch(longForm(expired.token), { method: 'HEAD' });
    expect(expiredRes.status).toBe(401);
    expect(await expiredRes.text()).toBe('');
    const expiredGet = await fetch(longForm(expired.token));
    expect(await expiredGet.json()).toEqual({
      code: 401,
      message: 'Failed to parse token: token has invalid claims: token is expired\n',
    });

    const fresh = auth.issueUrlToken('iso', { kind: 'infra-env', id: uidA });
    expect((await fetch(longForm(fresh.token), { method: 'HEAD' })).status).toBe(200);
    // B's token on A's image: 404 (Object Not Found), as upstream's scope check.
    const tokenB = /\/byapikey\/([^/]+)\//.exec(b.status!.isoDownloadURL!)![1]!;
    const foreign = await fetch(longForm(tokenB));
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual({ code: 404, message: 'Object Not Found' });
    // An initrd token does not open ISOs.
    const initrdToken = new URL(a.status!.bootArtifacts!.initrd).searchParams.get('api_key')!;
    expect((await fetch(longForm(initrdToken), { method: 'HEAD' })).status).toBe(404);
    expect(
      (
        await fetch(
          `${op.baseUrl}/images/${uidA}?arch=${TEST_ARCH}&type=full-iso&version=${TEST_OCP_VERSION}`,
        )
      ).status,
    ).toBe(401);
  });

  it('removes its finalizer on deletion', async () => {
    await createAvailable('doomed');
    await client.delete(INFRA_ENV, 'doomed', ns);
    await eventually(async () => (await client.getIfExists(INFRA_ENV, 'doomed', ns)) === undefined, {
      what: 'InfraEnv deleted',
    });
  });
});

describe('mirror registries and the AgentServiceConfig', () => {
  it('embeds the InfraEnv mirror ConfigMap and reports a missing one', async () => {
    await client.create(
      INFRA_ENV,
      infraEnv(ns, 'mirror-missing', { mirrorRegistryRef: { name: 'mirrors', namespace: ns } }),
    );
    const missing = await waitFor('mirror-missing', 'ImageCreationError');
    expect(imageCreated(missing)?.message).toBe(
      `Failed to create image: failed to get mirror registry configmap ${ns}/mirrors: not found`,
    );
    await client.create(CONFIG_MAP, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'mirrors', namespace: ns },
      data: { 'registries.conf': '[[registry]]\nlocation = "quay.io"\n', 'ca-bundle.crt': 'PEM' },
    } as never);
    // An unlabelled ConfigMap is not in the cache, so its creation is no event: the controller
    // looks again every 20 s; a spec edit is quicker (once read, the ConfigMap is labelled and watched).
    await client.patch(INFRA_ENV, 'mirror-missing', ns, 'merge', {
      spec: {
        sshAuthorizedKey: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMKeyMKeyMKeyMKeyMKeyMKeyMKeyMKeyMKeyMKeyMKe',
      },
    });
    const ok = await waitFor('mirror-missing', 'InfraEnvAvailable');
    const ign = JSON.parse(
      (await fetchBytes(ok.status!.bootArtifacts!.discoveryIgnitionURL)).body.toString(),
    );
    const paths = ign.storage.files.map((f: { path: string }) => f.path);
    expect(paths).toContain('/etc/containers/registries.conf');
    expect(paths).toContain('/etc/pki/ca-trust/source/anchors/domain.crt');
  });

  it('serves only the AgentServiceConfig named agent', async () => {
    const asc = await eventually(
      async () => {
        const a = await client.get<AgentServiceConfig>(AGENT_SERVICE_CONFIG, 'agent');
        return a.status?.conditions?.some((c) => c.type === 'ReconcileCompleted') ? a : undefined;
      },
      { what: 'agent AgentServiceConfig reconciled' },
    );
    expect(asc.status?.conditions?.find((c) => c.type === 'ReconcileCompleted')).toMatchObject({
      status: 'True',
      reason: 'ReconcileSucceeded',
      message: 'AgentServiceConfig reconcile completed without error.',
    });
    expect(asc.metadata.finalizers).toContain('agentserviceconfig.agent-install.openshift.io/ai-deprovision');

    const name = `other-${ns}`;
    await client.create(AGENT_SERVICE_CONFIG, {
      apiVersion: 'agent-install.openshift.io/v1beta1',
      kind: 'AgentServiceConfig',
      metadata: { name },
      spec: { filesystemStorage: {}, databaseStorage: {} },
    } as never);
    try {
      const other = await eventually(
        async () => {
          const a = await client.get<AgentServiceConfig>(AGENT_SERVICE_CONFIG, name);
          return a.status?.conditions?.length ? a : undefined;
        },
        { what: 'other AgentServiceConfig reported' },
      );
      expect(other.status?.conditions).toEqual([
        expect.objectContaining({
          type: 'ReconcileCompleted',
          status: 'False',
          reason: 'InvalidName',
          message: "Only one AgentServiceConfig supported per cluster and must be named 'agent'",
        }),
      ]);
      expect(other.metadata.finalizers ?? []).toEqual([]);
    } finally {
      await client.delete(AGENT_SERVICE_CONFIG, name);
    }
  });
});
