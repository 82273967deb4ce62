import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { buildWebhookConfigurations } from '../../../src/webhooks/config.ts';

async function yamlDocs(file: string): Promise<unknown[]> {
  const text = await readFile(file, 'utf8');
  return parseAllDocuments(text)
    .map((d) => d.toJSON())
    .filter((d) => d !== null);
}

describe('webhook configurations', () => {
  it('config/webhook YAML matches buildWebhookConfigurations()', async () => {
    const built = buildWebhookConfigurations();
    const validating = await yamlDocs('config/webhook/validating.yaml');
    const mutating = await yamlDocs('config/webhook/mutating.yaml');
    expect([...validating, ...mutating]).toEqual(built);
  });

  it('points at the Service on port 443 with the required settings', () => {
    const built = buildWebhookConfigurations();
    expect(built.map((c) => [c.kind, c.metadata.name])).toEqual([
      ['ValidatingWebhookConfiguration', 'agentvalidators.admission.agentinstall.openshift.io'],
      ['ValidatingWebhookConfiguration', 'agentclusterinstallvalidators.admission.agentinstall.openshift.io'],
      ['ValidatingWebhookConfiguration', 'infraenvvalidators.admission.agentinstall.openshift.io'],
      ['ValidatingWebhookConfiguration', 'agentclassificationvalidators.admission.agentinstall.openshift.io'],
      ['MutatingWebhookConfiguration', 'agentclusterinstallmutators.admission.agentinstall.openshift.io'],
    ]);
    for (const cfg of built) {
      const [hook] = cfg.webhooks;
      expect(hook?.clientConfig.service).toMatchObject({
        name: 'agent-install-operator-webhook',
        namespace: 'agent-install-operator',
        port: 443,
      });
      expect(hook).toMatchObject({
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
      });
      expect(hook?.rules[0]?.operations).toEqual(['CREATE', 'UPDATE']);
    }
  });

  it('can target a URL with a CA bundle, a namespace selector and a name suffix', async () => {
    const built = buildWebhookConfigurations({
      target: { url: 'https://127.0.0.1:9443/', caBundle: 'Q0E=' },
      nameSuffix: '-t1',
      namespaceSelector: { matchLabels: { t: '1' } },
      webhooks: ['mutate-agentclusterinstall'],
    });
    expect(built).toHaveLength(1);
    expect(built[0]?.metadata.name).toBe(
      'agentclusterinstallmutators.admission.agentinstall.openshift.io-t1',
    );
    expect(built[0]?.metadata.annotations).toBeUndefined();
    expect(built[0]?.webhooks[0]).toMatchObject({
      clientConfig: { url: 'https://127.0.0.1:9443/mutate-agentclusterinstall', caBundle: 'Q0E=' },
      namespaceSelector: { matchLabels: { t: '1' } },
      reinvocationPolicy: 'Never',
    });
  });

  it('has a Service mapping 443 to 9443', async () => {
    const [svc] = (await yamlDocs('config/webhook/service.yaml')) as Array<{
      metadata: { name: string; namespace: string };
      spec: { ports: Array<{ port: number; targetPort: number }> };
    }>;
    expect(svc?.metadata).toMatchObject({
      name: 'agent-install-operator-webhook',
      namespace: 'agent-install-operator',
    });
    expect(svc?.spec.ports).toEqual([expect.objectContaining({ port: 443, targetPort: 9443 })]);
  });
});
