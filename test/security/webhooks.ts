// The operator's admission webhooks for a security test file, wired as src/operator/main.ts wires
// them (access reviews through the API, the operator's own user exempt), served in this process and
// registered with the harness API server by URL. The configurations select only the namespaces
// given (by a label put on them), so other files running against the same API server are unaffected.
import { NamespaceResource } from '../../src/runtime/index.ts';
import { CertificateAuthority } from '../../src/util/pki.ts';
import {
  accessReviewer,
  applyWebhookConfigurations,
  buildWebhookConfigurations,
  clusterDeploymentGetter,
  deleteWebhookConfigurations,
  selfUserName,
  startWebhookServer,
} from '../../src/webhooks/index.ts';
import { uniqueName } from '../harness/env.ts';
import { admin } from './tenants.ts';

export interface TestWebhooks {
  /** The label (key=value) the configurations select namespaces by. */
  label: [string, string];
  close(): Promise<void>;
}

/** Starts and registers the webhooks for `namespaces`; call close() in afterAll. */
export async function startTestWebhooks(namespaces: readonly string[]): Promise<TestWebhooks> {
  const client = admin();
  const id = uniqueName('sec');
  const label: [string, string] = ['aio-test/security-webhooks', id];
  for (const ns of namespaces) {
    await client.patch(NamespaceResource, ns, undefined, 'merge', {
      metadata: { labels: { [label[0]]: id } },
    });
  }
  const ca = await CertificateAuthority.create('security-webhook-ca');
  const cert = await ca.issue({ commonName: '127.0.0.1', ipAddresses: ['127.0.0.1'], server: true });
  const server = await startWebhookServer({
    certPem: cert.certPem,
    keyPem: cert.keyPem,
    port: 0,
    host: '127.0.0.1',
    getClusterDeployment: clusterDeploymentGetter(client),
    reviewAccess: accessReviewer(client),
    // The harness admin plays the operator here, as main.ts learns its own name.
    relaxedUsers: [await selfUserName(client)],
  });
  const configs = buildWebhookConfigurations({
    target: { url: `https://127.0.0.1:${server.port}`, caBundle: Buffer.from(ca.certPem).toString('base64') },
    nameSuffix: `.${id}`,
    namespaceSelector: { matchLabels: { [label[0]]: id } },
  });
  await applyWebhookConfigurations(client, configs);
  return {
    label,
    async close() {
      // Configurations first: with failurePolicy Fail they must not outlive the server.
      await deleteWebhookConfigurations(client, configs);
      await server.close();
    },
  };
}
