// Fuzz of every CRD kind on the real API server, with the admission webhooks on and the operator
// in-process reconciling what gets accepted: creates and updates of mutated valid objects (wrong
// types, huge strings and lists, deep nesting, unicode, boundary numbers, our annotations with
// garbage). Asserts: the API server never answers 5xx (a webhook failure is a 500), the operator
// is still ready and still gives a fresh InfraEnv its ISO URL, and RSS is back under a bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AGENT_ROLE_ANNOTATION,
  BMH_HOSTNAME_ANNOTATION,
  BMH_INSTALLER_ARGS_ANNOTATION,
  BMH_ROLE_ANNOTATION,
  IGNORED_HOST_VALIDATIONS_ANNOTATION,
  INSTALL_CONFIG_OVERRIDES_ANNOTATION,
  type InfraEnv,
} from '../../../src/api/index.ts';
import {
  AGENT,
  AGENT_CLASSIFICATION,
  AGENT_CLUSTER_INSTALL,
  AGENT_SERVICE_CONFIG,
  BARE_METAL_HOST,
  CLUSTER_DEPLOYMENT,
  CLUSTER_IMAGE_SET,
  INFRA_ENV,
  NMSTATE_CONFIG,
  PREPROVISIONING_IMAGE,
} from '../../../src/records/resources.ts';
import {
  ApiError,
  type ApiResource,
  type KubeObject,
  NamespaceResource,
} from '../../../src/runtime/index.ts';
import { CertificateAuthority } from '../../../src/util/pki.ts';
import {
  applyWebhookConfigurations,
  buildWebhookConfigurations,
  clusterDeploymentGetter,
  deleteWebhookConfigurations,
  startWebhookServer,
  type WebhookConfiguration,
  type WebhookServer,
} from '../../../src/webhooks/index.ts';
import { eventually, newNamespace, uniqueName } from '../../harness/env.ts';
import { startTestOperator, type TestOperator } from '../../harness/operator.ts';
import { adminClient, createInfraEnv } from '../../integration/hosts/helpers.ts';
import { setTestOsImage } from '../../integration/infraenv/fixtures.ts';
import { casesFor, Fuzzer, type FuzzFigures, printFigures, seedFor } from '../gen.ts';

const OS_IMAGE = { cpuArchitecture: 'ppc64le', openshiftVersion: '4.12', version: '412.86.202301010000-0' };
const OS_URL = 'http://127.0.0.1:9/rhcos-ppc64le-4.12.iso';
const RSS_LIMIT_BYTES = 1536 * 1024 * 1024;
const CONCURRENCY = 6;

// biome-ignore lint/suspicious/noExplicitAny: free-form fuzz objects
type Obj = KubeObject & { spec?: any };

const client = adminClient();
let op: TestOperator;
let ns: string;
let server: WebhookServer;
let configs: WebhookConfiguration[];
const clusterScoped: { res: ApiResource; name: string }[] = [];

interface KindTarget {
  res: ApiResource;
  cases: number;
  spec: () => Record<string, unknown>;
  annotations?: string[];
}

