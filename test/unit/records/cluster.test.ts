import { describe, expect, it } from 'vitest';
import { type AgentClusterInstall, agentClusterInstallStatusSchema } from '../../../src/api/index.ts';
import {
  type AgentCluster,
  type ClusterResources,
  clusterFromResources,
  clusterToAciStatus,
  isInstallationHeld,
  referenceMismatch,
} from '../../../src/records/index.ts';
import {
  agent,
  agentClusterInstall,
  boundAgent,
  CLUSTER_ID,
  clusterDeployment,
  clusterImageSet,
  INFRA_ENV_ID,
  LATER,
  NOW,
  PULL_SECRET,
  viaJson,
} from './fixtures.ts';

function resources(overrides: Partial<ClusterResources> = {}): ClusterResources {
  return {
    cd: clusterDeployment(),
    aci: agentClusterInstall(),
    clusterImageSet: clusterImageSet(),
    pullSecret: PULL_SECRET,
    agents: [],
    now: NOW,
    ...overrides,
  };
}

function build(overrides: Partial<ClusterResources> = {}): AgentCluster {
  const result = clusterFromResources(resources(overrides));
  if (!result.cluster) throw new Error(`unexpected error: ${result.error.message}`);
  expect(result.error).toBeUndefined();
  return result.cluster;
}

function errorOf(overrides: Partial<ClusterResources> = {}) {
  const result = clusterFromResources(resources(overrides));
  expect(result.cluster).toBeUndefined();
  return result.error;
}

/** The ACI as it is after the reconciler wrote the projected status. */
function withStatus(
  aci: AgentClusterInstall,
  cluster: AgentCluster,
  now = NOW,
  ctx = {},
): AgentClusterInstall {
  return viaJson({ ...aci, status: clusterToAciStatus(cluster, aci, { now, unsyncedAgents: 0, ...ctx }) });
}

