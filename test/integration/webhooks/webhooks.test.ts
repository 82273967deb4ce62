// The admission webhooks behind a real kube-apiserver: the HTTPS server runs in this process on
// 127.0.0.1, and Validating/MutatingWebhookConfigurations point the API server at it by URL with
// the CA of a throwaway certificate authority. The configurations only select this file's
// namespace (by a label on it), so other suites running against the same API server are unaffected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  agentClassificationKind,
  agentClusterInstallKind,
  agentKind,
  clusterDeploymentKind,
  infraEnvKind,
  type KindDefinition,
} from '../../../src/api/index.ts';
import { ApiError, KubeClient } from '../../../src/runtime/client.ts';
import { type ApiResource, type KubeObject, NamespaceResource } from '../../../src/runtime/types.ts';
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
import { adminKubeConfig, eventually, newNamespace, uniqueName } from '../../harness/env.ts';

function resourceOf(k: KindDefinition): ApiResource {
  return {
    group: k.group,
    version: k.version,
    kind: k.kind,
    plural: k.plural,
    namespaced: k.scope === 'Namespaced',
  };
}

const ACI = resourceOf(agentClusterInstallKind);
const AGENT = resourceOf(agentKind);
const INFRAENV = resourceOf(infraEnvKind);
const CLASSIFICATION = resourceOf(agentClassificationKind);
const CD = resourceOf(clusterDeploymentKind);

// biome-ignore lint/suspicious/noExplicitAny: free-form test objects
type Obj = KubeObject & { spec?: any; status?: any };

let client: KubeClient;
let server: WebhookServer;
let configs: WebhookConfiguration[];
let ns: string;

/** The error of a write the API server refuses (undefined if it was accepted). */
async function refusal(write: () => Promise<unknown>): Promise<ApiError> {
  try {
    await write();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected the API server to refuse the request');
}

async function expectDenied(write: () => Promise<unknown>, message: string, code = 400): Promise<void> {
  const err = await refusal(write);
  expect(err.status?.message).toContain('denied the request: ');
  expect(err.status?.message).toContain(message);
  expect(err.statusCode).toBe(code);
}

function aci(name: string, spec: Record<string, unknown> = {}): Obj {
  return {
    metadata: { name, namespace: ns },
    spec: {
      clusterDeploymentRef: { name },
      imageSetRef: { name: 'openshift-v4.18' },
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
      },
      provisionRequirements: { controlPlaneAgents: 3, workerAgents: 0 },
      ...spec,
    },
  };
}

function sno(name: string, networking: Record<string, unknown> = {}): Obj {
  return aci(name, {
    provisionRequirements: { controlPlaneAgents: 1 },
    networking: { clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }], ...networking },
  });
}

function agent(name: string, spec: Record<string, unknown> = {}): Obj {
  return {
    metadata: { name, namespace: ns },
    spec: { role: 'master', approved: false, clusterDeploymentName: { name: 'cd', namespace: ns }, ...spec },
  };
}

function infraEnv(name: string, spec: Record<string, unknown> = {}): Obj {
  return { metadata: { name, namespace: ns }, spec: { pullSecretRef: { name: 'pull-secret' }, ...spec } };
}

function classification(name: string, spec: Record<string, unknown> = {}): Obj {
  return {
    metadata: { name, namespace: ns },
    spec: { labelKey: 'size', labelValue: 'large', query: '.cpu.count >= 8', ...spec },
  };
}

async function update(res: ApiResource, name: string, edit: (o: Obj) => void): Promise<Obj> {
  const obj = await client.get<Obj>(res, name, ns);
  edit(obj);
  return client.replace<Obj>(res, obj);
}

beforeAll(async () => {
  client = new KubeClient({ kubeConfig: adminKubeConfig(), qps: 0 });
  ns = await newNamespace('webhooks');
  const selectorLabel = 'aio-test/webhooks';
  await client.patch(NamespaceResource, ns, undefined, 'merge', {
    metadata: { labels: { [selectorLabel]: ns } },
  });

  const ca = await CertificateAuthority.create('webhook-test-ca');
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

  // The API server picks configurations up asynchronously: wait until every webhook answers
  // (dry-run writes that only the webhooks refuse, and one the mutating webhook changes).
  const dry = { dryRun: true };
  const refusedByWebhook = async (write: () => Promise<unknown>) => {
    try {
      await write();
      return false;
    } catch (err) {
      return err instanceof ApiError && (err.status?.message ?? '').includes('denied the request');
    }
  };
  await eventually(
    async () =>
      (await refusedByWebhook(() =>
        client.create(ACI, sno('probe', { userManagedNetworking: false }), dry),
      )) &&
      (await refusedByWebhook(() =>
        client.create(AGENT, agent('probe', { installation_disk_id: 'a', installation_disk_path: 'b' }), dry),
      )) &&
      (await refusedByWebhook(() =>
        client.create(
          INFRAENV,
          infraEnv('probe', { clusterRef: { name: 'x', namespace: ns }, osImageVersion: '4.18' }),
          dry,
        ),
      )) &&
      (await refusedByWebhook(() =>
        client.create(CLASSIFICATION, classification('probe', { query: '.a +' }), dry),
      )) &&
      (await client.create<Obj>(ACI, sno('probe'), dry)).spec?.networking?.userManagedNetworking === true,
    { timeoutMs: 30_000, intervalMs: 200, what: 'webhook configurations to take effect' },
  );
});