const targets: KindTarget[] = [
  {
    res: INFRA_ENV,
    cases: 40,
    spec: () => ({
      pullSecretRef: { name: 'pull-secret' },
      cpuArchitecture: 'ppc64le',
      osImageVersion: '4.12',
      sshAuthorizedKey: 'ssh-ed25519 AAAA',
      additionalNTPSources: ['pool.ntp.org'],
      proxy: { httpProxy: 'http://proxy:3128', noProxy: '.example.com' },
      kernelArguments: [{ operation: 'append', value: 'a=b' }],
      ignitionConfigOverride: '{"ignition":{"version":"3.2.0"}}',
      nmStateConfigLabelSelector: { matchLabels: { a: 'b' } },
      agentLabels: { a: 'b' },
    }),
  },
  {
    res: AGENT,
    cases: 30,
    spec: () => ({
      role: 'worker',
      approved: false,
      hostname: 'host-0',
      installerArgs: '["--append-karg","a=b"]',
      nodeLabels: { a: 'b' },
      clusterDeploymentName: { name: 'cd', namespace: ns },
    }),
    annotations: [AGENT_ROLE_ANNOTATION],
  },
  {
    res: AGENT_CLUSTER_INSTALL,
    cases: 40,
    spec: () => ({
      clusterDeploymentRef: { name: 'cd' },
      imageSetRef: { name: 'openshift-v4.18' },
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
        machineNetwork: [{ cidr: '192.168.111.0/24' }],
      },
      apiVIPs: ['192.168.111.5'],
      ingressVIPs: ['192.168.111.4'],
      provisionRequirements: { controlPlaneAgents: 3, workerAgents: 0 },
      sshPublicKey: 'ssh-ed25519 AAAA',
      proxy: { httpProxy: 'http://proxy:3128' },
    }),
    annotations: [INSTALL_CONFIG_OVERRIDES_ANNOTATION, IGNORED_HOST_VALIDATIONS_ANNOTATION],
  },
  {
    res: CLUSTER_DEPLOYMENT,
    cases: 25,
    spec: () => ({
      clusterName: 'cd',
      baseDomain: 'example.com',
      platform: { agentBareMetal: {} },
      clusterInstallRef: {
        group: 'extensions.hive.openshift.io',
        version: 'v1beta1',
        kind: 'AgentClusterInstall',
        name: 'cd',
      },
      pullSecretRef: { name: 'pull-secret' },
    }),
  },
  {
    res: NMSTATE_CONFIG,
    cases: 25,
    spec: () => ({
      interfaces: [{ name: 'eth0', macAddress: '52:54:00:00:00:01' }],
      config: { interfaces: [{ name: 'eth0', type: 'ethernet', state: 'up' }] },
    }),
  },
  {
    res: AGENT_CLASSIFICATION,
    cases: 25,
    spec: () => ({ labelKey: 'size', labelValue: 'large', query: '.cpu.count >= 8' }),
  },
  {
    res: BARE_METAL_HOST,
    cases: 20,
    spec: () => ({
      bootMACAddress: '52:54:00:00:00:02',
      online: true,
      bmc: { address: 'redfish://10.0.0.1/redfish/v1/Systems/1', credentialsName: 'bmc' },
      rootDeviceHints: { deviceName: '/dev/sda' },
    }),
    annotations: [BMH_ROLE_ANNOTATION, BMH_HOSTNAME_ANNOTATION, BMH_INSTALLER_ARGS_ANNOTATION],
  },
  {
    res: PREPROVISIONING_IMAGE,
    cases: 10,
    spec: () => ({ architecture: 'x86_64', acceptFormats: ['iso', 'initrd'] }),
  },
  { res: CLUSTER_IMAGE_SET, cases: 8, spec: () => ({ releaseImage: 'quay.io/ocp-release:4.18.1-x86_64' }) },
  {
    res: AGENT_SERVICE_CONFIG,
    cases: 8,
    spec: () => ({
      filesystemStorage: { resources: { requests: { storage: '1Gi' } } },
      databaseStorage: { resources: { requests: { storage: '1Gi' } } },
      osImages: [
        { cpuArchitecture: 'x86_64', openshiftVersion: '4.18', version: '1', url: 'http://x/y.iso' },
      ],
    }),
  },
];

async function startWebhooks(): Promise<void> {
  const selectorLabel = 'aio-test/fuzz-webhooks';
  await client.patch(NamespaceResource, ns, undefined, 'merge', {
    metadata: { labels: { [selectorLabel]: ns } },
  });
  const ca = await CertificateAuthority.create('fuzz-webhook-ca');
  const cert = await ca.issue({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], server: true });
  server = await startWebhookServer({
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    port: 0,
    host: '127.0.0.1',
    getClusterDeployment: clusterDeploymentGetter(client),
  });
  configs = buildWebhookConfigurations({
    target: { url: `https://127.0.0.1:${server.port}`, caBundle: Buffer.from(ca.certPem).toString('base64') },
    nameSuffix: `.${ns}`,
    namespaceSelector: { matchLabels: { [selectorLabel]: ns } },
  });
  await applyWebhookConfigurations(client, configs);
  // Configurations are picked up asynchronously: wait until the InfraEnv webhook refuses a bad one.
  await eventually(
    async () => {
      try {
        await client.create(
          INFRA_ENV,
          {
            metadata: { name: 'probe', namespace: ns },
            spec: {
              pullSecretRef: { name: 'p' },
              clusterRef: { name: 'x', namespace: ns },
              osImageVersion: '4.18',
            },
          } as Obj,
          { dryRun: true },
        );
        return false;
      } catch (err) {
        return err instanceof ApiError && (err.status?.message ?? '').includes('denied the request');
      }
    },
    { what: 'webhooks answering', timeoutMs: 30_000 },
  );
}

beforeAll(async () => {
  ns = await newNamespace('fuzz-crd');
  op = await startTestOperator({ namespace: ns });
  await startWebhooks();
  await setTestOsImage(client, OS_URL, true, OS_IMAGE);
});

afterAll(async () => {
  for (const o of clusterScoped) await client.delete(o.res, o.name).catch(() => {});
  await setTestOsImage(client, OS_URL, false, OS_IMAGE).catch(() => {});
  if (configs) await deleteWebhookConfigurations(client, configs).catch(() => {});
  await server?.close();
  await op?.stop();
  await client.close();
});

