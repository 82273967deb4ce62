// Without SERVICE_BASE_URL the operator writes the address hosts reach it at — its Ingress, else
// its LoadBalancer Service, else its own listen address — into status, and status follows when
// that address changes: the InfraEnv's image and events URLs and the AgentClusterInstall's debug
// URLs. A change of the watched objects that leaves the address alone writes nothing. (No Route:
// the test control plane does not serve route.openshift.io; the unit tests cover Routes.)
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentClusterInstall, InfraEnv } from '../../../src/api/index.ts';
import {
  AGENT_CLUSTER_INSTALL,
  CLUSTER_IMAGE_SET,
  INFRA_ENV,
  INGRESS,
  SERVICE,
} from '../../../src/records/resources.ts';
import { KubeClient, type KubeObject } from '../../../src/runtime/index.ts';
import { adminKubeConfig, eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { buildTestIso } from '../../harness/iso.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { patchIfUnchanged } from '../../harness/unchanged.ts';
import {
  clusterDeploymentObject,
  createCluster,
  createImageSet,
  createPullSecret,
  snoAciObject,
} from '../cluster/harness.ts';
import { infraEnv, serveFile, setTestOsImage } from '../infraenv/fixtures.ts';

// An architecture and version no other suite uses, so this entry changes no other InfraEnv's image.
const OS_IMAGE = { cpuArchitecture: 's390x', openshiftVersion: '4.15', version: '415.94.202501010000-0' };
const NAME = 'agent-install-operator-api';

const client = new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
let op: TestOperator | undefined;
let ns: string;
let isoDir: string;
let files: Awaited<ReturnType<typeof serveFile>> | undefined;
let imageSet: string | undefined;

function ingressObject(host: string, tls: boolean): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: NAME, namespace: ns },
    spec: {
      ...(tls ? { tls: [{ hosts: [host] }] } : {}),
      rules: [
        {
          host,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: NAME, port: { name: 'api' } } },
              },
            ],
          },
        },
      ],
    },
  } as KubeObject;
}

beforeAll(async () => {
  ns = await newNamespace('baseurl');
  isoDir = await mkdtemp(join(tmpdir(), 'aio-baseurl-iso-'));
  const iso = await buildTestIso(isoDir, { rhcosVersion: OS_IMAGE.version });
  files = await serveFile(iso.path);
  await setTestOsImage(client, files.url, true, OS_IMAGE);
  await createPullSecret(client, ns);
  // There before the operator starts: its first status writes already use it.
  await client.create(INGRESS, ingressObject('aio-a.example.com', false));
  op = await startTestOperator({ namespace: ns, env: { WATCH_NAMESPACE: ns } });
}, 120_000);

afterAll(async () => {
  if (files) await setTestOsImage(client, files.url, false, OS_IMAGE).catch(() => {});
  await op?.stop();
  await files?.close();
  if (isoDir) await rm(isoDir, { recursive: true, force: true });
  if (imageSet) await client.delete(CLUSTER_IMAGE_SET, imageSet).catch(() => {});
  await client.close();
});

const getInfraEnv = () => client.get<InfraEnv>(INFRA_ENV, 'hosts', ns);
const getAci = () => client.get<AgentClusterInstall>(AGENT_CLUSTER_INSTALL, 'sno', ns);

/** Every URL the InfraEnv and the ACI carry starts with `base` + '/' (logsURL waits for logs). */
async function urlsFollow(base: string, what: string): Promise<{ ie: InfraEnv; aci: AgentClusterInstall }> {
  let last: Record<string, string | undefined> = {};
  try {
    return await eventually(
      async () => {
        const [ie, aci] = await Promise.all([getInfraEnv(), getAci()]);
        last = {
          isoDownloadURL: ie.status?.isoDownloadURL,
          infraEnvEvents: ie.status?.debugInfo?.eventsURL,
          kernel: ie.status?.bootArtifacts?.kernel,
          ipxeScript: ie.status?.bootArtifacts?.ipxeScript,
          aciEvents: aci.status?.debugInfo?.eventsURL,
        };
        return Object.values(last).every((u) => u?.startsWith(`${base}/`)) ? { ie, aci } : undefined;
      },
      { timeoutMs: 30_000, what },
    );
  } catch (err) {
    throw new Error(`${String(err)}; URLs: ${JSON.stringify(last, null, 1)}`);
  }
}

