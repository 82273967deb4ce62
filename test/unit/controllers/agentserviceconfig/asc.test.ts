import { describe, expect, it } from 'vitest';
import type { AgentServiceConfig } from '../../../../src/api/index.ts';
import {
  deploymentsHealthy,
  evaluateAgentServiceConfig,
  invalidNameEventReason,
} from '../../../../src/controllers/agentserviceconfig/status.ts';
import {
  normalizeArch,
  OsImageCatalog,
  osImagesFromSpec,
} from '../../../../src/records/serviceconfig/os-images.ts';

function asc(
  spec: Partial<AgentServiceConfig['spec']> = {},
  annotations?: Record<string, string>,
): AgentServiceConfig {
  return {
    apiVersion: 'agent-install.openshift.io/v1beta1',
    kind: 'AgentServiceConfig',
    metadata: { name: 'agent', ...(annotations ? { annotations } : {}) },
    spec: { filesystemStorage: {}, databaseStorage: {}, ...spec },
  } as AgentServiceConfig;
}

const IMAGES = osImagesFromSpec([
  { openshiftVersion: '4.16', version: '416.94.1', url: 'http://x/416.iso' },
  { openshiftVersion: '4.19', version: '419.96.1', url: 'http://x/419.iso', cpuArchitecture: 'x86_64' },
  { openshiftVersion: '4.18', version: '418.94.1', url: 'http://x/418-arm.iso', cpuArchitecture: 'aarch64' },
  { openshiftVersion: '4.16', version: 'dup', url: 'http://x/dup.iso' },
]);

describe('OsImageCatalog', () => {
  const catalog = new OsImageCatalog(IMAGES);

  it('keeps the first entry of a version and architecture, defaulting the architecture to x86_64', () => {
    expect(catalog.images.map((i) => i.url)).toEqual([
      'http://x/416.iso',
      'http://x/419.iso',
      'http://x/418-arm.iso',
    ]);
    expect(catalog.images[0]?.cpuArchitecture).toBe('x86_64');
  });

  it('picks the newest image when the InfraEnv names no version', () => {
    expect(catalog.forInfraEnv('x86_64')).toMatchObject({ ok: true, image: { openshiftVersion: '4.19' } });
    expect(catalog.forInfraEnv('arm64')).toMatchObject({ ok: true, image: { openshiftVersion: '4.18' } });
    expect(normalizeArch('aarch64')).toBe(normalizeArch('arm64'));
  });

  it('uses osImageVersion (exact or major.minor) and fails as upstream when it is missing', () => {
    expect(catalog.forInfraEnv('x86_64', '4.16.3')).toMatchObject({
      ok: true,
      image: { openshiftVersion: '4.16' },
    });
    expect(catalog.forInfraEnv('x86_64', '4.17')).toEqual({
      ok: false,
      clientError: true,
      message: 'Specified OSImageVersion is missing from AgentServiceConfig',
    });
  });

  it("uses the bound cluster's version, else the newest", () => {
    expect(catalog.forInfraEnv('x86_64', undefined, '4.16.2')).toMatchObject({
      image: { openshiftVersion: '4.16' },
    });
    expect(catalog.forInfraEnv('x86_64', undefined, '4.12.0')).toMatchObject({
      image: { openshiftVersion: '4.19' },
    });
  });

  it('reports an architecture without images, and an empty catalog', () => {
    expect(catalog.forInfraEnv('s390x')).toMatchObject({
      ok: false,
      message: 'No OS image is available for CPU architecture s390x',
    });
    expect(new OsImageCatalog().forInfraEnv('x86_64')).toMatchObject({
      ok: false,
      message: expect.stringContaining('No OS images'),
    });
  });

  it('finds a download by OpenShift version key or RHCOS version', () => {
    expect(catalog.forDownload('4.19', 'x86_64')?.url).toBe('http://x/419.iso');
    expect(catalog.forDownload('419.96.1', 'x86_64')?.url).toBe('http://x/419.iso');
    expect(catalog.forDownload('4.19.1', 'x86_64')).toBeUndefined();
    expect(catalog.forDownload('4.18', 'arm64')?.url).toBe('http://x/418-arm.iso');
  });
});