function fuzzObject(f: Fuzzer, t: KindTarget, name: string): Obj {
  const namespaced = t.res.namespaced;
  const metadata: Obj['metadata'] = { name, ...(namespaced ? { namespace: ns } : {}) };
  if (t.annotations && f.chance(0.4)) {
    metadata.annotations = Object.fromEntries(
      t.annotations.map((a) => [a, f.string(f.chance(0.1) ? 200_000 : 500)] as const),
    );
  }
  if (f.chance(0.1)) metadata.labels = { [f.string(20).replace(/[^a-z]/g, 'a') || 'a']: f.string(80) };
  const spec = f.chance(0.9) ? f.mutate(t.spec()) : f.value(3);
  return { apiVersion: `${t.res.group}/${t.res.version}`, kind: t.res.kind, metadata, spec } as Obj;
}

/** The API server's answer: 200, or the HTTP status and message of a refusal; throws on anything else. */
async function answer(write: () => Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await write();
    return { status: 200, message: '' };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { status: err.statusCode ?? 0, message: err.status?.message ?? err.message };
  }
}

async function runPool<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

describe('fuzz: every CRD kind through the API server, webhooks and operator', () => {
  it('never gets a 5xx, and the operator still reconciles afterwards', { timeout: 240_000 }, async () => {
    const seed = seedFor(1430);
    const f = new Fuzzer(seed);
    const rssBefore = process.memoryUsage().rss;
    const jobs = targets.flatMap((t) =>
      Array.from({ length: casesFor(t.cases) }, (_, i) => ({
        t,
        obj: fuzzObject(f, t, `fz-${i}-${uniqueName('o')}`),
        edit: f.mutate(t.spec()),
      })),
    );
    let apiServerTimeouts = 0;
    const stats = new Map<string, { cases: number; failures: number; ms: number; accepted: number }>();
    const failures: string[] = [];
    const started = Date.now();
    await runPool(jobs, CONCURRENCY, async ({ t, obj, edit }) => {
      const s = stats.get(t.res.kind) ?? { cases: 0, failures: 0, ms: 0, accepted: 0 };
      stats.set(t.res.kind, s);
      const t0 = Date.now();
      const check = (op: string, { status, message }: { status: number; message: string }) => {
        s.cases++;
        // The API server's own handler deadline (e.g. 30,000 wrongly typed list items to report on
        // a loaded machine) is not an answer of ours: counted and printed, not failed.
        if (status === 504 && message.includes('request did not complete within requested timeout')) {
          apiServerTimeouts++;
          return;
        }
        if (status >= 500 || status === 0) {
          s.failures++;
          const shape = JSON.stringify(obj);
          failures.push(
            `${t.res.kind} ${op} ${obj.metadata.name} (${shape.length} bytes: ${shape.slice(0, 160)}) → ${status} ${message.slice(0, 300)}`,
          );
          console.log(`[fuzz] crds failure: ${failures.at(-1)}`);
        }
      };
      try {
        const created = await answer(() => client.create(t.res, obj));
        check('create', created);
        if (created.status === 200) {
          s.accepted++;
          if (!t.res.namespaced) clusterScoped.push({ res: t.res, name: obj.metadata.name ?? '' });
          const updated = await answer(async () => {
            const current = await client.get<Obj>(t.res, obj.metadata.name ?? '', obj.metadata.namespace);
            current.spec = edit;
            return client.replace(t.res, current);
          });
          check('update', updated);
        }
      } catch (err) {
        s.failures++;
        failures.push(`${t.res.kind} ${obj.metadata.name} → ${(err as Error).message}`);
        console.log(`[fuzz] crds failure: ${failures.at(-1)}`);
      }
      s.ms += Date.now() - t0;
    });
    const figures: FuzzFigures[] = [...stats.entries()].map(([target, s]) => ({
      target: `${target} (${s.accepted} accepted)`,
      cases: s.cases,
      seed,
      failures: s.failures,
      ms: s.ms,
    }));
    printFigures(`crds (${Date.now() - started} ms wall, ${apiServerTimeouts} API server timeouts)`, figures);
    expect(failures.slice(0, 10), `seed ${seed}`).toEqual([]);

    // The operator reconciled all of that and still does its work.
    expect(op.ctx.mgr.isReady()).toBe(true);
    await createInfraEnv(client, ns, 'after-fuzz', { cpuArchitecture: 'ppc64le', osImageVersion: '4.12' });
    await eventually(
      async () => (await client.get<InfraEnv>(INFRA_ENV, 'after-fuzz', ns)).status?.isoDownloadURL,
      { what: 'ISO URL of a fresh InfraEnv', timeoutMs: 60_000 },
    );
    const rssAfter = process.memoryUsage().rss;
    const mib = (n: number) => `${Math.round(n / 1024 / 1024)} MiB`;
    console.log(`[fuzz] crds RSS before ${mib(rssBefore)}, after ${mib(rssAfter)}`);
    expect(rssAfter).toBeLessThan(RSS_LIMIT_BYTES);
  });
});
