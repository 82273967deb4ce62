#!/usr/bin/env node
// `make run`: runs the operator against $KUBECONFIG when it is set; otherwise starts the local
// control plane (kube-apiserver + etcd built from Go modules), installs the CRDs (ours and, for
// local use only, the Hive and metal3 stand-ins) and runs the operator there until Ctrl-C.
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ControlPlane } from '../dev/controlplane.ts';
import { installCrds, projectCrdFiles } from '../dev/crds.ts';
import { loadKubeConfig, startOperator } from '../operator/main.ts';
import { loadOperatorConfig } from '../records/config.ts';
import { createLogger } from '../runtime/index.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const logger = createLogger();

let plane: ControlPlane | undefined;
let kubeconfigPath = process.env.KUBECONFIG;
if (!kubeconfigPath) {
  logger.info('KUBECONFIG is not set: starting a local control plane (first run builds it from Go modules)');
  plane = await ControlPlane.start();
  await mkdir(join(root, '.local'), { recursive: true });
  kubeconfigPath = join(root, '.local/kubeconfig');
  await copyFile(plane.kubeconfigPath, kubeconfigPath);
  await installCrds(kubeconfigPath, await projectCrdFiles());
  logger.info(
    { kubeconfig: kubeconfigPath, server: plane.server },
    'local control plane ready; CRDs installed',
  );
  console.log(`\n  export KUBECONFIG=${kubeconfigPath}\n`);
}

// Locally there is one replica: no Lease to wait for, and the operator's Secrets go to `default`.
const config = loadOperatorConfig(process.argv.slice(2), {
  LEADER_ELECT: plane ? 'false' : undefined,
  POD_NAMESPACE: 'default',
  ...process.env,
  KUBECONFIG: kubeconfigPath,
});
logger.level = config.runtime.logLevel;
const op = await startOperator(config, {
  kubeConfig: loadKubeConfig(kubeconfigPath),
  logger,
  installSignalHandlers: true,
});
try {
  await op.done;
} finally {
  await plane?.stop();
}
logger.info('stopped');