afterAll(async () => {
  // Configurations first: with failurePolicy Fail they must not outlive the server.
  if (client && configs) await deleteWebhookConfigurations(client, configs);
  await server?.close();
  await client?.close();
});

describe('AgentClusterInstall webhooks', () => {
  it('accepts a valid multi-node cluster', async () => {
    const created = await client.create<Obj>(ACI, aci(uniqueName('multi')));
    expect(created.metadata.uid).toBeTruthy();
    expect(created.spec.networking.userManagedNetworking).toBeUndefined();
  });

  it('defaults userManagedNetworking to true for single-node clusters (mutating webhook)', async () => {
    const created = await client.create<Obj>(ACI, sno(uniqueName('sno')));
    expect(created.spec.networking.userManagedNetworking).toBe(true);
    const none = await client.create<Obj>(ACI, aci(uniqueName('none'), { platformType: 'None' }));
    expect(none.spec.networking.userManagedNetworking).toBe(true);
    const bm = await client.create<Obj>(ACI, aci(uniqueName('bm'), { platformType: 'BareMetal' }));
    expect(bm.spec.networking.userManagedNetworking).toBe(false);
  });

  it('rejects SNO with userManagedNetworking false (409)', async () => {
    await expectDenied(
      () => client.create(ACI, sno(uniqueName('sno'), { userManagedNetworking: false })),
      'UserManagedNetworking must be set to true with SNO',
      409,
    );
  });

  it('rejects incompatible platform and user-managed networking (409)', async () => {
    await expectDenied(
      () =>
        client.create(
          ACI,
          aci(uniqueName('bm'), {
            platformType: 'BareMetal',
            networking: {
              clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
              userManagedNetworking: true,
            },
          }),
        ),
      "Can't set baremetal platform with user-managed-networking enabled",
      409,
    );
  });

  it('rejects an imageSetRef change on UPDATE, before install', async () => {
    const name = uniqueName('img');
    await client.create(ACI, aci(name));
    await expectDenied(
      () =>
        update(ACI, name, (o) => {
          o.spec.imageSetRef = { name: 'openshift-v4.19' };
        }),
      'Attempted to change AgentClusterInstall.ImageSetRef which is immutable',
    );
  });

  it('checks platform and user-managed networking on UPDATE too (409)', async () => {
    const name = uniqueName('bm');
    const created = await client.create<Obj>(ACI, aci(name, { platformType: 'BareMetal' }));
    expect(created.spec.networking.userManagedNetworking).toBe(false);
    await expectDenied(
      () =>
        update(ACI, name, (o) => {
          o.spec.networking.userManagedNetworking = true;
        }),
      "Can't set baremetal platform with user-managed-networking enabled",
      409,
    );
  });

  it('freezes the spec once the installation started, except clusterMetadata and ignitionEndpoint', async () => {
    const name = uniqueName('started');
    await client.create(ACI, aci(name, { sshPublicKey: 'ssh-ed25519 AAAA old' }));
    await client.patch(
      ACI,
      name,
      ns,
      'merge',
      {
        status: {
          conditions: [
            {
              type: 'Completed',
              status: 'False',
              reason: 'InstallationInProgress',
              message: 'The installation is in progress: x',
            },
          ],
        },
      },
      { subresource: 'status' },
    );
    await expectDenied(
      () => update(ACI, name, (o) => (o.spec.sshPublicKey = 'ssh-ed25519 AAAA new')),
      'Attempted to change AgentClusterInstall.Spec which is immutable after install started, except for ClusterMetadata,IgnitionEndpoint fields. Unsupported change: \n\tsshPublicKey: (ssh-ed25519 AAAA old => ssh-ed25519 AAAA new)',
    );
    await expectDenied(
      () => update(ACI, name, (o) => (o.spec.provisionRequirements.workerAgents = 2)),
      '\tprovisionRequirements.workerAgents: (<nil> => 2)',
    );
    const updated = await update(ACI, name, (o) => {
      o.spec.clusterMetadata = {
        clusterID: 'cid',
        infraID: 'iid',
        adminKubeconfigSecretRef: { name: `${name}-admin-kubeconfig` },
      };
      o.spec.ignitionEndpoint = { url: 'https://ignition.example.com' };
      o.metadata.labels = { touched: 'yes' };
    });
    expect(updated.spec.clusterMetadata.clusterID).toBe('cid');
  });
});