describe('clusterFromResources: new clusters', () => {
  it('3 masters + 2 workers on bare metal', () => {
    const c = build();
    expect(c).toMatchObject({
      id: CLUSTER_ID,
      kind: 'Cluster',
      name: 'spoke',
      base_dns_domain: 'example.com',
      openshift_version: '4.16.3',
      ocp_release_image: 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64',
      cpu_architecture: 'x86_64',
      status: 'insufficient',
      status_info: 'Cluster is not ready for install',
      status_updated_at: NOW.toISOString(),
      control_plane_count: 3,
      platform: { type: 'baremetal' },
      user_managed_networking: false,
      network_type: 'OVNKubernetes',
      cluster_networks: [{ cidr: '10.128.0.0/14', host_prefix: 23 }],
      service_networks: [{ cidr: '172.30.0.0/16' }],
      machine_networks: [{ cidr: '192.168.111.0/24' }],
      api_vips: [{ ip: '192.168.111.5' }],
      ingress_vips: [{ ip: '192.168.111.4' }],
      vip_dhcp_allocation: false,
      load_balancer: { type: 'cluster-managed' },
      pull_secret: PULL_SECRET,
      pull_secret_set: true,
      ssh_public_key:
        'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHostKeyHostKeyHostKeyHostKeyHostKeyHostKeyH user@host',
      hyperthreading: 'all',
      schedulable_masters: false,
      schedulable_masters_forced_true: true,
      disk_encryption: { enable_on: 'none', mode: 'tpmv2' },
      primary_ip_stack: 4,
      hosts: [],
    });
    expect(c.imported).toBeUndefined();
    expect(c.validations_info).toBeUndefined();
  });

  it('single-node OpenShift: UMN, platform none, no VIPs', () => {
    const aci = agentClusterInstall({
      provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
      apiVIPs: undefined,
      ingressVIPs: undefined,
      networking: {
        clusterNetwork: [{ cidr: '10.128.0.0/14', hostPrefix: 23 }],
        serviceNetwork: ['172.30.0.0/16'],
      },
    });
    const c = build({ aci });
    expect(c).toMatchObject({
      control_plane_count: 1,
      platform: { type: 'none' },
      user_managed_networking: true,
      network_type: 'OVNKubernetes',
      machine_networks: [],
      api_vips: [],
      ingress_vips: [],
    });
  });

  it('SNO with OpenShiftSDN is rejected as the backend does', () => {
    const aci = agentClusterInstall({
      provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
      apiVIPs: undefined,
      ingressVIPs: undefined,
      networking: { networkType: 'OpenShiftSDN' },
    });
    expect(errorOf({ aci })).toEqual({
      kind: 'input',
      message: 'OpenShiftSDN network type is not allowed in single node mode',
    });
  });

  it('dual stack', () => {
    const aci = agentClusterInstall({
      networking: {
        clusterNetwork: [
          { cidr: '10.128.0.0/14', hostPrefix: 23 },
          { cidr: 'fd01::/48', hostPrefix: 64 },
        ],
        serviceNetwork: ['172.30.0.0/16', 'fd02::/112'],
        machineNetwork: [{ cidr: '192.168.111.0/24' }, { cidr: 'fd2e:6f44:5dd8:c956::/120' }],
      },
      apiVIPs: ['192.168.111.5', 'fd2e:6f44:5dd8:c956::5'],
      ingressVIPs: ['192.168.111.4', 'fd2e:6f44:5dd8:c956::4'],
    });
    const c = build({ aci });
    expect(c.cluster_networks).toEqual([
      { cidr: '10.128.0.0/14', host_prefix: 23 },
      { cidr: 'fd01::/48', host_prefix: 64 },
    ]);
    expect(c.service_networks).toEqual([{ cidr: '172.30.0.0/16' }, { cidr: 'fd02::/112' }]);
    expect(c.machine_networks).toHaveLength(2);
    expect(c.api_vips.map((v) => v.ip)).toEqual(['192.168.111.5', 'fd2e:6f44:5dd8:c956::5']);
    expect(c.primary_ip_stack).toBe(4);
    expect(c.network_type).toBe('OVNKubernetes');
  });

  it('dual stack without machine networks is rejected', () => {
    const aci = agentClusterInstall({
      networking: {
        clusterNetwork: [
          { cidr: '10.128.0.0/14', hostPrefix: 23 },
          { cidr: 'fd01::/48', hostPrefix: 64 },
        ],
        serviceNetwork: ['172.30.0.0/16', 'fd02::/112'],
      },
      apiVIPs: ['192.168.111.5', 'fd2e:6f44:5dd8:c956::5'],
      ingressVIPs: ['192.168.111.4', 'fd2e:6f44:5dd8:c956::4'],
    });
    expect(errorOf({ aci })?.message).toBe(
      'Dual-stack cluster cannot be created with empty Machine Networks',
    );
  });

  it('user-managed networking, multi-node: platform none', () => {
    const aci = agentClusterInstall({
      networking: { userManagedNetworking: true },
      apiVIPs: undefined,
      ingressVIPs: undefined,
    });
    expect(build({ aci })).toMatchObject({
      platform: { type: 'none' },
      user_managed_networking: true,
      api_vips: [],
    });
  });

  it('user-managed networking with VIPs is rejected', () => {
    const aci = agentClusterInstall({ networking: { userManagedNetworking: true } });
    expect(errorOf({ aci })).toEqual({
      kind: 'input',
      message: 'API VIPs cannot be set with User Managed Networking',
    });
  });

  it('platform None without user-managed networking is rejected (the webhook normally defaults it)', () => {
    const aci = agentClusterInstall({ platformType: 'None', apiVIPs: undefined, ingressVIPs: undefined });
    expect(errorOf({ aci })?.message).toBe("Can't set none platform with user-managed-networking disabled");
  });

  it('External platform needs spec.external', () => {
    const aci = agentClusterInstall({
      platformType: 'External',
      networking: { userManagedNetworking: true },
      apiVIPs: undefined,
      ingressVIPs: undefined,
    });
    expect(errorOf({ aci })?.message).toBe('For external platform, the external platform spec must be set');
    const ok = build({
      aci: {
        ...aci,
        spec: { ...aci.spec, external: { platformName: 'oci', cloudControllerManager: 'External' } },
      },
    });
    expect(ok.platform).toEqual({
      type: 'external',
      external: { platform_name: 'oci', cloud_controller_manager: 'External' },
    });
  });

  it('maps the remaining spec fields', () => {
    const aci = agentClusterInstall({
      controlPlane: { name: 'master', hyperthreading: 'Enabled' },
      compute: [{ name: 'worker', hyperthreading: 'Disabled' }],
      diskEncryption: { enableOn: 'masters', mode: 'tang', tangServers: '[{"url":"http://tang"}]' },
      proxy: { httpProxy: 'http://proxy:3128', noProxy: '.example.com' },
      ntpSources: ['ntp1.example.com', 'ntp2.example.com'],
      mastersSchedulable: true,
      loadBalancer: { type: 'UserManaged' },
      ignitionEndpoint: {
        url: 'https://ign.example.com',
        caCertificateReference: { namespace: 'spoke', name: 'ca' },
      },
    });
    const c = build({ aci, ignitionEndpointCaCertificate: 'PEM' });
    expect(c).toMatchObject({
      hyperthreading: 'masters',
      disk_encryption: { enable_on: 'masters', mode: 'tang', tang_servers: '[{"url":"http://tang"}]' },
      http_proxy: 'http://proxy:3128',
      no_proxy: '.example.com',
      additional_ntp_source: 'ntp1.example.com,ntp2.example.com',
      schedulable_masters: true,
      load_balancer: { type: 'user-managed' },
      ignition_endpoint: {
        url: 'https://ign.example.com',
        ca_certificate: Buffer.from('PEM').toString('base64'),
      },
    });
    expect(c.https_proxy).toBeUndefined();
  });

  it.each([
    [{}, 'all'],
    [{ controlPlane: { name: 'master', hyperthreading: 'Disabled' } }, 'none'],
    [{ compute: [{ name: 'infra', hyperthreading: 'Enabled' }] }, 'all'],
    [
      {
        controlPlane: { name: 'master', hyperthreading: 'Enabled' },
        arbiter: { name: 'arbiter', hyperthreading: 'Enabled' },
        compute: [{ name: 'worker', hyperthreading: 'Enabled' }],
      },
      'masters,arbiters,workers',
    ],
  ] as const)('hyperthreading %j → %s', (pools, expected) => {
    expect(build({ aci: agentClusterInstall(pools as object) }).hyperthreading).toBe(expected);
  });

  it('chooses OpenShiftSDN before 4.12 for IPv4 multi-node clusters', () => {
    expect(
      build({ clusterImageSet: clusterImageSet('quay.io/openshift-release-dev/ocp-release:4.11.20-x86_64') })
        .network_type,
    ).toBe('OpenShiftSDN');
  });

  it('takes a release the caller resolved over the tag', () => {
    const c = build({
      clusterImageSet: clusterImageSet('quay.io/openshift-release-dev/ocp-release@sha256:abc'),
      release: { version: '4.17.0', cpuArchitecture: 'multi' },
    });
    expect(c).toMatchObject({ openshift_version: '4.17.0', cpu_architecture: 'multi' });
  });
});