/** The object once its resourceVersion has stayed the same for 1.5 s. */
async function settled<T extends KubeObject>(get: () => Promise<T>): Promise<T> {
  let prev = await get();
  for (let i = 0; i < 40; i++) {
    await new Promise((r) => setTimeout(r, 1_500));
    const cur = await get();
    if (cur.metadata.resourceVersion === prev.metadata.resourceVersion) return cur;
    prev = cur;
  }
  throw new Error(`${prev.metadata.name} kept changing`);
}

describe('service base URL discovery', () => {
  it("writes the Ingress's host into status", async () => {
    expect(op!.ctx.urls).toEqual({
      serviceBaseUrl: 'http://aio-a.example.com',
      imageServiceBaseUrl: 'http://aio-a.example.com',
    });
    await client.create(INFRA_ENV, infraEnv(ns, 'hosts', { cpuArchitecture: OS_IMAGE.cpuArchitecture }));
    imageSet = await createImageSet(client, uniqueName('baseurl-cis'));
    await createCluster(client, clusterDeploymentObject(ns, 'sno'), snoAciObject(ns, 'sno', imageSet));
    const { ie } = await urlsFollow('http://aio-a.example.com', 'URLs on the Ingress host');
    expect(ie.status?.isoDownloadURL).toMatch(
      /^http:\/\/aio-a\.example\.com\/byapikey\/.+\/s390x\/full\.iso$/,
    );
  });

  it('follows a new Ingress host (https once TLS lists it), and writes nothing for other changes', async () => {
    await client.replace(INGRESS, {
      ...(await client.get<KubeObject>(INGRESS, NAME, ns)),
      ...ingressObject('aio-b.example.com', true),
    });
    await urlsFollow('https://aio-b.example.com', 'URLs on the new Ingress host');
    // The new URL rebuilds the discovery image, so the InfraEnv is written a few more times (image
    // created, cool-down): compare against its state once that has settled.
    const ie = await settled(getInfraEnv);
    const aci = await settled(getAci);

    // A label on the Ingress leaves the address as it is: no URL change is announced, so nothing
    // is re-queued and nothing written. The barrier: the operator's Ingress cache holds the
    // labelled object, and its handler runs as the cache takes it.
    let announced = 0;
    op!.ctx.onUrlsChange(() => {
      announced++;
    });
    const labelled = await client.patch<KubeObject>(INGRESS, NAME, ns, 'merge', {
      metadata: { labels: { touched: 'yes' } },
    });
    const ingressCache = op!.ctx.mgr.informer<KubeObject>(INGRESS).store;
    await eventually(
      async () =>
        ingressCache.list().some((i) => i.metadata.resourceVersion === labelled.metadata.resourceVersion) ||
        undefined,
      { timeoutMs: 30_000, what: 'the labelled Ingress in the operator cache' },
    );
    expect(announced).toBe(0);
    expect(op!.ctx.urls.serviceBaseUrl).toBe('https://aio-b.example.com');
    await patchIfUnchanged(client, INFRA_ENV, ie, { metadata: { labels: { checked: 'yes' } } });
    await patchIfUnchanged(client, AGENT_CLUSTER_INSTALL, aci, { metadata: { labels: { checked: 'yes' } } });
  });

  it("falls back to the LoadBalancer Service's address, then to the listen address", async () => {
    await client.create(SERVICE, {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: NAME, namespace: ns },
      spec: {
        type: 'LoadBalancer',
        selector: { app: 'none' },
        ports: [{ name: 'api', port: 8090, targetPort: 8090, protocol: 'TCP' }],
      },
    } as KubeObject);
    // No cloud controller here: publish the load balancer's address ourselves.
    const published = await client.patch<KubeObject>(
      SERVICE,
      NAME,
      ns,
      'merge',
      { status: { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } } },
      { subresource: 'status' },
    );
    // The Ingress still wins, once the operator has seen the load balancer's address.
    const serviceCache = op!.ctx.mgr.informer<KubeObject>(SERVICE).store;
    await eventually(
      async () =>
        serviceCache.list().some((x) => x.metadata.resourceVersion === published.metadata.resourceVersion) ||
        undefined,
      { timeoutMs: 30_000, what: 'the load balancer Service in the operator cache' },
    );
    expect(op!.ctx.urls.serviceBaseUrl).toBe('https://aio-b.example.com');

    await client.delete(INGRESS, NAME, ns);
    await urlsFollow('http://192.0.2.10:8090', 'URLs on the load balancer');

    await client.delete(SERVICE, NAME, ns);
    await urlsFollow(op!.baseUrl, 'URLs on the listen address');
  });
});