describe('evaluateAgentServiceConfig', () => {
  it('serves the OS images and mirrors of a valid spec', () => {
    const { config, reconcileCompleted } = evaluateAgentServiceConfig(
      asc({
        osImages: [{ openshiftVersion: '4.19', version: '419', url: 'http://x/a.iso' }],
        mirrorRegistryRef: { name: 'm' },
        iPXEHTTPRoute: 'enabled',
      }),
      { namespace: 'op', name: 'm', data: { 'registries.conf': 'conf', 'ca-bundle.crt': 'PEM' } },
    );
    expect(reconcileCompleted).toEqual({
      type: 'ReconcileCompleted',
      status: 'True',
      reason: 'ReconcileSucceeded',
      message: 'AgentServiceConfig reconcile completed without error.',
    });
    expect(config).toMatchObject({
      loaded: true,
      present: true,
      imageServiceEnabled: true,
      mirrorRegistries: { registriesConf: 'conf', caBundle: 'PEM' },
      insecureIpxeUrls: true,
    });
    expect(config.osImages.images).toHaveLength(1);
  });

  it('reports a missing or incomplete mirror ConfigMap (ConfigFailure)', () => {
    const missing = evaluateAgentServiceConfig(asc({ mirrorRegistryRef: { name: 'm' } }), {
      namespace: 'op',
      name: 'm',
      data: undefined,
    });
    expect(missing.reconcileCompleted).toMatchObject({
      status: 'False',
      reason: 'ConfigFailure',
      message: 'mirror registry ConfigMap op/m not found',
    });
    const noKey = evaluateAgentServiceConfig(asc({ mirrorRegistryRef: { name: 'm' } }), {
      namespace: 'op',
      name: 'm',
      data: {},
    });
    expect(noKey.reconcileCompleted.message).toBe(
      'mirror registry ConfigMap op/m has no registries.conf key',
    );
    expect(noKey.config.mirrorRegistries).toBeUndefined();
  });

  it('disables the image service by annotation; osImages must then be empty', () => {
    const { config, reconcileCompleted } = evaluateAgentServiceConfig(
      asc(
        { osImages: [{ openshiftVersion: '4.19', version: '419', url: 'http://x/a.iso' }] },
        { 'agent-install.openshift.io/enable-image-service': 'false' },
      ),
      undefined,
    );
    expect(config.imageServiceEnabled).toBe(false);
    expect(config.osImages.empty).toBe(true);
    expect(reconcileCompleted).toMatchObject({ status: 'False', reason: 'OSImagesShouldBeEmptyFailure' });
  });

  it('names the upstream event reason for other names', () => {
    expect(invalidNameEventReason('other')).toBe('Invalid name (other)');
  });
});

describe('deploymentsHealthy', () => {
  const os = IMAGES[1]!;
  it('is healthy when serving and every base image is cached', () => {
    expect(deploymentsHealthy(true, [{ os, state: { state: 'ready', image: {} as never } }])).toEqual({
      type: 'DeploymentsHealthy',
      status: 'True',
      reason: 'DeploymentSucceeded',
      message: 'All the deployments managed by Infrastructure-operator are healthy.',
    });
  });

  it('says what is missing otherwise', () => {
    expect(deploymentsHealthy(false, []).reason).toBe('DeploymentFailure');
    expect(deploymentsHealthy(true, [{ os, state: { state: 'downloading' } }]).message).toBe(
      'The image service is downloading OS images: 4.19/x86_64',
    );
    expect(
      deploymentsHealthy(true, [{ os, state: { state: 'failed', error: 'HTTP 404', at: 0 } }]).message,
    ).toBe('The image service cannot serve OS images: 4.19/x86_64: HTTP 404');
  });
});