describe('clusterFromResources: errors before the cluster exists', () => {
  it('mismatched references → InputError', () => {
    const aci = agentClusterInstall({ clusterDeploymentRef: { name: 'other' } });
    expect(errorOf({ aci })).toEqual({
      kind: 'input',
      message:
        "AgentClusterInstall spoke/spoke-aci references ClusterDeployment 'other' but ClusterDeployment spoke/spoke references AgentClusterInstall 'spoke-aci'",
    });
    expect(referenceMismatch(clusterDeployment(), agentClusterInstall())).toBeUndefined();
  });

  it('pull secret: required unless installed; unreadable → backend error', () => {
    expect(errorOf({ cd: clusterDeployment({ pullSecretRef: undefined }) })).toEqual({
      kind: 'input',
      message: 'PullSecret is required for ClusterDeployment spoke/spoke',
    });
    expect(errorOf({ pullSecret: undefined })).toEqual({
      kind: 'backend',
      message:
        'failed to validate pull secret for ClusterDeployment spoke/spoke: failed to find secret pull-secret',
    });
    expect(errorOf({ pullSecret: undefined, pullSecretKeyMissing: true })).toEqual({
      kind: 'backend',
      message:
        'failed to validate pull secret for ClusterDeployment spoke/spoke: secret pull-secret did not contain key .dockerconfigjson',
    });
    const bad = '{"auths":{"quay.io":{"auth":"bm9jb2xvbg=="}}}';
    expect(errorOf({ pullSecret: bad })).toEqual({
      kind: 'backend',
      message:
        "failed to validate pull secret for ClusterDeployment spoke/spoke: invalid pull secret data in secret pull-secret: invalid pull secret: 'auth' for quay.io is not in 'user:password' format",
    });
  });

  it('ClusterImageSet: required unless installed; missing → backend error', () => {
    expect(errorOf({ aci: agentClusterInstall({ imageSetRef: undefined }) })).toEqual({
      kind: 'input',
      message:
        'ClusterImageSet must be specified in AgentClusterInstall.Spec.ImageSetRef for cluster that is not installed',
    });
    expect(errorOf({ clusterImageSet: undefined })).toEqual({
      kind: 'backend',
      message: 'ClusterImageSet ocp-4.16 not found. Please ensure the ClusterImageSet exists',
    });
  });

  it('a release whose version cannot be derived says so', () => {
    const image = 'quay.io/openshift-release-dev/ocp-release@sha256:0123';
    expect(errorOf({ clusterImageSet: clusterImageSet(image) })).toEqual({
      kind: 'backend',
      message: `failed to get release image '${image}'. Please ensure the releaseImage field in ClusterImageSet 'ocp-4.16' is valid (error: the OpenShift version cannot be derived from the image reference; use a tag that starts with the version, e.g. 4.16.3-x86_64).`,
    });
  });
});

