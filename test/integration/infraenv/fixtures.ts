// Shared by the InfraEnv integration tests: a base ISO served over loopback HTTP (what an
// AgentServiceConfig osImages url points at), the shared `agent` AgentServiceConfig entry, and
// object builders.
//
// The AgentServiceConfig is a cluster-scoped singleton shared by every test file on the control
// plane. These tests add one OS image entry for arm64 (an architecture the other suites do not
// use, so their InfraEnvs' "latest image" does not change) and remove it afterwards.
import type { AgentServiceConfig, InfraEnv } from '../../../src/api/index.ts';
import { AGENT_SERVICE_CONFIG } from '../../../src/records/resources.ts';
import { isAlreadyExists, isConflict, isNotFound, type KubeClient } from '../../../src/runtime/index.ts';

export const TEST_ARCH = 'arm64';
export const TEST_OCP_VERSION = '4.19';
export const TEST_RHCOS_VERSION = '419.96.202501010000-0';
export const PULL_SECRET_JSON = '{"auths":{"quay.io":{"auth":"dXNlcjpwYXNz"}}}';

export { serveFile } from '../../../src/dev/file-server.ts';

type OsImages = NonNullable<AgentServiceConfig['spec']['osImages']>;

/**
 * Adds (add = true) or removes one OS image entry in the shared AgentServiceConfig; by default this
 * suite's arm64 entry, other suites pass their own architecture/version.
 */
export async function setTestOsImage(
  client: KubeClient,
  url: string,
  add: boolean,
  image: { cpuArchitecture: string; openshiftVersion: string; version: string } = {
    cpuArchitecture: TEST_ARCH,
    openshiftVersion: TEST_OCP_VERSION,
    version: TEST_RHCOS_VERSION,
  },
): Promise<void> {
  const mine = (i: OsImages[number]) =>
    i.cpuArchitecture === image.cpuArchitecture && i.openshiftVersion === image.openshiftVersion;
  const entry = { ...image, url };
  for (let attempt = 0; attempt < 10; attempt++) {
    const asc = await client.getIfExists<AgentServiceConfig>(AGENT_SERVICE_CONFIG, 'agent');
    try {
      if (!asc) {
        if (!add) return;
        await client.create<AgentServiceConfig>(AGENT_SERVICE_CONFIG, {
          apiVersion: 'agent-install.openshift.io/v1beta1',
          kind: 'AgentServiceConfig',
          metadata: { name: 'agent' },
          spec: {
            filesystemStorage: { resources: { requests: { storage: '1Gi' } } },
            databaseStorage: { resources: { requests: { storage: '1Gi' } } },
            osImages: [entry],
          },
        } as AgentServiceConfig);
        return;
      }
      const others = (asc.spec.osImages ?? []).filter((i) => !mine(i));
      asc.spec.osImages = add ? [...others, entry] : others;
      await client.replace(AGENT_SERVICE_CONFIG, asc);
      return;
    } catch (err) {
      if (!isConflict(err) && !isNotFound(err) && !isAlreadyExists(err)) {
        throw err;
      }
    }
  }
  throw new Error('could not update the AgentServiceConfig');
}

export function infraEnv(ns: string, name: string, spec: Partial<InfraEnv['spec']> = {}): InfraEnv {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'InfraEnv',
    metadata: { name, namespace: ns },
    spec: {
      pullSecretRef: { name: 'pull-secret' },
      cpuArchitecture: TEST_ARCH,
      ipxeScriptType: 'DiscoveryImageAlways',
      ...spec,
    },
  } as InfraEnv;
}
