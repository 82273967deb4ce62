// Installs CustomResourceDefinitions from YAML files and waits until the API server serves them.
import { readFile } from 'node:fs/promises';
import { ApiextensionsV1Api, KubeConfig, type V1CustomResourceDefinition } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';

export async function readCrds(files: string[]): Promise<V1CustomResourceDefinition[]> {
  const out: V1CustomResourceDefinition[] = [];
  for (const f of files) {
    for (const doc of parseAllDocuments(await readFile(f, 'utf8'))) {
      const obj = doc.toJS() as V1CustomResourceDefinition | null;
      if (obj?.kind === 'CustomResourceDefinition') out.push(obj);
    }
  }
  return out;
}

function isNotFound(err: unknown): boolean {
  return (err as { code?: number }).code === 404;
}

/** Creates or replaces each CRD, then polls every 100 ms until all are Established. */
export async function installCrds(
  kubeconfigPath: string,
  files: string[],
  timeoutMs = 30_000,
): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const api = kc.makeApiClient(ApiextensionsV1Api);
  const crds = await readCrds(files);
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    try {
      const existing = await api.readCustomResourceDefinition({ name });
      crd.metadata = { ...crd.metadata, resourceVersion: existing.metadata?.resourceVersion };
      await api.replaceCustomResourceDefinition({ name, body: crd });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      await api.createCustomResourceDefinition({ body: crd });
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (const crd of crds) {
    const name = crd.metadata?.name ?? '';
    for (;;) {
      const got = await api.readCustomResourceDefinition({ name });
      const established = got.status?.conditions?.some(
        (c) => c.type === 'Established' && c.status === 'True',
      );
      if (established) break;
      if (Date.now() > deadline) throw new Error(`CRD ${name} not established after ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