describe('clusterFromResources: annotations and manifests', () => {
  const annotated = (annotations: Record<string, string>) =>
    agentClusterInstall({}, { metadata: { name: 'spoke-aci', namespace: 'spoke', annotations } });

  it('install-config overrides and ignored validations', () => {
    const c = build({
      aci: annotated({
        'agent-install.openshift.io/install-config-overrides':
          '{"networking":{"networkType":"OVNKubernetes"}}',
        'agent-install.openshift.io/ignored-cluster-validations':
          ' network-prefix-valid , ntp-server-configured,network-prefix-valid',
        'agent-install.openshift.io/ignored-host-validations': '',
      }),
    });
    expect(c.install_config_overrides).toBe('{"networking":{"networkType":"OVNKubernetes"}}');
    expect(c.ignored_cluster_validations).toBe('["network-prefix-valid","ntp-server-configured"]');
    expect(c.ignored_host_validations).toBe('[]');
    expect(build().ignored_host_validations).toBeUndefined();
  });

  it('bad annotations are input errors with upstream text', () => {
    expect(
      errorOf({ aci: annotated({ 'agent-install.openshift.io/install-config-overrides': '{bad' }) })?.message,
    ).toMatch(/^Failed to parse 'agent-install.openshift.io\/install-config-overrides' annotation: /);
    expect(
      errorOf({ aci: annotated({ 'agent-install.openshift.io/ignored-host-validations': 'a,,b' }) }),
    ).toEqual({
      kind: 'input',
      message:
        "Failed to parse 'agent-install.openshift.io/ignored-host-validations' annotation: annotation \"agent-install.openshift.io/ignored-host-validations\": failed to parse comma-separated validation IDs: empty ignored validation ID found in 'a,,b'",
    });
  });

  it('manifests from ConfigMaps; their problems do not stop registration', () => {
    const aci = agentClusterInstall({ manifestsConfigMapRefs: [{ name: 'm1' }, { name: 'm2' }] });
    const c = build({
      aci,
      manifestConfigMaps: [
        { name: 'm1', data: { 'b.yaml': 'kind: B\n', 'a.yaml': 'kind: A\n' } },
        { name: 'm2', data: { 'c.yml': 'kind: C\n' } },
      ],
    });
    expect(c.custom_manifests).toEqual([
      { folder: 'openshift', file_name: 'a.yaml' },
      { folder: 'openshift', file_name: 'b.yaml' },
      { folder: 'openshift', file_name: 'c.yml' },
    ]);
    // Each problem comes with the (new) cluster, which is registered without user manifests.
    const problem = (manifestConfigMaps: ClusterResources['manifestConfigMaps']) => {
      const result = clusterFromResources(resources({ aci, manifestConfigMaps }));
      expect(result.cluster?.id).toBe(CLUSTER_ID);
      expect(result.cluster?.custom_manifests).toBeUndefined();
      return result.error;
    };
    expect(
      problem([
        { name: 'm1', data: { 'a.yaml': 'kind: A\n' } },
        { name: 'm2', data: { 'a.yaml': 'kind: B\n' } },
      ]),
    ).toEqual({ kind: 'backend', message: "Conflict in manifest names ('a.yaml' is not unique)" });
    expect(problem([{ name: 'm1' }])).toEqual({ kind: 'backend', message: 'configmaps "m2" not found' });
    expect(problem([{ name: 'm1', data: { 'a.txt': 'kind: A\n' } }, { name: 'm2' }])).toEqual({
      kind: 'input',
      message: `Manifest filename of file openshift/a.txt for cluster ID ${CLUSTER_ID} is invalid. Only json, yaml and yml extensions are supported`,
    });
    // A spec problem still wins, and still stops registration.
    const sdn = agentClusterInstall({
      manifestsConfigMapRefs: [{ name: 'gone' }],
      ingressVIPs: ['10.9.9.9'],
    });
    expect(errorOf({ aci: sdn })?.kind).toBe('input');
  });

  it('holdInstallation or a true reconcile-pause holds the installation', () => {
    expect(isInstallationHeld(clusterDeployment(), agentClusterInstall({ holdInstallation: true }))).toBe(
      true,
    );
    const paused = clusterDeployment();
    paused.metadata.annotations = { 'hive.openshift.io/reconcile-pause': 'True' };
    expect(isInstallationHeld(paused, agentClusterInstall())).toBe(true);
    paused.metadata.annotations = { 'hive.openshift.io/reconcile-pause': 'yes' };
    expect(isInstallationHeld(paused, agentClusterInstall())).toBe(false);
  });
});