describe('Agent webhook', () => {
  it('accepts a valid Agent and rejects both installation disk fields on CREATE and UPDATE', async () => {
    const name = uniqueName('agent');
    await client.create(AGENT, agent(name, { installation_disk_id: '/dev/disk/by-id/wwn-1' }));
    const message = 'Either InstallationDiskID or InstallationDiskPath can be set, not both.';
    await expectDenied(
      () =>
        client.create(
          AGENT,
          agent(uniqueName('agent'), { installation_disk_id: 'a', installation_disk_path: '/dev/sda' }),
        ),
      message,
    );
    await expectDenied(
      () => update(AGENT, name, (o) => (o.spec.installation_disk_path = '/dev/sda')),
      message,
    );
  });

  it('rejects binding changes and frozen edits while installing; approval stays editable', async () => {
    const name = uniqueName('agent');
    await client.create(AGENT, agent(name, { hostname: 'master-0' }));
    await client.patch(
      AGENT,
      name,
      ns,
      'merge',
      { status: { debugInfo: { state: 'installing-in-progress' } } },
      { subresource: 'status' },
    );
    await expectDenied(
      () => update(AGENT, name, (o) => (o.spec.clusterDeploymentName = { name: 'other', namespace: ns })),
      'Attempted to change Spec.ClusterDeploymentName which is immutable during Agent installation.',
    );
    await expectDenied(
      () => update(AGENT, name, (o) => (o.spec.hostname = 'master-1')),
      'Attempted to change Spec.Hostname which is immutable after Agent installation has started (state: installing-in-progress). The change would not be applied to the host.',
    );
    const approved = await update(AGENT, name, (o) => (o.spec.approved = true));
    expect(approved.spec.approved).toBe(true);
  });
});

describe('InfraEnv webhook', () => {
  it('accepts a valid InfraEnv and rejects clusterRef with osImageVersion', async () => {
    await client.create(INFRAENV, infraEnv(uniqueName('ie'), { clusterRef: { name: 'cd', namespace: ns } }));
    await client.create(INFRAENV, infraEnv(uniqueName('ie'), { osImageVersion: '4.18' }));
    await expectDenied(
      () =>
        client.create(
          INFRAENV,
          infraEnv(uniqueName('ie'), { clusterRef: { name: 'cd', namespace: ns }, osImageVersion: '4.18' }),
        ),
      'Either Spec.ClusterRef or Spec.OSImageVersion should be specified (not both).',
    );
  });

  it('rejects clusterRef and cpuArchitecture changes', async () => {
    const name = uniqueName('ie');
    await client.create(INFRAENV, infraEnv(name, { clusterRef: { name: 'cd', namespace: ns } }));
    await expectDenied(
      () => update(INFRAENV, name, (o) => (o.spec.clusterRef = { name: 'other', namespace: ns })),
      'Attempted to change Spec.ClusterRef which is immutable after InfraEnv creation.',
    );
    await expectDenied(
      () => update(INFRAENV, name, (o) => (o.spec.cpuArchitecture = 'aarch64')),
      'Attempted to change Spec.CpuArchitecture which is immutable after InfraEnv creation.',
    );
  });

  it('allows osImageVersion next to a clusterRef only once the ClusterDeployment is installed', async () => {
    const cdName = uniqueName('cd');
    await client.create(CD, {
      metadata: { name: cdName, namespace: ns },
      spec: { baseDomain: 'example.com', clusterName: cdName, platform: { agentBareMetal: {} } },
    } as Obj);
    const name = uniqueName('ie');
    await client.create(INFRAENV, infraEnv(name, { clusterRef: { name: cdName, namespace: ns } }));
    await expectDenied(
      () => update(INFRAENV, name, (o) => (o.spec.osImageVersion = '4.18')),
      "spec.OSImageVersion is not valid. It can't be added alongside with a clusterRef when the cluster is not installed yet.",
    );
    await client.patch(CD, cdName, ns, 'merge', { spec: { installed: true } });
    const updated = await update(INFRAENV, name, (o) => (o.spec.osImageVersion = '4.18'));
    expect(updated.spec.osImageVersion).toBe('4.18');
  });
});

describe('AgentClassification webhook', () => {
  it('accepts a valid classification and rejects bad labels and queries', async () => {
    const name = uniqueName('ac');
    await client.create(CLASSIFICATION, classification(name));
    await expectDenied(
      () => client.create(CLASSIFICATION, classification(uniqueName('ac'), { labelValue: 'QUERYERROR-x' })),
      'label must not start with QUERYERROR as this is reserved',
    );
    await expectDenied(
      () => client.create(CLASSIFICATION, classification(uniqueName('ac'), { query: '.cpu.count >=' })),
      'spec.query: Invalid value: ".cpu.count >=": failed to parse query: unexpected EOF',
    );
    // A query that parses but names no function is refused too: the controller could not run it.
    await expectDenied(
      () => client.create(CLASSIFICATION, classification(uniqueName('ac'), { query: 'cpucount >= 8' })),
      'spec.query: Invalid value: "cpucount >= 8": failed to compile query: function not defined: cpucount/0',
    );
    await expectDenied(
      () => update(CLASSIFICATION, name, (o) => (o.spec.labelValue = 'small')),
      'Label modified: the specified label may not be modified after creation',
    );
    const changed = await update(CLASSIFICATION, name, (o) => (o.spec.query = '.cpu.count >= 16'));
    expect(changed.spec.query).toBe('.cpu.count >= 16');
  });
});
