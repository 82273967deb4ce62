// vitest globalSetup for the integration project: one real control plane per test run.
// Set AIO_TEST_KUBECONFIG to run the same suites against an existing cluster instead.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ControlPlane } from '../../src/dev/controlplane.ts';
import { installCrds } from '../../src/dev/crds.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    controlPlaneDir: string;
  }
}

let plane: ControlPlane | undefined;

export async function setup(project: TestProject): Promise<void> {
  let kubeconfigPath = process.env.AIO_TEST_KUBECONFIG;
  let dir = '';
  if (!kubeconfigPath) {
    const started = Date.now();
    plane = await ControlPlane.start({ controllerManager: process.env.AIO_TEST_KCM === '1' });
    kubeconfigPath = plane.kubeconfigPath;
    dir = plane.dir;
    console.log(
      `[harness] control plane up in ${Date.now() - started} ms at ${plane.server} (logs in ${dir})`,
    );
  }
  await installCrds(kubeconfigPath, await crdFiles());
  project.provide('kubeconfigPath', kubeconfigPath);
  project.provide('controlPlaneDir', dir);
}

export async function teardown(): Promise<void> {
  await plane?.stop();
}

async function crdFiles(): Promise<string[]> {
  const out: string[] = [];
  for (const sub of ['config/crd/bases', 'config/crd/external']) {
    const names = await readdir(sub).catch(() => [] as string[]);
    for (const n of names.sort()) {
      if (n.endsWith('.yaml') && n !== 'kustomization.yaml') out.push(join(sub, n));
    }
  }
  // Touch the files so a missing directory is an explicit, early error rather than an empty run.
  await Promise.all(out.map((f) => readFile(f)));
  return out;
}