describe('clusterFromResources: hosts and persisted facts', () => {
  it('hosts are the bound Agents, ordered by id, with memory facts', () => {
    const unbound = agent({ metadata: { name: 'zz-unbound', namespace: 'spoke' } });
    const agents = [
      boundAgent('h3', 'worker'),
      unbound,
      boundAgent('h1', 'master'),
      boundAgent('h2', 'master', false),
    ];
    const c = build({
      agents,
      memoryFacts: { hosts: new Map([['h1', { checked_in_at: '2025-03-01T09:59:00.000Z' }]]) },
    });
    expect(c.hosts.map((h) => [h.id, h.suggested_role, h.approved])).toEqual([
      ['h1', 'master', true],
      ['h2', 'master', false],
      ['h3', 'worker', true],
    ]);
    expect(c.hosts[0]?.checked_in_at).toBe('2025-03-01T09:59:00.000Z');
    expect(c.hosts[0]?.infra_env_id).toBe(INFRA_ENV_ID);
  });

  it('reads back what clusterToAciStatus persisted', () => {
    const first = build();
    const evolved: AgentCluster = {
      ...first,
      status: 'installing',
      status_info: 'Installation in progress',
      status_updated_at: '2025-03-01T10:20:00.000Z',
      validations_info: {
        network: [{ id: 'api-vips-defined', status: 'success', message: 'API virtual IPs are defined.' }],
      },
      progress: {
        total_percentage: 35,
        installing_stage_percentage: 20,
        finalizing_stage: 'Waiting for cluster operators',
      },
      last_installation_preparation: { status: 'success', reason: '' },
      monitored_operators: [
        { name: 'cvo', operator_type: 'builtin', status: 'progressing', status_info: 'Working' },
      ],
      install_started_at: '2025-03-01T10:10:00.000Z',
      openshift_cluster_id: 'ocp-id',
      connectivity_majority_groups: '{"majority_groups":{}}',
      kubeconfig_uploaded: true,
      logs_info: 'requested',
      controller_logs_started_at: '2025-03-01T10:15:00.000Z',
    };
    const aci = withStatus(agentClusterInstall(), evolved);
    // A changed ClusterImageSet does not change the registered release.
    const again = build({
      aci,
      clusterImageSet: clusterImageSet('quay.io/openshift-release-dev/ocp-release:4.17.0-x86_64'),
      now: LATER,
    });
    expect(again).toStrictEqual(evolved);
  });

  it('keeps calculated machine networks and installation-time VIPs when the spec has none', () => {
    const aci = agentClusterInstall({
      provisionRequirements: { controlPlaneAgents: 1, workerAgents: 0 },
      apiVIPs: undefined,
      ingressVIPs: undefined,
      networking: {},
    });
    const first = build({ aci });
    const installing: AgentCluster = {
      ...first,
      status: 'installing',
      machine_networks: [{ cidr: '192.168.111.0/24' }],
      api_vips: [{ ip: '192.168.111.20' }],
      ingress_vips: [{ ip: '192.168.111.20' }],
    };
    const again = build({ aci: withStatus(aci, installing) });
    expect(again.machine_networks).toEqual([{ cidr: '192.168.111.0/24' }]);
    expect(again.api_vips).toEqual([{ ip: '192.168.111.20' }]);
  });

  it('an existing cluster with a rejected update keeps its stored values and reports the error', () => {
    const first = build();
    const aci = withStatus(agentClusterInstall(), first);
    const umn = {
      ...aci,
      spec: { ...aci.spec, networking: { ...aci.spec.networking, userManagedNetworking: true } },
    };
    // Turning UMN on is refused first because the cluster keeps its VIPs (upstream checks the
    // VIPs before the platform).
    const umnResult = clusterFromResources(resources({ aci: umn }));
    expect(umnResult.error).toEqual({
      kind: 'input',
      message: 'User Managed Networking cannot be set with API VIPs',
    });
    expect(umnResult.cluster).toMatchObject({
      platform: { type: 'baremetal' },
      user_managed_networking: false,
    });

    const outside = { ...aci, spec: { ...aci.spec, apiVIPs: ['10.0.0.5'] } };
    const vipResult = clusterFromResources(resources({ aci: outside }));
    expect(vipResult.error?.kind).toBe('input');
    expect(vipResult.error?.message).toMatch(/does not belong to machine-network-cidr/);
    expect(vipResult.cluster?.api_vips).toEqual([{ ip: '192.168.111.5' }]);

    // Without VIPs in the spec the update does not send any: the cluster's own still count.
    const nutanix = {
      ...aci,
      spec: {
        ...aci.spec,
        platformType: 'Nutanix' as const,
        networking: { ...aci.spec.networking, userManagedNetworking: true },
        apiVIPs: undefined,
        ingressVIPs: undefined,
      },
    };
    const clash = clusterFromResources(resources({ aci: nutanix }));
    expect(clash.error?.message).toBe('User Managed Networking cannot be set with API VIPs');
    expect(clash.cluster?.platform).toEqual({ type: 'baremetal' });

    // UMN unchanged: the platform rule speaks.
    const external = {
      ...aci,
      spec: {
        ...aci.spec,
        platformType: 'External' as const,
        external: { platformName: 'oci', cloudControllerManager: '' as const },
      },
    };
    const platformClash = clusterFromResources(resources({ aci: external }));
    expect(platformClash.error?.message).toBe(
      "Can't set external platform with user-managed-networking disabled",
    );
    expect(platformClash.cluster?.platform).toEqual({ type: 'baremetal' });
  });

  it('turning UMN on for a cluster without VIPs gets past the VIP check to the platform rule', () => {
    const aci = agentClusterInstall({ apiVIPs: undefined, ingressVIPs: undefined });
    const first = build({ aci });
    expect(first.api_vips).toEqual([]);
    const umn = withStatus(aci, first);
    umn.spec = { ...umn.spec, networking: { ...umn.spec.networking, userManagedNetworking: true } };
    const result = clusterFromResources(resources({ aci: umn }));
    expect(result.error?.message).toBe("Can't set baremetal platform with user-managed-networking enabled");
  });

  it('a re-created ClusterDeployment (new uid) is a new cluster', () => {
    const first = build();
    const aci = withStatus(agentClusterInstall(), {
      ...first,
      status: 'installing',
      status_info: 'Installation in progress',
    });
    const cd = clusterDeployment();
    cd.metadata.uid = 'another-uid';
    const c = build({ aci, cd });
    expect(c).toMatchObject({ id: 'another-uid', status: 'insufficient' });
  });

  it('an installed ClusterDeployment without a cluster is imported for day 2', () => {
    const cd = clusterDeployment({ installed: true, pullSecretRef: undefined });
    const aci = agentClusterInstall({
      imageSetRef: undefined,
      clusterMetadata: {
        clusterID: 'ocp-cluster-id',
        infraID: 'infra',
        adminKubeconfigSecretRef: { name: 'spoke-admin-kubeconfig' },
      },
    });
    const c = build({ cd, aci, clusterImageSet: undefined, pullSecret: undefined });
    expect(c).toMatchObject({
      kind: 'AddHostsCluster',
      status: 'adding-hosts',
      status_info: 'cluster is adding hosts to existing OCP cluster',
      imported: true,
      api_vip_dns_name: 'api.spoke.example.com',
      openshift_cluster_id: 'ocp-cluster-id',
      openshift_version: '',
      pull_secret_set: false,
    });
    expect(c.network_type).toBeUndefined();
    const again = build({ cd, aci: withStatus(aci, c), clusterImageSet: undefined, pullSecret: undefined });
    expect(again).toStrictEqual(c);
  });
});

