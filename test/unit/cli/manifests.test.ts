import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  agentClusterInstallSchema,
  clusterDeploymentSchema,
  clusterImageSetSchema,
  infraEnvSchema,
  nmStateConfigSchema,
} from '../../../src/api/index.ts';
import {
  convertAgentInstallerConfig,
  convertAgentInstallerFiles,
  defaultReleaseImage,
  ManifestInputError,
  manifestFileName,
  NMSTATE_CONFIG_LABEL,
  renderManifests,
} from '../../../src/cli/manifests.ts';

const fixtures = join(import.meta.dirname, 'fixtures');
const installConfig = readFileSync(join(fixtures, 'install-config.yaml'), 'utf8');
const agentConfig = readFileSync(join(fixtures, 'agent-config.yaml'), 'utf8');

const minimal = (over: Record<string, unknown> = {}) => ({
  metadata: { name: 'sno' },
  baseDomain: 'example.com',
  pullSecret: '{"auths":{}}',
  ...over,
});

describe('manifests conversion', () => {
  it('converts 3 masters + 2 workers with static networking (golden)', async () => {
    const result = convertAgentInstallerFiles(installConfig, agentConfig);
    await expect(renderManifests(result.manifests)).toMatchFileSnapshot('./fixtures/manifests.golden.yaml');
    expect(result.manifests.map((m) => m.kind)).toEqual([
      'Namespace',
      'Secret',
      'ClusterImageSet',
      'ClusterDeployment',
      'AgentClusterInstall',
      'InfraEnv',
      'NMStateConfig',
      'NMStateConfig',
      'NMStateConfig',
      'NMStateConfig',
      'NMStateConfig',
    ]);
    expect(result.notes).toContain(
      'agent-config rendezvousIP 192.168.111.20 is not used: the operator serves the installation',
    );
    expect(result.notes.filter((n) => n.includes('on its Agent once it registers'))).toHaveLength(5);
  });

  it('produces objects the API schemas accept', () => {
    const schemas: Record<string, { safeParse(v: unknown): { success: boolean; error?: unknown } }> = {
      ClusterImageSet: clusterImageSetSchema,
      ClusterDeployment: clusterDeploymentSchema,
      AgentClusterInstall: agentClusterInstallSchema,
      InfraEnv: infraEnvSchema,
      NMStateConfig: nmStateConfigSchema,
    };
    for (const m of convertAgentInstallerFiles(installConfig, agentConfig).manifests) {
      const schema = schemas[m.kind];
      if (!schema) continue;
      const parsed = schema.safeParse(m);
      expect(parsed.error, `${m.kind} ${m.metadata.name}`).toBeUndefined();
    }
  });

  it('the InfraEnv selects every NMStateConfig, whose MACs are normalised', () => {
    const { manifests } = convertAgentInstallerFiles(installConfig, agentConfig);
    const infraEnv = manifests.find((m) => m.kind === 'InfraEnv')!;
    const selector = (
      infraEnv.spec as { nmStateConfigLabelSelector: { matchLabels: Record<string, string> } }
    ).nmStateConfigLabelSelector.matchLabels;
    const configs = manifests.filter((m) => m.kind === 'NMStateConfig');
    for (const c of configs) {
      expect(c.metadata.labels).toMatchObject(selector);
      const nics = (c.spec as { interfaces: { macAddress: string }[] }).interfaces;
      expect(nics[0]!.macAddress).toMatch(/^[0-9a-f:]+$/);
    }
    expect(configs.map((c) => c.metadata.name)).toEqual([
      'ocp-master-0',
      'ocp-master-1',
      'ocp-master-2',
      'ocp-worker-0',
      'ocp-worker-1',
    ]);
  });

  it('release image: explicit wins, otherwise per version and architecture', () => {
    const explicit = convertAgentInstallerConfig(
      minimal(),
      {},
      { releaseImage: 'registry.local/ocp:4.17.3-x86_64' },
    );
    const cis = explicit.manifests.find((m) => m.kind === 'ClusterImageSet')!;
    expect(cis.metadata.name).toBe('openshift-v4.17.3');
    expect(cis.spec).toEqual({ releaseImage: 'registry.local/ocp:4.17.3-x86_64' });
    const arm = convertAgentInstallerConfig(
      minimal({ controlPlane: { architecture: 'arm64', replicas: 1 } }),
      {},
      { openshiftVersion: '4.19.0' },
    );
    expect(arm.manifests.find((m) => m.kind === 'ClusterImageSet')!.spec).toEqual({
      releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.19.0-aarch64',
    });
    expect(arm.manifests.find((m) => m.kind === 'InfraEnv')!.spec).toMatchObject({
      cpuArchitecture: 'arm64',
    });
    expect(defaultReleaseImage('4.18.1')).toBe('quay.io/openshift-release-dev/ocp-release:4.18.1-x86_64');
  });

  it('single node with platform none: user-managed networking, no NMStateConfig', () => {
    const { manifests } = convertAgentInstallerConfig(
      minimal({
        controlPlane: { replicas: 1 },
        compute: [{ name: 'worker', replicas: 0 }],
        platform: { none: {} },
      }),
      { hosts: [{ hostname: 'sno', interfaces: [{ name: 'eth0', macAddress: '52:54:00:00:00:01' }] }] },
      { namespace: 'clusters' },
    );
    const aci = manifests.find((m) => m.kind === 'AgentClusterInstall')!;
    expect(aci.metadata.namespace).toBe('clusters');
    expect(aci.spec).toMatchObject({
      platformType: 'None',
      networking: { userManagedNetworking: true },
      provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
    });
    expect(manifests.some((m) => m.kind === 'NMStateConfig')).toBe(false);
    expect(manifests.find((m) => m.kind === 'InfraEnv')!.spec).not.toHaveProperty(
      'nmStateConfigLabelSelector',
    );
  });

  it('singular VIPs are accepted', () => {
    const { manifests } = convertAgentInstallerConfig(
      minimal({ platform: { baremetal: { apiVIP: '10.0.0.5', ingressVIP: '10.0.0.4' } } }),
      {},
    );
    expect(manifests.find((m) => m.kind === 'AgentClusterInstall')!.spec).toMatchObject({
      apiVIPs: ['10.0.0.5'],
      ingressVIPs: ['10.0.0.4'],
    });
  });

  it('rejects invalid input with a clear message', () => {
    expect(() => convertAgentInstallerConfig({ baseDomain: 'x', pullSecret: '{}' }, {})).toThrow(
      'install-config metadata.name is required',
    );
    expect(() => convertAgentInstallerConfig(minimal({ pullSecret: 'nope' }), {})).toThrow(
      ManifestInputError,
    );
    expect(() => convertAgentInstallerConfig(minimal({ platform: { aws: {} } }), {})).toThrow(
      /not supported/,
    );
    expect(() =>
      convertAgentInstallerConfig(minimal(), {
        hosts: [{ hostname: 'h', networkConfig: { interfaces: [] } }],
      }),
    ).toThrow(/needs interfaces/);
    expect(() => convertAgentInstallerConfig(minimal(), { hosts: [{ role: 'boss' }] })).toThrow(/role/);
    expect(() => convertAgentInstallerFiles('a: 1\n---\nb: 2\n', '{}')).toThrow(/one YAML document/);
  });

  it('file names keep apply order', () => {
    const { manifests } = convertAgentInstallerFiles(installConfig, agentConfig);
    expect(manifests.map(manifestFileName).slice(0, 3)).toEqual([
      '00-namespace-ocp.yaml',
      '01-secret-ocp-pull-secret.yaml',
      '02-clusterimageset-openshift-v4.18.1.yaml',
    ]);
    expect(NMSTATE_CONFIG_LABEL).toBe('infraenvs.agent-install.openshift.io');
  });
});
