import type { TestProject } from 'vitest/node';
import { ControlPlane } from '../../src/dev/controlplane.ts';
import { installCrds, projectCrdFiles } from '../../src/dev/crds.ts';

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
  await installCrds(kubeconfigPath, await projectCrdFiles());
  project.provide('kubeconfigPath', kubeconfigPath);
  project.provide('controlPlaneDir', dir);
}

export async function teardown(): Promise<void> {
  await plane?.stop();
}
