import { describe, expect, it } from 'vitest';
import {
  type ImageCreatedOutcome,
  imageCreatedConditionValue,
  imageDigest,
  infraEnvToRecord,
  nmStateYaml,
  setImageCreatedCondition,
} from '../../../src/records/index.ts';
import { CLUSTER_ID, INFRA_ENV_ID, infraEnv, LATER, NOW, nmStateConfig, PULL_SECRET } from './fixtures.ts';

describe('infraEnvToRecord', () => {
  it('maps an InfraEnv with everything set', () => {
    const ie = infraEnv({
      proxy: { httpProxy: 'http://p:3128', httpsProxy: 'http://p:3129', noProxy: '.cluster.local' },
      additionalNTPSources: ['ntp1', 'ntp2'],
      sshAuthorizedKey: 'ssh-ed25519 AAAA',
      ignitionConfigOverride: '{"ignition":{"version":"3.1.0"}}',
      kernelArguments: [
        { operation: 'append', value: 'console=ttyS0' },
        { value: 'rd.net.timeout.carrier=60' },
      ],
      additionalTrustBundle: '-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n',
      osImageVersion: '4.16',
      cpuArchitecture: 'aarch64',
      imageType: 'full-iso',
    });
    const record = infraEnvToRecord(ie, {
      pullSecret: PULL_SECRET,
      nmStateConfigs: [
        nmStateConfig('b', '52:54:00:00:00:02', '192.168.111.21'),
        nmStateConfig('a', '52:54:00:00:00:01', '192.168.111.20'),
      ],
      clusterId: CLUSTER_ID,
      clusterOpenshiftVersion: '4.15.0',
    });
    expect(record).toStrictEqual({
      id: INFRA_ENV_ID,
      name: 'ie',
      cluster_id: CLUSTER_ID,
      openshift_version: '4.16',
      cpu_architecture: 'aarch64',
      type: 'full-iso',
      pull_secret: PULL_SECRET,
      ssh_authorized_key: 'ssh-ed25519 AAAA',
      proxy: { http_proxy: 'http://p:3128', https_proxy: 'http://p:3129', no_proxy: '.cluster.local' },
      additional_ntp_sources: 'ntp1,ntp2',
      additional_trust_bundle: '-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n',
      ignition_config_override: '{"ignition":{"version":"3.1.0"}}',
      kernel_arguments: [
        { operation: 'append', value: 'console=ttyS0' },
        { operation: 'append', value: 'rd.net.timeout.carrier=60' },
      ],
      static_network_config: [
        {
          network_yaml: nmStateYaml(nmStateConfig('a', '52:54:00:00:00:01', '192.168.111.20')),
          mac_interface_map: [{ mac_address: '52:54:00:00:00:01', logical_nic_name: 'eth0' }],
        },
        {
          network_yaml: nmStateYaml(nmStateConfig('b', '52:54:00:00:00:02', '192.168.111.21')),
          mac_interface_map: [{ mac_address: '52:54:00:00:00:02', logical_nic_name: 'eth0' }],
        },
      ],
    });
  });

  it('a changed NMStateConfig (a new object) gets its own YAML; the first keeps its own', () => {
    const config = nmStateConfig('a', '52:54:00:00:00:01', '192.168.111.20');
    const first = nmStateYaml(config);
    expect(nmStateYaml(config)).toBe(first);
    const changed = nmStateConfig('a', '52:54:00:00:00:01', '192.168.111.99');
    expect(nmStateYaml(changed)).toContain('192.168.111.99');
    expect(nmStateYaml(config)).toBe(first);
  });

  it('writes nmstate YAML with sorted keys and go-yaml sequence style', () => {
    expect(nmStateYaml(nmStateConfig('a', '52:54:00:00:00:01', '192.168.111.20'))).toBe(
      [
        'interfaces:',
        '- ipv4:',
        '    address:',
        '    - ip: 192.168.111.20',
        '      prefix-length: 24',
        '    enabled: true',
        '  name: eth0',
        '  state: up',
        '  type: ethernet',
        '',
      ].join('\n'),
    );
  });

  it('uses defaults: x86_64, minimal-iso (full-iso for s390x), the cluster version, unbound', () => {
    const bare = infraEnvToRecord(infraEnv(), { nmStateConfigs: [] });
    expect(bare).toStrictEqual({
      id: INFRA_ENV_ID,
      name: 'ie',
      cluster_id: null,
      cpu_architecture: 'x86_64',
      type: 'minimal-iso',
    });
    expect(infraEnvToRecord(infraEnv({ cpuArchitecture: 's390x' }), { nmStateConfigs: [] }).type).toBe(
      'full-iso',
    );
    expect(infraEnvToRecord(infraEnv(), { nmStateConfigs: [], defaultImageType: 'full-iso' }).type).toBe(
      'full-iso',
    );
    expect(
      infraEnvToRecord(infraEnv(), {
        nmStateConfigs: [],
        clusterId: CLUSTER_ID,
        clusterOpenshiftVersion: '4.15.0',
      }).openshift_version,
    ).toBe('4.15.0');
  });

  it('replace-mode NTP sources and the internal override', () => {
    const record = infraEnvToRecord(infraEnv({ ntpSources: ['a', 'b'] }), {
      nmStateConfigs: [],
      internalIgnitionConfigOverride: '{"ignition":{"version":"3.2.0"}}',
    });
    expect(record.ntp_sources).toBe('a,b');
    expect(record.internal_ignition_config_override).toBe('{"ignition":{"version":"3.2.0"}}');
  });

  it('clearing proxy, NTP and the ignition override clears them (deliberate difference)', () => {
    const record = infraEnvToRecord(
      infraEnv({ proxy: { httpProxy: '' }, additionalNTPSources: [], ignitionConfigOverride: '' }),
      { nmStateConfigs: [] },
    );
    expect(record.proxy).toBeUndefined();
    expect(record.additional_ntp_sources).toBeUndefined();
    expect(record.ignition_config_override).toBeUndefined();
  });
});

