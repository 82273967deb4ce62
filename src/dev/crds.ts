// Installs CustomResourceDefinitions from YAML files and waits until the API server serves them.
// Uses the runtime's plain JSON client: client-node's typed serializer silently drops `enum` and
// `default` from CRD schemas (its JSONSchemaProps model renames them), which disables validation.
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { isNotFound, KubeClient } from '../runtime/client.ts';
import type { ApiResource, KubeObject } from '../runtime/types.ts';

const CRD_RESOURCE: ApiResource = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  kind: 'CustomResourceDefinition',
  plural: 'customresourcedefinitions',
  namespaced: false,
};

interface Crd extends KubeObject {
  status?: { conditions?: { type: string; status: string }[] };
}

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The project's CRD files: ours (config/crd/bases) and, for local runs and tests only, the Hive and
 * metal3 stand-ins (config/crd/external).
 */
export async function projectCrdFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const dir of ['config/crd/bases', 'config/crd/external']) {
    for (const f of (await readdir(join(repoRoot, dir))).sort()) {
      if (f.endsWith('.yaml') && f !== 'kustomization.yaml') out.push(join(repoRoot, dir, f));
    }
  }
  return out;
}

export async function readCrds(files: string[]): Promise<Crd[]> {
  const out: Crd[] = [];
  for (const f of files) {
    for (const doc of parseAllDocuments(await readFile(f, 'utf8'))) {
      const obj = doc.toJS() as Crd | null;
      if (obj?.kind === 'CustomResourceDefinition') out.push(obj);
    }
  }
  return out;
}

/** Creates or replaces each CRD, then polls every 100 ms (as envtest does) until all are Established. */
export async function installCrds(
  kubeconfigPath: string,
  files: string[],
  timeoutMs = 30_000,
): Promise<void> {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const client = new KubeClient({ kubeConfig: kc, qps: 0 });
  try {
    const crds = await readCrds(files);
    for (const crd of crds) {
      const name = crd.metadata.name ?? '';
      const existing = await client.getIfExists<Crd>(CRD_RESOURCE, name);
      if (existing) {
        await client.replace(CRD_RESOURCE, {
          ...crd,
          metadata: { ...crd.metadata, resourceVersion: existing.metadata.resourceVersion },
        });
      } else {
        await client.create(CRD_RESOURCE, crd);
      }
    }
    const deadline = Date.now() + timeoutMs;
    for (const crd of crds) {
      const name = crd.metadata.name ?? '';
      for (;;) {
        const got = await client.get<Crd>(CRD_RESOURCE, name).catch((err) => {
          if (isNotFound(err)) return undefined;
          throw err;
        });
        if (got?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) break;
        if (Date.now() > deadline) throw new Error(`CRD ${name} not established after ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  } finally {
    await client.close();
  }
}