describe('clusterToAciStatus', () => {
  function readyCluster(): AgentCluster {
    const agents = [
      boundAgent('h1', 'master'),
      boundAgent('h2', 'master'),
      boundAgent('h3', 'master'),
      boundAgent('h4', 'worker'),
      boundAgent('h5', 'worker', false),
    ];
    const c = build({ agents });
    return {
      ...c,
      status: 'ready',
      status_info: 'Cluster ready to be installed',
      validations_info: {
        network: [{ id: 'api-vips-defined', status: 'success', message: 'API virtual IPs are defined.' }],
      },
      progress: { total_percentage: 0 },
    };
  }
  const EVENTS = `https://svc/api/assisted-install/v2/events?api_key=t1&cluster_id=${CLUSTER_ID}`;
  const LOGS = `https://svc/api/assisted-install/v2/clusters/${CLUSTER_ID}/logs?api_key=t1`;

  it('writes upstream status fields, counters and status.backend', () => {
    const status = clusterToAciStatus(readyCluster(), agentClusterInstall(), {
      now: NOW,
      unsyncedAgents: 0,
      eventsURL: EVENTS,
      logsURL: LOGS,
    });
    expect(status).toMatchObject({
      progress: { totalPercentage: 0 },
      controlPlaneAgentsDiscovered: 3,
      controlPlaneAgentsReady: 3,
      workerAgentsDiscovered: 2,
      workerAgentsReady: 1,
      machineNetwork: [{ cidr: '192.168.111.0/24' }],
      debugInfo: {
        eventsURL: EVENTS,
        logsURL: '',
        state: 'ready',
        stateInfo: 'Cluster ready to be installed',
      },
      apiVIP: '192.168.111.5',
      apiVIPs: ['192.168.111.5'],
      ingressVIP: '192.168.111.4',
      ingressVIPs: ['192.168.111.4'],
      userManagedNetworking: false,
      platformType: 'BareMetal',
      validationsInfo: {
        network: [{ id: 'api-vips-defined', status: 'success', message: 'API virtual IPs are defined.' }],
      },
      backend: {
        clusterID: CLUSTER_ID,
        kind: 'Cluster',
        state: 'ready',
        stateInfo: 'Cluster ready to be installed',
        openshiftVersion: '4.16.3',
        releaseImage: 'quay.io/openshift-release-dev/ocp-release:4.16.3-x86_64',
        cpuArchitecture: 'x86_64',
        createdAt: NOW.toISOString(),
      },
    });
    expect(status.connectivityMajorityGroups).toBeUndefined();
    expect(status.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ['SpecSynced', 'True', 'SyncOK'],
      ['RequirementsMet', 'False', 'UnapprovedAgents'],
      ['Validated', 'True', 'ValidationsPassing'],
      ['Completed', 'False', 'InstallationNotStarted'],
      ['Failed', 'False', 'InstallationNotFailed'],
      ['Stopped', 'False', 'InstallationNotStopped'],
      [
        'LastInstallationPreparationFailed',
        'False',
        'Cluster preparation has never been performed for this cluster',
      ],
    ]);
    for (const c of status.conditions ?? []) {
      expect(c.lastProbeTime).toBe('2025-03-01T10:00:00Z');
      expect(c.lastTransitionTime).toBe('2025-03-01T10:00:00Z');
    }
  });

  it('is already in the form the ACI schema produces (always-serialized fields present)', () => {
    for (const cluster of [readyCluster(), undefined]) {
      const status = viaJson(
        clusterToAciStatus(cluster, agentClusterInstall(), { now: NOW, unsyncedAgents: 0 }),
      );
      expect(agentClusterInstallStatusSchema.parse(status)).toStrictEqual(status);
    }
  });

  it('status → record → status is a fixpoint (idle reconciles write nothing)', () => {
    const agents = [boundAgent('h1', 'master'), boundAgent('h4', 'worker')];
    const aci0 = agentClusterInstall();
    const cluster = {
      ...build({ agents, aci: aci0 }),
      status: 'ready' as const,
      status_info: 'Cluster ready to be installed',
    };
    const first = viaJson(
      clusterToAciStatus(cluster, aci0, { now: NOW, unsyncedAgents: 0, eventsURL: EVENTS }),
    );
    const aci1 = { ...aci0, status: first };
    const rebuilt = build({ agents, aci: aci1, now: LATER });
    const second = clusterToAciStatus(rebuilt, aci1, {
      now: LATER,
      unsyncedAgents: 0,
      eventsURL: EVENTS.replace('t1', 't2'),
    });
    expect(second).toStrictEqual(first);
  });

  it('Hive setter: timestamps renew when status, reason or message change, else kept', () => {
    const cluster = readyCluster();
    const aci = withStatus(agentClusterInstall(), cluster);
    const changed = clusterToAciStatus(
      {
        ...cluster,
        status: 'insufficient',
        validations_info: { network: [{ id: 'x', status: 'failure', message: 'm' }] },
      },
      aci,
      { now: LATER, unsyncedAgents: 0 },
    );
    const byType = Object.fromEntries((changed.conditions ?? []).map((c) => [c.type, c]));
    // Message and reason changed; status stays False: both timestamps renewed anyway.
    expect(byType.RequirementsMet).toMatchObject({
      status: 'False',
      reason: 'ClusterNotReady',
      lastProbeTime: '2025-03-01T11:30:00Z',
      lastTransitionTime: '2025-03-01T11:30:00Z',
    });
    expect(byType.Validated?.lastTransitionTime).toBe('2025-03-01T11:30:00Z');
    // Unchanged conditions keep both.
    expect(byType.Failed).toMatchObject({
      lastProbeTime: '2025-03-01T10:00:00Z',
      lastTransitionTime: '2025-03-01T10:00:00Z',
    });
  });

  it('without a cluster: Unknown set, cleared debugInfo, everything else kept', () => {
    const aci = withStatus(agentClusterInstall(), readyCluster(), NOW, { eventsURL: EVENTS });
    const status = clusterToAciStatus(undefined, aci, {
      now: LATER,
      unsyncedAgents: 0,
      specSyncError: {
        kind: 'backend',
        message: 'ClusterImageSet ocp-4.16 not found. Please ensure the ClusterImageSet exists',
      },
    });
    expect(status.debugInfo).toEqual({ eventsURL: '', logsURL: '' });
    expect(status.backend).toEqual(aci.status?.backend);
    expect(status.apiVIPs).toEqual(['192.168.111.5']);
    const byType = Object.fromEntries((status.conditions ?? []).map((c) => [c.type, c]));
    expect(byType.SpecSynced?.reason).toBe('BackendError');
    for (const t of ['RequirementsMet', 'Validated', 'Completed', 'Failed', 'Stopped']) {
      expect(byType[t]).toMatchObject({
        status: 'Unknown',
        reason: 'NotAvailable',
        message: 'Information not available',
      });
    }
    // The state survives in status.backend, so the record comes back once the error is fixed.
    expect(build({ aci: viaJson({ ...aci, status }) }).status).toBe('ready');
  });

  it('events URL is written once, not when first seen installed; logs URL once logs exist', () => {
    const installed = { ...readyCluster(), status: 'installed' as const };
    const first = clusterToAciStatus(installed, agentClusterInstall(), {
      now: NOW,
      unsyncedAgents: 0,
      eventsURL: EVENTS,
    });
    expect(first.debugInfo.eventsURL).toBe('');
    const withLogs = {
      ...readyCluster(),
      status: 'installing' as const,
      controller_logs_collected_at: '2025-03-01T10:00:00.000Z',
    };
    const s = clusterToAciStatus(withLogs, agentClusterInstall(), {
      now: NOW,
      unsyncedAgents: 0,
      eventsURL: EVENTS,
      logsURL: LOGS,
    });
    expect(s.debugInfo).toMatchObject({ eventsURL: EVENTS, logsURL: LOGS });
    // Once written, kept even after the cluster is installed.
    const later = clusterToAciStatus(
      { ...withLogs, status: 'installed' },
      viaJson({ ...agentClusterInstall(), status: s }),
      {
        now: LATER,
        unsyncedAgents: 0,
      },
    );
    expect(later.debugInfo).toMatchObject({ eventsURL: EVENTS, logsURL: LOGS });
  });

  it('hold and unsynced agents reach the conditions', () => {
    const cluster = readyCluster();
    cluster.hosts = cluster.hosts.map((h) => ({ ...h, approved: true }));
    const held = clusterToAciStatus(cluster, agentClusterInstall(), {
      now: NOW,
      unsyncedAgents: 0,
      hold: true,
    });
    expect(held.conditions?.find((c) => c.type === 'Completed')?.reason).toBe('InstallationOnHold');
    expect(held.conditions?.find((c) => c.type === 'RequirementsMet')?.reason).toBe('ClusterIsReady');
    const unsynced = clusterToAciStatus(cluster, agentClusterInstall(), { now: NOW, unsyncedAgents: 1 });
    expect(unsynced.conditions?.find((c) => c.type === 'RequirementsMet')?.reason).toBe('UnsyncedAgents');
  });
});