describe('imageDigest', () => {
  const ctx = {
    pullSecret: PULL_SECRET,
    nmStateConfigs: [nmStateConfig('a', '52:54:00:00:00:01', '192.168.111.20')],
  };

  it('is a stable sha256 hex digest, independent of key order', () => {
    const record = infraEnvToRecord(infraEnv({ sshAuthorizedKey: 'k' }), ctx);
    const reordered = Object.fromEntries(Object.entries(record).reverse()) as typeof record;
    expect(imageDigest(record)).toMatch(/^[0-9a-f]{64}$/);
    expect(imageDigest(reordered)).toBe(imageDigest(record));
  });

  it('does not change with annotations, labels or the name', () => {
    const base = imageDigest(infraEnvToRecord(infraEnv(), ctx));
    const annotated = infraEnv(
      {},
      { annotations: { 'infraenv.agent-install.openshift.io/ip-family': 'v4' }, labels: { a: 'b' } },
    );
    expect(imageDigest(infraEnvToRecord(annotated, ctx))).toBe(base);
    expect(imageDigest({ ...infraEnvToRecord(infraEnv(), ctx), name: 'renamed' })).toBe(base);
  });

  it.each([
    ['ssh key', infraEnv({ sshAuthorizedKey: 'other' }), ctx],
    ['proxy', infraEnv({ proxy: { httpProxy: 'http://p' } }), ctx],
    ['kernel args', infraEnv({ kernelArguments: [{ operation: 'append', value: 'x' }] }), ctx],
    ['pull secret', infraEnv(), { ...ctx, pullSecret: '{}' }],
    ['static network', infraEnv(), { ...ctx, nmStateConfigs: [] }],
    ['os version', infraEnv({ osImageVersion: '4.15' }), ctx],
  ])('changes with the %s', (_what, ie, context) => {
    expect(imageDigest(infraEnvToRecord(ie, context))).not.toBe(
      imageDigest(infraEnvToRecord(infraEnv(), ctx)),
    );
  });
});

describe('ImageCreated condition (§2.3)', () => {
  it.each<[ImageCreatedOutcome, string, string, string]>([
    [
      { kind: 'available', imageServiceEnabled: true },
      'True',
      'InfraEnvAvailable',
      'InfraEnv is available: Image has been created',
    ],
    [{ kind: 'available', imageServiceEnabled: false }, 'True', 'InfraEnvAvailable', 'InfraEnv is available'],
    [{ kind: 'being-created' }, 'True', 'ImageCreated', 'Image has been created'],
    [
      { kind: 'error', clientError: true, message: 'error parsing ignition: config is not valid' },
      'False',
      'ImageCreationError',
      'Failed to create image: error parsing ignition: config is not valid',
    ],
    [
      { kind: 'error', clientError: false, message: 'boom' },
      'False',
      'ImageCreationError',
      'Failed to create image due to an internal error: boom',
    ],
    [
      {
        kind: 'missing-cluster-deployment',
        message: 'cluster does not exist: spoke, AgentClusterInstall is not defined in ClusterDeployment',
      },
      'Unknown',
      'MissingClusterDeployment',
      'ClusterDeployment is missing: cluster does not exist: spoke, AgentClusterInstall is not defined in ClusterDeployment',
    ],
  ])('%j', (outcome, status, reason, message) => {
    expect(imageCreatedConditionValue(outcome)).toEqual({ type: 'ImageCreated', status, reason, message });
  });

  it('"being created" leaves an ImageCreationError in place', () => {
    const failed = setImageCreatedCondition(
      undefined,
      { kind: 'error', clientError: true, message: 'x' },
      NOW,
    );
    expect(setImageCreatedCondition(failed, { kind: 'being-created' }, LATER)).toEqual(failed);
  });

  it('keeps lastTransitionTime while the status stays the same', () => {
    const first = setImageCreatedCondition(undefined, { kind: 'being-created' }, NOW);
    const second = setImageCreatedCondition(first, { kind: 'available', imageServiceEnabled: true }, LATER);
    expect(second).toEqual([
      {
        type: 'ImageCreated',
        status: 'True',
        reason: 'InfraEnvAvailable',
        message: 'InfraEnv is available: Image has been created',
        lastTransitionTime: '2025-03-01T10:00:00Z',
      },
    ]);
    const third = setImageCreatedCondition(
      second,
      { kind: 'error', clientError: false, message: 'x' },
      LATER,
    );
    expect(third[0]?.lastTransitionTime).toBe('2025-03-01T11:30:00Z');
  });
});
